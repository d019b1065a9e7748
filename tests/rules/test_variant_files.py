"""A club's own variant file: every mistake is reported before any game starts, naming the file, the key and the
fix; a correct file plays like a built-in variant (``tianhei simulate --variant path/to/file.toml``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules.setup import configure
from controller.rules.variant import VariantError, builtin_ids, load_variant

#: A 2.0 game without police: killers and civilians, the 2.0 day (last-words quota by killers, club ties).
NO_POLICE = """\
id = "club-no-police"
name = "Our club: 2.0 without police"
rules = ["V2.3", "V2.4", "V2.5", "V2.7", "C5", "C6", "C8"]

[roles.killer]
side = "killers"
knows_partners = true
[roles.civilian]
side = "good"
civilian = true

[[night]]
id = "kill"
roles = ["killer"]
ability = "kill"

[day]
script = ["announce", "last_words", "speeches", "vote"]
quota_role = "killer"

[role_tables.default]
rows = [
  { players = [6, 9], killer = 2 },
  { players = [10, 14], killer = 3 },
]

[win_tables.default]
rows = [
  { side = "good", when = "all_dead", roles = ["killer"] },
  { side = "killers", when = "all_dead", roles = ["civilian"] },
]

[options]
tie = "club"
"tie.limit" = 5
vote = "reverse"
lastwords = "quota"
"""


def write(tmp_path: Path, text: str, name: str = "club.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def mistake(tmp_path: Path, old: str, new: str) -> VariantError:
    assert old in NO_POLICE
    path = write(tmp_path, NO_POLICE.replace(old, new, 1))
    with pytest.raises(VariantError) as info:
        load_variant(path)
    err = info.value
    assert err.where == path and path in str(err)  # the file
    assert err.fix and "Fix:" in str(err)  # and how to fix it
    return err


def test_a_correct_club_file_loads_and_sets_up_a_game(tmp_path):
    v = load_variant(write(tmp_path, NO_POLICE))
    assert v.id == "club-no-police" and set(v.roles) == {"killer", "civilian"}
    assert dict(configure(v, 10).composition) == {"killer": 3, "civilian": 7}
    assert configure(v, 10).quota == 3


def test_an_unknown_key_is_named_with_the_key_it_probably_meant(tmp_path):
    err = mistake(tmp_path, "[[night]]", "[[nigth]]")
    assert err.key == "nigth" and "'night'" in err.fix


def test_an_unknown_key_inside_a_role(tmp_path):
    err = mistake(tmp_path, "knows_partners = true", "know_partners = true")
    assert err.key == "roles.killer.know_partners" and "knows_partners" in err.fix


def test_an_unknown_role_in_a_night_step(tmp_path):
    err = mistake(tmp_path, 'roles = ["killer"]\nability', 'roles = ["kiler"]\nability')
    assert err.key == "night[0].roles" and "'kiler'" in err.problem and "'killer'" in err.fix


def test_an_unknown_ability(tmp_path):
    err = mistake(tmp_path, 'ability = "kill"', 'ability = "no_such_power"')
    assert err.key == "night[0].ability" and "'no_such_power'" in err.problem and "kill" in err.fix


def test_a_night_step_that_is_not_a_table(tmp_path):
    text = NO_POLICE.replace('[[night]]\nid = "kill"\nroles = ["killer"]\nability = "kill"\n', "")
    path = write(tmp_path, 'night = ["kill"]\n' + text)
    with pytest.raises(VariantError) as info:
        load_variant(path)
    assert info.value.key == "night[0]" and info.value.fix


def test_bad_toml_names_the_line(tmp_path):
    err = mistake(tmp_path, 'side = "killers"', 'side = "killers')
    assert "not valid TOML" in err.problem and "line" in err.problem


def test_a_role_table_row_with_more_cards_than_players(tmp_path):
    err = mistake(tmp_path, "{ players = [6, 9], killer = 2 }", "{ players = [6, 9], killer = 7 }")
    assert err.key == "role_tables.default.rows[0]" and "more role cards" in err.problem


def test_a_role_table_row_naming_an_unknown_role(tmp_path):
    err = mistake(tmp_path, "{ players = [6, 9], killer = 2 }", "{ players = [6, 9], killer = 2, police = 2 }")
    assert err.key == "role_tables.default.rows[0]" and "'police'" in err.problem


def test_an_unknown_option(tmp_path):
    err = mistake(tmp_path, 'tie = "club"', 'ties = "club"')
    assert err.key == "options.ties" and "'tie'" in err.fix


def test_an_option_value_out_of_range(tmp_path):
    err = mistake(tmp_path, '"tie.limit" = 5', '"tie.limit" = 500')
    assert err.key == "options.tie.limit" and "between 1 and 50" in err.problem


def test_an_option_value_that_is_not_one_of_its_choices(tmp_path):
    err = mistake(tmp_path, 'vote = "reverse"', 'vote = "backwards"')
    assert err.key == "options.vote" and "reverse" in err.problem


def test_a_win_table_row_with_an_unknown_predicate(tmp_path):
    err = mistake(tmp_path, 'when = "all_dead", roles = ["killer"]', 'when = "everyone_dead", roles = ["killer"]')
    assert err.key == "win_tables.default.rows[0].when"


def test_a_day_without_a_vote(tmp_path):
    err = mistake(tmp_path, '"speeches", "vote"]', '"speeches"]')
    assert err.key == "day.script" and "vote" in err.fix


def test_an_edited_file_is_read_again_not_remembered(tmp_path):
    path = write(tmp_path, NO_POLICE.replace('"tie.limit" = 5', '"tie.limit" = 3'))
    assert load_variant(path).options["tie.limit"] == 3
    write(tmp_path, NO_POLICE.replace('"tie.limit" = 5', '"tie.limit" = 500'))
    with pytest.raises(VariantError):
        load_variant(path)
    write(tmp_path, NO_POLICE.replace('"tie.limit" = 5', '"tie.limit" = 4'))
    assert load_variant(path).options["tie.limit"] == 4


def test_tianhei_simulate_plays_a_club_file(tmp_path, capsys):
    path = write(tmp_path, NO_POLICE)
    assert main(["simulate", "--variant", path, "--players", "10", "--games", "200", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["variant"] == "club-no-police" and out["composition"] == {"killer": 3, "civilian": 7}
    assert sum(out["wins"].values()) + out["draws"] == 200


def test_tianhei_simulate_reports_a_broken_club_file_and_exits_2(tmp_path, capsys):
    path = write(tmp_path, NO_POLICE.replace('ability = "kill"', 'ability = "no_such_power"'))
    assert main(["simulate", "--variant", path, "--players", "10", "--games", "5"]) == 2
    err = capsys.readouterr().err
    assert path in err and "night[0].ability" in err and "Fix:" in err


def test_a_variant_s_words_are_pairs_in_both_languages_for_its_own_sides_and_roles(tmp_path):
    """[words]: the version's own words live in its file (the winning side as the seed names it)."""
    err = mistake(tmp_path, "[options]", '[words.sides]\nvillains = ["坏人", "Villains"]\n\n[options]')
    assert err.key == "words.sides.villains" and "no such side" in err.problem
    err = mistake(tmp_path, "[options]", '[words.roles]\nkiller = "杀手"\n\n[options]')
    assert err.key == "words.roles.killer" and "中文" in err.problem


def test_the_winning_side_is_named_in_the_words_of_the_version_s_file():
    from controller.screens.strings import Lang, winner_name

    for vid in builtin_ids():
        sides = load_variant(vid).words.get("sides", {})
        for side, (zh, en) in sides.items():
            assert winner_name(side, Lang.ZH, vid) == zh and winner_name(side, Lang.EN, vid) == en
    assert load_variant("five-identities").words["sides"]["killers"] == ("匪", "Bandits")  # 000 F3


def test_the_tests_card_letters_name_roles_the_variant_files_define():
    """tests/rules/table.LETTERS is shorthand only: a letter for a role no built-in file has would be a test of a
    role that does not exist."""
    from tests.rules.table import LETTERS

    defined = {role for vid in builtin_ids() for role in load_variant(vid).roles}
    assert set(LETTERS.values()) <= defined, set(LETTERS.values()) - defined
    assert len(set(LETTERS.values())) == len(LETTERS)
