"""The PN532 driver and the fake PN532 against the User Manual UM0701-02 §6.2: the manual's own frame examples,
LCS/DCS for normal and extended frames, ACK, NACK and the syntax error frame, what the chip does with a corrupted
frame, the I2C status (ready) byte, and which commands the fake implements (every other one gets the error
frame, never silence)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.gpio.clock import FakeClock
from controller.gpio.fakes import FakeI2cBus
from controller.gpio.i2c import SharedBus
from controller.nfc import pn532
from controller.nfc.fakes import ERROR_FRAME, WAKE_BYTES, FakePn532, cascaded
from controller.nfc.reader import NfcError

# UM0701-02 §7.2.2 GetFirmwareVersion: the command frame and the answer of firmware 1.6.
GET_FIRMWARE_VERSION = bytes.fromhex("0000FF02FED4022A00")
FIRMWARE_1_6_ANSWER = bytes.fromhex("0000FF06FAD50332010607E800")


def i2c(chip: FakePn532) -> pn532.Pn532:
    bus = FakeI2cBus()
    bus.attach(0x24, chip, channel=1)
    seat = SharedBus(bus, 0x70).channel(1)
    return pn532.Pn532(pn532.I2cPn532Transport(seat.write, seat.read), FakeClock())


def exchange(chip: FakePn532, frame: bytes, length: int = 64) -> tuple[bytes, bytes]:
    """Write a frame over I2C, read the ACK and the answer (status bytes stripped); empty if not ready."""
    chip.on_write(frame)
    ack = chip.on_read(7)
    answer = chip.on_read(length + 1)
    return ack[1:] if ack[0] else b"", answer[1:] if answer[0] else b""


def test_the_manuals_frames_byte_for_byte() -> None:
    assert pn532.build_frame(b"\x02") == GET_FIRMWARE_VERSION
    ack, answer = exchange(FakePn532(), GET_FIRMWARE_VERSION, len(FIRMWARE_1_6_ANSWER))
    assert ack == pn532.ACK == bytes.fromhex("0000FF00FF00"), "§6.2.1.3"
    assert answer == FIRMWARE_1_6_ANSWER
    assert pn532.parse_frame(FIRMWARE_1_6_ANSWER) == bytes.fromhex("0332010607")
    assert bytes.fromhex("0000FFFF0000") == pn532.NACK, "§6.2.1.4"
    assert ERROR_FRAME == pn532.ERROR_FRAME == bytes.fromhex("0000FF01FF7F8100"), "§6.2.1.5"


@given(st.binary(min_size=1, max_size=264))
def test_lcs_and_dcs_of_every_frame_we_build(data: bytes) -> None:
    frame = pn532.build_frame(data)
    assert frame[:3] == pn532.PREAMBLE and frame[-1] == 0x00
    if len(data) + 1 <= 255:  # normal frame (§6.2.1.1)
        length, lcs, body = frame[3], frame[4], frame[5:-2]
        assert (length + lcs) & 0xFF == 0 and length == len(body)
    else:  # extended frame (§6.2.1.2): LEN LCS = FF FF, then LENM LENL LCS
        assert frame[3:5] == b"\xff\xff"
        lenm, lenl, lcs, body = frame[5], frame[6], frame[7], frame[8:-2]
        assert (lenm + lenl + lcs) & 0xFF == 0 and lenm * 256 + lenl == len(body)
    assert body[0] == 0xD4 and (sum(body) + frame[-2]) & 0xFF == 0


def test_extended_frames_both_ways() -> None:
    payload = bytes(range(256)) + bytes(range(4))  # 260 bytes: past a normal frame, within the 264 allowed
    echo = i2c(FakePn532()).call(0x00, b"\x00" + payload, answer_len=300)  # Diagnose: communication line test
    assert echo == b"\x00" + payload


@pytest.mark.parametrize("spoil", ["LCS", "DCS"])
def test_a_corrupted_frame_gets_no_ack_and_our_driver_gives_up_in_bounded_time(spoil: str) -> None:
    frame = bytearray(GET_FIRMWARE_VERSION)
    frame[4 if spoil == "LCS" else 7] ^= 0x01
    chip = FakePn532()
    assert exchange(chip, bytes(frame)) == (b"", b""), "no ACK: the host resends after 15 ms (§6.2.3)"
    assert chip.ignored == 1 and chip.commands == []


def test_the_hosts_ack_aborts_the_command_in_progress() -> None:
    chip = FakePn532()  # MxRtyPassiveActivation 0xFF after power-up: InListPassiveTarget waits for a card
    ack, answer = exchange(chip, pn532.build_frame(b"\x4a\x01\x00"))
    assert ack == pn532.ACK and answer == b"", "still looking for a card"
    chip.on_write(pn532.ACK)
    chip.card = bytes.fromhex("DEADBEEF")
    assert chip.on_read(1) == b"\x00", "aborted: no answer comes when the card does"


def test_the_hosts_nack_gets_the_last_response_again() -> None:
    chip = FakePn532()
    _, first = exchange(chip, GET_FIRMWARE_VERSION, len(FIRMWARE_1_6_ANSWER))
    chip.on_write(pn532.NACK)
    assert chip.on_read(len(first) + 1)[1:] == first == FIRMWARE_1_6_ANSWER


def test_a_garbled_answer_is_asked_for_again_with_a_nack_not_by_resending_the_command() -> None:
    chip = FakePn532()
    reader = i2c(chip)
    chip.corrupt = 1
    assert reader.firmware_version()[0] == 0x32
    assert chip.commands == [0x02], "one command: the good frame came from the NACK"


def test_the_i2c_status_byte_says_ready_before_every_frame() -> None:
    chip = FakePn532()
    assert chip.on_read(1) == b"\x00", "§6.2.4: nothing to say yet"
    chip.busy_polls = 2
    chip.on_write(GET_FIRMWARE_VERSION)
    assert [chip.on_read(1) for _ in range(2)] == [b"\x00", b"\x00"], "busy"
    assert chip.on_read(1) == b"\x01", "ready; reading the status alone does not take the frame"
    assert chip.on_read(7) == b"\x01" + pn532.ACK


def test_the_error_frame_is_the_chips_answer_not_line_noise() -> None:
    chip = FakePn532()
    reader = i2c(chip)
    with pytest.raises(pn532.Pn532SyntaxError, match=r"refused command 0x58"):
        reader.call(0x58, b"\x00")
    assert chip.commands == [0x58] and chip.unknown == [0x58], "reported at once, not sent again"


def test_our_driver_says_when_a_command_is_refused_even_if_it_knows_it() -> None:
    with pytest.raises(NfcError, match="syntax error frame"):
        i2c(FakePn532()).call(pn532.SAM_CONFIGURATION, b"\x09")  # mode 9 does not exist (§7.2.10)


def test_which_commands_the_fake_implements_and_that_the_rest_are_refused() -> None:
    assert sorted(FakePn532.IMPLEMENTED) == [0x00, 0x02, 0x04, 0x06, 0x08, 0x10, 0x12, 0x14, 0x16, 0x32, 0x40,
                                             0x42, 0x44, 0x4A, 0x52, 0x54, 0x60]
    for command in range(256):
        chip = FakePn532()
        chip.max_retries_passive = 0x01  # so that InListPassiveTarget answers at once
        params = {0x00: b"\x00", 0x06: b"\x63\x01", 0x08: b"\x63\x02\x80", 0x10: b"\x04", 0x12: b"\x14", 0x42: b"\x30\x00", 0x14: b"\x01", 0x16: b"\x20", 0x32: b"\x05\xff\x01\x01", 0x40: b"\x01\x30\x00",
                  0x44: b"\x01", 0x4A: b"\x01\x00", 0x52: b"\x01", 0x54: b"\x01",
                  0x60: b"\x01\x01\x10"}.get(command, b"")
        ack, answer = exchange(chip, pn532.build_frame(bytes([command]) + params))
        assert ack == pn532.ACK, f"command {command:#04x}: a good frame is always acknowledged"
        if command in FakePn532.IMPLEMENTED:
            assert answer[5:7] == bytes([0xD5, command + 1]), f"command {command:#04x}"
        else:
            assert answer[: len(ERROR_FRAME)] == ERROR_FRAME, f"command {command:#04x}: error frame, not silence"


def test_over_hsu_the_chip_hears_nothing_until_woken() -> None:
    chip = FakePn532()
    chip.write(GET_FIRMWARE_VERSION)
    assert chip.in_waiting == 0 and chip.ignored == 1, "power-down after reset: the frame was not heard"
    chip = FakePn532()
    reader = pn532.Pn532(pn532.UartPn532Transport(chip), FakeClock())
    assert reader.firmware_version()[0] == 0x32, "our driver sends 55 55 00 .. first"


def test_a_bare_frame_is_lost_but_wakes_the_chip_for_the_next_one() -> None:
    """§7.2.11: activity on the HSU line wakes the chip; what arrives while it wakes is lost."""
    chip = FakePn532()
    chip.write(GET_FIRMWARE_VERSION)
    assert chip.read(64) == b"" and chip.commands == []
    chip.write(GET_FIRMWARE_VERSION)
    assert chip.read(64) == pn532.ACK + FIRMWARE_1_6_ANSWER


@pytest.mark.parametrize("preamble", [bytes(10), bytes(WAKE_BYTES), b"\x55\x55" + bytes(14)],
                         ids=["ten 00 (nfcpy)", "five 00", "55 55 and fourteen 00 (libnfc, ours)"])
def test_a_long_preamble_wakes_the_chip_and_the_frame_after_it_is_heard(preamble: bytes) -> None:
    """The HSU wake-up needs no 55 55: a run of 00 before the first frame does, as nfcpy's driver sends it."""
    chip = FakePn532()
    chip.write(preamble + GET_FIRMWARE_VERSION)
    assert chip.read(64) == pn532.ACK + FIRMWARE_1_6_ANSWER


def test_a_short_preamble_is_not_enough() -> None:
    chip = FakePn532()
    chip.write(bytes(WAKE_BYTES - 3) + GET_FIRMWARE_VERSION)
    assert chip.read(64) == b"" and chip.ignored == 1


def test_nfcpys_hsu_start_as_bytes_on_the_line() -> None:
    """The bytes nfcpy's PN532 driver opens a UART reader with: ten 00, GetFirmwareVersion; ten 00,
    SAMConfiguration (normal mode, no timeout, IRQ on). Its answers are checked as nfcpy checks them."""
    chip = FakePn532()
    chip.write(bytes(10) + GET_FIRMWARE_VERSION)
    assert chip.read(6) == pn532.ACK and chip.read(64).startswith(bytes.fromhex("0000ff06fad50332"))
    chip.write(bytes(10) + bytes.fromhex("0000ff05fbd4140100001700"))
    assert chip.read(6) == pn532.ACK and chip.read(64) == bytes.fromhex("0000ff02fed5151600")
    assert chip.sam_mode == 0x01


def test_readregister_answers_the_reset_values_of_the_ciu() -> None:
    """§7.2.4: ADRH ADRL pairs in, one value each out (no status byte on the PN532). Reset values: Mode 3Bh,
    TxControl 80h (antenna drivers off), CommIRq 14h, WaterLevel 08h, RFCfg 48h, CRCResult FFFFh."""
    chip = FakePn532()
    asked = [0x6301, 0x6304, 0x6334, 0x633B, 0x6316, 0x6311, 0x6312]
    params = b"".join(a.to_bytes(2, "big") for a in asked)
    answer = exchange(chip, pn532.build_frame(b"\x06" + params))[1]
    assert pn532.parse_frame(answer) == b"\x07" + bytes([0x3B, 0x80, 0x14, 0x08, 0x48, 0xFF, 0xFF])
    assert chip.unmodelled == []


def test_writeregister_then_readregister_as_libnfc_and_nfcpy_set_the_crc_bits() -> None:
    """§7.2.5: ADRH ADRL VAL triples, an empty answer. Read-only registers keep their value; the FIFO fills
    and reads back in order; an address outside the CIU's register file is noted, never silently modelled."""
    chip = FakePn532()
    reader = i2c(chip)
    assert reader.call(0x08, bytes.fromhex("630280" "630380" "633701" "633912" "633934")) == b""
    assert reader.call(0x06, bytes.fromhex("6302" "6303" "6337" "633A" "6339" "6339")) == bytes(
        [0x80, 0x80, 0x21, 0x02, 0x12, 0x34]), "TxMode, RxMode CRC on; Status1 read-only; FIFO level, data"
    reader.call(0x06, bytes.fromhex("FFB0"))
    assert chip.unmodelled == [0xFFB0]


def test_after_inlistpassivetarget_the_ciu_is_left_as_nfcpy_reads_it() -> None:
    """nfcpy's sense_tta: no target and 26h (the unanswered REQA) in CIU_FIFOData means no tag in the field; with a
    type 2 tag listed it reads CIU_RxMode (CRC_A on, 80h) and clears the CRC bit for the tag's 4-bit ACKs."""
    chip = FakePn532()
    reader = i2c(chip)
    chip.max_retries_passive = 0x01
    assert reader.call(0x4A, b"\x01\x00") == b"\x00"
    assert reader.call(0x06, bytes.fromhex("6339")) == b"\x26", "no tag: the REQA is still in the FIFO"
    chip.card = bytes.fromhex("04a1b2c3d4e5f6")
    assert reader.call(0x4A, b"\x01\x00")[:1] == b"\x01"
    assert reader.call(0x06, bytes.fromhex("6302" "6303")) == b"\x80\x80"
    reader.call(0x08, bytes.fromhex("630300"))
    assert chip.registers[0x6303] == 0x00 and chip.unmodelled == []


@pytest.mark.parametrize("params", [b"", b"\x63", b"\x63\x01\x63"], ids=["none", "half an address", "odd"])
def test_readregister_with_a_broken_address_list_gets_the_error_frame(params: bytes) -> None:
    assert exchange(FakePn532(), pn532.build_frame(b"\x06" + params))[1][:len(ERROR_FRAME)] == ERROR_FRAME
    assert exchange(FakePn532(), pn532.build_frame(b"\x08" + params[:2]))[1][:len(ERROR_FRAME)] == ERROR_FRAME


def test_a_frame_written_in_two_parts_is_one_frame_on_hsu() -> None:
    """§6.2.1: HSU is a byte stream; where the host's writes split it does not matter to the chip."""
    chip = FakePn532()
    chip.write(b"\x55\x55\x00\x00\x00" + GET_FIRMWARE_VERSION[:4])
    assert chip.in_waiting == 0 and chip.ignored == 0
    chip.write(GET_FIRMWARE_VERSION[4:])
    assert chip.read(64) == pn532.ACK + FIRMWARE_1_6_ANSWER


def test_after_powerdown_the_chip_hears_nothing_until_woken_again() -> None:
    """§7.2.11: PowerDown is answered, then the chip sleeps; over HSU it wakes on 55 55 00 ... again."""
    chip = FakePn532()
    chip.write(b"\x55\x55\x00\x00\x00" + pn532.build_frame(b"\x16\x10"))
    assert chip.read(64)[len(pn532.ACK) + 3 : len(pn532.ACK) + 7] == bytes.fromhex("03fdd517")
    chip.write(GET_FIRMWARE_VERSION)
    assert chip.in_waiting == 0 and chip.ignored == 1
    chip.write(b"\x55\x55\x00\x00\x00" + GET_FIRMWARE_VERSION)
    assert chip.read(64) == pn532.ACK + FIRMWARE_1_6_ANSWER


@pytest.mark.parametrize("uid", ["dc4f2a91", "04a1b2c3d4e5f6", "04a1b2c3d4e5f6071829"], ids=["4", "7", "10"])
def test_inlistpassivetarget_by_uid_finds_only_that_card(uid: str) -> None:
    """§7.3.5: at 106 kbps type A the InitiatorData is the UID of the card to select, with the cascade tags
    (ISO/IEC 14443-3 §6.4.4) as libnfc and nfcpy send it: another card is no target, and so is the UID without
    its cascade tags (the chip's first cascade level would select with the wrong bytes)."""
    chip = FakePn532()
    chip.max_retries_passive = 0x01
    chip.card = bytes.fromhex(uid)
    other = bytes(chip.card[:-1]) + bytes([chip.card[-1] ^ 1])
    for wanted in (cascaded(other), chip.card) if len(chip.card) > 4 else (other,):
        _, answer = exchange(chip, pn532.build_frame(bytes.fromhex("4a0100") + wanted))
        assert answer[5:8] == bytes.fromhex("d54b00"), wanted.hex()
    _, same = exchange(chip, pn532.build_frame(bytes.fromhex("4a0100") + cascaded(chip.card)))
    assert same[5:8] == bytes.fromhex("d54b01") and same.find(chip.card) > 0


def test_the_cascade_tags_go_where_iso_14443_3_puts_them() -> None:
    assert cascaded(bytes.fromhex("dc4f2a91")).hex() == "dc4f2a91"
    assert cascaded(bytes.fromhex("04a1b2c3d4e5f6")).hex() == "8804a1b2c3d4e5f6"
    assert cascaded(bytes.fromhex("04a1b2c3d4e5f6071829")).hex() == "8804a1b288c3d4e5f6071829"


def test_a_chip_waiting_for_a_uid_lists_only_that_card_when_cards_come() -> None:
    """§7.3.5 with MxRtyPassiveActivation 0xFF: the chip keeps looking, and another card is still no target."""
    chip = FakePn532()
    wanted = bytes.fromhex("04a1b2c3d4e5f6")
    chip.on_write(pn532.build_frame(bytes.fromhex("4a0100") + cascaded(wanted)))
    assert chip.on_read(7)[1:] == pn532.ACK
    chip.card = bytes.fromhex("04a1b2c3d4e5f7")
    assert chip.on_read(1) == b"\x00", "another card: still looking"
    chip.card = wanted
    answer = chip.on_read(64)[1:]
    assert answer[5:8] == bytes.fromhex("d54b01") and answer.find(wanted) > 0


def test_inautopoll_finds_the_card_as_a_mifare_or_generic_106_kbps_target() -> None:
    """§7.3.13: PollNr, Period, then the types to poll for; each target found is Type, its length, then what
    InListPassiveTarget gives (Tg, SENS_RES, SEL_RES, NFCIDLength, NFCID). libnfc polls a PN532 with it."""
    chip = FakePn532()
    reader = i2c(chip)
    assert reader.call(0x60, bytes([0x02, 0x01, 0x10])) == b"\x00", "no card in two polls: no target"
    chip.card = CARD = bytes.fromhex("04a1b2c3d4e5f6")
    found = reader.call(0x60, bytes([0x02, 0x01, 0x11, 0x10]))  # FeliCa first, then MIFARE
    assert found == bytes([1, 0x10, 12, 1, 0x00, 0x44, 0x00, 7]) + CARD
    assert reader.call(0x60, bytes([0x02, 0x01, 0x20])) == b"\x00", "not an ISO/IEC 14443-4 card"
    assert reader.call(0x54, b"\x01") == b"\x00", "§7.3.12 InSelect: the target polled is Tg 1"
    assert reader.call(0x54, b"\x02") == b"\x27"


def test_endless_inautopoll_answers_when_the_card_comes() -> None:
    chip = FakePn532()
    chip.on_write(pn532.build_frame(bytes([0x60, 0xFF, 0x01, 0x00])))
    assert chip.on_read(7)[1:] == pn532.ACK and chip.on_read(1) == b"\x00", "still polling"
    chip.card = bytes.fromhex("dc4f2a91")
    assert pn532.parse_frame(chip.on_read(64)[1:])[:4] == bytes([0x61, 1, 0x00, 9])


def test_setserialbaudrate_setparameters_and_incommunicatethru_are_answered() -> None:
    """§7.2.8, §7.2.9, §7.3.9: commands drivers of the PN532 family send, which the chip implements."""
    chip = FakePn532()
    chip.max_retries_passive = 0x01
    chip.card = bytes.fromhex("04a1b2c3d4e5f6")
    assert exchange(chip, pn532.build_frame(b"\x10\x07"))[1][5:7] == b"\xd5\x11" and chip.baud == 921600
    assert exchange(chip, pn532.build_frame(b"\x12\x14"))[1][5:7] == b"\xd5\x13" and chip.parameters == 0x14
    exchange(chip, pn532.build_frame(b"\x4a\x01\x00"))
    answer = exchange(chip, pn532.build_frame(b"\x42\x30\x00"))[1]
    assert answer[5:8] == b"\xd5\x43\x00" and answer[8:12] == chip.card[:3] + bytes([0x88 ^ 0x04 ^ 0xA1 ^ 0xB2])
