"""The players of ``tianhei seat-nodes`` read their panels as people do: what the screen shows, whatever the
countdown says, recognised by drawing it with the table's own renderer."""

from __future__ import annotations

from functools import cache

import pytest

from controller.bus.display import ssd1306_bytes
from controller.bus.screen_reader import ScreenBook, Seen
from controller.bus.seat_bots import choose_next
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.screens import views as v
from controller.screens.render import render


@cache
def book(lang: str) -> ScreenBook:
    return ScreenBook(configure(load_variant("standard-2.0"), 8, {}), 8, lang)


def panel(view: v.View, lang: str = "zh") -> bytes:
    """The panel's RAM once the table has drawn ``view`` on it."""
    return ssd1306_bytes(render(view, lang).convert("1"))


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("view", "seen"), [
    (v.CheckIn(3), Seen("checkin")),
    (v.CheckIn(3, joined=True), Seen("checkin", done=True)),
    (v.TapCard(3), Seen("tap")),
    (v.TapCard(3, digital=True), Seen("tap", digital=True)),
    (v.NightChoice("kill", 5, v.Countdown(17, 30)), Seen("night", action="kill", target=5)),
    (v.NightChoice("check", None, v.Countdown(3, 120)), Seen("night", action="check", target=None)),
    (v.NightChoice("kill", 5, v.Countdown(7, 30), ((6, 5),), True), Seen("night", True, "kill", 5)),
    (v.NightChoice("kill", 2, v.Countdown(29, 30), ((6, None),)), Seen("night", action="kill", target=2)),
    (v.YourSpeech(v.Countdown(88, 120)), Seen("speech")),
    (v.YourSpeech(v.Countdown(8, 120), warning=True, last_words=True), Seen("speech")),
    (v.VoteCall(4, v.Countdown(2, 6)), Seen("vote", candidate=4)),
    (v.VoteCall(4, v.Countdown(1, 6), True, 4), Seen("vote", done=True, candidate=4)),
    (v.VoteCall(4, v.Countdown(1, 6), True, 2), Seen("vote", done=True, candidate=4)),
    (v.GameOver("good", "police", True, "standard-2.0"), Seen("over", winner="good")),
    (v.Dead(3), Seen("dead")),
    (v.Dark(), Seen("dark")),
])
def test_seat_3_reads_what_its_screen_asks_whatever_the_countdown_shows(view: v.View, seen: Seen, lang: str) -> None:
    assert book(lang).read(3, panel(view, lang)) == seen


def test_a_screen_nobody_answers_or_drawn_for_another_seat_is_not_taken_for_a_question() -> None:
    assert book("zh").read(3, panel(v.Speaking(2, v.Countdown(30, 120)))).kind == "other"
    assert book("zh").read(3, panel(v.CheckIn(4))).kind == "other"  # seat 4's check-in, not ours
    assert book("zh").read(3, b"\x00" * 10).kind == "other"  # not a panel


def test_a_screen_half_drawn_matches_nothing() -> None:
    """A screen is several frames: read between two of them it is neither the old one nor the new."""
    old, new = panel(v.NightChoice("kill", 5, v.Countdown(17, 30))), panel(v.VoteCall(4, v.Countdown(2, 6)))
    assert book("zh").read(3, new[:512] + old[512:]).kind == "other"


def test_the_members_of_a_group_point_at_the_same_seat_and_the_seed_decides_which() -> None:
    choices = {seed: choose_next(seed, "kill", 1) for seed in range(40)}
    assert set(choices.values()) == {True, False}  # the first seat or the one after it, by the seed
    assert all(choose_next(seed, "kill", 1) == c for seed, c in choices.items())  # the same every time
