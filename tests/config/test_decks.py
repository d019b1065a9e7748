"""Decks: card UIDs to roles, with clear errors for unknown roles and duplicate cards."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.config.decks import Card, Deck, compare, load_deck, normalise_uid, save_deck
from controller.config.errors import ConfigError

ROLES = {"killer", "police", "civilian"}


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "decks").mkdir(exist_ok=True)
    path = tmp_path / "decks" / "club.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_deck_maps_cards_to_roles(tmp_path: Path) -> None:
    write(tmp_path, 'name = "club"\n[[card]]\nuid = "04:a2:b3:c4:d5:e6:80"\nrole = "killer"\nface = "♠A"\n'
                    '[[card]]\nuid = "A1B2C3D4"\nrole = "police"\n')
    deck = load_deck("club", roles=ROLES, decks_dir=tmp_path / "decks")
    assert deck.role_of("04A2B3C4D5E680") == "killer"
    assert deck.role_of("a1 b2 c3 d4") == "police"
    assert deck.role_of("DEADBEEF") is None
    assert deck.cards[0].face == "♠A"


def test_an_unknown_role_is_suggested(tmp_path: Path) -> None:
    write(tmp_path, '[[card]]\nuid = "A1B2C3D4"\nrole = "polise"\n')
    with pytest.raises(ConfigError) as info:
        load_deck("club", roles=ROLES, decks_dir=tmp_path / "decks")
    assert str(info.value.problems[0]).startswith("unknown role 'polise' (card[0].role in ")
    assert info.value.fix == "did you mean 'police'?"


def test_a_card_listed_twice_even_written_differently(tmp_path: Path) -> None:
    write(tmp_path, '[[card]]\nuid = "A1B2C3D4"\nrole = "police"\n[[card]]\nuid = "a1:b2:c3:d4"\nrole = "killer"\n')
    with pytest.raises(ConfigError, match=r"card A1B2C3D4 is listed twice \(also card\[0\]\)"):
        load_deck("club", decks_dir=tmp_path / "decks")


def test_a_bad_uid(tmp_path: Path) -> None:
    write(tmp_path, '[[card]]\nuid = "xyz"\nrole = "police"\n')
    with pytest.raises(ConfigError, match="is not a card UID"):
        load_deck("club", decks_dir=tmp_path / "decks")


def test_a_missing_deck_suggests_a_close_name(tmp_path: Path) -> None:
    write(tmp_path, "")
    with pytest.raises(ConfigError, match="did you mean 'club'"):
        load_deck("clubb", decks_dir=tmp_path / "decks")


def test_check_finds_missing_duplicated_and_foreign_cards() -> None:
    deck = Deck("d", (Card("AA000001", "killer"), Card("AA000002", "police")), _by_uid={})
    result = compare(deck, ["AA000001", "aa:00:00:01", "BB000001"])
    assert [c.uid for c in result.missing] == ["AA000002"]
    assert result.duplicated == ("AA000001",)
    assert result.foreign == ("BB000001",)
    assert not result.ok


uids = st.binary(min_size=4, max_size=4).map(lambda b: b.hex().upper()) | st.binary(min_size=7, max_size=7).map(
    lambda b: b.hex().upper())


@given(st.dictionaries(uids, st.sampled_from(sorted(ROLES)), max_size=20), st.text(max_size=10))
def test_enrolled_decks_load_back_the_same(tmp_path_factory: pytest.TempPathFactory, cards: dict[str, str],
                                           name: str) -> None:
    folder = tmp_path_factory.mktemp("decks")
    deck = Deck(name or "d", tuple(Card(u, r, "♥K") for u, r in cards.items()), "standard-2.0")
    save_deck(deck, folder / "d.toml")
    again = load_deck("d", roles=ROLES, decks_dir=folder)
    assert again.cards == deck.cards and again.name == deck.name and again.variant == "standard-2.0"
    for uid, role in cards.items():
        assert again.role_of(normalise_uid(uid)) == role
