"""tianhei.toml: defaults, and every mistake reported with the key, the file and the fix."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from controller.config import settings
from controller.config.errors import ConfigError


def no_rules(variant: str, options: Mapping[str, object], players: int) -> Iterable[str]:
    return []


def pack_exists(name: str) -> object:
    if name not in ("zh-CN", "en"):
        raise FileNotFoundError(f"no pack {name}")
    return name


def write(tmp_path: Path, text: str, name: str = "tianhei.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load(path: Path, **hooks: object) -> settings.Config:
    kwargs: dict[str, object] = {"validate_game": no_rules, "variant_roles": None, "find_pack": pack_exists}
    kwargs.update(hooks)
    return settings.load(path, **kwargs)  # type: ignore[arg-type]


def error(path: Path, **hooks: object) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load(path, **hooks)
    return info.value


def problems(path: Path, **hooks: object) -> list[str]:
    return [str(p) for p in error(path, **hooks).problems]


def test_an_empty_file_means_a_simulated_twelve_player_standard_game(tmp_path: Path) -> None:
    config = load(write(tmp_path, ""))
    assert config.table.hardware == "sim" and config.game.players == 12
    assert config.game.variant == "standard-2.0" and config.timers.vote_window_s == 2.0
    assert config.profile is not None and config.profile.adapter == "sim"


def test_the_full_schema(tmp_path: Path) -> None:
    config = load(write(tmp_path, """
[table]
hardware = "compact-8"
language = "en"
judge = "none"
[game]
variant = "standard-2.0"
players = 8
options = { tie = "club" }
seed = 7
[voice]
pack = "en"
volume = 0.5
[journal]
path = "var/game.sqlite"
[timers]
speech_s = 90
vote_window_s = 1.5
"""))
    assert config.game.options == {"tie": "club"} and config.game.seed == 7
    assert config.timers.speech_s == 90 and config.timers.night_action_s == 30
    assert config.profile is not None and config.profile.name == "compact-8"


def test_a_typo_names_the_key_the_file_and_the_fix(tmp_path: Path) -> None:
    found = problems(write(tmp_path, "[game]\nplayres = 12\n"))
    assert found == [
        "unknown key 'playres' in [game] (game.playres in " + str(tmp_path / "tianhei.toml")
        + "): did you mean 'players'?"
    ]


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    found = error(write(tmp_path, """
[table]
language = "fr"
judge = "robot"
[game]
players = "twelve"
[voice]
volume = 3
[timers]
speech_s = 0
[extra]
"""))
    keys = [p.key for p in found.problems]
    assert all(p.file.endswith("tianhei.toml") and p.fix for p in found.problems)
    assert keys == ["extra", "table.language", "table.judge", "game.players", "voice.volume", "timers.speech_s"]


def test_the_rules_engine_is_asked_about_the_game(tmp_path: Path) -> None:
    seen = []

    def rules(variant: str, options: Mapping[str, object], players: int) -> list[str]:
        seen.append((variant, dict(options), players))
        return ["standard-2.0 has no row for 3 players"]

    found = problems(write(tmp_path, "[game]\nplayers = 3\noptions = { tie = 'club' }\n"), validate_game=rules)
    assert seen == [("standard-2.0", {"tie": "club"}, 3)]
    assert "no row for 3 players" in found[0] and found[0].startswith("standard-2.0")


def test_the_real_rules_engine_rejects_an_unknown_variant(tmp_path: Path) -> None:
    found = problems(write(tmp_path, "[game]\nvariant = 'standart-2.0'\n"),
                     validate_game=settings.rules_validate_game)
    assert any("standard-2.0" in line for line in found), found


def test_a_missing_sound_pack(tmp_path: Path) -> None:
    found = problems(write(tmp_path, "[voice]\npack = 'klingon'\n"))
    assert len(found) == 1 and "voice.pack" in found[0] and "manifest.toml" in found[0]


def test_more_players_than_seats(tmp_path: Path) -> None:
    found = problems(write(tmp_path, "[table]\nhardware = 'compact-8'\n[game]\nplayers = 10\n"))
    assert found == [f"10 players but hardware 'compact-8' has 8 seats (game.players in {tmp_path / 'tianhei.toml'})"
                     ": lower players or choose a profile with more seats"]


def test_an_unknown_profile_name_is_suggested(tmp_path: Path) -> None:
    found = problems(write(tmp_path, "[table]\nhardware = 'compact8'\n"))
    assert "did you mean 'compact-8'?" in found[0] and "table.hardware" in found[0]


def test_a_profile_next_to_the_config_file(tmp_path: Path) -> None:
    write(tmp_path, "[profile]\nadapter = 'sim'\n[sim]\nseats = 6\n", "mine.toml")
    config = load(write(tmp_path, "[table]\nhardware = 'mine.toml'\n[game]\nplayers = 6\n"))
    assert config.profile is not None and len(config.profile.seats) == 6


def test_a_named_file_that_does_not_exist(tmp_path: Path) -> None:
    found = problems(tmp_path / "nope.toml")
    assert "no such configuration file" in found[0]


def test_broken_toml_names_the_line(tmp_path: Path) -> None:
    found = problems(write(tmp_path, "[game\nplayers = 1\n"))
    assert "line 1" in found[0]
