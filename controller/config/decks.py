"""Decks: which physical card (by its NFC UID) carries which role.

A deck is ``decks/NAME.toml``::

    name = "club-red"
    variant = "standard-2.0"      # optional: the variant whose role names the cards use

    [[card]]
    uid = "04A2B3C4D5E680"         # hex, as the reader reports it; ':' or spaces between bytes are fine
    role = "killer"
    face = "♠A"                   # optional: what is printed on the card, to find it in the box

``tianhei deck enroll`` writes this file (:func:`save_deck`), the director's deal reads it (:meth:`Deck.role_of`),
``tianhei deck check`` compares it with the cards tapped (:func:`compare`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from controller.config.errors import ConfigError, Problem, read_toml, suggest, unknown_keys

_HEX = re.compile(r"^(?:[0-9A-F]{2}){4,10}$")


def normalise_uid(raw: str) -> str:
    """``"04:a2 b3"`` -> ``"04A2B3"``; the form readers report (:class:`controller.ports.CardEvent`)."""
    return re.sub(r"[\s:\-]", "", raw).upper()


@dataclass(frozen=True, slots=True)
class Card:
    uid: str
    role: str
    face: str = ""


@dataclass(frozen=True, slots=True)
class Deck:
    name: str
    cards: tuple[Card, ...]
    variant: str | None = None
    source: str = ""
    _by_uid: Mapping[str, Card] = field(default_factory=dict, repr=False, compare=False)

    def role_of(self, uid: str) -> str | None:
        """The role on this card, or None for a card that is not in the deck (a foreign card)."""
        card = self._by_uid.get(normalise_uid(uid))
        return card.role if card else None

    def count(self, role: str) -> int:
        return sum(1 for c in self.cards if c.role == role)


def deck_path(name_or_path: str, decks_dir: Path) -> Path:
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        return Path(name_or_path)
    return decks_dir / f"{name_or_path}.toml"


def load_deck(name_or_path: str, *, roles: Collection[str] | None = None, decks_dir: Path = Path("decks")) -> Deck:
    """Load and check a deck; ``roles`` (if given) are the role names the variant knows."""
    path = deck_path(name_or_path, decks_dir)
    file = str(path)
    if not path.is_file():
        known = sorted(p.stem for p in decks_dir.glob("*.toml")) if decks_dir.is_dir() else []
        raise ConfigError([Problem(file, "", f"no deck {name_or_path!r}",
                                   suggest(name_or_path, known) if known else "enroll it: tianhei deck enroll NAME")])
    return parse_deck(read_toml(path, file), file, roles)


def parse_deck(data: Mapping[str, object], file: str, roles: Collection[str] | None = None) -> Deck:
    problems = unknown_keys(data, ("name", "variant", "card"), "", file)
    name = data.get("name", Path(file).stem)
    variant = data.get("variant")
    raw_cards = data.get("card", [])
    if not isinstance(raw_cards, list):
        problems.append(Problem(file, "card", "cards must be [[card]] tables", "write each card as [[card]]"))
        raw_cards = []
    cards: list[Card] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_cards):
        key = f"card[{i}]"
        if not isinstance(raw, Mapping):
            problems.append(Problem(file, key, "a card is a table", 'uid = "..." and role = "..."'))
            continue
        problems += unknown_keys(raw, ("uid", "role", "face"), key, file)
        uid = normalise_uid(str(raw.get("uid", "")))
        role = str(raw.get("role", ""))
        if not _HEX.match(uid):
            problems.append(Problem(file, f"{key}.uid", f"{raw.get('uid')!r} is not a card UID",
                                    "4, 7 or 10 bytes in hex, as `tianhei deck enroll` writes them"))
            continue
        if uid in seen:
            problems.append(Problem(file, f"{key}.uid", f"card {uid} is listed twice (also card[{seen[uid]}])",
                                    "remove one of them: one physical card has one role"))
            continue
        seen[uid] = i
        if not role:
            problems.append(Problem(file, f"{key}.role", f"card {uid} has no role", 'add role = "civilian" (or so)'))
            continue
        if roles is not None and role not in roles:
            problems.append(Problem(file, f"{key}.role", f"unknown role {role!r}", suggest(role, roles)))
            continue
        cards.append(Card(uid, role, str(raw.get("face", ""))))
    if problems:
        raise ConfigError(problems)
    return Deck(str(name), tuple(cards), str(variant) if variant else None, file, {c.uid: c for c in cards})


def save_deck(deck: Deck, path: Path) -> None:
    """Write a deck in the format :func:`load_deck` reads (enrollment)."""
    lines = [f"name = {_q(deck.name)}"]
    if deck.variant:
        lines.append(f"variant = {_q(deck.variant)}")
    for card in deck.cards:
        lines += ["", "[[card]]", f"uid = {_q(card.uid)}", f"role = {_q(card.role)}"]
        if card.face:
            lines.append(f"face = {_q(card.face)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _q(text: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, control characters as \\uXXXX."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@dataclass(frozen=True, slots=True)
class DeckCheck:
    """What a tap-every-card check found: cards not tapped, tapped twice, or not in the deck."""

    missing: tuple[Card, ...]
    duplicated: tuple[str, ...]
    foreign: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not (self.missing or self.duplicated or self.foreign)


def compare(deck: Deck, tapped: Iterable[str]) -> DeckCheck:
    uids = [normalise_uid(u) for u in tapped]
    known = {c.uid for c in deck.cards}
    seen: set[str] = set()
    twice: list[str] = []
    for uid in uids:
        if uid in seen and uid in known and uid not in twice:
            twice.append(uid)
        seen.add(uid)
    return DeckCheck(
        tuple(c for c in deck.cards if c.uid not in seen),
        tuple(twice),
        tuple(sorted({u for u in uids if u not in known})),
    )
