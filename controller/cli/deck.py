"""``tianhei deck enroll|show|check NAME``: register a physical deck of role cards, list it, and check it.

Decks are ``decks/NAME.toml`` (format: controller/config/decks.py). ``enroll`` and ``check`` run on the table
(see controller/diag/deck.py); ``show`` only reads the file.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any

from controller.cli.diag import add_table_arguments, config_failed, fail, load_setup
from controller.config.decks import Deck, deck_path, load_deck, save_deck
from controller.config.errors import ConfigError
from controller.config.settings import rules_variant_roles
from controller.diag.deck import DeckCheckRun, Enrollment, describe
from controller.diag.host import HardwareError, open_host
from controller.diag.people import card_uid

DECKS_DIR = Path("decks")


def register(sub: Any) -> None:
    p = sub.add_parser("deck", help="enroll, show or check a physical deck of role cards")
    actions = p.add_subparsers(dest="deck_command", metavar="ACTION")
    actions.required = True

    enroll = actions.add_parser("enroll", help="tap each card and choose its role; saved as decks/NAME.toml")
    enroll.add_argument("name", metavar="NAME")
    add_table_arguments(enroll)
    enroll.add_argument("--variant", default=None, help="whose role names the cards use (default: the config's)")
    enroll.add_argument("--count", type=int, default=None, help="stop after this many cards")
    enroll.add_argument("--force", action="store_true", help="replace an existing deck of that name")
    enroll.add_argument("--decks", type=Path, default=DECKS_DIR, help="the decks folder (default: decks)")
    enroll.set_defaults(func=run_enroll)

    show = actions.add_parser("show", help="list a deck's cards and how many of each role")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--decks", type=Path, default=DECKS_DIR, help="the decks folder (default: decks)")
    show.set_defaults(func=run_show)

    check = actions.add_parser("check", help="tap every card: what is missing, tapped twice or foreign")
    check.add_argument("name", metavar="NAME")
    add_table_arguments(check)
    check.add_argument("--decks", type=Path, default=DECKS_DIR, help="the decks folder (default: decks)")
    check.set_defaults(func=run_check)


def _roles(variant: str) -> list[str]:
    """The variant's roles in its own order (killer, police, civilian, ...): the order ◀/▶ walks through."""
    from controller.rules.variant import load_variant

    return list(load_variant(variant).roles)


def _load(args: argparse.Namespace, roles: Collection[str] | None = None) -> Deck:
    return load_deck(args.name, roles=roles, decks_dir=args.decks)


def run_show(args: argparse.Namespace) -> int:
    try:
        deck = _load(args)
    except ConfigError as exc:
        return config_failed("deck show", exc)
    print(f"deck {deck.name}" + (f" ({deck.variant})" if deck.variant else "") + f": {len(deck.cards)} cards")
    for role, n in sorted(Counter(c.role for c in deck.cards).items()):
        print(f"  {role:16} {n}")
    for card in deck.cards:
        print(f"  {card.uid:22} {card.role:16} {card.face}".rstrip())
    return 0


def run_enroll(args: argparse.Namespace) -> int:
    path = deck_path(args.name, args.decks)
    if path.exists() and not args.force:
        return fail("deck enroll", f"{path} already exists; choose another NAME, or --force to replace it")
    try:
        config, profile, players, lang = load_setup(args, "deck enroll")
    except ConfigError as exc:
        return config_failed("deck enroll", exc)
    variant = args.variant or config.game.variant
    try:
        roles = _roles(variant)
    except Exception as exc:  # the rules engine's own error names the variant
        return fail("deck enroll", f"variant {variant!r} cannot be used: {exc}; see `tianhei variants`")
    pile = [(card_uid(i), roles[(i - 1) % len(roles)]) for i in range(1, players + 1)] if args.auto else None
    try:
        with open_host(profile, auto=args.auto, players=players, pile=pile) as host:
            deck = host.run(lambda scheduler: Enrollment(
                host.table, Path(args.name).stem, roles, lang, variant=variant, count=args.count,
                card_texts=card_texts_for(host.table), note=print).script())
    except HardwareError as exc:
        return fail("deck enroll", str(exc))
    if not deck.cards:
        print("no card was enrolled; nothing saved")
        return 1
    save_deck(deck, path)
    print(f"saved {len(deck.cards)} cards to {path}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    try:
        config, profile, players, lang = load_setup(args, "deck check")
        deck = _load(args, rules_variant_roles(config.game.variant) if config.game.variant else None)
    except ConfigError as exc:
        return config_failed("deck check", exc)
    pile = [(c.uid, c.role) for c in deck.cards] if args.auto else None
    try:
        with open_host(profile, auto=args.auto, players=players, pile=pile) as host:
            result = host.run(lambda scheduler: DeckCheckRun(host.table, deck, lang, note=print).script())
    except HardwareError as exc:
        return fail("deck check", str(exc))
    print()
    print("\n".join(describe(result, deck)))
    return 0 if result.ok else 1


def card_texts_for(table: object) -> Any:
    """The NDEF reader for a table whose readers can read card memory (gpio), else None."""
    from controller.diag.cards import card_texts

    return card_texts(table)
