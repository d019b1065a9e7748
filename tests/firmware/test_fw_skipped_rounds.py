"""A seat that skipped rounds of a LISTEN window reads what waits before it answers again (firmware 0.9.5), run
under the real MicroPython binary with the firmware's own modules and a link whose bytes the node has not read yet.

Found on emulated Picos (firmware/PROTOCOL.md, "A stale answer two rounds on"): seats 1, 3 and 4 answered in round
r, the host acked them with a new LISTEN in the master slot before round r+1, and all three, busy drawing through
round r+1, answered again in round r+2 of the old window. The look before the wait (rs485.py's ``write_at``) and
the machine-code watch only see the master slot just before the round answered in; the host had spoken in the one
before that. Those answers ended the new window for every seat, and its roll call came 100 ms later."""

from __future__ import annotations

from tests.firmware.mp_standins import SEAT_3_ANSWERS_IN_A_WINDOW, run_node_script

SCRIPT = r"""SLOT, GAP = 250, 1000
ROUND = 4 * SLOT + GAP  # seats 1, 2, 3 and 4: seat 3 has the third slot


class Bus(Link):
    # The link on a clock moved by hand, with bytes that came in while the node was busy (``unread``): they wait
    # in the UART, and the step's read has not got to them yet.
    def __init__(self):
        super().__init__()
        self.now = 0
        self.unread = False
        self.answers = []
        self.agains = []  # what each wait was offered if its slot had gone by: the next round's (round_us, watch)
        self.outcomes = []
        self.arriving = None

    def waiting(self):
        return self.unread or self.data is not None or self.arriving is not None

    def readinto(self, buf, most):
        if self.arriving is not None:  # still coming in when the step's read looked: the next read takes it
            self.data, self.arriving = self.arriving, None
            return 0
        return super().readinto(buf, most)

    def since(self, then):
        return self.now - then

    def write_at(self, deadline, data, watch=None, latest=None, again=None):
        # True: sent in its slot; None: the loop came to the wait after the slot had begun (not sent); 2: the wait
        # found the slot gone by and took the next round's (again)
        self.answers.append(deadline)
        self.agains.append(again)
        return self.outcomes.pop(0) if self.outcomes else True


io = IO(Bus(), Pin())
link = io.link
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}}, io, 0)
""" + SEAT_3_ANSWERS_IN_A_WINDOW + r"""
case = sys.argv[1]
if case == "skipped":
    # busy through round 1; in round 2 bytes wait that came in the master slots since
    link.now = 2 * ROUND + 100
    link.unread = True
    node.step(20)
    print("held", len(link.answers) == 1)
    link.unread = False  # they were the host's new LISTEN
    link.data = sb.encode_frame(sb.BROADCAST, 8, sb.LISTEN,
                                sb.encode_listen(SLOT, GAP, 10, 0, b"\x01\x02\x03\x04", [(3, 1)]))
    node.step(21)
    print("new_window", node.span is not None and node.span.seq == 8)
elif case == "peer":
    # seat 1's answer of round 1 came in after the step's read: read in place, and seat 3 answers in round 2 in the
    # same step
    link.now = 2 * ROUND + 100
    link.arriving = sb.encode_frame(1, 7, sb.EVENTS, b"\x00", True)
    node.step(20)
    print("answered", link.answers == [2 * SLOT, 2 * ROUND + 2 * SLOT] and link.data is None)
elif case == "missed":
    # its answer in round 1 missed its slot (the loop came to the wait too late), so the master slot before
    # round 2 is the first it watches: the one before round 1 went by unwatched
    link.outcomes = [None]
    link.now = 4 * SLOT + 100
    node.step(20)
    link.now = ROUND + 4 * SLOT + 100
    link.unread = True
    node.step(21)
    print("held", link.answers == [2 * SLOT, ROUND + 2 * SLOT])
elif case == "advanced":
    # its wait found round 1's slot gone by and took round 2's (rs485.py's write_at, firmware 0.9.8): round 2 is
    # answered, and its master slot was watched by the wait, so the next answer is round 3's with no read first
    link.outcomes = [2]
    link.now = 4 * SLOT + 100
    node.step(20)
    link.now = 2 * ROUND + 4 * SLOT + 100
    link.unread = True
    node.step(21)
    print("next_round", link.answers == [2 * SLOT, ROUND + 2 * SLOT, 3 * ROUND + 2 * SLOT]
          and link.agains[1] == (ROUND, 2 * ROUND - GAP + 50, 2 * ROUND - 100))
elif case == "master_slot_over":
    # round 1's master slot is over when the seat comes round: its wait would watch none
    link.now = ROUND + 100
    link.unread = True
    node.step(20)
    print("held", len(link.answers) == 1)
else:
    # in round 1's master slot: the wait watches the rest of it, and what waits there is for the watch
    link.now = 4 * SLOT + 100
    link.unread = True
    node.step(20)
    print("answered", link.answers == [2 * SLOT, ROUND + 2 * SLOT])
"""


def run(micropython: str, case: str) -> list[str]:
    return run_node_script(micropython, SCRIPT, case)


def test_seat_3_busy_through_a_round_reads_what_waits_before_answering_in_the_old_window(micropython: str) -> None:
    assert run(micropython, "skipped") == ["round0", "True", "held", "True", "new_window", "True"]


def test_seat_3_reads_another_seats_answer_first_and_still_answers_in_the_same_round(micropython: str) -> None:
    assert run(micropython, "peer") == ["round0", "True", "answered", "True"]


def test_seat_3_whose_last_answer_missed_its_slot_reads_what_waits_first(micropython: str) -> None:
    assert run(micropython, "missed") == ["round0", "True", "held", "True"]


def test_seat_3_whose_wait_took_the_next_rounds_slot_answers_next_in_the_round_after(micropython: str) -> None:
    """The wait is offered the same slot a round on, with the master slot before it to watch: when it took that
    one, the node counts that round as answered and watched."""
    assert run(micropython, "advanced") == ["round0", "True", "next_round", "True"]


def test_seat_3_coming_round_after_the_master_slot_reads_what_waits_first(micropython: str) -> None:
    assert run(micropython, "master_slot_over") == ["round0", "True", "held", "True"]


def test_seat_3_answers_in_the_very_next_round_with_bytes_waiting(micropython: str) -> None:
    """The rest of round 1's master slot is watched by the wait itself (rs485.py): no read first, no round lost."""
    assert run(micropython, "next") == ["round0", "True", "answered", "True"]
