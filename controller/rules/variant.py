"""Variants as data: a variant file (TOML) names the roles, the night order, the day script, the role tables,
the win tables and the options it offers. This module loads and checks one, so that a mistake in a club's own
variant file is reported with the file, the key and the fix before any game starts.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from controller.rules import abilities as _builtin_abilities  # noqa: F401 (registers the built-in abilities)
from controller.rules.ability import REGISTRY as ABILITY_REGISTRY
from controller.rules.options import OPTIONS, OptionValue
from controller.rules.variant_record import to_record
from controller.rules.words import KILLER_GAME, SharedWords, WordsError
from controller.rules.words import shared as shared_words

#: Night abilities are modules of controller/rules/abilities/, each registering itself (controller/rules/ability.py);
#: a variant that only recombines them needs no new engine code, and a new one is one module more.
TARGET_RULES = ("eyes_closed", "others", "living")
#: When a night step runs (V5.2: the first night is recognition only).
NIGHTS = ("all", "first", "after_first")
DAY_STEPS: tuple[str, ...] = ("announce", "last_words", "speeches", "defence", "vote")
#: V4.7 last words of all the night's dead in turn from the judge; V4.8 defence speeches with at-once votes.
DAY_STEPS += ("last_words.in_turn", "defence.votes")
#: What a role may do when voted out (controller/rules/hooks.py; W9).
ON_VOTED_OUT = ("", "reveal")
#: What a role may do by day at any moment (controller/rules/hooks.py; W11).
DAY_ACTIONS = ("", "self_destruct")
#: The day steps that hold the day's vote (a day needs one).
VOTE_STEPS = ("vote", "defence.votes")
WIN_PREDICATES: tuple[str, ...] = ("all_dead", "at_least_others")
#: V7.2 decision: the living are exactly the holders of these roles, each role alive (a stalemate).
WIN_PREDICATES += ("only_left",)
#: V5.4/V5.5 decision: exactly two players live, one per side, both holding these roles (a stalemate: the last
#: killer may not kill the undercover police, and a vote of two always ties).
WIN_PREDICATES += ("last_pair",)
#: The two camps' IDs, whatever a version calls them: what journals (``GameEnded.winner``), results, the club's
#: records and JSON output hold, and what a variant's ``[words.sides]`` keys. Never shown to a person as they are:
#: a screen, a report or a printed line names a side by the variant's words (狼人 for a werewolf board;
#: controller/screens/strings.winner_name and side_label).
SIDES = ("good", "killers")


class VariantError(ValueError):
    """A variant file (or a game set-up) that cannot be played, with where and how to fix it."""

    def __init__(self, where: str, key: str, problem: str, fix: str = "") -> None:
        self.where, self.key, self.problem, self.fix = where, key, problem, fix
        text = f"{where}: {key}: {problem}" if key else f"{where}: {problem}"
        super().__init__(f"{text}. Fix: {fix}" if fix else text)


@dataclass(frozen=True, slots=True)
class RoleSpec:
    name: str
    side: str
    knows_partners: bool = False
    special: bool = False
    civilian: bool = False
    #: Whether a check on this role answers with the police's nod (V2.2; W5: the seer's "werewolf"): the role's
    #: own ``nod = true`` in its variant file, never its name (V5.3: the undercover killer nods too).
    nod: bool = False
    #: Night abilities that have no effect on this role (V7.1: the killers cannot kill the devil, the devil
    #: cannot kill the angel). The actors are not told.
    immune: tuple[str, ...] = ()
    #: Night abilities whose results this role learns too, though it does not wake for them (V7.1: the angel
    #: and the devil see the police's check results).
    sees: tuple[str, ...] = ()
    #: Role rules as data hooks (controller/rules/hooks.py). W9: "reveal": voted out, the player shows the card
    #: and stays (then speaks but neither votes nor can be voted out).
    on_voted_out: str = ""
    #: W8: an ability the player uses once on dying (``"shoot"``: one living player dies with them, or nobody),
    #: unless the death's cause is in ``unless`` (W8: not when poisoned).
    on_death: str = ""
    unless: tuple[str, ...] = ()
    #: W11: "self_destruct": by day the player may reveal themself; they are out at once, without last words, and
    #: night falls with no vote.
    day_action: str = ""


@dataclass(frozen=True, slots=True)
class NightStep:
    id: str
    roles: tuple[str, ...]
    ability: str
    targets: str
    optional: bool = False
    #: V5.4: roles that wake with ``roles`` and count in their majority (C6) while at least two of ``roles``
    #: live; the last one left no longer sees them.
    guests: tuple[str, ...] = ()
    #: Which nights the step runs: "all", "first" (V5.2 recognition) or "after_first"; "never" for a role's
    #: one-off step (W8: on dying, Variant.death_steps).
    nights: str = "all"
    #: V5.4: the step runs only once every role named here is dead (the undercover killer's late kill).
    when_all_dead: tuple[str, ...] = ()
    #: V5.4: roles the last living member of ``roles`` may not target (the last killer and the undercover police).
    spare_when_last: tuple[str, ...] = ()
    #: The roles the judge calls aloud (the voice); default ``roles``. A boss wakes as one of the killers.
    call: tuple[str, ...] = ()
    #: D3: the step is for one numbered copy of its role's cards ("doctor 1", "doctor 2").
    copy: int = 0
    #: D2: every actor points at its own target (no majority): each killer card kills on its own.
    each: bool = False

    @property
    def team(self) -> tuple[str, ...]:
        """Every role that may wake in this step (its own roles and its guests)."""
        return self.roles + self.guests if self.guests else self.roles


@dataclass(frozen=True, slots=True)
class RoleRow:
    low: int
    high: int
    counts: tuple[tuple[str, int], ...]
    lastwords: int = 0


@dataclass(frozen=True, slots=True)
class WinRow:
    side: str  # "good", "killers" or "draw"
    when: str
    roles: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Variant:
    id: str
    name: str
    name_zh: str
    rules: tuple[str, ...]
    first: str
    roles: Mapping[str, RoleSpec]
    night: tuple[NightStep, ...]
    day_script: tuple[str, ...]
    quota_role: str
    role_tables: Mapping[str, tuple[RoleRow, ...]]
    role_table_rules: Mapping[str, str]
    win_tables: Mapping[str, tuple[WinRow, ...]]
    options: Mapping[str, OptionValue]
    source: str
    data: Mapping[str, Any]
    #: D1-D3: cards per player (1 in the single-card versions); role tables then count cards, not players.
    hand: int = 1
    #: D3: roles whose cards are numbered ("doctor 1", "doctor 2"), each copy waking in its own step.
    numbered: tuple[str, ...] = ()
    #: The variant's own words (``[words]``), not rules: table -> key -> (zh, en). ``sides``: the winning side as
    #: the version names it; ``roles``: role names; ``answers``: a learned answer's words ("nod", "good", ...).
    #: Kept out of ``data`` (what a journal records): a replay needs no words, and the seed versions' journals stay
    #: as they were.
    words: Mapping[str, Mapping[str, tuple[str, str]]] = field(default_factory=dict, compare=False)
    #: With two cards a player: "first" (D1: one card at a time) or "both" (D2: both cards live at once; each
    #: card is then a place at the table of its own, player k holding places 2k-1 and 2k).
    live: str = "first"
    #: How the judge calls a night step (C2): "eyes" ("杀手请睁眼" ... "杀手请闭眼", 004 §3), "out_back" (V4.2:
    #: "杀手出动" ... "杀手回去") or "come_back" (000 6.0: "杀手出来" ... "杀手回去"). Only the voice reads it.
    night_call: str = "eyes"
    #: The night steps by id (derived from ``night`` once: the engine looks a step up at every night input).
    night_steps: Mapping[str, NightStep] = field(init=False, repr=False, compare=False)
    #: Roles holding the V3.3 one-time power (derived once; every dawn asks).
    secret_roles: frozenset[str] = field(init=False, repr=False, compare=False)
    #: Role -> the ability that shields its holder while unspent (V3.3; derived once). A dict: compiled code
    #: reads it natively; never changed after the variant is made.
    shields: dict[str, str] = field(init=False, repr=False, compare=False)
    #: W8: role -> the one-off step of its ``on_death`` ability (id ``on_death.<role>``), derived once.
    death_steps: dict[str, NightStep] = field(init=False, repr=False, compare=False)
    #: W9: the roles that show their card instead of leaving when voted out.
    reveal_roles: frozenset[str] = field(init=False, repr=False, compare=False)
    #: Whether any role has a hook (W8, W9): flags, so that every vote and execution asks a bool.
    reveals: bool = field(init=False, repr=False, compare=False)
    last_acts: bool = field(init=False, repr=False, compare=False)
    #: Roles immune to some night ability (V4.4; derived once: every dawn asks whether any exists).
    immune_roles: frozenset[str] = field(init=False, repr=False, compare=False)
    #: The ids of the steps that run on the first night and on every later night (V5.2: a step may run on the
    #: first night only, or from the second night on). Derived once: every night asks.
    night_ids: tuple[tuple[str, ...], tuple[str, ...]] = field(init=False, repr=False, compare=False)
    #: The abilities of the night steps (derived once: every dawn asks whether a 4.0/7.0 ability is in play).
    abilities: frozenset[str] = field(init=False, repr=False, compare=False)
    #: V7.1: role -> the night step with which it takes someone along (derived once: every death by day asks).
    take_steps: Mapping[str, NightStep] = field(init=False, repr=False, compare=False)
    #: Night step id -> the roles awake in it (``NightStep.team``), derived once: the bots ask at every night
    #: step. A dict, not a read-only map, so that compiled code reads it with native dict operations; never
    #: changed after the variant is made.
    step_teams: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "step_teams", {st.id: st.team for st in self.night})
        object.__setattr__(self, "abilities", frozenset(st.ability for st in self.night))
        takes: dict[str, NightStep] = {}
        for st in self.night:
            if ABILITY_REGISTRY[st.ability].after:  # V7.1: a take-along, asked by day too
                for role in st.roles:
                    takes.setdefault(role, st)
        object.__setattr__(self, "take_steps", MappingProxyType(takes))
        object.__setattr__(self, "immune_roles", frozenset(name for name, r in self.roles.items() if r.immune))
        object.__setattr__(self, "night_ids", (
            tuple(st.id for st in self.night if st.nights in ("all", "first")),
            tuple(st.id for st in self.night if st.nights != "first")))
        death_steps = {name: NightStep(f"on_death.{name}", (name,), spec.on_death, "others", optional=True,
                                       nights="never")
                       for name, spec in self.roles.items() if spec.on_death}
        object.__setattr__(self, "death_steps", death_steps)
        object.__setattr__(self, "reveal_roles", frozenset(
            name for name, spec in self.roles.items() if spec.on_voted_out == "reveal"))
        object.__setattr__(self, "reveals", bool(self.reveal_roles))
        object.__setattr__(self, "last_acts", bool(death_steps))
        object.__setattr__(self, "night_steps", MappingProxyType(
            {st.id: st for st in (*self.night, *death_steps.values())}))
        shields = {r: st.ability for st in self.night if ABILITY_REGISTRY[st.ability].shields_holder
                   for r in st.roles}
        object.__setattr__(self, "shields", shields)
        object.__setattr__(self, "secret_roles", frozenset(shields))

    @property
    def min_players(self) -> int:
        return min(row.low for rows in self.role_tables.values() for row in rows)

    @property
    def max_players(self) -> int:
        return max(row.high for rows in self.role_tables.values() for row in rows)


def _suggest(word: str, known: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(known)}"


class _Reader:
    """Walks the raw TOML with the file name at hand, so every error names its place."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, key: str, problem: str, fix: str = "") -> VariantError:
        return VariantError(self.where, key, problem, fix)

    def table(self, data: Mapping[str, Any], key: str, required: bool = True) -> Mapping[str, Any]:
        value = data.get(key.rsplit(".", 1)[-1])
        if value is None:
            if required:
                raise self.fail(key, "missing", f"add a [{key}] table")
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table, not {type(value).__name__}", f"write it as a [{key}] table")
        return value

    def string(self, data: Mapping[str, Any], key: str, path: str, default: str | None = None,
               choices: tuple[str, ...] = ()) -> str:
        value = data.get(key, default)
        if value is None:
            raise self.fail(path, "missing", f"add {key} = \"...\"")
        if not isinstance(value, str):
            raise self.fail(path, f"must be a string, not {value!r}", f"write {key} = \"...\"")
        if choices and value not in choices:
            raise self.fail(path, f"unknown value {value!r}", _suggest(value, choices))
        return value

    def strings(self, data: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(path, f"must be a list of strings, not {value!r}", f"write {key} = [\"...\", \"...\"]")
        return tuple(value)

    def boolean(self, data: Mapping[str, Any], key: str, path: str, default: bool = False) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(path, f"must be true or false, not {value!r}", f"write {key} = true or {key} = false")
        return value

    def unknown_keys(self, data: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
        for key in data:
            if key not in allowed:
                raise self.fail(f"{path}.{key}" if path else key, "unknown key", _suggest(key, allowed))


def _abilities(r: _Reader, spec: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    """A role's list of ability names (``immune``, ``sees``), each checked against the registered abilities."""
    names = r.strings(spec, key, f"{path}.{key}")
    known = tuple(ABILITY_REGISTRY)
    for n in names:
        if n not in known:
            raise r.fail(f"{path}.{key}", f"unknown ability {n!r}", _suggest(n, known))
    return names


_TOP_KEYS = ("id", "name", "name_zh", "rules", "first", "roles", "night", "day", "role_tables", "win_tables",
             "options", "hand", "numbered", "live", "night_call", "words")
#: The tables of ``[words]``: besides the names (``sides``, ``roles``, ``answers``) what the judge says, so a new
#: role needs no central table (controller/voice/variant_lines.py): ``calls``, keyed ``<role>.<what>`` (what: wake,
#: sleep, act, a step's id or ability for that step's question, shoot, reveal, ...), and ``endings``, keyed by side;
#: ``actions``: what a seat's screen calls a night step (keyed by its ability: antidote 解药). ``[words] include``
#: names a shared words file (controller/rules/words.py): the seed versions take the killer game's.
WORD_TABLES = ("sides", "roles", "answers", "actions", "calls", "endings")
#: What a ``[words.calls]`` key may name after the role: dotted prompt words (controller/voice/prompts.py).
_CALL_WHAT = re.compile(r"^[a-z0-9_]+$")


def parse_variant(data: Mapping[str, Any], where: str) -> Variant:
    """Check and convert one variant's raw TOML data. ``where`` names the file in error messages."""
    r = _Reader(where)
    r.unknown_keys(data, _TOP_KEYS, "")
    vid = r.string(data, "id", "id")
    hand = data.get("hand", 1)
    if hand not in (1, 2) or isinstance(hand, bool):
        raise r.fail("hand", f"must be 1 or 2 cards per player, not {hand!r}", "write hand = 2 for a dual-card version")
    roles: dict[str, RoleSpec] = {}
    for name, spec in r.table(data, "roles").items():
        path = f"roles.{name}"
        if not isinstance(spec, Mapping):
            raise r.fail(path, "must be a table", f"write it as a [{path}] table")
        r.unknown_keys(spec, ("side", "knows_partners", "special", "civilian", "nod", "immune", "sees",
                              "on_voted_out", "on_death", "unless", "day_action"), path)
        side = r.string(spec, "side", f"{path}.side", choices=SIDES)
        roles[name] = RoleSpec(
            name=name,
            side=side,
            knows_partners=r.boolean(spec, "knows_partners", f"{path}.knows_partners"),
            special=r.boolean(spec, "special", f"{path}.special"),
            civilian=r.boolean(spec, "civilian", f"{path}.civilian"),
            nod=r.boolean(spec, "nod", f"{path}.nod"),
            immune=_abilities(r, spec, "immune", path),
            sees=_abilities(r, spec, "sees", path),
            on_voted_out=r.string(spec, "on_voted_out", f"{path}.on_voted_out", default="", choices=ON_VOTED_OUT),
            on_death=_on_death(r, spec, path),
            unless=r.strings(spec, "unless", f"{path}.unless"),
            day_action=r.string(spec, "day_action", f"{path}.day_action", default="", choices=DAY_ACTIONS),
        )
    role_names = tuple(roles)

    def check_roles(names: tuple[str, ...], path: str) -> None:
        for n in names:
            if n not in roles:
                raise r.fail(path, f"unknown role {n!r}", _suggest(n, role_names))

    night: list[NightStep] = []
    raw_night = data.get("night", [])
    if not isinstance(raw_night, list):
        raise r.fail("night", "must be an array of tables", "write each night step as a [[night]] table")
    seen_ids: set[str] = set()
    for i, step in enumerate(raw_night):
        path = f"night[{i}]"
        if not isinstance(step, Mapping):
            raise r.fail(path, f"must be a table, not {step!r}", "write each night step as a [[night]] table")
        r.unknown_keys(step, ("id", "roles", "ability", "targets", "optional", "guests", "nights", "when_all_dead",
                              "spare_when_last", "call", "copy", "each"), path)
        sid = r.string(step, "id", f"{path}.id")
        if sid in seen_ids:
            raise r.fail(f"{path}.id", f"the step id {sid!r} is used twice", "give every night step its own id")
        seen_ids.add(sid)
        step_roles = r.strings(step, "roles", f"{path}.roles")
        if not step_roles:
            raise r.fail(f"{path}.roles", "no role wakes in this step", "name at least one role")
        check_roles(step_roles, f"{path}.roles")
        night.append(NightStep(
            id=sid,
            roles=step_roles,
            ability=r.string(step, "ability", f"{path}.ability", choices=tuple(ABILITY_REGISTRY)),
            targets=r.string(step, "targets", f"{path}.targets", default="eyes_closed", choices=TARGET_RULES),
            optional=r.boolean(step, "optional", f"{path}.optional"),
            **_step_extras(r, step, path, check_roles),
        ))

    day = r.table(data, "day")
    r.unknown_keys(day, ("script", "quota_role"), "day")
    script = r.strings(day, "script", "day.script")
    for s in script:
        if s not in DAY_STEPS:
            raise r.fail("day.script", f"unknown day step {s!r}", _suggest(s, DAY_STEPS))
    if not any(s in VOTE_STEPS for s in script):
        raise r.fail("day.script", "a day needs a vote", "add \"vote\" to day.script")
    quota_role = r.string(day, "quota_role", "day.quota_role", default="")
    if quota_role:
        check_roles((quota_role,), "day.quota_role")

    role_tables: dict[str, tuple[RoleRow, ...]] = {}
    table_rules: dict[str, str] = {}
    for tname, table in r.table(data, "role_tables").items():
        path = f"role_tables.{tname}"
        r.unknown_keys(table, ("rule", "rows"), path)
        table_rules[tname] = r.string(table, "rule", f"{path}.rule", default="")
        rows: list[RoleRow] = []
        for j, row in enumerate(table.get("rows", [])):
            rpath = f"{path}.rows[{j}]"
            if not isinstance(row, Mapping):
                raise r.fail(rpath, f"must be a table, not {row!r}", "write { players = [low, high], ROLE = N }")
            span = row.get("players")
            if (not isinstance(span, list) or len(span) != 2 or not all(isinstance(x, int) for x in span)
                    or span[0] > span[1] or span[0] < 3):
                raise r.fail(f"{rpath}.players", f"must be [low, high] with 3 <= low <= high, not {span!r}",
                             "for example players = [8, 10]")
            counts = []
            for role, n in row.items():
                if role in ("players", "lastwords"):
                    continue
                check_roles((role,), rpath)
                if not isinstance(n, int) or n < 0:
                    raise r.fail(f"{rpath}.{role}", f"must be a count >= 0, not {n!r}", "give a whole number")
                counts.append((role, n))
            if sum(n for _, n in counts) > span[0] * hand:
                raise r.fail(rpath, f"more role cards than the {span[0] * hand} cards of the row's smallest table",
                             "give fewer role cards or raise the row's lowest player count")
            lastwords = row.get("lastwords", 0)
            if not isinstance(lastwords, int) or lastwords < 0:
                raise r.fail(f"{rpath}.lastwords", f"must be a count >= 0, not {lastwords!r}", "give a whole number")
            rows.append(RoleRow(span[0], span[1], tuple(counts), lastwords))
        if not rows:
            raise r.fail(f"{path}.rows", "empty", "add at least one row")
        role_tables[tname] = tuple(rows)
    if not role_tables:
        raise r.fail("role_tables", "missing", "add a [role_tables.default] table")

    win_tables: dict[str, tuple[WinRow, ...]] = {}
    for wname, table in r.table(data, "win_tables").items():
        path = f"win_tables.{wname}"
        r.unknown_keys(table, ("rule", "rows"), path)
        wrows: list[WinRow] = []
        for j, row in enumerate(table.get("rows", [])):
            rpath = f"{path}.rows[{j}]"
            if not isinstance(row, Mapping):
                raise r.fail(rpath, f"must be a table, not {row!r}", "write { side = ..., when = ..., roles = [...] }")
            r.unknown_keys(row, ("side", "when", "roles"), rpath)
            wroles = r.strings(row, "roles", f"{rpath}.roles")
            check_roles(wroles, f"{rpath}.roles")
            wrows.append(WinRow(
                side=r.string(row, "side", f"{rpath}.side", choices=(*SIDES, "draw")),
                when=r.string(row, "when", f"{rpath}.when", choices=WIN_PREDICATES),
                roles=wroles,
            ))
        win_tables[wname] = tuple(wrows)
    if not win_tables:
        raise r.fail("win_tables", "missing", "add a [win_tables.default] table")

    options: dict[str, OptionValue] = {}
    for key, raw in r.table(data, "options", required=False).items():
        spec = OPTIONS.get(key)
        if spec is None:
            raise r.fail(f"options.{key}", "unknown option", _suggest(key, tuple(OPTIONS)))
        try:
            options[key] = spec.parse(raw)
        except ValueError as exc:
            raise r.fail(f"options.{key}", str(exc), f"give {key} a value it takes (tianhei variants lists them)") \
                from None
    if len(role_tables) > 1 and "roles" not in options:
        raise r.fail("options.roles", "several role tables but no option to choose one",
                     f"add roles = \"{next(iter(role_tables))}\" to [options]")
    if "roles" in options and options["roles"] not in role_tables:
        raise r.fail("options.roles", f"no role table named {options['roles']!r}", _suggest(
            str(options["roles"]), tuple(role_tables)))
    if "win.all" in options and "all" not in win_tables:
        raise r.fail("options.win.all", "the option win.all (W14) needs a win table named \"all\"",
                     "add [win_tables.all] with the rows of 屠城, or drop the option")
    # W14: with win.all, the table "all" (屠城) stands beside one other table (屠边), which needs no option "win"
    if len(win_tables) > 1 + ("win.all" in options) and "win" not in options:
        raise r.fail("options.win", "several win tables but no option to choose one",
                     f"add win = \"{next(iter(win_tables))}\" to [options]")

    first = r.string(data, "first", "first", default="night", choices=("night", "day"))
    rules = r.strings(data, "rules", "rules")
    return Variant(
        id=vid,
        name=r.string(data, "name", "name", default=vid),
        name_zh=r.string(data, "name_zh", "name_zh", default=""),
        rules=rules,
        first=first,
        roles=MappingProxyType(roles),
        night=tuple(night),
        day_script=script,
        quota_role=quota_role,
        role_tables=MappingProxyType(role_tables),
        role_table_rules=MappingProxyType(table_rules),
        win_tables=MappingProxyType(win_tables),
        options=MappingProxyType(options),
        source=where,
        data=MappingProxyType(dict(to_record({k: v for k, v in data.items() if k != "words"}))),
        words=_words(r, data, tuple(roles)),
        hand=hand,
        numbered=_numbered(r, data, check_roles),
        live=r.string(data, "live", "live", default="first", choices=("first", "both")),
        night_call=r.string(data, "night_call", "night_call", default="eyes",
                            choices=("eyes", "out_back", "come_back")),
    )


def _words(r: _Reader, data: Mapping[str, Any], role_names: tuple[str, ...]) -> Mapping[str, Mapping[str, tuple[str, str]]]:
    """``[words]``: each entry a pair ``["中文", "English"]``; sides and roles must be the variant's own.
    ``include`` names a shared words file (controller/rules/words.py: the seed versions' ``killer-game``), whose
    endings a ``[words.endings]`` entry may name instead of a pair (``good = "police_side_win"``)."""
    raw = r.table(data, "words", required=False)
    r.unknown_keys(raw, (*WORD_TABLES, "include"), "words")
    shared = None
    if "include" in raw:
        try:
            shared = shared_words(r.string(raw, "include", "words.include"))
        except WordsError as exc:
            raise r.fail("words.include", str(exc), f"write include = \"{KILLER_GAME}\"") from None
    out: dict[str, Mapping[str, tuple[str, str]]] = {}
    for name in WORD_TABLES:
        table = r.table(raw, f"words.{name}", required=False)
        known = {"sides": (*SIDES, "draw"), "endings": (*SIDES, "draw"), "roles": role_names}.get(name)
        pairs: dict[str, tuple[str, str]] = {}
        for key, pair in table.items():
            path = f"words.{name}.{key}"
            if known is not None and key not in known:
                raise r.fail(path, f"no such {name[:-1]} in this variant", _suggest(key, known))
            if name == "calls":
                _call_key(r, path, key, role_names)
            if name == "endings" and isinstance(pair, str):
                pair = _shared_ending(r, path, pair, shared)
            if (not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(w, str) and w for w in pair)):
                raise r.fail(path, f"must be [\"中文\", \"English\"], not {pair!r}", f"write {key} = [\"...\", \"...\"]")
            pairs[key] = (pair[0], pair[1])
        out[name] = MappingProxyType(pairs)
    return MappingProxyType(out)


def _shared_ending(r: _Reader, path: str, name: str, shared: SharedWords | None) -> list[str]:
    """A ``[words.endings]`` entry that names an ending of the included shared words: its pair."""
    if shared is None:
        raise r.fail(path, f"names the ending {name!r}, but [words] includes no shared words",
                     f"add include = \"{KILLER_GAME}\" to [words], or write [\"中文\", \"English\"]")
    endings = shared.table("endings")
    if name not in endings:
        raise r.fail(path, f"no ending {name!r} in the shared words {shared.name!r}", _suggest(name, tuple(endings)))
    return list(endings[name])


def _call_key(r: _Reader, path: str, key: str, role_names: tuple[str, ...]) -> None:
    """A ``[words.calls]`` key is ``<role>.<what>``: one of the variant's roles, then a lower-case word."""
    role, _, what = key.partition(".")
    if role not in role_names:
        raise r.fail(path, f"no role {role!r} in this variant", _suggest(role, role_names))
    if not _CALL_WHAT.match(what):
        raise r.fail(path, "must be \"<role>.<what>\" (what: wake, sleep, act, a step's id, ...)",
                     f"write \"{role}.wake\" = [\"...\", \"...\"]")


def _on_death(r: _Reader, spec: Mapping[str, Any], path: str) -> str:
    """W8: a role's ``on_death`` names a registered ability with a lethal effect (the hunter's shot)."""
    name = r.string(spec, "on_death", f"{path}.on_death", default="")
    if not name:
        return ""
    lethal = tuple(n for n, a in ABILITY_REGISTRY.items() if a.effect == "lethal" and not a.after)
    if name not in lethal:
        raise r.fail(f"{path}.on_death", f"{name!r} is not an ability that kills", _suggest(name, lethal))
    return name


def _numbered(r: _Reader, data: Mapping[str, Any], check_roles: Any) -> tuple[str, ...]:
    names = r.strings(data, "numbered", "numbered")
    check_roles(names, "numbered")
    return names


def _step_extras(r: _Reader, step: Mapping[str, Any], path: str,
                 check_roles: Any) -> dict[str, Any]:
    """The night-step keys of V5.2/V5.4 and D3 (guests, nights, conditions, the called names, copies)."""
    out: dict[str, Any] = {}
    for key in ("guests", "when_all_dead", "spare_when_last", "call"):
        if key in step:
            names = r.strings(step, key, f"{path}.{key}")
            check_roles(names, f"{path}.{key}")
            out[key] = names
    if "nights" in step:
        out["nights"] = r.string(step, "nights", f"{path}.nights", choices=NIGHTS)
    if "each" in step:
        out["each"] = r.boolean(step, "each", f"{path}.each")
    if "copy" in step:
        copy = step["copy"]
        if not isinstance(copy, int) or isinstance(copy, bool) or copy < 1:
            raise r.fail(f"{path}.copy", f"must be a card number >= 1, not {copy!r}", "for example copy = 2")
        out["copy"] = copy
    return out


def builtin_ids() -> list[str]:
    """The variants shipped with Tianhei, by id (file name without .toml)."""
    files = resources.files("controller.variants").iterdir()
    return sorted(f.name[:-5] for f in files if f.name.endswith(".toml") and not f.name.startswith("_"))


_CACHE: dict[str, Variant] = {}


def load_variant(name_or_path: str) -> Variant:
    """A built-in variant by id (``standard-2.0``), or a club's own variant file by path."""
    if name_or_path in _CACHE:
        return _CACHE[name_or_path]  # built-ins only: a club's file is read again, so an edit takes effect
    path = Path(name_or_path)
    if name_or_path.endswith(".toml") or path.exists():
        if not path.is_file():
            raise VariantError(name_or_path, "", "no such variant file", "check the path")
        where = str(path)
        text = path.read_text(encoding="utf-8")
    else:
        ids = builtin_ids()
        if name_or_path not in ids:
            raise VariantError("variant", name_or_path, "unknown variant", _suggest(name_or_path, ids)
                               + " (or give the path of a variant file)")
        where = f"controller/variants/{name_or_path}.toml"
        text = resources.files("controller.variants").joinpath(f"{name_or_path}.toml").read_text("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(where, "", f"not valid TOML: {exc}", "fix the syntax at that line") from None
    variant = parse_variant(data, where)
    if where.startswith("controller/variants/"):
        _CACHE[name_or_path] = variant
    return variant
