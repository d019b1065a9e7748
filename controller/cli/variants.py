"""``tianhei variants``: every variant with its options (RULES IDs, defaults) and role tables."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli.game_args import add_settings_argument, fail, load_club_abilities
from controller.rules.options import OPTIONS
from controller.rules.variant import VariantError, builtin_ids, load_variant


def register(sub: Any) -> None:
    p = sub.add_parser("variants", help="list the variants, their options and role tables")
    p.add_argument("variant", nargs="?", help="show only this variant (an id or a variant file)")
    p.add_argument("--json", action="store_true", help="print the variants, options and role tables as JSON")
    add_settings_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        load_club_abilities(args)  # a club's own file may use its own abilities
        variants = [load_variant(args.variant)] if args.variant else [load_variant(v) for v in builtin_ids()]
    except (VariantError, ValueError) as exc:
        return fail(str(exc))
    if args.json:
        print(json.dumps([_as_json(v) for v in variants], ensure_ascii=False, indent=1))
        return 0
    for v in variants:
        print(f"{v.id} — {v.name}{' / ' + v.name_zh if v.name_zh else ''}  [{' '.join(v.rules)}]")
        print(f"  players {v.min_players}-{v.max_players}; roles: {', '.join(v.roles)}")
        steps = [f"{st.id} ({'+'.join(st.roles)})" for st in v.night]
        print(f"  night: {' → '.join(steps)}")
        print(f"  day: {' → '.join(v.day_script)}")
        for line in _file_settings(v):
            print(f"  {line}")
        for name, rows in v.role_tables.items():
            label = f"role table {name}" + (f" ({v.role_table_rules[name]})" if v.role_table_rules.get(name) else "")
            print(f"  {label}:")
            for row in rows:
                counts = ", ".join(f"{n} {r}" for r, n in row.counts)
                print(f"    {row.low:2}-{row.high:<2} players: {counts}, civilians the rest")
        if v.options:
            print("  options (default; set with --option KEY=VALUE, or [game] options in tianhei.toml):")
            for key, default in v.options.items():
                spec = OPTIONS[key]
                choices = f" [{'|'.join(spec.choices)}]" if spec.choices else ""
                print(f"    {key}={_show(default)}{choices}  ({spec.rule}) {spec.help}")
        print()
    return 0


#: How the judge calls a night step (C2), as the voice says it: the variant file's ``night_call``.
NIGHT_CALLS = {
    "eyes": "「杀手请睁眼」 … 「杀手请闭眼」 (004 §3)",
    "out_back": "「杀手出动」 … 「杀手回去」 (V4.2)",
    "come_back": "「杀手出来」 … 「杀手回去」 (000 6.0)",
}


def _file_settings(v: Any) -> list[str]:
    """The settings a club sets in its own copy of the variant file (not with ``--option``): how the judge
    calls the night, which phase comes first, and for the dual-card versions the cards a player holds."""
    lines = [f"night_call={v.night_call} [{'|'.join(NIGHT_CALLS)}]  (C2) {NIGHT_CALLS.get(v.night_call, '')}",
             f"first={v.first} [night|day]  the game opens with this phase"]
    if v.hand > 1:
        live = "first (D1: one card plays at a time)" if v.live == "first" else "both (D2: both cards live)"
        lines.append(f"hand={v.hand}  cards a player holds; live={live}")
    if v.numbered:
        lines.append(f"numbered={', '.join(v.numbered)}  (D3) roles whose cards are numbered, each waking alone")
    lines.append(f"win tables: {', '.join(v.win_tables)}" + (" (chosen by the win option)" if "win" in v.options
                                                           else ""))
    return ["variant file (a club's own copy may change these):", *(f"  {x}" for x in lines)]


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _as_json(v: Any) -> dict[str, object]:
    return {
        "id": v.id, "name": v.name, "name_zh": v.name_zh, "rules": list(v.rules),
        "roles": {name: spec.side for name, spec in v.roles.items()},
        "players": [v.min_players, v.max_players],
        "night": [{"id": st.id, "roles": list(st.roles), "ability": st.ability} for st in v.night],
        "day": list(v.day_script),
        "night_call": v.night_call, "first": v.first, "hand": v.hand, "live": v.live, "numbered": list(v.numbered),
        "win_tables": {n: [{"side": r.side, "when": r.when, "roles": list(r.roles)} for r in rows]
                       for n, rows in v.win_tables.items()},
        "role_tables": {n: [{"players": [r.low, r.high], **dict(r.counts)} for r in rows]
                        for n, rows in v.role_tables.items()},
        "options": {k: {"default": d, "rule": OPTIONS[k].rule, "choices": list(OPTIONS[k].choices),
                        "help": OPTIONS[k].help} for k, d in v.options.items()},
        "words": {table: {key: list(pair) for key, pair in pairs.items()} for table, pairs in v.words.items()},
    }
