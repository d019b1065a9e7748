"""Seat 5 on its own chip takes the bus's long frames in Thumb machine code (firmware 0.9.14, lib/rp2bytes.py) and
looks at its buttons with one read of the port (lib/rp2pins.py).

Each has a fallback that works, only slower, and says nothing: ``UART.readinto`` when the UART driver's object is
not laid out as ``rs485._ring_at`` checks (another MicroPython), viper's loops elsewhere, a look at each button.
So this holds that the chip's image takes the quick way: a MicroPython whose UART object changed would otherwise
cost every seat 0.3 ms of every screen frame without a word (firmware/PROTOCOL.md, "Bytes in machine code")."""

from __future__ import annotations

import json
import re
import struct
from binascii import unhexlify
from pathlib import Path

from controller.bus import seatbus as sb
from controller.bus.display import rle_payloads
from controller.nodes import firmware_build
from controller.ports import ButtonEvent
from controller.screens.render import render
from controller.screens.views import RoleReveal
from tests.firmware.test_fw_stage import deal_layout, stage_frames
from tests.nodes.test_emulated_seat import boot, exchange, table

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "firmware" / "lib"
VECTORS = json.loads((REPO / "tests" / "firmware" / "vectors.json").read_text())


def machine_code(module: str) -> list[tuple[str, str]]:
    """The frozen symbols of a module's machine-code functions, by name: mpy-cross names them by their place in
    the module (``<module>_dot_py``, ``..._dot_py2`` ...), in the order of their ``def``s."""
    names = re.findall(r"^@micropython\.(?:asm_thumb|viper)\ndef (\w+)", (LIB / f"{module}.py").read_text(), re.M)
    return [(name, f"fun_data_{module}_{module}_dot_py{'' if i == 0 else i + 1}") for i, name in enumerate(names)]


def test_seat_5_takes_a_role_screen_through_the_machine_code_and_a_press_through_one_read_of_the_port(
        tmp_path, firmware):
    symbols = firmware_build.functions(firmware_build.build().elf)
    watched = dict(machine_code("rp2bytes") + machine_code("rp2pins"))
    assert set(watched) == {"ring_take", "crc_ok", "rle_apply", "same"}
    bus, picos = boot(tmp_path, firmware, [5])
    try:
        ranges = {name: symbols[symbol] for name, symbol in watched.items()}
        bus.call({"op": "hits", "pico": 0, "ranges": [list(r) for r in ranges.values()]})
        bus_table, events = table(bus, [5])
        bus_table.run_for(0.1)
        bus_table.seats[5].display(render(RoleReveal(seat=5, role="killer", partners=(2, 9))))
        bus_table.run_for(0.3)
        picos[0].button("ok", True)
        bus_table.run_for(0.1)
        entered = {pc for _at, pc in bus.call({"op": "hits", "pico": 0, "take": True})["seen"]}
    finally:
        bus.close()
    assert [e for e in events if isinstance(e, ButtonEvent) and e.pressed], "seat 5's press was not heard"
    missed = [name for name, (start, _end) in ranges.items() if start not in entered]
    assert not missed, f"seat 5 never ran {missed} (a fallback took over: rs485.py's _ring_at, framing.py, buttons.py)"


def test_seat_5_decodes_every_run_length_vector_on_its_chip_as_the_reference_does(tmp_path, firmware):
    """tests/firmware/vectors.json's run-length cases, which hold seatbus.py and framing.py's viper to each other
    under the unix port, sent to the chip as DISPLAY_RLE: its machine code draws what they say and refuses what
    they refuse, the panel untouched."""
    bus, picos = boot(tmp_path, firmware, [5])
    panel = picos[0].screen
    try:
        assert exchange(bus, 5, 1, sb.IDENTIFY).mtype == sb.IDENTITY
        shown = bytearray(sb.SCREEN_BYTES)  # cleared at boot
        seq = 2
        for case in VECTORS["rle"]:
            filled = bytes([case["fill"]]) * sb.SCREEN_BYTES
            for payload in rle_payloads(shown, filled):
                assert exchange(bus, 5, seq, sb.DISPLAY_RLE, payload).mtype == sb.ACK
                seq += 1
            shown = bytearray(filled)
            payload = struct.pack(">H", case["offset"]) + unhexlify(case["stream"])
            assert exchange(bus, 5, seq, sb.DISPLAY_RLE, payload).mtype == sb.ACK, case["name"]
            seq += 1
            shown[case["lo"]:case["hi"]] = unhexlify(case["written"])
            bus.run(0.08)  # drawn
            assert bytes(panel.ram) == bytes(shown), case["name"]
        for case in VECTORS["rle_rejected"]:
            payload = struct.pack(">H", case["offset"]) + unhexlify(case["stream"])
            answer = exchange(bus, 5, seq, sb.DISPLAY_RLE, payload)
            seq += 1
            assert (answer.mtype, answer.payload[:1]) == (sb.NAK, bytes((sb.NAK_BAD_PAYLOAD,))), case["name"]
            bus.run(0.03)
            assert bytes(panel.ram) == bytes(shown), case["name"]
    finally:
        bus.close()


def test_seat_5_checks_a_stage_against_the_hosts_crc_on_its_chip_and_shows_only_the_one_staged(tmp_path, firmware):
    """DISPLAY_STAGED names the stage's CRC-32; on the chip the stage is checked by the frames' machine code
    (framing.crc_behind, firmware 0.9.16). The layout staged and seat 5's own number are shown; a DISPLAY_STAGED
    naming another picture is refused (NAK "no stage") and the panel keeps what it showed."""
    base = deal_layout()
    mine = bytearray(base)
    mine[700:706] = b"\x3e\x41\x41\x3e\x00\x7f"
    bus, picos = boot(tmp_path, firmware, [5])
    panel = picos[0].screen
    try:
        assert exchange(bus, 5, 1, sb.IDENTIFY).mtype == sb.IDENTITY
        for frame in stage_frames(7, base, [4, 5, 6]):
            bus.write(frame)
            bus.run(0.01)
        wrong = bytearray(base)
        wrong[0] ^= 0xFF  # a picture the seat did not stage
        own = rle_payloads(base, bytes(mine), sb.STAGED_STREAM_MAX)[0]
        refused = exchange(bus, 5, 2, sb.DISPLAY_STAGED,
                           sb.encode_display_staged(7, sb.crc32(bytes(wrong)), *sb.decode_display_rle(own)))
        assert (refused.mtype, refused.payload[:1]) == (sb.NAK, bytes((sb.NAK_NO_STAGE,)))
        bus.run(0.05)
        assert bytes(panel.ram) == bytes(sb.SCREEN_BYTES), "a refused stage is not shown"
        shown = exchange(bus, 5, 3, sb.DISPLAY_STAGED,
                         sb.encode_display_staged(7, sb.crc32(base), *sb.decode_display_rle(own)))
        assert shown.mtype == sb.ACK
        bus.run(0.1)  # drawn
        assert bytes(panel.ram) == bytes(mine)
    finally:
        bus.close()
