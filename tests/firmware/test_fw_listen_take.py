"""A LISTEN's way from the line to a seat's slot (firmware 0.9.10), run under the real MicroPython binary with the
firmware's own modules: its two copies read in one burst are taken as one window, timed from the burst's end, as
two reads of them would time it; a garbled second copy is not taken for one; and a seat with news to be heard does
not scan its card reader meanwhile (firmware/PROTOCOL.md, "Where a LISTEN waits inside a Pico")."""

from __future__ import annotations

from tests.firmware.mp_standins import run_node_script

SCRIPT = r"""SLOT, GAP = 250, 1000
SEATS = b"\x01\x02\x03\x04"


class Bus(Link):
    # The link as a burst reads: its bytes, and where the burst ended on the link's clock (read_at).
    def __init__(self):
        super().__init__()
        self.end = 0
        self.answers = []

    def read_at(self):
        return self.end

    def write_at(self, deadline, data, watch=None, latest=None, again=None):
        self.answers.append(deadline)
        return True


class Reader:
    # The card reader: how often it was asked for a card (none lies on it).
    def __init__(self):
        self.scans = 0

    def scan(self):
        self.scans += 1
        return None


def copies(seq, lead=0):
    second = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, sb.encode_listen(SLOT, GAP, 10, 0, SEATS, [], lead))
    first = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN,
                            sb.encode_listen(SLOT, GAP, 10, 0, SEATS, [], len(second) * 10 + lead))  # 1 Mbaud
    return first, second


io = IO(Bus(), Pin())
link = io.link
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}}, io, 0)
link.data = sb.encode_frame(3, 1, sb.IDENTIFY)
node.step(0)
case = sys.argv[1]
lead = 1500 if case.endswith("_lead") else 0
first, second = copies(7, lead)
case = case[:-5] if lead else case
if case == "one_burst":
    link.data = first + second
    link.end = 5000  # both copies in one burst: it ended with the second
    frames = node.stats["frames"]
    node.step(10)
    span = node.span
    print("window", span is not None and span.seq == 7, "begins", span.t0 - span.skew_us,
          "frames", node.stats["frames"] - frames, "left", node.wire.pending())
elif case == "two_reads":
    link.data = first
    link.end = 5000 - len(second) * 10  # the first copy's end...
    node.step(10)
    link.data = second
    link.end = 5000  # ...and the second's
    node.step(11)
    span = node.span
    print("window", span is not None and span.seq == 7, "begins", span.t0 - span.skew_us)
elif case == "partial_twin":
    # a read under a stamp counted late: the first copy and part of the second, the read's end the answer's before
    link.data = first + second[:10]
    link.end = 3000
    untimed = node.stats["untimed"]
    node.step(10)
    print("window", node.span is not None, "untimed", node.stats["untimed"] - untimed)
    link.data = second[10:]
    link.end = 5000  # the rest of the second copy, under the LISTEN's own stamp
    node.step(11)
    span = node.span
    print("window", span is not None and span.seq == 7, "begins", span.t0 - span.skew_us)
elif case == "first_only":
    link.data = first  # the second copy lost to noise
    link.end = 5000 - len(second) * 10
    node.step(10)
    span = node.span
    print("window", span is not None and span.seq == 7, "begins", span.t0 - span.skew_us)
elif case == "answer":
    link.data = first + second
    link.end = 5000
    node.step(10)
    io.pin.level = 0  # seat 3 presses OK at once: news for the host
    link.now = 5100
    link.since = lambda then: link.now - then
    node.step(11)
    node.step(12)
    print("answers", link.answers)
elif case == "garbled_twin":
    bad = bytearray(second)
    bad[8] ^= 0x01  # a byte of the second copy flipped on the line
    link.data = first + bytes(bad)
    link.end = 5000
    node.step(10)
    span = node.span
    # The first copy's timing stands (its after_us counted from the burst's end), and the garbage is counted.
    print("window", span is not None and span.seq == 7, "begins", span.t0 - span.skew_us,
          "garbled", node.stats["crc_errors"])
elif case == "with_an_answer_after":
    # seat 3's loop was held (a collection) while the LISTEN came and then seat 4 answered in its first round:
    # one read holds both bursts, and the link knows each one's end
    answer = sb.encode_frame(4, 7, sb.EVENTS, b"\x00", True)
    link.data = first + second + answer
    link.end = 7000  # the read's last burst: seat 4's answer
    link.ends = {len(answer): 5000, 0: 7000}  # bytes after a frame -> its burst's end
    link.read_at_end = lambda left: link.ends[left]
    node.read_at_end = link.read_at_end
    node.step(10)
    span = node.span
    print("window", span is not None and span.seq == 7, "begins", span.t0 - span.skew_us)
elif case == "scan":
    reader = Reader()
    io.reader = reader
    node.step(20)
    before = reader.scans  # the first scan, at once
    io.pin.level = 0  # seat 3 presses OK: news for the host
    node.step(130)  # a scan was due at 120
    held = reader.scans == before
    node.step(161)  # the press is 31 ms old and still not heard: scan again (a host that does not ask)
    print("first", before, "held", held, "later", reader.scans == before + 1)
"""


def run(micropython: str, case: str) -> list[str]:
    return run_node_script(micropython, SCRIPT, case)


def test_seat_3_takes_a_listens_two_copies_read_together_as_one_window_from_the_bursts_end(micropython: str) -> None:
    together = run(micropython, "one_burst")
    assert together == ["window", "True", "begins", "5000", "frames", "2", "left", "0"]
    assert run(micropython, "two_reads") == together[:4]


def test_a_listens_lead_puts_the_window_after_either_copy_by_its_own_after_us(micropython: str) -> None:
    """A seat on its own chip asks for a lead (CAP_LISTEN_LEAD, firmware 0.9.11): the second copy says 1.5 ms, the
    first its own wire time and 1.5 ms, and the window begins 1.5 ms after the second copy's end however the copies
    are read (firmware/PROTOCOL.md, "A LISTEN's lead")."""
    assert run(micropython, "one_burst_lead") == ["window", "True", "begins", "6500", "frames", "2", "left", "0"]
    assert run(micropython, "two_reads_lead") == ["window", "True", "begins", "6500"]
    assert run(micropython, "first_only_lead") == ["window", "True", "begins", "6500"]
    assert run(micropython, "first_only") == ["window", "True", "begins", "5000"]


def test_a_listen_read_with_part_of_its_second_copy_waits_for_that_copy_to_time_the_window(micropython: str) -> None:
    """The copies are one burst, so a read that holds the first and part of the second went by a stamp counted
    late, whose end is the burst's before: timed from there, a seat answered 550 µs early (emulated Picos, 4 seats,
    seed 1). It waits for the second copy, read under its own stamp (firmware/PROTOCOL.md, "A stamp counted late")."""
    assert run(micropython, "partial_twin_lead") == ["window", "False", "untimed", "1",
                                                     "window", "True", "begins", "6500"]
    assert run(micropython, "partial_twin") == ["window", "False", "untimed", "1", "window", "True", "begins", "5000"]


def test_seat_3_pressing_as_a_led_window_opens_answers_in_its_first_rounds_slot(micropython: str) -> None:
    """Seat 3 (the third slot) presses 0.1 ms after the LISTEN: its slot of the first round begins 1.5 ms and two
    slots after the second copy's end, which the node takes (at 1 Mbaud); without a lead the first round's slot
    would have begun 0.5 ms after that end, before a Pico reaches its wait."""
    assert run(micropython, "answer_lead") == ["answers", f"[{5000 + 1500 + 2 * 250}]"]
    assert run(micropython, "answer") == ["answers", f"[{5000 + 2 * 250}]"]


def test_a_listen_read_with_a_later_seats_answer_is_timed_by_its_own_burst(micropython: str) -> None:
    """Timed by the read's last burst, seat 3's window began 2 ms late, and it answered in a master slot over the
    host (emulated Picos, 16 seats: firmware/PROTOCOL.md, "A LISTEN's way to the slot")."""
    assert run(micropython, "with_an_answer_after") == ["window", "True", "begins", "5000"]


def test_a_garbled_second_copy_is_not_taken_for_the_first_ones_twin(micropython: str) -> None:
    assert run(micropython, "garbled_twin") == ["window", "True", "begins", str(5000 + 220), "garbled", "1"]


def test_seat_3_with_a_press_to_be_heard_does_not_scan_its_card_reader_for_30_ms(micropython: str) -> None:
    assert run(micropython, "scan") == ["first", "1", "held", "True", "later", "True"]
