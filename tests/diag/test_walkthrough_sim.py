"""``tianhei diag`` end to end on the sim table: people press buttons and tap cards; a dead seat fails."""

from __future__ import annotations

from dataclasses import dataclass

from controller.diag.people import SimPeople, card_uid
from controller.diag.script import ScriptRunner
from controller.diag.walkthrough import LED_CYCLE, PARTS, Diagnostic, DiagReport, Verdict
from controller.director.clock import VirtualScheduler
from controller.ports import LED_OFF
from controller.screens.strings import Lang
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice


@dataclass
class Run:
    report: DiagReport
    table: SimTable
    voice: NullVoice
    clock: VirtualScheduler
    notes: list[str]


def run_diag(players: int = 4, absent: tuple[int, ...] = (), deadline: float = 20.0,
             lang: Lang = Lang.EN) -> Run:
    clock = VirtualScheduler()
    table = SimTable(players, clock.now, remote=False)
    voice = NullVoice(clock.now)
    notes: list[str] = []
    diag = Diagnostic(table, voice, clock, lang=lang, deadline_s=deadline, note=notes.append)
    runner = ScriptRunner(clock, diag.script())
    runner.listeners.append(SimPeople(table, clock, absent=absent).on_wait)
    table.start(runner.handle)
    runner.start()
    clock.run()
    assert runner.done
    return Run(runner.result, table, voice, clock, notes)


def test_every_part_of_every_seat_passes_when_people_answer() -> None:
    run = run_diag()
    report = run.report
    assert report.ok, report.table()
    assert set(report.seats) == {1, 2, 3, 4}
    assert all(list(parts) == list(PARTS) for parts in report.seats.values())
    assert report.cards == {n: card_uid(n) for n in range(1, 5)}
    assert run.voice.prompts_said() == ["test.sound"]
    assert "all parts pass" in report.table()


def test_every_led_showed_red_green_and_blue_and_ends_off() -> None:
    for seat in run_diag().table.seats.values():
        assert seat.led_history[:3] == list(LED_CYCLE)
        assert seat.led == LED_OFF


def test_seat_3_never_answers_so_all_its_parts_fail_and_the_others_pass() -> None:
    run = run_diag(absent=(3,), deadline=10.0)
    report = run.report
    assert set(report.seats[3].values()) == {Verdict.NO_ANSWER}
    assert all(v is Verdict.PASS for n in (1, 2, 4) for v in report.seats[n].values())
    assert report.voice is Verdict.PASS
    assert not report.ok
    assert "6 parts failed" in report.table()
    assert run.clock.now() < 4 * 60 + 6 * 10, "a dead seat costs one deadline per part, never a hang"


def test_nobody_at_the_table_means_everything_fails_after_its_deadline() -> None:
    report = run_diag(players=2, absent=(1, 2), deadline=5.0).report
    assert report.voice is Verdict.NO_ANSWER
    assert all(v is Verdict.NO_ANSWER for parts in report.seats.values() for v in parts.values())


def test_the_screen_shows_the_pattern_and_the_seat_then_a_summary() -> None:
    table = run_diag(absent=(2,), deadline=5.0).table
    assert table.seats[1].frames > 5
    from controller.diag.pattern import pattern_for
    from controller.screens.render import render
    from controller.screens.views import Message

    assert table.seats[1].image.tobytes() == render(Message("Seat 1: all OK"), Lang.EN).tobytes()
    faults = render(Message("Seat 2: faults", "screen, LED, ◀, ▶, OK, reader"), Lang.EN)
    assert table.seats[2].image.tobytes() == faults.tobytes()
    assert pattern_for(1).tobytes() != pattern_for(2).tobytes()
