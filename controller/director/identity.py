"""What makes a game the game it is, so that a table never resumes a saved game as if it were another.

A journal's unfinished game is resumed after a power cut; but between the cut and the next start the table may
have been given another variant, another player count, another seed or deck, an edited variant file or other
hardware. Resuming it then would play the old game under the new labels (or crash on a seat that is not there).
So the set-up of every game carries its :class:`GameIdentity`, and the table compares it with the game it was
asked for before resuming (:mod:`controller.director.saved`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from controller.rules.setup import GameConfig
from controller.rules.variant_record import from_record


def content_hash(data: Any) -> str:
    """A short SHA-256 of JSON-ready data in a canonical spelling (sorted keys): the same content, the same hash,
    whatever the order or the comments of the file it came from."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class GameIdentity:
    """A game as the table was asked for it."""

    variant: str
    #: The variant file's content (its parsed data), hashed: an edited file is another game.
    variant_hash: str
    players: int
    #: The rule options as (key, value) pairs, sorted.
    options: tuple[tuple[str, Any], ...]
    #: (role, count): the deck's composition (differs with ``--roles``).
    composition: tuple[tuple[str, int], ...]
    seed: int
    #: "digital" (a seeded deal), or "cards <hash>" of the deck's UID -> role mapping.
    deck: str
    #: The hardware profile ("sim", "compact-8", "bus-16", a profile file).
    hardware: str
    #: The same content with the recorded form's default spelled out (controller/rules/variant_record.py), in
    #: the type ``Variant.data`` has: the hash a journal of formats 1 and 2 holds for a version whose file
    #: already wrote its killers' nod (V5.3's v5.0-infernal). Not saved; only an asked game's is compared.
    variant_hash_spelled: str = field(default="", compare=False)

    @classmethod
    def of(cls, config: GameConfig, seed: int, deck: Mapping[str, str] | None, hardware: str) -> GameIdentity:
        return cls(
            variant=config.variant.id,
            variant_hash=content_hash(config.variant.data),
            players=config.players,
            options=tuple((k, _plain(v)) for k, v in config.sorted_options),
            composition=tuple(config.composition),
            seed=seed,
            deck="digital" if deck is None else f"cards {content_hash(sorted(deck.items()))}",
            hardware=hardware,
            variant_hash_spelled=content_hash(MappingProxyType(dict(from_record(config.variant.data)))),
        )

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "variant_hash": self.variant_hash, "players": self.players,
                "options": [list(p) for p in self.options], "composition": [list(p) for p in self.composition],
                "seed": self.seed, "deck": self.deck, "hardware": self.hardware}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameIdentity:
        return cls(variant=str(data["variant"]), variant_hash=str(data["variant_hash"]),
                   players=int(data["players"]), options=tuple((str(k), v) for k, v in data["options"]),
                   composition=tuple((str(r), int(n)) for r, n in data["composition"]),
                   seed=int(data["seed"]), deck=str(data["deck"]), hardware=str(data["hardware"]))

    def differences(self, asked: GameIdentity, *, ignore: tuple[str, ...] = ()) -> list[str]:
        """What differs between this (saved) game and the ``asked`` one, one short phrase each, in the order a
        judge would check them; ``ignore`` names fields the asking table leaves open (at check-in, the number of
        players)."""
        out: list[str] = []

        def differ(name: str, saved: Any, now: Any, say: str | None = None) -> None:
            if name not in ignore and saved != now:
                out.append(say or f"{name} {saved} (asked {now})")

        differ("variant", self.variant, asked.variant)
        if self.variant == asked.variant and self.variant_hash != asked.variant_hash_spelled:
            differ("variant_hash", self.variant_hash, asked.variant_hash,
                   f"the variant file of {self.variant} was changed since the game began")
        differ("players", self.players, asked.players)
        saved_opts, asked_opts = dict(self.options), dict(asked.options)
        if self.variant == asked.variant:
            for key in sorted(set(saved_opts) | set(asked_opts)):
                differ("options", saved_opts.get(key, "unset"), asked_opts.get(key, "unset"),
                       f"option {key} = {saved_opts.get(key, 'unset')} (asked {asked_opts.get(key, 'unset')})")
        if not out and not ("players" in ignore and self.players != asked.players):
            # the roles follow from the players and options: named only when nothing above explains them
            differ("composition", _roles(self.composition), _roles(asked.composition),
                   f"roles {_roles(self.composition)} (asked {_roles(asked.composition)})")
        differ("seed", self.seed, asked.seed)
        differ("deck", self.deck, asked.deck, f"deck: {_deck(self.deck)} (asked {_deck(asked.deck)})")
        differ("hardware", self.hardware, asked.hardware)
        return out

    def summary(self) -> str:
        """One line naming the game: "standard-2.0, 12 players, seed 1, digital deal, on sim"."""
        return f"{self.variant}, {self.players} players, seed {self.seed}, {_deck(self.deck)}, on {self.hardware}"


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _roles(composition: tuple[tuple[str, int], ...]) -> str:
    return "+".join(f"{n} {r}" for r, n in composition)


def _deck(deck: str) -> str:
    return "a digital deal" if deck == "digital" else f"a card deck ({deck.split(' ', 1)[-1]})"
