"""``tianhei league-demo`` end to end: three clubs on their own Mosquittos bridged over TLS to the league's, the
links cut and brokers killed while the tables play, one room of red poisoned, and every game, standing and
quarantined message checked at the end."""

from __future__ import annotations

import asyncio

from controller.league.demo import evening


def test_a_league_evening_with_every_link_cut_and_a_poisoned_room_loses_nothing_and_doubles_nothing(tmp_path):
    lines: list[str] = []
    report = asyncio.run(evening(tmp_path, games=2, speed=60.0, web=False, say=lines.append))
    assert report.ok, "\n".join(lines)
    assert report.games == report.at_league == 8
    assert len(report.cuts) == 10
    assert any("gold's broker killed" in c for c in report.cuts)
    assert any(line.startswith("members in two clubs: ") and "(blue, red)" in line and "(gold, red)" in line
               for line in lines)
    # the poisoned room: its hall refused all it sent, the league the records the hall had kept; the rest played on
    assert report.poisons == 5
    (line,) = [x for x in lines if x.startswith("quarantine: ")]
    assert "refused 5 message(s) from room 3" in line and "body.seats[0].member" in line
    assert "the league refused 2 from red" in line and "at" in line
