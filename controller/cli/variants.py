"""``tianhei variants``: every variant with its options (RULES IDs, defaults) and role tables."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli.game_args import fail
from controller.rules.options import OPTIONS
from controller.rules.variant import VariantError, builtin_ids, load_variant


def register(sub: Any) -> None:
    p = sub.add_parser("variants", help="list the variants, their options and role tables")
    p.add_argument("variant", nargs="?", help="show only this variant (an id or a variant file)")
    p.add_argument("--json", action="store_true", help="print the variants, options and role tables as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        variants = [load_variant(args.variant)] if args.variant else [load_variant(v) for v in builtin_ids()]
    except VariantError as exc:
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
        for name, rows in v.role_tables.items():
            label = f"role table {name}" + (f" ({v.role_table_rules[name]})" if v.role_table_rules.get(name) else "")
            print(f"  {label}:")
            for row in rows:
                counts = ", ".join(f"{n} {r}" for r, n in row.counts)
                print(f"    {row.low:2}-{row.high:<2} players: {counts}, civilians the rest")
        if v.options:
            print("  options (default):")
            for key, default in v.options.items():
                spec = OPTIONS[key]
                choices = f" [{'|'.join(spec.choices)}]" if spec.choices else ""
                print(f"    {key}={_show(default)}{choices}  ({spec.rule}) {spec.help}")
        print()
    return 0


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _as_json(v: Any) -> dict[str, object]:
    return {
        "id": v.id, "name": v.name, "name_zh": v.name_zh, "rules": list(v.rules),
        "players": [v.min_players, v.max_players],
        "night": [{"id": st.id, "roles": list(st.roles), "ability": st.ability} for st in v.night],
        "day": list(v.day_script),
        "role_tables": {n: [{"players": [r.low, r.high], **dict(r.counts)} for r in rows]
                        for n, rows in v.role_tables.items()},
        "options": {k: {"default": d, "rule": OPTIONS[k].rule, "choices": list(OPTIONS[k].choices),
                        "help": OPTIONS[k].help} for k, d in v.options.items()},
    }
