"""Debounced buttons, eager: the first edge counts at once, and the bounce after it is ignored for
``debounce_ms``.

A player's press should reach the Pi within a few milliseconds, so waiting for the contact to settle (20 ms
before anything is reported) is time the player feels. Contact bounce only ever follows a real edge, so reporting
that edge at once and then ignoring the pin until the contact has had ``debounce_ms`` to settle gives the same one
event per press without the wait (keyboard firmware calls this eager debouncing). At the end of that quiet time
the pin is read again: if it is no longer at the level reported (a press shorter than ``debounce_ms``), the
release is reported then, so the host never sees a button stuck down. The price: a single spike of electrical
noise on an idle line counts as a press; the seat's wiring (internal pull-ups, short leads) keeps that rare, and a
spurious press is one a player could have made (the director checks every press against the game).
"""

import sys
from array import array

from mpcompat import micropython

if sys.platform == "rp2":
    import rp2pins
else:
    rp2pins = None


class Debounced:
    def __init__(self, pin, button_id, debounce_ms=20, active_low=True):
        self.pin = pin
        self.button_id = button_id
        self.debounce_ms = debounce_ms
        self.active_low = active_low
        self.pressed = False
        self._quiet_until = None  # ticks_ms until which the pin is not looked at (the bounce after an edge)

    def _level(self):
        v = self.pin.value()
        return (not v) if self.active_low else bool(v)

    @micropython.native
    def update(self, now_ms):
        """Return True (pressed), False (released) on a change, else None."""
        if self._quiet_until is not None:
            if now_ms - self._quiet_until < 0:
                return None
            self._quiet_until = None
        level = self.pin.value()
        level = (not level) if self.active_low else bool(level)  # (_level, inline: the loop's every pass)
        if level == self.pressed:
            return None
        self.pressed = level
        self._quiet_until = now_ms + self.debounce_ms
        return level

    def changed(self, now_ms):
        """Has the pin moved from the level last reported, outside the quiet time (an edge the next ``update``
        reports)? The node looks between chunks of drawing its panel, which may hold its loop 20 ms."""
        quiet = self._quiet_until
        return (quiet is None or now_ms - quiet >= 0) and self._level() != self.pressed

    def waiting(self):
        """True while the bounce after an edge is being ignored (the node should be stepped again soon, to
        look at the pin once it is over)."""
        return self._quiet_until is not None


class Bank:
    """A node's buttons read at once (rp2pins.py), so that a pass of the loop in which none moved costs one read of
    the port, not a look at each button. ``settle`` says, after the buttons were looked at, what the port should
    read while nothing happens, and until when (``wake``: the first end of a button's quiet time, whose pin is left
    out until then). Only on the RP2040 with every pin's number known (``Bank.of``: else None, and every pass looks
    at each button as before)."""

    def __init__(self, buttons, gpios):
        self.buttons = buttons
        self.bits = [1 << g for g in gpios]
        self.words = array("I", bytes(4 * rp2pins.WORDS))
        self.words[rp2pins.REG] = rp2pins.GPIO_IN
        self.wake = None
        self.settle()

    @staticmethod
    def of(buttons, gpios):
        if rp2pins is None or not buttons or len(gpios) != len(buttons):
            return None
        return Bank(buttons, gpios)

    @micropython.native
    def calm(self, now_ms):
        """No button left the level last reported, and none's quiet time is over. (A button in its quiet time
        used to make every pass look at each button for its 20 ms: 0.3 ms a pass on the emulated chip, right when
        the press's answer was on its way to its slot: benchmarks/node_path.py take.)"""
        wake = self.wake
        if wake is not None and now_ms - wake >= 0:
            return False
        return rp2pins.same(self.words)

    @micropython.native
    def settle(self):
        expect = 0
        mask = 0
        wake = None
        bits = self.bits
        for i, b in enumerate(self.buttons):
            quiet = b._quiet_until
            if quiet is not None:
                if wake is None or quiet - wake < 0:
                    wake = quiet  # its bounce is waited out: its pin is looked at again then
                continue
            mask |= bits[i]
            if b.pressed != b.active_low:  # (the pin reads high: released and pulled up, or pressed, active high)
                expect |= bits[i]
        w = self.words
        w[rp2pins.MASK] = mask
        w[rp2pins.EXPECT] = expect
        self.wake = wake
