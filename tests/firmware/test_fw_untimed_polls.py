"""A seat answers no slot timed from a frame whose end on the line it does not know (firmware 0.9.6), run under the
real MicroPython binary with the firmware's own modules and a link that says so (rs485.py's ``timed``).

Found on emulated Picos (benchmarks/node_slots.py, 4 seats, seed 1): seat 3's answer was stamped while seat 1 was
reading, the host's LISTEN came straight after it, and seat 1 read both under the answer's stamp. Its window then
began 684 µs early, and its press went out in the host's master slot of the window before."""

from __future__ import annotations

from tests.firmware.mp_standins import CLOCKED_LINK, run_node_script

SCRIPT = CLOCKED_LINK + r"""SLOT, GAP = 250, 1000
ADDRESSES = b"\x01\x02\x03\x04"  # seat 3 has the third slot
io = IO(ClockedLink(), Pin())  # (its ``timed`` says whether the frames of the last read are)
link = io.link
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}}, io, 0)
link.data = sb.encode_frame(3, 1, sb.IDENTIFY)
node.step(0)
io.pin.level = 0  # the seat's OK button: news for the host
node.step(1)
case = sys.argv[1]
if case == "listen":
    first = sb.encode_frame(sb.BROADCAST, 7, sb.LISTEN, sb.encode_listen(SLOT, GAP, 10, 0, ADDRESSES, [], 300))
    second = sb.encode_frame(sb.BROADCAST, 7, sb.LISTEN, sb.encode_listen(SLOT, GAP, 10, 0, ADDRESSES, []))
    link.timed = False
    link.data = first
    node.step(10)
    print("untimed", node.span is None and link.answers == [] and node.stats["untimed"] == 1)
    link.timed = True  # the second copy, read under its own stamp
    link.data = second
    node.step(11)
    print("second", node.span is not None and node.span.seq == 7 and link.answers == [2 * SLOT])
else:
    queued = len(node.queue)
    link.timed = False
    link.data = sb.encode_frame(sb.BROADCAST, 9, sb.POLL_ALL, sb.encode_poll_all(SLOT, 3, ADDRESSES, [(3, 0)]))
    node.step(10)
    print("untimed", link.answers == [] and node.stats["untimed"] == 1 and len(node.queue) == queued)
    link.timed = True
    link.data = sb.encode_frame(sb.BROADCAST, 10, sb.POLL_ALL, sb.encode_poll_all(SLOT, 3, ADDRESSES, [(3, 0)]))
    node.step(11)
    print("next", link.answers == [2 * SLOT])
"""


def test_seat_3_answers_in_no_slot_of_a_listen_it_cannot_time_and_in_its_second_copys(micropython: str) -> None:
    assert run_node_script(micropython, SCRIPT, "listen") == ["untimed", "True", "second", "True"]


def test_seat_3_answers_in_no_slot_of_a_poll_all_it_cannot_time_and_in_the_next(micropython: str) -> None:
    assert run_node_script(micropython, SCRIPT, "poll_all") == ["untimed", "True", "next", "True"]
