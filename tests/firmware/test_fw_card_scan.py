"""A seat's card scan stepped by its loop (firmware 0.9.15), run under the real MicroPython binary with the
firmware's own modules: the scan begins, the loop goes on while the chip is at it, one look at the chip a
millisecond finds the answer, and a chip that never says ends the scan as no card (firmware/PROTOCOL.md, "A press's
way to its slot")."""

from __future__ import annotations

from tests.firmware.mp_standins import run_node_script

# Seat 3 with the script's Reader on its card reader, identified by the host.
SEAT_3 = r"""reader = Reader()
link = Link()
io = IO(link, Pin())
io.reader = reader
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}}, io, 0)
link.data = sb.encode_frame(3, 1, sb.IDENTIFY)
"""

SCRIPT = r"""class Reader:
    # A card reader whose chip takes its time: begin() puts the WUPA on the air; poll() says None until the card's
    # UID (or b"": no card) is ``ready``.
    def __init__(self):
        self.begun = 0
        self.looks = 0
        self.ready = None

    def begin(self, tries=2):
        self.begun += 1

    def poll(self):
        self.looks += 1
        return self.ready

    def unanswered(self):
        return False


""" + SEAT_3 + r"""node.step(0)  # the first scan begins at once
for t in range(1, 6):
    node.step(t)
    node.step(t)  # (a second pass in the same millisecond does not look again)
print("begun", reader.begun, "looks", reader.looks, "scanning", node.scanning)
case = sys.argv[1]
if case == "card":
    reader.ready = b"\x04\xe7\xc2\x00\x00\x00\x01"
    node.step(6)
    print("scanning", node.scanning, "card", node.card.hex(), "queued", [e[1] for e in node.queue])
else:
    for t in range(6, 60):
        node.step(t)
    print("scanning", node.scanning, "looks", reader.looks, "card", node.card)
"""


def run(micropython: str, case: str) -> list[str]:
    return run_node_script(micropython, SCRIPT, case)


def test_seat_3s_loop_goes_on_while_its_reader_is_at_a_scan_and_looks_once_a_millisecond(micropython: str) -> None:
    """The scan began at 0 and the chip has said nothing by 5 ms: six looks (one as it began, one a millisecond
    since), and the card laid on the reader meanwhile is reported at the next look (EV_CARD, 3)."""
    assert run(micropython, "card") == ["begun", "1", "looks", "6", "scanning", "True",
                                        "scanning", "False", "card", "04e7c200000001", "queued", "[3]"]


def test_a_reader_that_never_answers_ends_its_scan_after_50_ms_as_no_card(micropython: str) -> None:
    """An unplugged reader, or one whose timer does not run: the scan is over after SCAN_MS, with no card and no
    event, and the next scan comes at its time."""
    assert run(micropython, "none") == ["begun", "1", "looks", "6", "scanning", "True",
                                        "scanning", "False", "looks", "51", "card", "None"]


WUPA_SCRIPT = r"""class Reader:
    # A reader whose WUPA nobody answers: it says so (unanswered) from the second look on, and its timer ends the
    # try 15.5 ms after it began.
    def __init__(self):
        self.looks = []

    def begin(self, tries=2):
        self.began = 0

    def poll(self):
        self.looks.append(now[0])
        return b"" if now[0] - self.began >= 16 else None

    def unanswered(self):
        return len(self.looks) > 1


now = [0]
""" + SEAT_3 + r"""for t in range(0, 40):
    now[0] = t
    node.step(t)
print("looks", ",".join(str(t) for t in reader.looks), "scanning", node.scanning, "card", node.card)
"""


def test_a_wupa_no_card_answered_is_looked_at_again_when_the_chips_timer_runs_out_not_every_millisecond(
        micropython: str) -> None:
    """mfrc522.unanswered (firmware 0.9.16): the look as the scan began, one a millisecond later, and the next at
    the chip's 15.5 ms timer, which ends the try: three looks, not sixteen, each a pass's SPI exchange."""
    assert run_node_script(micropython, WUPA_SCRIPT, "") == ["looks", "0,1,16", "scanning", "False", "card",
                                                             "None"]
