"""Games for the club's tests: played by bots through the rules engine (fast) or through the director with a
journal (the table's own path)."""

from __future__ import annotations

import random
from pathlib import Path

from controller.bots import POLICIES
from controller.club.record import GameRecord, build_record
from controller.rules.events import Event
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sessions.session import Session
from controller.simulate import play


def played_events(seed: int, players: int = 12, variant: str = "standard-2.0", policy: str = "uninformed",
                  options: dict | None = None) -> list[Event]:
    config = configure(load_variant(variant), players, options or {}, talk=False)
    events: list[Event] = []
    play(config, POLICIES[policy](), random.Random(seed), record=events.append)
    return events


def a_record(seed: int = 1, members: dict[int, str] | None = None, room: str = "standard", minutes: float = 30,
             **kw) -> GameRecord:
    notes = [{"club": {"uid": f"g{seed}", "room": room, "clock": 0.0,
                       "members": {str(k): v for k, v in (members or {}).items()}}},
             {"club_end": {"clock": minutes * 60}}]
    record = build_record(played_events(seed, **kw), notes, table="t1", journal_game=seed, room=room)
    assert record is not None
    return record


def journal_game(journal_path: Path, seed: int, players: int = 12, options: dict | None = None) -> Session:
    """One whole game at the simulated table through the director, journalled at ``journal_path``."""
    config = configure(load_variant("standard-2.0"), players, options or {})
    session = Session(config, seed, "heuristic", journal_path=journal_path)
    session.start()
    session.run()
    assert session.director.stage == "over"
    return session
