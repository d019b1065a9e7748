"""Owner-only (0600) SQLite files for the club layer's stores (the club's records, the hall, a table's outbox),
whatever the umask of the process that opens them.

The hall's database holds who played, where and with what result; a table's outbox holds the same before it is
sent. The service units set ``UMask=0077``, but the hall and a table are also started by hand (``tianhei hall``,
``./dev table``) under a login umask of 0022, where SQLite would create a world-readable file. So the file is
created 0600 before SQLite opens it, as the journal does, and an existing one (or its WAL and shared-memory
companions, which SQLite creates with the database file's mode) is tightened to 0600.

The judge's console's private key (controller/web/certificate.py) is made the same way: the empty file is created
0600 first, then ``openssl`` writes the key into it, so the key is never readable by others, not even for a moment.
"""

from __future__ import annotations

import os
from pathlib import Path

OWNER_ONLY = 0o600


def make_private(path: str | Path) -> None:
    """Create ``path`` (empty: SQLite takes an empty file as a new database) with mode 0600 if it does not exist,
    and take group and other access away from it and its ``-wal``/``-shm`` if they have any. ``:memory:`` is left
    alone; a file owned by another user is left as it is (reading it still works)."""
    if str(path) == ":memory:":
        return
    p = Path(path)
    try:
        os.close(os.open(p, os.O_CREAT | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), OWNER_ONLY))
    except OSError:
        return  # the store's own open reports it, with its own message
    for f in (p, Path(f"{p}-wal"), Path(f"{p}-shm")):
        try:
            if f.exists() and f.stat().st_mode & 0o077:
                f.chmod(OWNER_ONLY)
        except OSError:
            pass
