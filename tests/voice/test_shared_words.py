"""The seed versions' words live in files: each variant file includes the killer game's shared words
(controller/variants/_killer-game.toml) and names its own ending, and the voice, the screens and the story read
them from there. Every variant is enumerated with the loader, never from a hand-kept list."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.director import announce
from controller.rules.events import GameEnded
from controller.rules.variant import VariantError, builtin_ids, load_variant
from controller.rules.words import KILLER_GAME, WordsError, parse, shared
from controller.screens.strings import Lang, action_name, role_name
from controller.voice import variant_lines
from controller.voice.build import CATALOG, BuildError, load_catalog
from controller.voice.packs import load_voice_pack
from tests.rules.table import Game

ROOT = Path(variant_lines.__file__).resolve().parents[2]
WORDS = shared(KILLER_GAME)
#: The built-in variants that take the killer game's words (the seed versions), read from their files.
SEEDS = [vid for vid in builtin_ids() if (ROOT / "controller" / "variants" / f"{vid}.toml").read_text(
    encoding="utf-8").count(f'include = "{KILLER_GAME}"')]


def test_the_seed_versions_all_include_the_killer_games_words_and_the_boards_do_not() -> None:
    assert len(SEEDS) == 9 and "standard-2.0" in SEEDS and not any(v.startswith("werewolf") for v in SEEDS)
    assert KILLER_GAME not in builtin_ids() and f"_{KILLER_GAME}" not in builtin_ids()  # not a variant


@pytest.mark.parametrize("variant", SEEDS)
def test_every_role_of_a_seed_version_is_named_and_every_role_it_wakes_has_calls(variant: str) -> None:
    """A role's name and its judge's lines are in the shared words (F1: the bandit is the killer's alias)."""
    v = load_variant(variant)
    whats = WORDS.role_whats()
    for role in v.roles:
        name = WORDS.names["aliases"].get(role, role)
        assert name in WORDS.table("roles"), f"{variant}: no name for {role} in {KILLER_GAME}"
        assert role_name(role, Lang.ZH) == WORDS.table("roles")[name][0]
    for step in v.night:
        for role in step.call or step.roles:
            name = WORDS.names["aliases"].get(role, role)
            assert set(whats.get(name, ())) & {"wake", "out", "come"}, f"{variant}: {role} is woken without a call"
            assert action_name(step.ability, Lang.EN, v) == WORDS.table("actions")[step.ability][1]


@pytest.mark.parametrize("variant", SEEDS)
def test_a_seed_version_ends_with_a_shared_ending_the_packs_recorded(variant: str) -> None:
    """C4: the ending its file names keeps its recording (ending.<name>), in both packs, word for word."""
    v = load_variant(variant)
    for side in v.words["endings"]:
        pid = announce.for_event(GameEnded(side, "all_dead"), variant=v)[0]
        name = pid.removeprefix("ending.")
        assert name in WORDS.table("endings"), pid
        for pack, words in (("zh-CN", WORDS.table("endings")[name][0]), ("en", WORDS.table("endings")[name][1])):
            assert load_voice_pack(pack).clip(pid).text == words
    assert not variant_lines.lines(v), "a seed version's lines are the catalogue's, said from the packs"


def test_the_catalogue_includes_every_shared_line_under_its_old_prompt_id() -> None:
    prompts = load_catalog(CATALOG)["prompts"]
    assert isinstance(prompts, dict)
    assert prompts["role.killer.wake"] == {"zh-CN": "杀手请睁眼。", "en": "Killers, open your eyes."}  # 004 §3
    assert prompts["ending.police_side_win"]["zh-CN"] == "警察一方获胜。"  # 004 §4
    assert {f"role.{key}" for key in WORDS.table("calls")} <= set(prompts)
    assert "role.killer.wake" not in CATALOG.read_text(encoding="utf-8"), "written once, in the shared words"


def test_a_line_written_in_the_catalogue_and_in_the_shared_words_is_refused(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text('[words]\ninclude = ["killer-game"]\n[prompts."role.killer.wake"]\nzh-CN = "杀手请睁眼。"\n'
                       'en = "Killers, open your eyes."\n', encoding="utf-8")
    with pytest.raises(BuildError, match=r"role\.killer\.wake is written here and in the shared words"):
        load_catalog(catalog)
    catalog.write_text('[words]\ninclude = ["werewolf"]\n', encoding="utf-8")
    with pytest.raises(BuildError, match="no shared words 'werewolf'; there are: killer-game"):
        load_catalog(catalog)


def club_file(tmp_path: Path, words: str) -> Path:
    """A club's own copy of classic-1.0 whose [words] are ``words``."""
    text = (ROOT / "controller" / "variants" / "classic-1.0.toml").read_text(encoding="utf-8")
    head = text[:text.index("# The version's own words")].replace('id = "classic-1.0"', 'id = "our-classic"')
    path = tmp_path / "our-classic.toml"
    path.write_text(head + words, encoding="utf-8")
    return path


def test_a_clubs_file_that_names_a_shared_ending_is_said_with_its_recording(tmp_path: Path) -> None:
    own = load_variant(str(club_file(tmp_path, '[words]\ninclude = "killer-game"\n[words.endings]\n'
                                               'good = "police_side_win"\nkillers = ["杀手胜。", "The killers win."]\n')))
    assert announce.for_event(GameEnded("good", "all_dead"), variant=own)[0] == "ending.police_side_win"
    # a pair said word for word as a seed says it is that seed's recording too (000 v3.0: 杀手胜)
    assert announce.for_event(GameEnded("killers", "all_dead"), variant=own)[0] == "ending.killers_win_brief"
    assert not variant_lines.lines(own)


@pytest.mark.parametrize(("words", "message"), [
    ('[words]\ninclude = "killer"\n', "words.include: no shared words 'killer'; there are: killer-game"),
    ('[words]\ninclude = "killer-game"\n[words.endings]\ngood = "police_wins"\n',
     "words.endings.good: no ending 'police_wins' in the shared words 'killer-game'. Fix: did you mean 'police_win'"),
    ('[words.endings]\ngood = "police_win"\n', "names the ending 'police_win', but [words] includes no shared words"),
])
def test_a_bad_include_or_ending_name_is_one_line_naming_the_key(tmp_path: Path, words: str, message: str) -> None:
    with pytest.raises(VariantError) as exc:
        load_variant(str(club_file(tmp_path, words)))
    assert message in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(("raw", "message"), [
    ({"roles": {"killer": ["杀手"]}}, "roles.killer must be [\"中文\", \"English\"]"),
    ({"roles": {"killer": ["杀手", "Killer"]}, "aliases": {"bandit": "kiler"}}, "aliases.bandit names 'kiler'"),
    ({"role": {}}, "unknown table 'role'"),
])
def test_a_malformed_shared_words_file_names_the_file_and_the_key(raw: dict[str, object], message: str) -> None:
    with pytest.raises(WordsError, match=r"^_ours\.toml: ") as exc:
        parse("ours", raw, "_ours.toml")
    assert message in str(exc.value)


def test_a_check_is_answered_in_the_words_of_the_version_played() -> None:
    """V2.2 is 是杀手 in the seeds' words (the shared [answers]); W5 is 狼人 in the board's own ([words.answers])."""
    from controller.rules.events import Acted
    from controller.screens.story import story

    seed = Game("standard-2.0", "killer killer police police civilian civilian civilian civilian")
    board = Game("werewolf-9", "werewolf werewolf werewolf seer witch hunter villager villager villager")
    for game, variant, zh, en in ((seed, "standard-2.0", "是杀手", "killer"), (board, "werewolf-9", "狼人", "Werewolf")):
        events = [*game.events, Acted("check", "check", (4,), 1, "chosen", "nod", ())]
        assert any(line.strip() == f"= {zh}" for line in story(events, Lang.ZH)), variant
        assert any(line.strip() == f"= {en}" for line in story(events, Lang.EN)), variant
