"""The node's hot path reads numbers compiled in (``_NAME = const(N)``: in native code each ``module.NAME`` is two
dictionary lookups at run time, some 10 µs on the emulated chip): node.py's are seatbus's protocol numbers, and
rs485.py's are the words of rp2send.py's argument block. A number that drifted from its source would be a
protocol or a memory error no other test names."""

from __future__ import annotations

import re

from controller.bus import seatbus as sb
from tests.firmware.mp_standins import LIB

COMPILED_IN = r"^_([A-Z_]+) = const\((0x[0-9a-fA-F]+|\d+)\)"


def compiled_in(module: str) -> dict[str, int]:
    source = (LIB / module).read_text(encoding="utf-8")
    return {name: int(value, 0) for name, value in re.findall(COMPILED_IN, source, re.MULTILINE)}


def test_the_nodes_compiled_in_protocol_numbers_are_seatbuss() -> None:
    numbers = compiled_in("node.py")
    assert {"HEADER_LEN", "OVERHEAD", "EVENTS", "LISTEN", "LISTEN_WATCH_FROM_US", "LISTEN_WATCH_TO_US"} <= numbers.keys()
    wire = compiled_in("framing.py")
    for name, number in numbers.items():
        if name.startswith("WIRE_"):  # the frame reader's words (framing.py's _N ...), read from its array
            assert wire.get(name[5:]) == number, f"node.py's _{name} is {number}, framing.py's is {wire.get(name[5:])}"
            continue
        assert getattr(sb, name) == number, f"node.py's _{name} is {number}, seatbus.{name} is {getattr(sb, name)}"


def test_rs485_writes_the_words_of_rp2sends_block_where_rp2send_reads_them() -> None:
    numbers = compiled_in("rs485.py")
    rp2send = (LIB / "rp2send.py").read_text(encoding="utf-8")
    block = {name: int(value, 0)
             for name, value in re.findall(r"^([A-Z_]+) = (0x[0-9A-Fa-f]+|\d+)(?:  #.*)?$", rp2send, re.MULTILINE)}
    assert {"GO", "LATEST", "WATCH_FROM", "WATCH_TO", "AGAIN", "NEXT_FROM", "NEXT_TO", "ADVANCED"} <= numbers.keys()
    # (the link's own: its words, the UART driver's object's layout, and its sizes)
    own = ("W_", "RING_", "UART_", "RXBUF_", "FIFO_BYTES")
    numbers = {name: number for name, number in numbers.items() if not name.startswith(own)}
    for name, number in numbers.items():
        assert block.get(name) == number, f"rs485.py's _{name} is word {number}, rp2send.py's {name} is {block.get(name)}"
    assert max(v for k, v in numbers.items() if k != "ADVANCED") < block["WORDS"]
