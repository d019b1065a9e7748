"""After the game the remote shows the whole story (issue 4, End): nights, dawns, votes and every role, in
human terms, built from the events; UP/DOWN scroll it."""

from __future__ import annotations

from controller.ports import RemoteKey
from controller.screens import views as v
from controller.screens.render import render
from controller.screens.story import story
from tests.director.helpers import play, session
from tests.director.test_scenarios import first_day


def test_the_story_tells_night_one_the_check_the_dawn_the_votes_and_every_role():
    t = first_day(kill=5, check=1)  # killers 1, 2 kill 5; police 3, 4 check 1 (a nod)
    t.talk()
    lines = story(t.director.events, "en")
    assert lines[0] == "Night 1"
    assert "Killer 1 2 Kill -> 5" in lines
    check = lines.index("Police 3 4 Check -> 1")
    assert lines[check + 1] == "  = killer"
    assert lines.index("Dawn: 5 died") < lines.index("Day 1")
    assert lines[-9:] == ("Roles", "1 Killer", "2 Killer", "3 Police", "4 Police", "5 Civilian", "6 Civilian",
                          "7 Civilian", "8 Civilian")
    zh = story(t.director.events, "zh")
    assert "第1夜" in zh and "杀手 1 2 杀人 → 5" in zh and "  = 是杀手" in zh


def test_after_the_game_the_remote_shows_the_story_and_the_judge_scrolls_it():
    s = session("standard-2.0", 10, seed=4, lang="en")
    result = play(s)
    d = s.director
    shown = d.remote_drawn
    assert isinstance(shown, v.JudgeList) and shown.cursor == 0
    lines = story(d.events, "en")
    assert shown.items == lines
    assert lines[0].startswith("The end") and "Roles" in lines
    assert any(line.startswith("Vote: ") for line in lines)  # every vote's outcome
    assert any("<-" in line for line in lines)  # who raised a hand for whom
    assert len([x for x in lines if x.startswith(("Night ", "Day "))]) >= result["days"]
    s.table.remote_key(RemoteKey.UP)
    assert d.remote_drawn.cursor == 0  # already at the top
    for _ in range(3):
        s.table.remote_key(RemoteKey.DOWN)
    assert d.remote_drawn.cursor == 3
    for _ in range(len(lines) + 5):
        s.table.remote_key(RemoteKey.DOWN)
    assert d.remote_drawn.cursor == len(lines) - 1  # stops at the last line


def test_every_story_line_fits_the_remote_in_both_languages():
    for variant, players, seed in (("standard-2.0", 12, 1), ("v3.0", 13, 2), ("five-identities", 12, 3)):
        s = session(variant, players, seed=seed)
        play(s)
        for lang in ("zh", "en"):
            lines = story(s.director.events, lang)
            for cursor in range(0, len(lines), 3):
                render(v.JudgeList("story", lines, cursor), lang, strict=True)
