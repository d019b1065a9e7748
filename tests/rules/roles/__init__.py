"""Roles, abilities and boards that the engine does not ship, defined here as a club would define its own: an
ability module and variant files (docs/architecture.md, "Add a role")."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from controller.bots import POLICIES
from controller.bots.play import play
from controller.rules.events import Event
from controller.rules.setup import configure
from controller.rules.variant import Variant, load_variant

HERE = Path(__file__).parent


def games(variant: str | Variant, players: int, policy: str, n: int, seed: int,
          options: Mapping[str, Any] | None = None, talk: bool = True) -> Iterator[tuple[tuple[str, ...], list[Event]]]:
    """``n`` whole games of ``variant`` (a file of this folder by name, a built-in id, or a Variant) played by the
    bots: each game's roles and events; every game ends."""
    own = HERE / f"{variant}.toml"
    v = variant if isinstance(variant, Variant) else load_variant(str(own) if own.is_file() else variant)
    config = configure(v, players, options or {}, talk=talk)
    rng = random.Random(seed)
    for _ in range(n):
        events: list[Event] = []
        final = play(config, POLICIES[policy](), rng, None, events.append)
        assert final.over and final.winner in ("good", "killers", "draw")
        yield final.roles, events
