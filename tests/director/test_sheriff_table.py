"""The sheriff election at a live table (W10): the call to run, the candidates' speeches and a withdrawal, the
vote, its tie and revote, the sheriff's direction and the dying sheriff's badge, through the seats' buttons and
the director's windows on a virtual clock; and every one of these waits ends by its deadline when nobody presses.

The table plays werewolf-12's day (W10, W12, W13) on killers, police and civilians
(tests/director/variants/sheriff-12.toml): the election does not depend on the roles, and the seats' roles here are
simple to script. The built-in W boards play it too (tests/cli/test_table_cli.py, `./dev table --variant
werewolf-12`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.board.sim import SimBoard
from controller.board.words import board_lines
from controller.director.seat_output import LED_VOTE
from controller.director.sheriff_windows import TITLE
from controller.ports import LED_OFF, Button
from controller.rules import sheriff
from controller.rules.events import BadgeChanged, Candidacy, ElectionClosed
from controller.screens import views as v
from controller.screens.render import _night_target, render
from controller.screens.strings import UI
from controller.sessions.session import Session
from controller.web.views import judge_view
from tests.director.helpers import ScriptedTable, session
from tests.director.test_resume import outcome

VARIANT = str(Path(__file__).parent / "variants" / "sheriff-12.toml")
#: Seats 1-3 killers, seat 4 the police, 5-12 civilians.
CARDS = "K K K P C C C C C C C C"


def table() -> ScriptedTable:
    t = ScriptedTable(VARIANT, CARDS)
    t.director.board = SimBoard()
    t.deal()
    return t


def board(t: ScriptedTable) -> dict:
    return t.director.board.last  # type: ignore[union-attr]


def remote_turn(t: ScriptedTable) -> v.Text:
    shown = t.remote()
    assert isinstance(shown, v.JudgeStatus)
    return shown.turn


def night(t: ScriptedTable, kill: int | None, check: int) -> None:
    """The killers agree on ``kill`` (None: no kill), the police checks ``check``."""
    t.until_window("night", "kill")
    for seat in t.seats_of("killer"):
        if seat in t.director.state.alive:  # type: ignore[union-attr]
            t.point(seat, kill)
    t.until_window("night", "check")
    t.point(4, check)


def answer_the_call(t: ScriptedTable, running: set[int]) -> None:
    """W10: every living seat answers the call to run: OK runs, ▶ declines."""
    t.until_window("candidacy")
    for seat in sorted(t.director.state.alive):  # type: ignore[union-attr]
        t.table.click(seat, Button.OK if seat in running else Button.NEXT)


def hands(t: ScriptedTable, votes: dict[int, tuple[int, ...]]) -> None:
    """Each candidate's call in turn; the seats given raise their hands for them."""
    for candidate, voters in votes.items():
        t.until_window("vote", open_=True, call=candidate)
        t.ok(*voters)


def heard(t: ScriptedTable, *parts: str) -> bool:
    """Whether the voice said ``parts`` one after another."""
    said = t.said()
    return any(tuple(said[i:i + len(parts)]) == parts for i in range(len(said)))


def events_of(t: ScriptedTable, kind: type) -> list:
    return [e for e in t.director.events if isinstance(e, kind)]


def test_seats_run_one_withdraws_a_tie_then_a_sheriff_who_later_passes_the_badge():
    t = table()
    night(t, kill=5, check=1)
    # W10: the election comes before the dawn; the night's victim (seat 5) is still alive and answers
    w = t.until_window("candidacy")
    assert t.said()[-1] == "sheriff.call_to_run"
    assert remote_turn(t) == v.L10n("竞选警长：上警", "Sheriff: who runs")
    assert judge_view(t.director, "en")["turn"] == "Sheriff: who runs"  # the phone console says the same
    assert board(t)["gesture"] == "sheriff_election" and board(t)["running"] == []
    assert t.screen(5) == v.Message(TITLE, v.L10n("上警按OK，不上按◀/▶", "OK = run, ◀/▶ = not running"))
    answer_the_call(t, running={6, 7, 8})
    assert t.screen(6) == v.Message(TITLE, v.L10n("你已上警", "You run"))
    assert t.led(6) == LED_VOTE and t.led(9) == LED_OFF  # a hand raised to run is lit, as at a vote
    assert board(t)["gesture"] == "sheriff_election"
    assert t.screen(9) == v.Message(TITLE, v.L10n("你不上警", "You do not run"))
    assert events_of(t, ElectionClosed) == [ElectionClosed((6, 7, 8), "run")]
    assert "sheriff.candidates" in t.said()

    # the candidates speak; seat 8 withdraws (退水) with ◀ while seat 6 speaks
    t.until_window("speeches", sheriff.SPEECH)
    assert t.director.state.queue[0] == 6  # type: ignore[union-attr]
    assert t.screen(8) == v.Message(v.L10n("6号竞选发言", "Seat 6 speaks"), v.L10n("◀ = 退水", "◀ = withdraw"))
    assert isinstance(t.screen(9), v.Speaking)  # a seat that does not run has nothing to withdraw
    t.table.click(8, Button.PREV)
    assert Candidacy(8, False) in t.director.events
    assert board(t)["gesture"] == "sheriff_election" and board(t)["running"] == [6, 7, 8]
    assert board(t)["withdrawn"] == [8] and board(t)["speaker"] == 6
    lines = {ln.text: ln.items for ln in board_lines(board(t), "en")}
    assert lines["Running: "] == ("#6", "#7", "#8") and lines["Withdrew: "] == ("#8",)
    t.run_for(5)
    assert heard(t, "seat.8", "sheriff.withdraws")
    t.talk()

    # the others (seat 8 now among them) vote: 5 against 5, a tie; the tied speak again and the others revote
    assert t.until_wait().step == sheriff.VOTE
    assert "sheriff.vote_begins" in t.said()
    hands(t, {6: (1, 2, 3, 4, 5), 7: (8, 9, 10, 11, 12)})
    # a hand makes the candidate sheriff, it does not vote him out: "6号，选他当警长的请举手"
    assert heard(t, "seat.6", "sheriff.hands_for") and "vote.hands_for" not in t.said()
    t.until_window("speeches", sheriff.TIE_SPEECH)
    assert heard(t, "tie.between", "seat.6", "seat.7", "tie.tied_speak_again")
    t.talk()
    assert t.until_wait().step == sheriff.REVOTE
    hands(t, {6: (1, 2, 3, 4, 5, 8), 7: (9, 10, 11, 12)})
    t.run_until(lambda: bool(events_of(t, BadgeChanged)))
    assert events_of(t, BadgeChanged) == [BadgeChanged(6, "elected")]
    assert sheriff.sheriff_of(t.director.state) == 6  # type: ignore[arg-type]
    assert board(t)["sheriff"] == 6
    assert "Sheriff: seat 6" in [ln.text for ln in board_lines(board(t), "en")]

    # the dawn tells the night's death after the election; seat 5 leaves last words (W12: the first night)
    t.talk()
    assert heard(t, "seat.6", "sheriff.elected")
    assert "dawn.breaks" in t.said()[t.said().index("sheriff.elected"):]
    # W10: the sheriff chooses the direction with ▶ (seat 7 first) and speaks last
    w = t.until_window("direction", sheriff.DIRECTION)
    assert w.seats == (6,)
    assert t.screen(6) == v.Message(v.L10n("选择发言顺序", "Choose the direction"),
                                    v.L10n("◀ 4号先发言  ▶ 7号先发言", "◀ seat 4 first, ▶ seat 7 first"))
    assert t.screen(9) == v.Message(v.L10n("警长", "Sheriff"), v.L10n("6号警长选择发言顺序", "Seat 6 chooses the direction"))
    menu = {o.command.name: o.open for o in t.director.judge_commands.judge_menu()}
    assert not menu["direction"] and menu["end_timer"]  # the sheriff's choice, not the judge's; the judge may end it
    t.table.click(9, Button.NEXT)  # not seat 9's to choose
    assert t.director.window is w
    t.table.click(6, Button.NEXT)
    t.until_window("speeches")
    assert t.director.state.queue[0] == 7  # type: ignore[union-attr]
    assert t.director.state.queue[-1] == 6  # type: ignore[union-attr]
    t.talk()
    t.until_window("vote")
    t.run_until(lambda: t.director.state.phase == "night")  # type: ignore[union-attr]

    # night 2: the killers kill the sheriff; dead, seat 6 passes the badge to seat 7 (◀/▶ then OK)
    night(t, kill=6, check=2)
    w = t.until_window(sheriff.BADGE)
    assert w.seats == (6,)
    assert isinstance(t.screen(6), v.NightChoice) and t.screen(6).action == sheriff.BADGE  # type: ignore[union-attr]
    assert t.screen(9) == v.Message(v.L10n("警徽", "Badge"), v.L10n("6号警长移交警徽", "Seat 6 passes the badge"))
    assert heard(t, "seat.6", "sheriff.pass_badge")
    assert remote_turn(t) == v.L10n("6号移交警徽", "Seat 6: the badge")
    assert judge_view(t.director, "zh")["turn"] == "6号移交警徽"
    t.point(6, 7)
    t.run_until(lambda: len(events_of(t, BadgeChanged)) == 2)
    assert events_of(t, BadgeChanged)[-1] == BadgeChanged(7, "passed")
    t.run_for(5)
    assert heard(t, "seat.7", "sheriff.badge_passed")
    assert isinstance(t.screen(6), v.Dead)  # the badge passed, the dead seat shows nothing more


def test_a_second_tie_leaves_the_table_without_a_sheriff():
    t = table()
    night(t, kill=5, check=1)
    answer_the_call(t, running={6, 7})
    t.talk()
    hands(t, {6: (1, 2, 3, 4, 5), 7: (8, 9, 10, 11, 12)})
    t.talk()
    hands(t, {6: (1, 2, 3, 4, 5), 7: (8, 9, 10, 11, 12)})
    t.run_until(lambda: len(events_of(t, ElectionClosed)) == 2)
    assert events_of(t, ElectionClosed)[-1] == ElectionClosed((6, 7), "no_sheriff")
    t.talk()
    assert heard(t, "sheriff.none") and not heard(t, "tie.defend")
    assert "sheriff" not in board(t)
    assert t.director.window.kind == "vote"  # type: ignore[union-attr]  # no sheriff: nobody chooses a direction


def test_a_killer_self_destructs_during_the_election_and_it_is_held_again_the_next_day():
    """W11: the judge enters the self-destruct of seat 1 (a killer) during the candidates' speeches: seat 1 is out
    at once, the election ends, the dawn tells the night, night falls with no speeches and no vote; the next day
    the election is held again before the dawn."""
    t = table()
    night(t, kill=5, check=1)
    answer_the_call(t, running={1, 6})
    t.until_window("speeches", sheriff.SPEECH)
    menu = {o.command.name: o.open for o in t.director.judge_commands.judge_menu()}
    assert menu["self_destruct"]
    t.menu("self_destruct", 1)
    assert events_of(t, ElectionClosed)[-1] == ElectionClosed((), "postponed")
    assert 1 not in t.director.state.alive  # type: ignore[union-attr]
    t.run_until(lambda: t.director.state.phase == "night" and t.director.state.night == 2)  # type: ignore[union-attr]
    assert heard(t, "seat.1", "death.died") and heard(t, "sheriff.postponed")
    assert not any(isinstance(e, ElectionClosed) and e.outcome == "run" for e in t.director.events[-5:])
    night(t, kill=7, check=2)
    w = t.until_window("candidacy")
    assert 1 not in w.seats and isinstance(t.screen(1), v.Dead)  # the dead do not run, and see nothing of it
    answer_the_call(t, running={6})
    t.run_until(lambda: bool(events_of(t, BadgeChanged)))
    assert events_of(t, BadgeChanged) == [BadgeChanged(6, "elected")]


def test_nobody_runs_no_sheriff_and_the_day_goes_on():
    t = table()
    night(t, kill=5, check=1)
    answer_the_call(t, running=set())
    t.run_until(lambda: bool(events_of(t, ElectionClosed)))
    assert events_of(t, ElectionClosed) == [ElectionClosed((), "no_sheriff")]
    t.talk()
    assert "sheriff.none" in t.said()
    assert t.director.window.kind == "vote"  # type: ignore[union-attr]  # no sheriff: nobody chooses a direction
    assert not events_of(t, BadgeChanged)


def test_every_election_wait_ends_by_its_deadline_when_nobody_presses():
    """C5: nobody presses anything: the call closes with no candidate; the table goes on to the day's vote."""
    t = table()
    night(t, kill=5, check=1)
    t.until_window("candidacy")
    t.run_until(lambda: t.director.state.phase == "day")  # type: ignore[union-attr]
    assert events_of(t, ElectionClosed) == [ElectionClosed((), "no_sheriff")]


def test_a_silent_sheriff_gets_the_rules_direction_and_a_silent_dead_sheriff_tears_the_badge():
    """C5: the lone candidate is sheriff (Decision); the direction's deadline is the rule's own, the badge's
    deadline tears it."""
    t = table()
    night(t, kill=5, check=1)
    answer_the_call(t, running={6})
    t.run_until(lambda: bool(events_of(t, BadgeChanged)))
    assert events_of(t, BadgeChanged) == [BadgeChanged(6, "elected")]
    t.talk()
    t.until_window("direction", sheriff.DIRECTION)
    t.run_until(lambda: t.director.window is not None and t.director.window.kind == "speeches")
    t.talk()
    t.until_window("vote")
    t.run_until(lambda: t.director.state.phase == "night")  # type: ignore[union-attr]
    night(t, kill=6, check=2)
    t.until_window(sheriff.BADGE)
    t.run_until(lambda: len(events_of(t, BadgeChanged)) == 2)
    assert events_of(t, BadgeChanged)[-1] == BadgeChanged(0, "torn")
    t.run_for(5)
    assert "sheriff.badge_torn" in t.said()


def test_a_dead_seat_that_holds_no_badge_sees_nothing_of_the_badge():
    t = table()
    night(t, kill=5, check=1)
    answer_the_call(t, running={6})
    t.talk()
    t.until_window("direction", sheriff.DIRECTION)
    assert isinstance(t.screen(5), v.Dead)  # the night's victim, dead since the dawn
    t.table.click(5, Button.NEXT)
    assert isinstance(t.screen(5), v.Message) and t.director.window.kind == "direction"  # type: ignore[union-attr]


def bots_game(path: Path, seed: int, cut: float | None = None) -> Session:
    """The heuristic bots at every seat, pressing the buttons; ``cut``: the power goes after that many seconds."""
    s = session(VARIANT, 12, seed, "heuristic", journal_path=path, lang="en", pack="en")
    s.start()
    s.run(max_time=cut)
    return s


@pytest.mark.parametrize("seed", [3, 11])
def test_bots_at_the_seats_elect_a_sheriff_and_play_to_the_end(tmp_path, seed):
    s = bots_game(tmp_path / "whole.sqlite", seed)
    assert s.director.stage == "over"
    closed = [e for e in s.director.events if isinstance(e, (ElectionClosed, BadgeChanged))]
    assert closed, "no election at a table with the sheriff on"


def test_a_power_cut_during_the_election_changes_nothing(tmp_path):
    """The election's windows come back from the journal as they were (the call to run, the speeches, the vote):
    the power goes a second after each of them is announced."""
    s = bots_game(tmp_path / "whole.sqlite", 3)
    whole = outcome(s)
    said = {line.what.split()[0]: line.at for line in s.director.transcript if line.who == "voice"}
    cuts = [said[p] + 1.0 for p in ("sheriff.call_to_run", "sheriff.candidates", "sheriff.vote_begins")]
    for cut in cuts:
        path = tmp_path / f"cut-{cut:g}.sqlite"
        first = bots_game(path, 3, cut)
        assert sheriff.in_election(first.director.state), f"at {cut}s the table is not in the election"
        assert outcome(bots_game(path, 3)) == whole, f"cut at {cut}s"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_badge_pointer_past_the_last_seat_says_tear_and_fits(lang, monkeypatch):
    """W10: the dying sheriff's "no one" is tearing the badge, in words that fit the seat's screen (strict: a
    line that does not fit or a missing glyph fails); drawn with the skip's words instead, the screen differs."""
    view = v.NightChoice(sheriff.BADGE, None, v.Countdown(30, 30))
    tear = render(view, lang, strict=True)
    _night_target.cache_clear()
    monkeypatch.setitem(UI, "tear_badge", UI["skip"])
    as_skip = render(view, lang, strict=True)
    _night_target.cache_clear()
    assert tear.tobytes() != as_skip.tobytes()
