"""Secrets stay off every page but the judge's, as a property over many random games: every message the public
socket could be sent (both languages, at every change of the board) carries the board's facts only, with no
role and no night choice before the end (C4), and never the pairing code; the judge's view goes to a paired
phone's socket only (tests/web/test_attacks.py), and it is the whole truth (every seat's role)."""

from __future__ import annotations

import asyncio
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config.settings import ConsoleSection
from controller.screens.strings import ROLES, Lang, role_name
from controller.web.console import Console
from controller.web.views import judge_view
from tests.director.helpers import session

SETUPS = [
    ("classic-1.0", 9, {}),
    ("standard-2.0", 12, {}),
    ("standard-2.0", 10, {"first_night": "recognition"}),
    ("five-identities", 9, {}),
    ("v3.0", 12, {}),
    ("v4.0", 12, {}),
    ("v7.0", 14, {}),
    ("v5.0-infernal", 13, {}),
    ("dual-card-6.0", 9, {}),
    ("dual-card-5.0", 8, {}),
]
PUBLIC_KEYS = {"gesture", "night", "day", "dead", "speaker", "seconds", "candidate", "tally", "out", "tied",
               "numbering"}
ROLE_WORDS = sorted({w for zh, en in ROLES.values() for w in (zh, en)} | set(ROLES), key=len, reverse=True)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10_000))
def test_no_public_message_carries_a_secret(setup, seed):
    variant, players, options = setup
    s = session(variant, players, seed, "heuristic", options)
    loop = asyncio.new_event_loop()  # never run: the console only reads its clock here
    try:
        console = Console(ConsoleSection(enabled=True), loop)
        s.director.board = console.board_for(None)
        console.watch(s.director)
        sent: list[tuple[bool, str]] = []
        facts = console._facts

        def record(public):
            facts(public)
            over = s.director.stage == "over" or (s.director.state is not None and s.director.state.over)
            sent.extend((over, console.message("public", lang)) for lang in ("zh", "en"))

        console.board._changed = record  # type: ignore[union-attr]
        code = console.code()
        s.start()
        s.run(max_time=100_000)
        assert s.director.stage == "over"
    finally:
        loop.close()
    assert len(sent) > 20
    for over, text in sent:
        message = json.loads(text)
        assert message["kind"] == "public" and code not in text and "pairing" not in text
        if over:
            continue
        assert set(message["board"]) <= PUBLIC_KEYS, message
        shown = " ".join(line["text"] + " ".join(line["items"]) for line in message["lines"])
        leaked = [w for w in ROLE_WORDS if w in shown or f'"{w}"' in text]
        assert not leaked, f"{leaked} in {text}"
    assert any(over for over, _ in sent), "the end was shown"


def test_the_judge_view_tells_every_role_in_the_tables_language():
    s = session("standard-2.0", 12, 7, "heuristic")
    s.start()
    s.clock.run(until=lambda: s.director.stage == "play")
    for lang in (Lang.ZH, Lang.EN):
        view = judge_view(s.director, lang)
        assert [seat["role"] for seat in view["seats"]] == [role_name(r, lang) for r in s.director.state.roles]
