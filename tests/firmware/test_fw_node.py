"""The real firmware (firmware/lib) on fake machine modules under the micropython binary, one node at a time."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.bus import seatbus as sb
from controller.bus.sim import SimNode, find_micropython, node_config
from controller.nfc import mfrc522 as host_mfrc522

FIRMWARE_MFRC522 = Path(__file__).resolve().parents[2] / "firmware" / "lib" / "mfrc522.py"


@pytest.fixture
def seat3(tmp_path: Path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(node_config(3)))
    node = SimNode(find_micropython(), cfg, tmp_path)
    yield node
    node.kill()


@contextmanager
def two_seat_3s(tmp_path: Path) -> Iterator[tuple[SimNode, SimNode]]:
    """Two nodes that both think they are seat 3: the same moment seen two ways."""
    seats = []
    try:
        for name in ("one", "two"):
            (tmp_path / name).mkdir()
            cfg = tmp_path / name / "config.json"
            cfg.write_text(json.dumps(node_config(3)))
            seats.append(SimNode(find_micropython(), cfg, tmp_path / name))
        yield seats[0], seats[1]
    finally:
        for seat in seats:
            seat.kill()


def frames(tx: bytes) -> list[sb.Frame]:
    return sb.Decoder().feed(tx)


def ask(node: SimNode, now: int, seq: int, mtype: int, payload: bytes = b"") -> sb.Frame:
    replies = frames(node.step(now, sb.encode_frame(3, seq, mtype, payload)))
    assert len(replies) == 1, replies
    return replies[0]


def identify(node: SimNode, now: int = 1) -> dict[str, object]:
    reply = ask(node, now, 1, sb.IDENTIFY)
    assert reply.mtype == sb.IDENTITY and reply.from_node and reply.addr == 3
    return sb.decode_identity(reply.payload)


def poll(node: SimNode, now: int, seq: int, ack: int = 0) -> list[tuple[int, int, int, bytes]]:
    reply = ask(node, now, seq, sb.POLL, sb.encode_poll(ack))
    assert reply.mtype == sb.EVENTS
    return sb.decode_events(reply.payload)


def test_seat_identifies_with_its_capabilities_and_power_on_reset(seat3: SimNode) -> None:
    ident = identify(seat3)
    assert ident["proto"] == sb.PROTOCOL_VERSION
    assert ident["role"] == sb.ROLE_SEAT
    assert ident["reset_cause"] == sb.RESET_POWER_ON
    need = sb.CAP_BUTTONS | sb.CAP_LED | sb.CAP_DISPLAY | sb.CAP_NFC | sb.CAP_WATCHDOG
    assert int(ident["caps"]) & need == need  # type: ignore[call-overload]


def test_a_rebooted_node_answers_everything_with_identity_until_identified(seat3: SimNode) -> None:
    reply = ask(seat3, 1, 9, sb.POLL, sb.encode_poll(0))
    assert reply.mtype == sb.IDENTITY and reply.seq == 9


def test_frames_for_another_seat_are_ignored(seat3: SimNode) -> None:
    assert seat3.step(1, sb.encode_frame(4, 1, sb.IDENTIFY)) == b""


def test_bouncing_ok_button_is_one_press_and_the_led_echoes_at_once(seat3: SimNode) -> None:
    identify(seat3)
    for t in range(10, 18, 2):  # contact bounce: 2 ms flips
        seat3.button("ok", t % 4 == 2)
        seat3.step(t)
    seat3.button("ok", True)
    seat3.step(20)
    seat3.step(45)
    assert seat3.led != (0, 0, 0), "local echo: the LED lights before the Pi says anything"
    events = poll(seat3, 50, 2)
    assert [(kind, data) for _, kind, _, data in events] == [(sb.EV_PRESS, bytes([sb.BTN_OK]))]
    seat3.step(300)
    assert seat3.led == (0, 0, 0), "the echo ends and the host's colour (off) comes back"


def test_the_hosts_colour_that_comes_in_the_same_step_as_a_press_is_the_one_shown(seat3: SimNode) -> None:
    """Firmware 0.9.8 lights the local echo at the end of the step, after the bus's work (three PWM writes stood
    between a press and its answer): a SET_LED read in that step is newer than the echo, and stays."""
    identify(seat3)
    seat3.button("ok", True)
    assert seat3.step(10, sb.encode_frame(3, 7, sb.SET_LED, bytes([0, 0, 255]))) != b""
    assert seat3.led == (0, 0, 255)
    seat3.button("ok", False)
    seat3.step(40)
    seat3.button("ok", True)
    seat3.step(70)
    assert seat3.led != (0, 0, 255), "a press alone is echoed in its own step"


def test_events_repeat_until_acked_then_stop(seat3: SimNode) -> None:
    identify(seat3)
    seat3.button("prev", True)
    seat3.step(10)
    seat3.step(40)
    first = poll(seat3, 50, 2)
    again = poll(seat3, 60, 3)  # the host's ACK was lost: same event again, same number
    assert [e[0] for e in first] == [e[0] for e in again] == [1]
    assert poll(seat3, 70, 4, ack=1) == []


def test_card_left_on_the_reader_is_reported_once_and_rf_noise_is_not_a_removal(seat3: SimNode) -> None:
    identify(seat3)
    seat3.card(bytes.fromhex("a1b2c3d4"))
    for t in range(10, 1000, 100):
        seat3.step(t)
    events = poll(seat3, 1000, 2)
    assert [(k, d.hex()) for _, k, _, d in events] == [(sb.EV_CARD, "a1b2c3d4")]
    seat3._ask("f 2")  # two disturbed exchanges: one scan fails (its two tries), the card is still there
    for t in range(1100, 1500, 100):
        seat3.step(t)
    assert poll(seat3, 1500, 3, ack=events[-1][0]) == []
    seat3.card(None)
    for t in range(1600, 2000, 100):
        seat3.step(t)
    gone = poll(seat3, 2000, 4, ack=events[-1][0])
    assert [(k, d.hex()) for _, k, _, d in gone] == [(sb.EV_CARD_GONE, "a1b2c3d4")]


def cards_after(node: SimNode, uid: bytes | None, start: int, seq: int, ack: int = 0) -> list[tuple[int, str]]:
    """Lay ``uid`` on the reader (None: take it away), let the node scan for a while, then poll."""
    node.card(uid)
    for t in range(start, start + 400, 100):
        node.step(t)
    return [(k, d.hex().upper()) for _, k, _, d in poll(node, start + 400, seq, ack)]


@pytest.mark.parametrize("uid", ["04E7C200000001", "04E7C2000000010203AB"], ids=["7-byte NTAG", "10-byte"])
def test_a_deck_card_with_a_long_uid_is_read_through_the_cascade_levels(seat3: SimNode, uid: str) -> None:
    identify(seat3)
    assert cards_after(seat3, bytes.fromhex(uid), 10, 2) == [(sb.EV_CARD, uid)]
    _, bad_crc, halted = seat3.reader_counters()
    assert bad_crc == 0, "every SELECT and HLTA carried a correct CRC_A"
    assert halted, "each scan ends with HLTA, and the next WUPA wakes the card again"
    assert cards_after(seat3, bytes.fromhex(uid), 500, 3, ack=1) == [], "left on the reader: reported once"
    assert cards_after(seat3, None, 1000, 4, ack=1) == [(sb.EV_CARD_GONE, uid)]


def test_an_ntag_swapped_for_a_mifare_classic_is_a_removal_then_an_arrival(seat3: SimNode) -> None:
    identify(seat3)
    assert cards_after(seat3, bytes.fromhex("04E7C200000002"), 10, 2) == [(sb.EV_CARD, "04E7C200000002")]
    events = cards_after(seat3, bytes.fromhex("A1B2C3D4"), 500, 3, ack=1)
    assert events == [(sb.EV_CARD_GONE, "04E7C200000002"), (sb.EV_CARD, "A1B2C3D4")]


def test_a_scan_stays_bounded_when_the_rf_keeps_failing(seat3: SimNode) -> None:
    identify(seat3)
    seat3.card(bytes.fromhex("04E7C200000003"))
    seat3._ask("f 1000")  # every exchange is disturbed
    before = seat3.reader_counters()[0]
    seat3.step(150)  # one scan (identify's step scanned at 1 ms; they come every 100 ms)
    assert seat3.reader_counters()[0] - before == 2, "two tries, one WUPA each: the node's loop goes on"
    seat3._ask("f 0")
    seat3.step(250)
    per_scan = seat3.reader_counters()[0] - before - 2
    assert per_scan == 1 + 2 * 2 + 1, "WUPA, two cascade levels of anticollision and SELECT, HLTA"


def test_a_retransmitted_command_is_acked_but_not_applied_twice(seat3: SimNode) -> None:
    identify(seat3)
    assert ask(seat3, 5, 7, sb.SET_LED, bytes([255, 0, 0])).mtype == sb.ACK
    assert seat3.led == (255, 0, 0)
    seat3.button("ok", True)
    seat3.step(10)
    seat3.step(40)
    echo = seat3.led
    assert echo != (255, 0, 0)
    assert ask(seat3, 45, 7, sb.SET_LED, bytes([255, 0, 0])).mtype == sb.ACK  # the same seq: our ACK was lost
    assert seat3.led == echo


def test_display_writes_land_in_the_panel_ram(seat3: SimNode) -> None:
    identify(seat3)
    assert ask(seat3, 5, 2, sb.DISPLAY, sb.encode_display(2, 10, b"\xff\x81\xff")).mtype == sb.ACK
    ram = seat3.screen()
    assert ram[2 * 128 + 10 : 2 * 128 + 13] == b"\xff\x81\xff"
    assert sum(ram) == 0xFF * 2 + 0x81


def test_run_length_coded_screen_changes_land_in_the_panel_ram(seat3: SimNode) -> None:
    """DISPLAY_RLE: what the host's encoder sends turns the node's panel into the host's picture, skipping
    what a plain DISPLAY frame put there before."""
    from controller.bus.display import rle_payloads

    assert int(identify(seat3)["caps"]) & sb.CAP_DISPLAY_RLE  # type: ignore[call-overload]
    assert ask(seat3, 5, 2, sb.DISPLAY, sb.encode_display(0, 0, b"\x0f" * 100)).mtype == sb.ACK
    before = bytearray(1024)
    before[0:100] = b"\x0f" * 100
    after = bytearray(before)
    after[50:60] = bytes(range(1, 11))  # a glyph
    after[300:1024] = b"\xff" * 724  # most of the screen lit
    payloads = rle_payloads(before, after)
    assert sum(len(p) for p in payloads) < 40
    for seq, payload in enumerate(payloads, start=3):
        assert ask(seat3, 6 + seq, seq, sb.DISPLAY_RLE, payload).mtype == sb.ACK
    assert seat3.screen() == bytes(after)


def test_seat_3_draws_its_new_screen_only_once_its_press_was_heard(seat3: SimNode) -> None:
    """node.HOLD_DRAWING_MS: on the chip a chunk of drawing holds the loop 0.74 ms, long enough for a POLL_ALL's
    slot to go by; a seat with a fresh press does not draw until the host has it."""
    identify(seat3)
    seat3.button("ok", True)
    seat3.step(10, b"", 10_000)
    assert ask(seat3, 11, 2, sb.DISPLAY, sb.encode_display(2, 10, b"\xff")).mtype == sb.ACK
    assert seat3.screen() == bytes(1024), "news first: the panel waits"
    [(event_seq, kind, _, _)] = poll(seat3, 12, 3)
    assert kind == sb.EV_PRESS
    poll(seat3, 13, 4, ack=event_seq)
    assert seat3.screen()[2 * 128 + 10] == 0xFF, "heard: drawn at once"


def test_a_press_nobody_asks_for_holds_seat_3s_panel_no_longer_than_30_ms(seat3: SimNode) -> None:
    identify(seat3)
    seat3.button("ok", True)
    seat3.step(10, b"", 10_000)
    assert ask(seat3, 11, 2, sb.DISPLAY, sb.encode_display(2, 10, b"\xff")).mtype == sb.ACK
    seat3.step(30, b"", 30_000)
    assert seat3.screen() == bytes(1024)
    seat3.step(41, b"", 41_000)
    assert seat3.screen()[2 * 128 + 10] == 0xFF


def test_a_run_length_stream_off_the_screen_is_refused_and_changes_nothing(seat3: SimNode) -> None:
    identify(seat3)
    reply = ask(seat3, 5, 2, sb.DISPLAY_RLE, sb.encode_display_rle(1020, bytes([0x85, 0xFF])))
    assert reply.mtype == sb.NAK and reply.payload[0] == sb.NAK_BAD_PAYLOAD
    assert seat3.screen() == bytes(1024)


def test_hardware_set_up_commands_from_the_host_are_refused(seat3: SimNode) -> None:
    identify(seat3)
    assert ask(seat3, 5, 2, sb.DISPLAY_CMD, bytes([0x81, 0x10])).mtype == sb.ACK  # contrast is fine
    reply = ask(seat3, 6, 3, sb.DISPLAY_CMD, bytes([0x8D, 0x10]))  # charge pump is the node's business
    assert reply.mtype == sb.NAK and reply.payload[0] == sb.NAK_BAD_PAYLOAD


def test_reset_command_is_acked_then_the_node_reports_a_soft_reset(seat3: SimNode) -> None:
    identify(seat3)
    reply = ask(seat3, 5, 2, sb.RESET, bytes([sb.RESET_MAGIC]))
    assert reply.mtype == sb.ACK
    assert identify(seat3, 10)["reset_cause"] == sb.RESET_SOFT


def test_rs485_driver_enable_is_high_whenever_the_node_talks(seat3: SimNode) -> None:
    identify(seat3)
    poll(seat3, 5, 2)
    assert seat3.errors == []


def config_refusal(tmp_path: Path, cfg: dict[str, object]) -> str:
    """What the firmware's config loader says of ``cfg`` under MicroPython (it must refuse it)."""
    import subprocess

    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    lib = Path(__file__).resolve().parents[2] / "firmware" / "lib"
    code = f"import sys; sys.path.insert(0, {str(lib)!r}); import config; config.load({str(path)!r})"
    out = subprocess.run([find_micropython(), "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    return out.stdout + out.stderr  # micropython prints tracebacks on stdout


def test_a_config_typo_names_the_key(tmp_path: Path) -> None:
    cfg = node_config(3)
    cfg["buttons"] = {"prev": 10, "next": 11, "okk": 12}
    assert "[buttons]: missing key 'ok'" in config_refusal(tmp_path, cfg)


def test_a_panel_setting_that_is_not_true_or_false_is_named_with_both_choices(tmp_path: Path) -> None:
    cfg = node_config(3)
    cfg["i2c"] = {**cfg["i2c"], "background": "no"}
    said = config_refusal(tmp_path, cfg)
    assert "[i2c]: 'background' must be true" in said
    assert "or false (each write waits for its transfer), got 'no'" in said


def test_a_reader_clock_the_mfrc522_cannot_take_is_named_with_its_range(tmp_path: Path) -> None:
    cfg = node_config(3)
    cfg["nfc"] = {**cfg["nfc"], "baud": 40_000_000}
    said = config_refusal(tmp_path, cfg)
    assert "[nfc]: 'baud' is the reader's SPI clock, 100000..10000000" in said and "got 40000000" in said


def test_a_hung_node_is_reset_by_its_watchdog_and_says_so(seat3: SimNode) -> None:
    """Issue 5: a watchdog resets a hung node; the node reports why it last reset. The node's config asks for a
    2000 ms watchdog; its main loop hangs at 1 s (nothing fed, nothing answered)."""
    identify(seat3)
    seat3.step(1000)
    seat3.hang()
    assert seat3.step(2000, sb.encode_frame(3, 2, sb.IDENTIFY)) == b""  # stuck: no answer
    assert seat3.step(2990) == b""  # 1990 ms unfed: not yet
    seat3.step(3000)  # 2000 ms unfed: the watchdog bites and the board boots again
    assert identify(seat3, 3010)["reset_cause"] == sb.RESET_WATCHDOG


def _firmware_mfrc522() -> Any:
    """The firmware's driver module under CPython (it imports nothing of ``machine`` at the top; its ``mpcompat``
    is found in firmware/lib, on sys.path for the import only: run alone, this file failed to import it)."""
    spec = importlib.util.spec_from_file_location("fw_mfrc522", FIRMWARE_MFRC522)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(FIRMWARE_MFRC522.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(FIRMWARE_MFRC522.parent))
    return module


@settings(max_examples=50)
@given(st.binary(max_size=12))
def test_the_firmwares_crc_a_is_iso_14443s(data: bytes) -> None:
    """HLTA is ``50 00 57 CD`` on every reader's wire (ISO/IEC 14443-3); the host driver's CRC_A agrees."""
    fw = FW
    assert fw.crc_a(b"\x50\x00") == b"\x57\xcd"
    assert fw.crc_a(data) == host_mfrc522.crc_a(data)


FW = _firmware_mfrc522()


def test_a_press_is_reported_at_its_first_edge_not_after_the_bounce_settles(seat3: SimNode) -> None:
    """Eager debouncing: the poll 1 ms after the finger lands already carries the press, and the bounce in the
    next 20 ms adds nothing."""
    identify(seat3)
    seat3.button("ok", True)
    seat3.step(100)
    events = poll(seat3, 101, 2)
    assert [(kind, data, age) for _, kind, age, data in events] == [(sb.EV_PRESS, bytes([sb.BTN_OK]), 1)]
    for t in range(102, 118, 2):  # the contact bounces after the edge
        seat3.button("ok", t % 4 == 0)
        seat3.step(t)
    seat3.button("ok", True)
    seat3.step(125)
    assert poll(seat3, 126, 3, ack=events[0][0]) == []


def test_a_press_shorter_than_the_bounce_time_is_still_released(seat3: SimNode) -> None:
    identify(seat3)
    seat3.button("prev", True)
    seat3.step(10)
    seat3.button("prev", False)  # let go after 5 ms, inside the quiet time
    seat3.step(15)
    seat3.step(31)
    kinds = [kind for _, kind, _, _ in poll(seat3, 32, 2)]
    assert kinds == [sb.EV_PRESS, sb.EV_RELEASE]


# --- LISTEN: answers in slots of rounds, timed on the node's microsecond clock --------------------------------
SLOT, GAP = 250, 1000
ROUND = 4 * SLOT + GAP  # four seats listed: 1, 2, 3, 4 (seat 3 has the third slot)


def listen(node: SimNode, at_us: int, seq: int, rounds: int = 10, roll: int = 0, ack: int | None = None,
           after_us: int = 0) -> bytes:
    acks = [(3, ack)] if ack is not None else []
    payload = sb.encode_listen(SLOT, GAP, rounds, roll, b"\x01\x02\x03\x04", acks, after_us)
    return node.step(at_us // 1000, sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, payload), at_us)


def test_a_press_goes_in_seat_3s_slot_of_the_next_round_and_again_each_round_until_the_host_talks(
    seat3: SimNode,
) -> None:
    identify(seat3)
    t0 = 10_000
    assert listen(seat3, t0, 7) == b"" and seat3.later == [] and seat3.wake is None, "nothing to say: silent"
    seat3.button("ok", True)
    seat3.step(11, b"", t0 + 1000)  # round 0's slot (at 500 µs) has begun: the next is round 1's
    [(delay, frame, watch)] = seat3.later
    assert delay == pytest.approx((ROUND + 2 * SLOT - 1000) / 1e6)
    assert watch == pytest.approx((0.00005, 0.0009)), "it listens across round 0's master slot for the host"
    [answer] = frames(frame)
    assert (answer.mtype, answer.seq) == (sb.EVENTS, 7)
    assert [(kind, data) for _, kind, _, data in sb.decode_events(answer.payload)] == [(sb.EV_PRESS, bytes([sb.BTN_OK]))]
    seat3.step(12, b"", t0 + ROUND + 2 * SLOT + 100)  # not acked yet: again in round 2
    [(delay, _, _)] = seat3.later
    assert delay == pytest.approx((ROUND - 100) / 1e6)
    listen(seat3, t0 + 3 * ROUND - GAP + 300, 8, ack=1)  # the host talks in a master slot: a new window, acked
    assert seat3.later == [] and seat3.wake is None


def test_the_seat_called_by_roll_answers_in_the_last_round_and_not_before(seat3: SimNode) -> None:
    identify(seat3)
    t0 = 50_000
    listen(seat3, t0, 9, rounds=5, roll=3)
    assert seat3.later == [] and seat3.wake == pytest.approx((3 * ROUND + 2 * SLOT) / 1e6)
    seat3.step(56, b"", t0 + 3 * ROUND + 2 * SLOT)
    [(delay, frame, watch)] = seat3.later
    assert delay == pytest.approx(ROUND / 1e6) and watch is not None
    [answer] = frames(frame)
    assert (answer.mtype, answer.seq, answer.payload) == (sb.EVENTS, 9, b"\x00")


def test_the_roll_call_whose_loop_came_late_to_its_last_slot_answers_at_once_while_the_window_lasts(
    tmp_path: Path,
) -> None:
    """PROTOCOL.md, "A roll call late for its last slot": nobody talks after the roll call's slot, and the host
    waits for it, so seat 3 answers 300 µs late rather than not at all (the host would poll it by name 10 ms
    later, every press of the table waiting). Past the last moment its answer still ends within the window, it
    keeps silent."""
    with two_seat_3s(tmp_path) as (late, too_late):
        t0 = 50_000
        last_slot = t0 + 4 * ROUND + 2 * SLOT  # round 4 of 5, seat 3's slot
        for seat in (late, too_late):
            identify(seat)
            listen(seat, t0, 9, rounds=5, roll=3)
        late.step(last_slot // 1000, b"", last_slot + 300)
        [(delay, frame, watch)] = late.later
        assert delay == 0 and watch is None
        [answer] = frames(frame)
        assert (answer.mtype, answer.seq, answer.payload) == (sb.EVENTS, 9, b"\x00")
        too_late.step((t0 + 5 * ROUND) // 1000, b"", t0 + 5 * ROUND - SLOT + 1)
        assert too_late.later == []


def test_a_rebooted_seat_says_in_its_first_slot_that_it_has_no_session(seat3: SimNode) -> None:
    listen(seat3, 20_000, 4)
    [(delay, frame, watch)] = seat3.later
    assert delay == pytest.approx(2 * SLOT / 1e6) and watch is None
    [answer] = frames(frame)
    assert (answer.mtype, answer.payload) == (sb.NAK, bytes([sb.NAK_NOT_IDENTIFIED]))
    seat3.step(21, b"", 20_000 + ROUND)
    assert seat3.later == [], "once a window: the host identifies it at its next master slot"


def test_any_frame_from_the_host_ends_the_window(seat3: SimNode) -> None:
    identify(seat3)
    listen(seat3, 30_000, 5)
    seat3.button("prev", True)
    seat3.step(30, sb.encode_frame(4, 6, sb.SET_LED, b"\x01\x02\x03"), 31_200)  # to seat 4, in a master slot
    assert seat3.later == [] and seat3.wake is None


def test_the_listens_second_copy_is_ignored_in_its_window_and_opens_it_for_a_seat_that_lost_the_first(
    tmp_path: Path,
) -> None:
    """The window begins when the second copy ends: the first says so (300 µs later); a seat that heard it takes no
    notice of the second, a seat that lost it starts from the second. Both aim at the same moment."""
    with two_seat_3s(tmp_path) as (heard_both, lost_first):
        for seat in (heard_both, lost_first):
            identify(seat)
            seat.button("ok", True)
        t0 = 40_000
        listen(heard_both, t0, 11, after_us=300)
        [(first, _, _)] = heard_both.later  # its slot in round 0: 500 µs after the window begins
        listen(heard_both, t0 + 300, 11)  # the second copy: the same window, nothing new
        assert heard_both.later == []
        listen(lost_first, t0 + 300, 11)
        [(second, _, _)] = lost_first.later
        assert first == pytest.approx((300 + 2 * SLOT) / 1e6) and second == pytest.approx(2 * SLOT / 1e6)


def test_a_seat_on_firmware_0_6_says_it_times_its_slots_from_the_line_and_its_press_fits_the_slot(
    seat3: SimNode,
) -> None:
    """PROTOCOL.md, "Slot timing": a 0.6 seat says SLOT_TIMED, and its press goes in its slot in one frame."""
    slot_us = sb.poll_all_slot_us(1_000_000)
    ident = identify(seat3)
    assert ident["fw"] >= (0, 6, 0)
    assert int(ident["caps"]) & sb.CAP_SLOT_TIMED  # type: ignore[call-overload]
    # ...and SLOT_EXACT: the simulator's driver starts each answer at its slot's exact moment, as firmware 0.7
    # does on the chip, so the simulated table plays with the 40 µs guard a table of Picos gets.
    assert int(ident["caps"]) & sb.CAP_SLOT_EXACT  # type: ignore[call-overload]
    seat3.button("ok", True)
    payload = sb.encode_poll_all(slot_us, 0, b"\x01\x02\x03\x04", [])
    seat3.step(20, sb.encode_frame(sb.BROADCAST, 9, sb.POLL_ALL, payload), 20_000)
    [(delay, frame, _)] = seat3.later
    assert delay == pytest.approx(2 * slot_us / 1e6), "seat 3 has the third slot"
    assert len(frame) * 10 + sb.POLL_ALL_GUARD_US <= slot_us
    [answer] = frames(frame)
    assert answer.mtype == sb.EVENTS
    assert [(kind, data) for _, kind, _, data in sb.decode_events(answer.payload)] == [(sb.EV_PRESS, bytes([sb.BTN_OK]))]


def test_seat_3_answers_a_poll_all_with_a_lead_in_its_slot_after_the_lead(seat3: SimNode) -> None:
    """PROTOCOL.md, "POLL_ALL's lead": a 0.9 seat says POLL_LEAD, and slot i begins lead_us + i * slot_us after
    the frame, time a Pico needs to take the frame before its slot."""
    slot_us = sb.poll_all_slot_us(1_000_000)
    ident = identify(seat3)
    assert ident["fw"] >= (0, 9, 0)
    assert int(ident["caps"]) & sb.CAP_POLL_LEAD  # type: ignore[call-overload]
    seat3.button("ok", True)
    payload = sb.encode_poll_all(slot_us, 0, b"\x01\x02\x03\x04", [], lead_us=1500)
    seat3.step(20, sb.encode_frame(sb.BROADCAST, 9, sb.POLL_ALL, payload), 20_000)
    [(delay, frame, _)] = seat3.later
    assert delay == pytest.approx((1500 + 2 * slot_us) / 1e6), "the lead, then seat 3's third slot"
    [answer] = frames(frame)
    assert (answer.mtype, answer.seq) == (sb.EVENTS, 9)


def test_a_poll_all_with_a_lead_round_trips_and_a_cut_lead_is_refused() -> None:
    payload = sb.encode_poll_all(125, 4, b"\x01\x02\x04", [(2, 7)], lead_us=1500)
    assert sb.decode_poll_all(payload) == (125, 4, b"\x01\x02\x04", {2: 7}, 1500)
    assert sb.decode_poll_all(sb.encode_poll_all(125, 0, b"\x01", [])) == (125, 0, b"\x01", {}, 0)
    with pytest.raises(sb.FrameError):
        sb.decode_poll_all(payload[:5])


# --- Quiet commands: applied now, confirmed in the node's slot of the next LISTEN window ---------------------
def quietly(node: SimNode, at_us: int, seq: int, mtype: int, payload: bytes) -> bytes:
    return node.step(at_us // 1000, sb.encode_frame(3, seq, mtype | sb.QUIET, payload), at_us)


def test_a_quiet_led_colour_is_lit_at_once_and_confirmed_in_seat_3s_first_slot(seat3: SimNode) -> None:
    """PROTOCOL.md, "Quiet commands": no answer to the command itself; an ACK with its SEQ in the next window."""
    ident = identify(seat3)
    assert int(ident["caps"]) & sb.CAP_QUIET  # type: ignore[call-overload]
    assert quietly(seat3, 60_000, 21, sb.SET_LED, b"\x00\x30\x00") == b"", "a quiet command is not answered"
    assert seat3.led == (0, 0x30, 0)
    listen(seat3, 60_300, 22)
    [(delay, frame, watch)] = seat3.later
    assert delay == pytest.approx(2 * SLOT / 1e6) and watch is None, "round 0, seat 3's slot"
    [answer] = frames(frame)
    assert (answer.mtype, answer.seq, answer.payload) == (sb.ACK, 21, b"")
    seat3.step(61, b"", 60_300 + ROUND)
    assert seat3.later == [], "said once: a host that missed it sends the command again"


def test_a_press_goes_before_a_confirmation_and_the_confirmation_in_the_next_round(seat3: SimNode) -> None:
    identify(seat3)
    seat3.button("ok", True)
    quietly(seat3, 70_000, 30, sb.SET_LED, b"\x10\x00\x00")
    listen(seat3, 70_300, 31)
    [(_, frame, _)] = seat3.later
    [news] = frames(frame)
    assert (news.mtype, news.seq) == (sb.EVENTS, 31), "news first"
    listen(seat3, 70_300 + ROUND - GAP + 300, 32, ack=1)  # the host acks the press in a new window
    [(_, frame, _)] = seat3.later
    [confirmation] = frames(frame)
    assert (confirmation.mtype, confirmation.seq) == (sb.ACK, 30)


def test_a_quiet_command_the_seat_refuses_is_confirmed_with_its_nak(seat3: SimNode) -> None:
    identify(seat3)
    quietly(seat3, 90_000, 50, sb.DISPLAY_RLE, b"\x03\xff\x01\x05\x05")  # two bytes into the last one
    listen(seat3, 90_300, 51)
    [(_, frame, _)] = seat3.later
    [answer] = frames(frame)
    assert (answer.mtype, answer.seq, answer.payload) == (sb.NAK, 50, bytes([sb.NAK_BAD_PAYLOAD]))


def test_a_rebooted_seat_ignores_a_quiet_command_and_says_it_has_no_session(seat3: SimNode) -> None:
    assert quietly(seat3, 95_000, 60, sb.SET_LED, b"\x30\x00\x00") == b""
    assert seat3.led != (0x30, 0, 0)
    listen(seat3, 95_300, 61)
    [(_, frame, _)] = seat3.later
    [answer] = frames(frame)
    assert (answer.mtype, answer.payload) == (sb.NAK, bytes([sb.NAK_NOT_IDENTIFIED]))
