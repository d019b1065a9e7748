"""The hall's database and a table's outbox are owner-only (0600) even when the process's umask would leave them
readable by everyone (``tianhei hall`` started by hand under a login umask of 0022), as the journal is.

Found at a club: the files relied on the service unit's ``UMask=0077``; started by hand they were 0644."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.hall.outbox import Outbox
from controller.hall.store import HallStore


@pytest.fixture
def login_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _modes(path: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in path.parent.glob(path.name + "*")}


def test_a_new_hall_database_and_its_wal_are_owner_only(tmp_path: Path, login_umask: None) -> None:
    path = tmp_path / "hall" / "hall.sqlite"
    store = HallStore(path)
    assert store.take("room-1", "e1", 1, 0.0)  # a message taken: the WAL and shared memory exist now
    modes = _modes(path)
    assert "hall.sqlite-wal" in modes
    assert set(modes.values()) == {0o600}, modes
    store.close()


def test_a_new_outbox_and_its_wal_are_owner_only(tmp_path: Path, login_umask: None) -> None:
    path = tmp_path / "room-1.outbox.sqlite"
    box = Outbox(path)
    box.put("club/room/1/status", "status", {"phase": "night"})
    modes = _modes(path)
    assert "room-1.outbox.sqlite-wal" in modes
    assert set(modes.values()) == {0o600}, modes


def test_a_hall_database_left_readable_by_an_older_version_is_tightened(tmp_path: Path, login_umask: None) -> None:
    path = tmp_path / "hall.sqlite"
    HallStore(path).close()
    path.chmod(0o644)
    HallStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_outbox_that_cannot_be_made_still_says_so_in_one_line(tmp_path: Path) -> None:
    from controller.hall.outbox import OutboxError

    (tmp_path / "box").mkdir()
    with pytest.raises(OutboxError, match="cannot open the outbox"):
        Outbox(tmp_path / "box")
