"""The end of a game in each version's own words (C4): the seed wins where it words the result.

Found at a club table: standard-2.0 ended with 「好人获胜」 where seed 004 §4 has the judge say 「警察一方获胜」.
"""

from __future__ import annotations

import pytest

from controller.director import announce
from controller.rules.events import GameEnded
from controller.rules.variant import builtin_ids, load_variant
from controller.voice.packs import load_voice_pack
from controller.voice.prompts import ending
from tests.rules.table import Game


def _said(pack: str, ids: list[str]) -> str:
    p = load_voice_pack(pack)
    return "".join(p.clip(i).text for i in ids)


def test_standard_2_0_ends_in_the_words_of_seed_004() -> None:
    """004 §4: 杀手一方全部死去，则警察一方获胜；警察一方全部死去，则杀手一方获胜；平民全部死去为平局."""
    assert _said("zh-CN", ending("good", "standard-2.0")) == "警察一方获胜。游戏结束，请亮出身份牌。"
    assert _said("zh-CN", ending("killers", "standard-2.0")).startswith("杀手一方获胜。")
    assert _said("zh-CN", ending("draw", "standard-2.0")).startswith("平局。")
    assert _said("en", ending("good", "standard-2.0")).startswith("The police side wins.")


@pytest.mark.parametrize(("variant", "good", "killers"), [
    ("classic-1.0", "好人获胜。", "杀手获胜。"),  # 000, 001 v1.0
    ("v3.0", "警察胜。", "杀手胜。"),  # 000, 001 v3.0
    ("v4.0", "好人获胜。", "杀手获胜。"),  # 000, 001 v4.0
    ("dual-card-5.0", "警察胜。", "杀手胜。"),  # 001 5.0 §4
    ("dual-card-6.0", "好人方胜。", "杀手胜。"),  # 000 6.0
    ("v7.0", "警察平民胜。", "杀手胜。"),  # 000 7.0
    ("five-identities", "警方胜利。", "匪胜利。"),  # 000 five identities (F3)
])
def test_each_version_ends_in_its_seeds_words(variant: str, good: str, killers: str) -> None:
    assert _said("zh-CN", ending("good", variant)[:1]) == good
    assert _said("zh-CN", ending("killers", variant)[:1]) == killers


@pytest.mark.parametrize("variant", builtin_ids())
def test_every_shipped_variant_has_words_for_every_side_its_win_tables_name(variant: str) -> None:
    """Each variant's file words its own ending ([words.endings]: a pair, or a shared ending by name)."""
    v = load_variant(variant)
    sides = {row.side for rows in v.win_tables.values() for row in rows}
    assert sides <= set(v.words.get("endings", {})), f"{v.id}: say how its seed words the win in [words.endings]"


def test_a_werewolf_board_ends_in_its_files_words() -> None:
    """W14 in the board's own words, from its [words.endings] (no central table), in both languages."""
    g = Game("werewolf-9", "werewolf werewolf werewolf seer witch hunter villager villager villager")
    ids = announce.for_event(GameEnded("killers", "all_dead"), g.state)
    assert _said("zh-CN", ids) == "狼人胜利。游戏结束，请亮出身份牌。"
    assert _said("en", announce.for_event(GameEnded("good", "all_dead"), g.state)).startswith("The good side wins.")


def test_a_clubs_own_variant_says_the_generic_words_and_an_ending_without_a_side_is_only_game_over() -> None:
    assert ending("good", "our-club-2.0") == ["ending.good_win", "ending.game_over"]
    assert ending(None, "standard-2.0") == ["ending.game_over"]


def test_the_director_announces_the_end_through_the_variants_words() -> None:
    g = Game("standard-2.0", " ".join(["killer"] * 2 + ["police"] * 2 + ["civilian"] * 6))
    assert announce.for_event(GameEnded("good", "all_dead"), g.state)[0] == "ending.police_side_win"
    assert announce.for_event(GameEnded("killers", "all_dead"), g.state)[0] == "ending.killer_side_win"
    g4 = Game("classic-1.0", " ".join(["killer"] * 2 + ["civilian"] * 8))
    assert announce.for_event(GameEnded("good", "all_dead"), g4.state)[0] == "ending.good_win"
