"""The league's page in a real browser (Debian's headless Chromium): red's and blue's games arrive over their
bridges, Ada plays in both with one member card, gold's Bo has no card until the league merges him with red's
Bo; the page shows one Ada, one Bo, the league standings as the scoring ranks them, the clubs and the week's
games (gold's on its own board, in the words its record carries), in Chinese and in English. Screenshots go to the test's folder (and to $TIANHEI_SCREENSHOTS:
docs/league.md's pictures come so)."""

from __future__ import annotations

import pytest

from controller.league.service import LeagueService
from controller.league.store import LeagueStore
from controller.league.web import create_app
from tests.chromium import headless_chromium, shot
from tests.hall.served import Served
from tests.league.conftest import message, record

T = 1_764_000_000.0  # a Monday evening (2025-11-24)


@pytest.fixture
def browser():
    with headless_chromium(size="1280,720") as driver:
        yield driver


def rows(driver, section: int) -> list[list[str]]:
    """The cells of the ``section``-th table on the page (0: league standings, 1: the week, 2: clubs, 3: members,
    4: the week's games), header row left out."""
    return driver.execute_script(
        "const t = document.querySelectorAll('section')[arguments[0]].querySelector('table');"
        "return t ? [...t.rows].slice(1).map(r => [...r.cells].map(c => c.innerText)) : [];", section)


def test_the_league_page_shows_one_person_per_member_across_clubs_and_the_leagues_standings(tmp_path, browser):
    league = LeagueService(LeagueStore(tmp_path / "league.sqlite"), clock=lambda: T)
    league.receive("league/red/bridge", b"1")
    league.receive("league/blue/bridge", b"1")
    league.receive("league/gold/bridge", b"0")  # gold's internet is gone: its games come later
    league.receive("league/red/record", message("red", record("r1", "good", [
        ("Ada", "police", "good", "04a1"), ("Bo", "killer", "killers", None), ("Cai", "civilian", "good", None)]),
        at=T - 3600))
    league.receive("league/blue/record", message("blue", record("b1", "killers", [
        ("Ada Wang", "killer", "killers", "04a1"), ("Dan", "police", "good", None)]), at=T - 1800, room="2"))
    gold = record("g1", "good", [
        ("Bo", "civilian", "good", None), ("Eve", "killer", "killers", None)])
    gold["variant"] = "gold-house.toml"  # a club's own variant file: the league shows its name, opens nothing
    gold.update(variant_words=["金屋版", "Gold house"], winner_words=["金屋居民", "Gold folk"])  # as its table kept them
    league.receive("league/gold/record", message("gold", gold, at=T - 600))
    with Served(create_app(league)) as served:
        browser.get(served.base + "/")
        assert browser.title == "天黑联赛"
        members = {name: clubs for name, clubs, _games in rows(browser, 3)}
        assert members["Ada"] == "blue, red"  # one card, two clubs, one person
        assert "Bo #2" in members and "Bo #5" in members  # two Bos until someone says they are one
        league.store.merge("red:Bo", "gold:Bo")  # tianhei league merge red:Bo gold:Bo
        browser.refresh()
        members = {name: clubs for name, clubs, _games in rows(browser, 3)}
        assert members["Bo"] == "gold, red" and not any(n.startswith("Bo #") for n in members)
        ranked = league.standings()
        assert rows(browser, 0) == [[str(r["rank"]), r["member"], f"{r['points']:g}", str(r["wins"]),
                                     str(r["games"])] for r in ranked]
        bo = next(r for r in ranked if r["member"] == "Bo")
        assert (bo["games"], bo["wins"]) == (2, 1)
        clubs = {row[0]: row[1] for row in rows(browser, 2)}
        assert clubs == {"blue": "在线", "gold": "离线", "red": "在线"}
        week = rows(browser, 4)
        # standard-2.0's winners in its own words (004 §4: 杀手一方, 警察一方); a club's own variant: its record's
        assert [(g[1], g[5]) for g in week] == [("gold", "金屋居民"), ("blue", "杀手一方"), ("red", "警察一方")]
        assert week[0][3] == "金屋版"
        assert week[0][0].startswith("周一") and week[1][3] == "标准版 2.0（警匪）"
        shot(browser, tmp_path, "league.png")
        browser.get(served.base + "/?lang=en")
        assert browser.title == "Tianhei league"
        assert [h.text for h in browser.find_elements("css selector", "h2")] == [
            "League standings", "This week", "Clubs", "Members across clubs", "This week's games"]
        week = rows(browser, 4)
        assert week[0][0].startswith("Mon") and week[1][3] == "Standard 2.0 (killers and police)"
        assert (week[0][3], week[0][5]) == ("Gold house", "Gold folk")
        shot(browser, tmp_path, "league-en.png")
