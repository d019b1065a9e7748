"""hardware/system-test/bus-8-tty.toml moved from the VM's PL011 onto a host pty, for the runs that play its game
without the VM (the host tests, the system test's uncut reference game)."""

from __future__ import annotations

import json
from pathlib import Path

PROFILE = Path(__file__).resolve().parents[2] / "hardware" / "system-test" / "bus-8-tty.toml"


def write_on_pty(where: Path, pty: Path) -> Path:
    """The profile with ``pty`` for its port, written in ``where``. A pty has no RS-485 mode, so RTS does not turn
    the line there: ``direction = "auto"``, as for a USB adapter."""
    text = PROFILE.read_text(encoding="utf-8")
    for old, new in (('"/dev/ttyAMA0"', json.dumps(str(pty))), ('direction = "rts"', 'direction = "auto"')):
        if old not in text:
            raise ValueError(f"{PROFILE} no longer says {old}: update tests/system/tty_profile.py")
        text = text.replace(old, new)
    out = where / PROFILE.name
    out.write_text(text, encoding="utf-8")
    return out
