"""One write transaction on a SQLite connection in autocommit mode (``isolation_level=None``), for the stores that
must write a thing once or not at all (the club's games, the league's games and people).

``BEGIN IMMEDIATE`` takes the write lock at the start, so two writers wait for each other (``timeout``) instead
of one failing half-way; anything raised inside (also a KeyboardInterrupt) rolls the whole transaction back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
