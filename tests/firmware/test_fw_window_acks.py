"""Acks inside a LISTEN window (firmware 0.9.9, CAP_WINDOW_ACKS), run under the real MicroPython binary with the
firmware's own modules: the host acks news with WINDOW_ACKS in a master slot and the window goes on, so a seat
that presses a moment later answers in the same window instead of waiting for the host's new LISTEN and a Pico's
two milliseconds to take it (firmware/PROTOCOL.md, "Acks inside the window")."""

from __future__ import annotations

from tests.firmware.mp_standins import SEAT_3_ANSWERS_IN_A_WINDOW, run_node_script

SCRIPT = r"""SLOT, GAP = 250, 1000
ROUND = 4 * SLOT + GAP  # seats 1, 2, 3 and 4: seat 3 has the third slot
SEATS = b"\x01\x02\x03\x04"


class Bus(Link):
    # The link on a clock moved by hand; each wait says what the answer in its slot came to (``outcomes``:
    # True sent, False the host spoke in the master slot the wait watched).
    def __init__(self):
        super().__init__()
        self.now = 0
        self.answers = []
        self.outcomes = []

    def since(self, then):
        return self.now - then

    def write_at(self, deadline, data, watch=None, latest=None, again=None):
        self.answers.append(deadline)
        return self.outcomes.pop(0) if self.outcomes else True


def acks(seq, pairs):
    return sb.encode_frame(sb.BROADCAST, seq, sb.WINDOW_ACKS, sb.encode_window_acks(pairs))


io = IO(Bus(), Pin())
link = io.link
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}}, io, 0)
""" + SEAT_3_ANSWERS_IN_A_WINDOW + r"""
print("caps", bool(node._caps() & sb.CAP_WINDOW_ACKS))
case = sys.argv[1]
if case == "acked":
    # the host acks seat 3's press in the master slot before round 1: the window goes on, and nothing is said
    link.now = 4 * SLOT + 300
    link.data = acks(7, [(3, 1)])
    node.step(20)
    print("kept", node.span is not None and node.span.seq == 7 and not node.queue and len(link.answers) == 1)
    # seat 3 lets go in round 1: answered in round 2 of the same window
    io.pin.level = 1
    link.now = ROUND + 4 * SLOT + 100
    node.step(40)
    print("same_window", link.answers == [2 * SLOT, 2 * ROUND + 2 * SLOT])
elif case == "held":
    # seat 3's wait for round 1 hears the host in the master slot before it: held until that frame is read
    link.outcomes = [False]
    link.now = 4 * SLOT + 100
    node.step(20)
    link.now = 4 * SLOT + 200
    node.step(21)
    print("held", link.answers == [2 * SLOT, ROUND + 2 * SLOT] and node.span is not None and node.span.held)
    # ...it was acks for seat 1: seat 3 answers in round 1 after all, its slot not yet begun
    link.now = ROUND + 100
    link.data = acks(7, [(1, 5)])
    node.step(22)
    print("answered", link.answers == [2 * SLOT, ROUND + 2 * SLOT, ROUND + 2 * SLOT])
elif case == "new_window":
    # ...it was the host's new LISTEN (a host before 0.9.9, or one with more to say): a new window
    link.outcomes = [False]
    link.now = 4 * SLOT + 100
    node.step(20)
    link.data = sb.encode_frame(sb.BROADCAST, 8, sb.LISTEN, sb.encode_listen(SLOT, GAP, 10, 0, SEATS, []))
    link.now = ROUND + 100  # the new window's time 0
    node.step(21)
    print("new", node.span.seq == 8 and not node.span.held)
elif case == "other_window":
    # acks with another window's SEQ: the host is in a window this node did not hear begin
    link.now = 4 * SLOT + 300
    link.data = acks(6, [(3, 1)])
    node.step(20)
    print("ended", node.span is None and len(node.queue) == 1)
"""


def run(micropython: str, case: str) -> list[str]:
    return run_node_script(micropython, SCRIPT, case)


def test_seat_3_acked_in_a_master_slot_keeps_its_window_and_answers_its_next_change_in_it(micropython: str) -> None:
    assert run(micropython, "acked") == ["round0", "True", "caps", "True", "kept", "True", "same_window", "True"]


def test_seat_3_whose_wait_heard_the_host_says_nothing_until_it_reads_acks_for_seat_1_then_answers(
        micropython: str) -> None:
    assert run(micropython, "held") == ["round0", "True", "caps", "True", "held", "True", "answered", "True"]


def test_seat_3_whose_wait_heard_a_new_listen_answers_in_the_new_window(micropython: str) -> None:
    assert run(micropython, "new_window") == ["round0", "True", "caps", "True", "new", "True"]


def test_acks_of_a_window_seat_3_is_not_in_end_its_own(micropython: str) -> None:
    assert run(micropython, "other_window") == ["round0", "True", "caps", "True", "ended", "True"]
