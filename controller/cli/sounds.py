"""``tianhei sounds``: build and check voice packs (see sounds/ and controller/voice/)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from controller.cli.game_args import add_settings_argument, load_club_abilities


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("sounds", help="build and check voice packs",
                                   description="Build and check the table's voice packs.")
    sub = parser.add_subparsers(dest="sounds_command", metavar="ACTION")
    sub.required = True
    check = sub.add_parser("check", help="list missing, unreadable, silent or overlong prompts; non-zero if any")
    check.add_argument("packs", nargs="+", metavar="PACK", help="pack name (zh-CN, en) or a club pack folder")
    check.add_argument("--variant", action="append", default=[], metavar="FILE",
                       help="also list the lines of this variant file that the pack has no recording of "
                            "(the built-in variants' are always listed; repeatable)")
    add_settings_argument(check)
    check.set_defaults(func=run_check)
    build = sub.add_parser("build", help="rebuild a pack (sox needed; espeak-ng, or the [voice] extra for neural)")
    build.add_argument("pack", metavar="PACK", help="catalogue language (zh-CN, en) or a club pack folder")
    build.add_argument("--force", action="store_true", help="re-synthesise every prompt, not only changed ones")
    build.add_argument("--voice", choices=("neural", "espeak", "piper"), default=None,
                       help="the synthesiser (default: the catalogue's for the language: zh-CN neural, en espeak; "
                            "piper: a Piper voice file the club provides)")
    build.add_argument("--piper-voice", type=Path, default=None, metavar="FILE.onnx",
                       help="--voice piper: the club's Piper voice (FILE.onnx.json beside it; pip install piper-tts)")
    build.add_argument("--voice-use", choices=("any", "non-commercial"), default=None,
                       help="--voice piper: what the voice's licence allows (its dataset's, and the voice it was "
                            "fine-tuned from): written into the pack's licence record")
    build.set_defaults(func=run_build)
    from controller.cli import sounds_record

    sounds_record.register(sub)
    say = sub.add_parser("say", help="say prompts through the speaker (a sound check for the table)")
    say.add_argument("prompts", nargs="*", metavar="ID", default=["test.sound"], help="prompt IDs (default: test.sound)")
    say.add_argument("--pack", default="zh-CN", help="pack name or club pack folder (default: zh-CN)")
    say.add_argument("--volume", type=float, default=1.0, help="0..1 (default: 1)")
    say.add_argument("--mask", action="store_true", help="play the night masking loop under the prompts")
    say.set_defaults(func=run_say)


def run_check(args: argparse.Namespace) -> int:
    from controller.rules.variant import VariantError
    from controller.voice.check import check_pack, unrecorded

    try:
        load_club_abilities(args)  # before a club's variant file that uses its own abilities is read
    except ValueError as exc:
        print(f"sounds check: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for pack in args.packs:
        problems = check_pack(pack)
        for problem in problems:
            print(f"{pack}: {problem}")
        try:
            missing = unrecorded(pack, args.variant)
        except VariantError as exc:
            print(f"sounds check: {exc}", file=sys.stderr)
            return 2
        for vid, ids in missing.items():  # said by the fallback voice meanwhile: not a problem of the pack
            print(f"{pack}: variant {vid}: {len(ids)} line(s) without a recording, said by espeak-ng until the "
                  f"pack is rebuilt with them: {', '.join(ids)}")
        print_licence(pack)
        print(f"{pack}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
        failed += bool(problems)
    return 1 if failed else 0


def run_build(args: argparse.Namespace) -> int:
    from controller.voice.build import BuildError, PiperChoice, build
    from controller.voice.check import check_pack

    piper = None
    if args.voice == "piper" or args.piper_voice is not None:
        if args.piper_voice is None or args.voice_use is None or args.voice != "piper":
            print("sounds build: a Piper voice needs all three: --voice piper --piper-voice FILE.onnx "
                  "--voice-use any|non-commercial (the use its licence allows)", file=sys.stderr)
            return 2
        piper = PiperChoice(args.piper_voice, args.voice_use)
    try:
        root = build(args.pack, force=args.force, voice=args.voice, piper=piper, progress=print)
    except BuildError as exc:
        print(f"sounds build {args.pack}: {exc}", file=sys.stderr)
        return 2
    problems = check_pack(root)
    for problem in problems:
        print(f"{root}: {problem}")
    print_licence(root)
    print(f"built {root}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


def print_licence(pack: object) -> None:
    """The pack's licence record, one field a line (a pack that cannot be read is already a problem above)."""
    from controller.voice.packs import Pack, PackError, find_pack

    try:
        licence = Pack.load(find_pack(str(pack))).licence
    except PackError:
        return
    if licence is None:
        print(f"{pack}: licence: no record in its manifest (a club's own recordings: `tianhei sounds build "
              f"FOLDER` writes one; a bought voice: write [licence] with voice, model, data and use)")
        return
    for line in licence.lines():
        print(f"{pack}: licence {line}")


def run_say(args: argparse.Namespace, *, clock: Callable[[], float] = time.monotonic,
            sleep: Callable[[float], None] = time.sleep) -> int:
    import pygame

    from controller.voice.packs import PackError, load_voice_pack
    from controller.voice.pygame_voice import PygameVoice

    try:
        pack = load_voice_pack(args.pack)
    except PackError as exc:
        print(f"sounds say: {exc}", file=sys.stderr)
        return 2
    try:
        voice = PygameVoice(pack, clock=clock, volume=args.volume)  # ALSA's own lines are silenced in there
    except pygame.error as exc:
        print(f"sounds say: no sound device ({exc}): plug in the speaker or the USB sound card and check that "
              "`aplay -l` lists it (the service user needs the audio group)", file=sys.stderr)
        return 2
    voice.masking(args.mask)
    left = voice.say(args.prompts)
    print(f"saying {' '.join(args.prompts)} ({left:.2f} s) from pack {voice.pack.name}")
    while (wait := voice.pump()) != float("inf"):
        sleep(min(wait, 0.1) + 0.01)
    if args.mask:
        sleep(1.0)  # a second of masking on its own, to hear it
    voice.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tianhei sounds`` alone (used by sounds/build.py, which must work before the CLI is complete)."""
    parser = argparse.ArgumentParser(prog="tianhei")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sounds", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
