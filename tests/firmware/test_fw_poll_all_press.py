"""A press that comes after a seat took a POLL_ALL, before its slot, is answered in that slot (firmware 0.9.12), run
under the real MicroPython binary with the firmware's own modules and a link on a clock moved by hand.

A seat with nothing to say when it took the POLL_ALL used to let the window go; its press then waited for the
window's end, the host's commands and the next poll: 6-9 ms in benchmarks/bus_timing.py's simulated game at 16
seats, where the slots lie up to a lead and fifteen slots (2-4 ms) after the frame (firmware/PROTOCOL.md, "A press
after the POLL_ALL")."""

from __future__ import annotations

from tests.firmware.mp_standins import CLOCKED_LINK, run_node_script

SCRIPT = CLOCKED_LINK + r"""SLOT, LEAD = 165, 1500
ADDRESSES = b"\x01\x02\x03\x04"  # seat 3 has the third slot: LEAD + 2 * SLOT after the frame's end
io = IO(ClockedLink(), Pin())
link = io.link
node = Node({"role": "seat", "address": 3, "uart": {"baud": 2000000}}, io, 0)
link.data = sb.encode_frame(3, 1, sb.IDENTIFY)
node.step(0)
case = sys.argv[1]
link.data = sb.encode_frame(sb.BROADCAST, 9, sb.POLL_ALL, sb.encode_poll_all(SLOT, 0, ADDRESSES, [], LEAD))
node.step(10)  # nothing to say yet: no answer planned
print("quiet", link.answers == [])
slot = LEAD + 2 * SLOT
if case == "before_slot":
    link.now = slot - 400  # seat 3 presses OK while the seats before it answer
    io.pin.level = 0
    node.step(11)
    print("answered", link.answers == [slot] and link.sent[0][4] == sb.EVENTS and link.sent[0][3] == 9)
elif case == "after_slot":
    link.now = slot + 50  # its slot has begun: answering now would talk over the next seat's
    io.pin.level = 0
    node.step(11)
    print("answered", link.answers == [])
elif case == "host_spoke":
    link.now = slot + 3000  # the window is over and the host sends a screen to seat 2
    link.data = sb.encode_frame(2, 10, sb.SET_LED, bytes((1, 2, 3)))
    node.step(11)
    io.pin.level = 0
    link.now = slot - 400  # (a clock that said the slot is still ahead would not bring an answer either)
    node.step(12)
    print("answered", link.answers == [] and node.span is None)
else:  # "own_command": the next frame is a command to this seat (an LED it has not: NAK), answered at once
    link.now = slot + 3000
    writes = link.writes
    link.data = sb.encode_frame(3, 10, sb.SET_LED, bytes((1, 2, 3)))
    node.step(11)
    print("answered", node.span is None and link.writes == writes + 1)
"""


def test_seat_3_presses_after_taking_the_poll_all_and_answers_in_its_slot(micropython: str) -> None:
    assert run_node_script(micropython, SCRIPT, "before_slot") == ["quiet", "True", "answered", "True"]


def test_seat_3_presses_once_its_slot_has_begun_and_says_nothing_in_it(micropython: str) -> None:
    assert run_node_script(micropython, SCRIPT, "after_slot") == ["quiet", "True", "answered", "True"]


def test_the_host_talking_after_the_poll_all_ends_seat_3s_slot(micropython: str) -> None:
    assert run_node_script(micropython, SCRIPT, "host_spoke") == ["quiet", "True", "answered", "True"]


def test_a_command_to_seat_3_after_the_poll_all_is_answered_at_once(micropython: str) -> None:
    assert run_node_script(micropython, SCRIPT, "own_command") == ["quiet", "True", "answered", "True"]
