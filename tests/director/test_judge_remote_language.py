"""The remote speaks the table's language: every screen the judge's remote shows during whole games, in Chinese
and in English, is in that language (no "night 1/0 … kill" on a Chinese table) and fits its panel with every
glyph whole (strict rendering: nothing cut, nothing missing)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

import pytest

from controller.director.judge_commands import COMMANDS
from controller.ports import RemoteKey
from controller.rules.variant import builtin_ids, load_variant
from controller.screens import strings
from controller.screens import views as v
from controller.screens.render import render
from tests.director.helpers import ScriptedTable, session

#: Latin words a Chinese screen may show: the seat button's name.
ALLOWED_LATIN = {"OK"}


def texts(view: object, lang: str) -> Iterator[str]:
    """Every piece of text a view carries, in ``lang``."""
    if isinstance(view, v.L10n):
        yield view.zh if lang == "zh" else view.en
    elif isinstance(view, str):
        yield view
    elif isinstance(view, tuple):
        for item in view:
            yield from texts(item, lang)
    elif dataclasses.is_dataclass(view):
        for f in dataclasses.fields(view):
            yield from texts(getattr(view, f.name), lang)


def latin_words(view: v.View) -> set[str]:
    return {w for t in texts(view, "zh") for w in re.findall(r"[A-Za-z_]{2,}", t)} - ALLOWED_LATIN


def watch_remote(director) -> list[v.View]:
    shown: list[v.View] = []
    draw = director.remote.display

    def seen(view: v.View) -> None:
        shown.append(view)
        draw(view)

    director.remote.display = seen
    return shown


@pytest.mark.parametrize("variant", ["standard-2.0", "v3.0", "v4.0", "v7.0", "dual-card-5.0"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_whole_game_on_the_remote_is_in_the_tables_language_and_fits(variant: str, lang: str) -> None:
    s = session(variant, 8 if variant.startswith("dual") else 12, seed=4, lang=lang)
    shown = watch_remote(s.director)
    s.start()
    s.run(max_time=100_000)
    assert s.director.stage == "over" and len(shown) > 20
    for view in {repr(x): x for x in shown}.values():
        render(view, lang, strict=True, label=s.director.label)  # raises on a cut or missing glyph
        if lang == "zh":
            assert not latin_words(view), f"English on a Chinese table: {latin_words(view)} in {view}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_command_screen_is_in_the_tables_language_and_fits(lang: str) -> None:
    """The menu, the value being chosen, the question and the outcome, for every command open in a day."""
    t = ScriptedTable("standard-2.0", "K K P P C C C C", lang=lang)
    shown = watch_remote(t.director)
    t.deal()
    t.first_night(kill=8, check=5)
    t.until_wait()
    for name in ("extend", "penalty", "surrender", "eject", "undo", "pause", "resume", "end_timer"):
        if name != "resume":
            t.until_wait()
        t.menu(name, 1 if name in ("penalty", "surrender", "eject") else None)
        t.table.remote_key(RemoteKey.BACK)
    t.menu("abort")
    for view in {repr(x): x for x in shown}.values():
        render(view, lang, strict=True)
        if lang == "zh":
            assert not latin_words(view), f"English on a Chinese table: {latin_words(view)} in {view}"
    assert any(isinstance(x, v.JudgeAsk) and x.done is False for x in shown)  # the refused surrender


def test_every_night_action_and_role_of_every_variant_has_words() -> None:
    """The seats' and the remote's words come from one table: an ability without words would show its id."""
    for variant in builtin_ids():  # every variant file, not a list kept by hand
        var = load_variant(variant)
        for step in var.night_steps.values():
            assert strings.known("action", step.ability), (variant, step.ability)
            for role in step.call or step.roles:
                assert strings.known("role", role), (variant, role)


def test_every_command_has_words_in_both_languages_that_fit_the_menu() -> None:
    for c in COMMANDS:
        for lang in ("zh", "en"):
            render(v.JudgeList("menu", (c.label,), 0), lang, strict=True)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_lobby_pages_on_the_remote_are_in_the_tables_language(lang: str) -> None:
    """Before the game: the check-in page (who joined, the deck to lay out) and every row of the setup page."""
    from controller.director.clock import VirtualScheduler
    from controller.director.lobby import Lobby
    from controller.ports import Button
    from controller.sim.table import SimTable

    clock = VirtualScheduler()
    table = SimTable(12, clock.now)
    lob = Lobby(table, clock, load_variant("standard-2.0"), {}, lambda n: None, lang=lang)
    lob.start()
    pages: list[v.View] = []
    real = render

    def kept(view: v.View, *args: object, **kw: object):
        pages.append(view)
        return real(view, *args, **kw)  # type: ignore[arg-type]

    import controller.director.lobby as lobby_module
    lobby_module.render = kept  # type: ignore[assignment]
    try:
        for seat in range(1, 9):
            table.click(seat, Button.OK)
        table.remote_key(RemoteKey.MENU)  # the setup page
        for _ in range(len(lob.setup_rows())):
            table.remote_key(RemoteKey.RIGHT)
            table.remote_key(RemoteKey.DOWN)
    finally:
        lobby_module.render = real  # type: ignore[assignment]
    remote_pages = [p for p in pages if isinstance(p, v.JudgeList)]
    assert len(remote_pages) > 10
    for page in remote_pages:
        render(page, lang, strict=True)
        if lang == "zh":
            assert not latin_words(page), f"English on a Chinese table: {latin_words(page)} in {page}"
