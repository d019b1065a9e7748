"""The node's allocation-free frame search (firmware/lib/framing.py) finds exactly what seatbus.Decoder finds, in
garbage, in frames cut anywhere, and on a line that goes quiet: as plain Python under CPython (hypothesis) and as
viper under the real MicroPython binary (a seeded random soak in one process). A seat's reader passes the other
nodes' answers over (``pass_nodes``): it finds the host's frames the decoder finds, and counts every frame."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.bus import seatbus as sb

LIB = Path(__file__).resolve().parents[2] / "firmware" / "lib"


def _firmware_module(name: str) -> Any:
    """``name`` from firmware/lib, as the node imports it, with firmware/lib on sys.path only for the import: left
    there, it made every later ``import mfrc522`` in the same process find the firmware's driver instead of the
    PyPI package tests/hardware checks."""
    sys.path.insert(0, str(LIB))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(LIB))


framing = _firmware_module("framing")

# The soak run under MicroPython: random frames (some garbled), garbage between them, fed in random chunks with
# the line going quiet now and then; it prints how many streams the two decoders disagreed on.
SOAK = """
import sys
sys.path.insert(0, LIB)
import random
import framing
import seatbus as sb

def frames_of_reader(chunks, quiet):
    reader = framing.FrameReader()
    if PASS:
        reader.pass_nodes()
    out = []
    for i in range(len(chunks)):
        reader.feed(chunks[i])
        if i in quiet:
            reader.idle()
        at = reader.next()
        while at >= 0:
            out.append(reader.frame(at).encode())
            at = reader.next()
    return out

def frames_of_decoder(chunks, quiet):
    dec = sb.Decoder()
    out = []
    for i in range(len(chunks)):
        got = dec.feed(chunks[i])
        if i in quiet:
            got = got + dec.idle()
        out.extend(f.encode() for f in got if not (PASS and f.from_node))
    return out

random.seed(SEED)
types = [(sb.POLL, 2), (sb.SET_LED, 3), (sb.ACK, 0), (sb.NAK, 1), (sb.DISPLAY_RLE, 40), (sb.EVENTS, 9)]
bad = 0
found = 0
for n in range(STREAMS):
    data = bytearray()
    for k in range(random.randint(1, 6)):
        if random.random() < 0.3:
            data.extend(bytes(random.getrandbits(8) for _ in range(random.randint(1, 12))))
        mtype, length = types[random.randint(0, len(types) - 1)]
        frame = bytearray(sb.encode_frame(random.randint(1, 126), random.getrandbits(8), mtype,
                                          bytes(random.getrandbits(8) for _ in range(length)), mtype >= 0x80))
        if random.random() < 0.2:
            frame[random.randint(0, len(frame) - 1)] ^= 1 << random.randint(0, 7)
        data.extend(frame)
    chunks = []
    i = 0
    while i < len(data):
        step = random.randint(1, 30)
        chunks.append(bytes(data[i : i + step]))
        i += step
    quiet = set(random.randint(0, len(chunks)) for _ in range(2))
    quiet.add(len(chunks) - 1)
    mine = frames_of_reader(chunks, quiet)
    found += len(mine)
    if mine != frames_of_decoder(chunks, quiet):
        bad += 1
print("disagreed", bad, "found", found)
"""


def reader_frames(chunks: list[bytes], quiet: bool, pass_nodes: bool = False) -> list[bytes]:
    reader = framing.FrameReader()
    if pass_nodes:
        reader.pass_nodes()
    out = []
    for chunk in chunks:
        reader.feed(chunk)
        while (at := reader.next()) >= 0:
            out.append(reader.frame(at).encode())
    if quiet:
        reader.idle()
        while (at := reader.next()) >= 0:
            out.append(reader.frame(at).encode())
    return out


def decoder_frames(chunks: list[bytes], quiet: bool) -> list[bytes]:
    dec = sb.Decoder()
    out = [f.encode() for chunk in chunks for f in dec.feed(chunk)]
    if quiet:
        out += [f.encode() for f in dec.idle()]
    return out


polls = st.builds(lambda a, s, ack: sb.encode_frame(a, s, sb.POLL, sb.encode_poll(ack)),
                  st.integers(1, 126), st.integers(0, 255), st.integers(0, 0xFFFF))
answers = st.builds(lambda a, s: sb.encode_frame(a, s, sb.EVENTS, b"\x00", True), st.integers(1, 126),
                    st.integers(0, 255))
pieces = st.lists(st.one_of(polls, answers, st.binary(max_size=12), st.just(b"\x7e")), max_size=8)


@settings(max_examples=150, deadline=None)
@given(pieces, st.lists(st.integers(1, 16), min_size=1, max_size=6), st.booleans())
def test_the_node_finds_the_frames_the_host_decoder_finds_however_the_bytes_come(
        parts: list[bytes], cuts: list[int], quiet: bool) -> None:
    data = b"".join(parts)
    chunks = []
    i = 0
    k = 0
    while i < len(data):
        chunks.append(data[i : i + cuts[k % len(cuts)]])
        i += cuts[k % len(cuts)]
        k += 1
    assert reader_frames(chunks, quiet) == decoder_frames(chunks, quiet)
    hosts = [f for f in decoder_frames(chunks, quiet) if not f[2] & sb.FROM_NODE]
    assert reader_frames(chunks, quiet, pass_nodes=True) == hosts, "a seat's reader: the host's frames"


def test_a_seat_passes_a_round_of_answers_over_and_finds_the_hosts_listen_behind_them() -> None:
    """Seat 7's wait crossed a round: fifteen seats' answers wait in its buffer before the host's LISTEN. The
    search gives the LISTEN at once, and the count of frames holds all sixteen."""
    answers = b"".join(sb.encode_frame(a, 9, sb.EVENTS, b"\x00", True) for a in range(1, 17) if a != 7)
    listen = sb.encode_frame(sb.BROADCAST, 10, sb.LISTEN, sb.encode_listen(125, 1010, 30, 16, bytes(range(1, 17)), []))
    reader = framing.FrameReader()
    reader.pass_nodes()
    reader.feed(answers + listen)
    at = reader.next()
    assert reader.frame(at).encode() == listen and reader.next() == -1
    assert reader.st[framing._FRAMES] == 16


def test_a_poll_with_no_news_is_answered_from_the_reply_made_at_boot() -> None:
    """Seat 3 is polled twice: the same buffer answers both, with each poll's SEQ and its own CRC."""
    reply = framing.Reply(3, sb.EVENTS, b"\x00")
    assert bytes(reply.ready(7)) == sb.encode_frame(3, 7, sb.EVENTS, b"\x00", True)
    assert bytes(reply.ready(8)) == sb.encode_frame(3, 8, sb.EVENTS, b"\x00", True)
    nak = framing.Reply(3, sb.NAK, b"\x00")
    assert bytes(nak.ready(9, sb.NAK_NO_STAGE)) == sb.encode_frame(3, 9, sb.NAK, bytes((sb.NAK_NO_STAGE,)), True)


@pytest.mark.parametrize("pass_nodes", [False, True], ids=["every frame", "a seat's: the host's"])
def test_viper_frame_search_agrees_with_the_decoder_under_micropython(micropython: str, pass_nodes: bool) -> None:
    script = (SOAK.replace("LIB", repr(str(LIB))).replace("SEED", "34").replace("STREAMS", "300")
              .replace("PASS", repr(pass_nodes)))
    out = subprocess.run([micropython, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    words = out.stdout.split()
    assert words[:2] == ["disagreed", "0"], out.stdout
    assert int(words[3]) > (200 if pass_nodes else 500), out.stdout  # most of the ~1000 frames are good: really tried
