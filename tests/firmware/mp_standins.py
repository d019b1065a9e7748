"""What the MicroPython scripts of the firmware tests share, pasted into each script: the scripts run under the
real MicroPython binary, which cannot import from tests/."""

import subprocess
from pathlib import Path

LIB = Path(__file__).resolve().parents[2] / "firmware" / "lib"

#: The bus as the node sees it, allocating nothing itself: the next frame's bytes, and a count of writes. Needs
#: the firmware's ``framing`` imported.
LINK = r'''
class Link:
    timed = True  # every frame's end on the line known (rs485.py)

    def __init__(self):
        self.data = None
        self.writes = 0

    def readinto(self, buf, most):
        data = self.data
        if data is None:
            return 0
        self.data = None
        framing.copy(buf, 0, data, 0, len(data))
        return len(data)

    def waiting(self):
        return self.data is not None

    def write(self, data):
        self.writes += 1

    def read_at(self):
        return 0

    def since(self, then):
        return 0

    def after(self, then, us):
        return then + us
'''

#: The link on a clock moved by hand (``now``), keeping each slotted answer's start (``answers``) and bytes (``sent``),
#: every wait begun. Needs ``Link``.
CLOCKED_LINK = r'''
class ClockedLink(Link):
    def __init__(self):
        super().__init__()
        self.now = 0
        self.answers = []
        self.sent = []

    def write_at(self, deadline, data, watch=None, latest=None, again=None):
        self.answers.append(deadline)
        self.sent.append(bytes(data))
        return True

    def since(self, then):
        return self.now - then
'''

#: A seat's hardware as the node holds it: one OK button on a pin (pulled up: ``level`` 1 is not pressed), a
#: panel if given, no LED, card reader or watchdog. Needs ``Link`` (or a subclass) for the link.
SEAT = r'''
from buttons import Debounced


class Pin:
    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


class IO:
    def __init__(self, link, pin, screen=None):
        self.link = link
        self.pin = pin
        self.buttons = [Debounced(pin, sb.BTN_OK)]
        self.led = None
        self.screen = screen
        self.reader = None
        self.wdt = None
'''

#: Seat 3, identified, in a LISTEN window of seats 1 to 4 (SEQ 7, ten rounds of ``SLOT`` and ``GAP``, begun at the
#: link's 0), presses OK and answers in its slot of round 0. Needs ``node``, ``link`` (``now``, ``answers``) and
#: ``io``; prints ``round0 True``.
SEAT_3_ANSWERS_IN_A_WINDOW = r'''
link.data = sb.encode_frame(3, 1, sb.IDENTIFY)
node.step(0)
link.data = sb.encode_frame(sb.BROADCAST, 7, sb.LISTEN, sb.encode_listen(SLOT, GAP, 10, 0, b"\x01\x02\x03\x04", []))
node.step(10)  # the window begins at the link's 0
io.pin.level = 0  # seat 3 presses OK: news for the host
link.now = 100
node.step(11)
print("round0", link.answers == [2 * SLOT])
'''

#: Seat 3 (``node``, on ``io``), identified, is given a whole new picture to draw: 32 chunks of its panel.
SEAT_3_GETS_A_WHOLE_PICTURE = r'''
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}}, io, 0)
io.link.data = sb.encode_frame(3, 1, sb.IDENTIFY)
node.step(0)
for i in range(1024):
    node.fb[i] = 0xFF
node._dirty(0, 1024)
'''


def node_script(body: str) -> str:
    """A script that runs ``body`` with the firmware's modules importable, ``framing``, ``seatbus`` (as ``sb``) and
    ``Node`` imported, and ``Link``, ``Pin`` and ``IO`` (``SEAT``) defined."""
    return f"import sys\nsys.path.insert(0, {str(LIB)!r})\nimport framing\nimport seatbus as sb\nfrom node import Node\n" + LINK + SEAT + body


def run_node_script(micropython: str, body: str, *args: str, timeout: float = 60) -> list[str]:
    """The words ``body`` (made into a :func:`node_script`) printed under the MicroPython binary, given ``args``;
    a script that fails fails the test with what it printed."""
    out = subprocess.run([micropython, "-c", node_script(body), *args], capture_output=True, text=True,
                         timeout=timeout, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout.split()
