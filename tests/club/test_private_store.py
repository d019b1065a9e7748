"""The club's records (member names, their card UIDs, every game) are owner-only (0600) even when the process's
umask would leave them readable by everyone: `tianhei records` or `./dev table` started by hand under a login
umask of 0022, not by the service with its UMask=0077."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from controller.club.store import ClubStore


def test_a_new_club_database_is_owner_only_under_a_login_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = tmp_path / "club" / "club.sqlite"
        store = ClubStore(path)
        store.db.close()
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in path.parent.glob("club.sqlite*")}
    assert modes and set(modes.values()) == {0o600}, modes
