"""``tianhei sounds``: build and check voice packs (see sounds/ and controller/voice/)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("sounds", help="build and check voice packs",
                                   description="Build and check the table's voice packs.")
    sub = parser.add_subparsers(dest="sounds_command", metavar="ACTION")
    sub.required = True
    check = sub.add_parser("check", help="list missing, unreadable, silent or overlong prompts; non-zero if any")
    check.add_argument("packs", nargs="+", metavar="PACK", help="pack name (zh-CN, en) or a club pack folder")
    check.set_defaults(func=run_check)
    build = sub.add_parser("build", help="rebuild a pack (espeak-ng and sox needed)")
    build.add_argument("pack", metavar="PACK", help="catalogue language (zh-CN, en) or a club pack folder")
    build.add_argument("--force", action="store_true", help="re-synthesise every prompt, not only changed ones")
    build.set_defaults(func=run_build)


def run_check(args: argparse.Namespace) -> int:
    from controller.voice.check import check_pack

    failed = 0
    for pack in args.packs:
        problems = check_pack(pack)
        for problem in problems:
            print(f"{pack}: {problem}")
        print(f"{pack}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
        failed += bool(problems)
    return 1 if failed else 0


def run_build(args: argparse.Namespace) -> int:
    from controller.voice.build import BuildError, build
    from controller.voice.check import check_pack

    try:
        root = build(args.pack, force=args.force, progress=print)
    except BuildError as exc:
        print(f"sounds build {args.pack}: {exc}", file=sys.stderr)
        return 2
    problems = check_pack(root)
    for problem in problems:
        print(f"{root}: {problem}")
    print(f"built {root}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tianhei sounds`` alone (used by sounds/build.py, which must work before the CLI is complete)."""
    parser = argparse.ArgumentParser(prog="tianhei")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sounds", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args) or 0)
