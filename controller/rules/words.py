"""Shared words files: the words many variants say alike, written once.

A variant file's ``[words]`` names its own words; the seed versions share most of theirs (a killer is 杀手 in every
one of them, and the judge wakes it alike), so those live in one shared file, ``controller/variants/_killer-game
.toml``, that a variant takes with ``[words] include = "killer-game"``. The file's name starts with "_" so the
variant list (``builtin_ids``) leaves it out. Its tables: ``roles`` (names on the screens), ``aliases`` (other
names of a role), ``calls`` (every line the judge says to or about a role: prompt ``role.<role>.<what>``),
``endings`` (the win in a seed's words: prompt ``ending.<key>``), ``default_endings`` (side -> ending, for a variant
naming none), ``sides``, ``answers`` (a check's answer), ``actions`` (a night step's title). Pure data, read once.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any

#: The tables of a shared words file whose entries are ``["中文", "English"]`` pairs.
PAIR_TABLES = ("roles", "calls", "endings", "sides", "answers", "actions")
#: The tables whose entries name another entry: an alias names a role, a default ending names an ending.
NAME_TABLES = ("aliases", "default_endings")
#: The shared words file the seed versions include.
KILLER_GAME = "killer-game"


class WordsError(ValueError):
    """A shared words file that is missing or malformed (the message names the file and the key)."""


@dataclass(frozen=True)
class SharedWords:
    """One shared words file: ``pairs[table][key] = (zh, en)``; ``names[table][key] = other key``."""

    name: str
    pairs: Mapping[str, Mapping[str, tuple[str, str]]]
    names: Mapping[str, Mapping[str, str]]

    def table(self, table: str) -> Mapping[str, tuple[str, str]]:
        """One pair table (empty if the file has none)."""
        return self.pairs.get(table, MappingProxyType({}))

    def role_whats(self) -> dict[str, tuple[str, ...]]:
        """Every role the file gives lines, with what each line says, in the file's order: ``{"killer": ("name",
        "wake", ...)}``."""
        out: dict[str, tuple[str, ...]] = {}
        for key in self.table("calls"):
            role, _, what = key.partition(".")
            out[role] = (*out.get(role, ()), what)
        return out

    def ending_name(self, pair: tuple[str, str]) -> str | None:
        """The shared ending said in exactly these words, if any: a line is one recording, so a variant that
        words its win as a seed does is said with that seed's clip (``police_side_win``)."""
        return next((key for key, words in self.table("endings").items() if words == pair), None)


def words_file(name: str) -> str:
    """The file name of shared words ``name``: ``killer-game`` -> ``_killer-game.toml``."""
    return f"_{name}.toml"


def names() -> list[str]:
    """The shared words files shipped with Tianhei, by name."""
    files = resources.files("controller.variants").iterdir()
    return sorted(f.name[1:-5] for f in files if f.name.startswith("_") and f.name.endswith(".toml"))


@functools.cache
def shared(name: str = KILLER_GAME) -> SharedWords:
    """The shared words file ``name`` (read once); :class:`WordsError` naming the files that exist if none."""
    if name not in names():
        raise WordsError(f"no shared words {name!r}; there are: {', '.join(names()) or 'none'}")
    where = words_file(name)
    raw = tomllib.loads(resources.files("controller.variants").joinpath(where).read_text(encoding="utf-8"))
    return parse(name, raw, where)


def parse(name: str, raw: Mapping[str, Any], where: str) -> SharedWords:
    """Check and convert a shared words file's raw TOML (``where`` names it in messages)."""
    unknown = sorted(set(raw) - set(PAIR_TABLES) - set(NAME_TABLES))
    if unknown:
        raise WordsError(f"{where}: unknown table {unknown[0]!r}; the tables are: {', '.join(PAIR_TABLES + NAME_TABLES)}")
    pairs: dict[str, Mapping[str, tuple[str, str]]] = {}
    for table in PAIR_TABLES:
        entries = _table(raw, table, where)
        for key, pair in entries.items():
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(w, str) and w for w in pair)):
                raise WordsError(f"{where}: {table}.{key} must be [\"中文\", \"English\"], not {pair!r}")
        pairs[table] = MappingProxyType({key: (pair[0], pair[1]) for key, pair in entries.items()})
    named: dict[str, Mapping[str, str]] = {}
    for table, target in (("aliases", "roles"), ("default_endings", "endings")):
        entries = _table(raw, table, where)
        for key, other in entries.items():
            if other not in pairs[target]:
                raise WordsError(f"{where}: {table}.{key} names {other!r}, which is not in [{target}]")
        named[table] = MappingProxyType(dict(entries))
    return SharedWords(name, MappingProxyType(pairs), MappingProxyType(named))


def _table(raw: Mapping[str, Any], table: str, where: str) -> dict[str, Any]:
    value = raw.get(table, {})
    if not isinstance(value, dict):
        raise WordsError(f"{where}: [{table}] must be a table, not {value!r}")
    return value
