"""The one error the journal and its writer thread raise: a journal file that is not ours, is damaged or cannot be
written.

A module of its own so that the journal (journal.py) and its writer (journal_writer.py), which both raise and
catch it, import it from below instead of from each other (the writer is imported by the journal).
"""

from __future__ import annotations

from pathlib import Path


class JournalError(Exception):
    """A journal file that is not ours, is damaged or cannot be written; carries the path and the problem."""

    def __init__(self, path: Path, problem: str, damaged: bool = True) -> None:
        super().__init__(f"journal {path}: {problem}")
        self.path = path
        self.problem = problem
        #: The file itself is at fault (not ours, damaged, half set up, a newer format): it may be set aside.
        #: False for a problem around it (disk full, permissions, in use, I/O): setting it aside would not help.
        self.damaged = damaged
