"""Setting up one game: a variant, its options, the number of card holders and the composition of the deck.

``players`` always counts the card holders; the judge is never counted (a "13-person game" in the seeds is a
judge and 12 players).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from controller.rules.options import OPTIONS, OptionValue
from controller.rules.variant import Variant, VariantError, WinRow, _suggest


@dataclass(frozen=True, slots=True)
class GameConfig:
    variant: Variant
    players: int
    options: Mapping[str, OptionValue]
    #: (role, count) in the variant's role order; civilians included. Sums to ``players``.
    composition: tuple[tuple[str, int], ...]
    #: First-night victims of the previous games at this table, oldest first (V2.11).
    history: tuple[int, ...] = ()
    #: The last-words quota N (V2.3), already resolved from the option and the role table.
    quota: int = 0
    #: False for a table of bots that never talk (``tianhei simulate``): speeches, last words and defences are
    #: not waited for, since nothing said changes a bot's choice. Every decision is played as usual.
    talk: bool = True
    #: The win table the options choose (V2.9), resolved once: the engine checks it after every death.
    win_rows: tuple[WinRow, ...] = field(init=False, repr=False, compare=False)
    #: role -> cards dealt, from ``composition``.
    counts: Mapping[str, int] = field(init=False, repr=False, compare=False)
    #: The options as sorted (key, value) pairs, the form game_created records (derived once: every game asks).
    sorted_options: tuple[tuple[str, OptionValue], ...] = field(init=False, repr=False, compare=False)
    #: ``win_rows`` each with whether any of its roles was dealt (an "all dead" condition over roles that were
    #: never dealt never holds: a --roles table without civilians). Derived once: every death asks.
    win_checks: tuple[tuple[WinRow, bool], ...] = field(init=False, repr=False, compare=False)
    #: Whether a win condition counts players (F3, V5.4, V7.2); without one only which roles live matters.
    win_counts: bool = field(init=False, repr=False, compare=False)
    #: ``opt(key)``: the option's value, or its default when the game leaves it unset; a KeyError for a key no
    #: option has. A bound dict lookup (no Python call): the engine asks at every night and day.
    opt: Callable[[str], OptionValue] = field(init=False, repr=False, compare=False)
    #: The variant's whole data as game_created records it (a plain dict copy of ``variant.data``), made once
    #: and shared by every game of this configuration: copying it was a tenth of a simulated game's set-up.
    #: Never changed (an event's values are not).
    variant_data: dict[str, Any] = field(init=False, repr=False, compare=False)
    #: Every seat, 1..players (who is alive when the cards are dealt), made once: every deal asks.
    all_seats: frozenset[int] = field(init=False, repr=False, compare=False)
    #: The role cards in their canonical order (what :meth:`deck` returns as a new list), made once.
    cards: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant_data", dict(self.variant.data))
        object.__setattr__(self, "all_seats", frozenset(range(1, self.players + 1)))
        object.__setattr__(self, "cards", tuple([role for role, n in self.composition for _ in range(n)]))
        tables = self.variant.win_tables
        name = "all" if self.options.get("win.all") and "all" in tables else str(self.options.get("win", "default"))
        # (W14 win.all: 屠城, the variant's table named "all", instead of its default table, 屠边)
        object.__setattr__(self, "win_rows", tables[name] if name in tables else next(iter(tables.values())))
        object.__setattr__(self, "counts", MappingProxyType(dict(self.composition)))
        object.__setattr__(self, "sorted_options", tuple(sorted(self.options.items())))
        values: dict[str, OptionValue] = {key: option.default for key, option in OPTIONS.items()}
        values.update((key, value) for key, value in self.options.items() if value is not None)
        object.__setattr__(self, "opt", values.__getitem__)
        object.__setattr__(self, "win_checks", tuple(
            (row, any(self.counts.get(r) for r in row.roles)) for row in self.win_rows))
        object.__setattr__(self, "win_counts", any(row.when != "all_dead" for row in self.win_rows))

    def count(self, role: str) -> int:
        return self.counts.get(role, 0)

    def deck(self) -> list[str]:
        """The role cards, one per player, in a canonical order (the deal shuffles them)."""
        return list(self.cards)


def parse_roles_override(text: str) -> dict[str, int]:
    """``killer=2,police=2`` -> {"killer": 2, "police": 2}."""
    counts: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        role, sep, n = part.partition("=")
        if not sep or not n.strip().isdigit():
            raise ValueError(f"--roles expects ROLE=COUNT,... (for example killer=2,police=2), got {part!r}")
        counts[role.strip()] = int(n)
    return counts


def configure(
    variant: Variant,
    players: int,
    options: Mapping[str, object] | Iterable[tuple[str, object]] = (),
    roles: Mapping[str, int] | None = None,
    history: Iterable[int] = (),
    talk: bool = True,
) -> GameConfig:
    """Check a game set-up against the variant; raise VariantError naming what is wrong and how to fix it."""
    where = variant.source
    given = dict(options.items() if isinstance(options, Mapping) else options)
    resolved: dict[str, OptionValue] = dict(variant.options)
    for key, raw in given.items():
        if key not in OPTIONS:
            raise VariantError(where, f"option {key}", "unknown option", _suggest(key, tuple(variant.options)))
        if key not in variant.options:
            offered = ", ".join(variant.options) or "none"
            raise VariantError(where, f"option {key}", f"{variant.id} does not offer this option ({OPTIONS[key].rule})",
                               f"options of {variant.id}: {offered}")
        try:
            resolved[key] = OPTIONS[key].parse(raw)
        except ValueError as exc:
            raise VariantError(where, f"option {key}", str(exc)) from None

    cards = players * variant.hand  # D1-D3: two cards per player
    if roles:
        for role, n in roles.items():
            if role not in variant.roles:
                raise VariantError(where, f"roles {role}", "no such role in this variant",
                                   _suggest(role, tuple(variant.roles)))
            if n < 0:
                raise VariantError(where, f"roles {role}", "a count cannot be negative")
        counts = {r: roles.get(r, 0) for r in variant.roles if not variant.roles[r].civilian}
        fixed = sum(counts.values())
        civilians = [r for r in variant.roles if variant.roles[r].civilian]
        if civilians:
            counts[civilians[0]] = cards - fixed
        if cards - fixed < 0 or (not civilians and fixed != cards):
            raise VariantError("--roles", "", f"{fixed} role cards do not fit {players} players",
                               "give fewer role cards or more players")
        # V7.3: the words of the table's own row for this many players still apply to an explicit composition.
        table = variant.role_tables[str(resolved.get("roles", next(iter(variant.role_tables))))]
        lastwords = next((r.lastwords for r in table if r.low <= players <= r.high), 0)
    else:
        table_name = str(resolved.get("roles", next(iter(variant.role_tables))))
        rows = variant.role_tables[table_name]
        row = next((r for r in rows if r.low <= players <= r.high), None)
        if row is None:
            spans = ", ".join(f"{r.low}-{r.high}" for r in rows)
            raise VariantError(
                where, f"players {players}",
                f"the role table {table_name!r} of {variant.id} has no row for {players} players ({spans})",
                "choose a player count the table covers, another role table, or give --roles")
        counts = dict(row.counts)
        civilians = [r for r in variant.roles if variant.roles[r].civilian]
        if civilians:
            counts[civilians[0]] = cards - sum(n for r, n in row.counts if r != civilians[0])
        lastwords = row.lastwords
    if players < 3:
        raise VariantError(where, f"players {players}", "too few players", "a game needs at least 3 players")
    if sum(counts.values()) != cards:
        raise VariantError(where, f"players {players}", "the composition does not add up to the players")
    if not any(variant.roles[r].side == "killers" and n for r, n in counts.items()):
        raise VariantError(where, "roles", "no killer in the game", "give at least one killer")
    composition = tuple((r, counts.get(r, 0)) for r in variant.roles if counts.get(r, 0) > 0)

    quota = int(resolved.get("lastwords.quota", 0) or 0)
    if quota == 0:
        quota = lastwords or (counts.get(variant.quota_role, 0) if variant.quota_role else 0)
    if variant.live == "both":  # D2: every card is a place of its own; the table has 2 x players places
        players = cards
    hist = tuple(int(s) for s in history)
    for s in hist:
        if not 1 <= s <= players:
            raise VariantError("history", str(s), f"seat {s} does not exist at a {players}-player table",
                               "pass the seat numbers of earlier first-night victims")
    return GameConfig(variant, players, MappingProxyType(resolved), composition, hist, quota, talk)
