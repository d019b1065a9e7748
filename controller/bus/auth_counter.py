"""The controller's memory of the remote's AUTH counter, kept on disk so that a restart does not forget it.

A sealed reply from the remote is accepted only if its counter is above every counter accepted before; that is
what makes a reply recorded off the radio useless. Held in memory only, the rule would reset with every restart
of the table, and a recorded "next" or "undo" could be played back after a power cut. Writing every accepted
counter to the SD card (hundreds a second) is not an option, so the controller remembers *blocks*, the same
blocks the remote reserves (``seatbus.AUTH_BLOCK``, ``firmware/lib/authcounter.py``):

* before the first counter of a new block is accepted, the block's number is written (atomically, fsync'd);
* after a restart, every counter in that block or below is refused: the floor is the block's end.

A remote that kept running while the table restarted is still counting inside that block, so it is refused too;
the master then asks it to restart (``BusMaster``), and a restarted remote starts in a block above every one it
used. The file names the key it belongs to (a tag, not the key): a new pairing starts from 0.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from . import seatbus as sb


class CounterStoreError(OSError):
    """The counter file cannot be written: the controller must not accept what it could not remember."""


class CounterStore:
    def __init__(self, path: Path, key: bytes) -> None:
        self.path = Path(path)
        self.tag = sb.key_tag(key)
        self.damaged: str | None = None
        self.block = self._read()

    def _read(self) -> int:
        """The highest block accepted for this key; -1 when none (a new pairing, or no file yet)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return -1
        except (OSError, ValueError) as exc:
            # Written atomically, the file is damaged only by a failing card. Refusing the remote for ever would
            # lock the judge out and a crash would loop under systemd: the file is set aside and said, and the
            # count starts again (docs/security.md says what that costs).
            aside = self.path.with_name(self.path.name + ".damaged")
            with contextlib.suppress(OSError):
                os.replace(self.path, aside)
            self.damaged = (f"the remote's counter file {self.path} was unreadable ({exc}); "
                            f"set aside as {aside.name}")
            return -1
        if not isinstance(data, dict) or data.get("key") != self.tag or not isinstance(data.get("block"), int):
            return -1
        return int(data["block"])

    @property
    def floor(self) -> int:
        """Counters up to this one (included) are refused: they may have been accepted before a restart."""
        return (self.block + 1) * sb.AUTH_BLOCK - 1 if self.block >= 0 else 0

    def accept(self, counter: int) -> None:
        """Remember ``counter``'s block before it takes effect; raises :class:`CounterStoreError` if it cannot."""
        block = counter // sb.AUTH_BLOCK
        if block <= self.block:
            return
        write_private(self.path, json.dumps({"key": self.tag, "block": block}) + "\n")
        self.block = block


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically and durably, readable by its owner only (0600)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        raise CounterStoreError(f"cannot write {path}: {exc.strerror or exc}") from exc
