"""``tianhei diag`` over the seat bus adapter: real firmware nodes under ``micropython`` on a simulated RS-485
bus, people pressing the nodes' buttons and laying cards on their readers (issue 7: diag works on every adapter).
"""

from __future__ import annotations

from controller.diag.host import bus_sim_host
from controller.diag.people import card_uid
from controller.diag.walkthrough import PARTS, Diagnostic, DiagReport, Verdict
from controller.screens.strings import Lang
from controller.voice.null_voice import NullVoice


def diag_over_the_bus(seats: int, absent: tuple[int, ...] = (), deadline: float = 20.0) -> DiagReport:
    with bus_sim_host(seats, absent=absent) as host:
        voice = NullVoice(host.scheduler.now)
        report: DiagReport = host.run(lambda clock: Diagnostic(host.table, voice, clock, lang=Lang.EN,
                                                               deadline_s=deadline).script())
        return report


def test_three_seat_nodes_pass_every_part_over_the_bus() -> None:
    report = diag_over_the_bus(3)
    assert report.ok, report.table()
    assert set(report.seats) == {1, 2, 3}
    assert all(list(parts) == list(PARTS) for parts in report.seats.values())
    # the card each seat's reader read travelled over the bus as the node saw it
    assert {seat: uid.upper() for seat, uid in report.cards.items()} == {n: card_uid(n) for n in (1, 2, 3)}


def test_a_seat_nobody_answers_at_fails_every_part_and_the_other_passes() -> None:
    report = diag_over_the_bus(2, absent=(2,), deadline=3.0)
    assert not report.ok
    assert all(v is Verdict.PASS for v in report.seats[1].values()), report.table()
    assert all(v is Verdict.NO_ANSWER for v in report.seats[2].values()), report.table()
