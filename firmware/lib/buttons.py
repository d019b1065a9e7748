"""Debounced buttons: a level must hold for ``debounce_ms`` before it counts, so contact bounce never turns
one press into two (and one press is one event on the bus)."""


class Debounced:
    def __init__(self, pin, button_id, debounce_ms=20, active_low=True):
        self.pin = pin
        self.button_id = button_id
        self.debounce_ms = debounce_ms
        self.active_low = active_low
        self.pressed = False
        self._candidate = False
        self._since = None

    def _level(self):
        v = self.pin.value()
        return (not v) if self.active_low else bool(v)

    def update(self, now_ms):
        """Return True (pressed), False (released) on a settled change, else None."""
        level = self._level()
        if level == self.pressed:
            self._since = None
            return None
        if self._since is None or level != self._candidate:
            self._candidate = level
            self._since = now_ms
        if now_ms - self._since >= self.debounce_ms:
            self.pressed = level
            self._since = None
            return level
        return None

    def waiting(self):
        """True while a change is being confirmed (the node should be stepped again soon)."""
        return self._since is not None
