"""``tianhei league-demo`` end to end: three clubs on their own Mosquittos bridged over TLS to the league's, the
links cut and brokers killed while the tables play, and every game and standing checked at the end."""

from __future__ import annotations

import asyncio

from controller.league.demo import evening


def test_a_league_evening_with_every_link_cut_loses_nothing_and_doubles_nothing(tmp_path):
    lines: list[str] = []
    report = asyncio.run(evening(tmp_path, games=2, speed=60.0, web=False, say=lines.append))
    assert report.ok, "\n".join(lines)
    assert report.games == report.at_league == 8
    assert len(report.cuts) == 10
    assert any("gold's broker killed" in c for c in report.cuts)
    assert any(line.startswith("members in two clubs: ") and "(blue, red)" in line and "(gold, red)" in line
               for line in lines)
