"""The catalogue API: how the director names what the table says.

The director never passes sentences to the voice, only prompt IDs (dotted strings such as ``"night.falls"``)
that every voice pack maps to a recording. Sentences are composed from parts, so a pack needs one clip per
part, not one per sentence: ``phrase(seat_number(5), prompt("death.died"))`` says "5号 死亡" / "Seat 5 has
died".

Every literal ID in the code goes through :func:`prompt` (a marker, like gettext's ``_``) and every
role-dependent ID through :func:`role_prompt`, so that a static check (``tests/voice``) can list every ID the
code may produce and prove that each committed pack has it. IDs built any other way would escape that check.

Why seats are one part each ("5号" / "Seat 5") rather than number + word: the word order differs between
languages (zh puts 号 after the number, en puts "seat" before it) while the list of IDs must be the same in every
pack. Counts ("3 votes") are composed from a number part and a unit part, which works in both orders.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from controller.rules.words import KILLER_GAME
from controller.rules.words import shared as shared_words
from controller.voice.variant_lines import shared_endings

#: Seats a table can have (V1.1: up to 20 players).
MAX_SEAT = 20
#: Card places a table can have: dual-card-5.0 (D2) plays every card as a place, two per seat. The director names
#: a place as it names a seat ("seat.13"); the place voice (controller/director/places.py) says it as its seat and
#: card ("7号 第一张牌"), so the packs name seats only up to MAX_SEAT.
MAX_PLACE = 2 * MAX_SEAT
#: Largest count the voice can say ("N votes"): a hand from every place (D2: every living card votes).
MAX_COUNT = MAX_PLACE

_ID = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")

#: Every role the seed versions' judge speaks to or about, and what the voice says to or about it: derived from the
#: shared words of the killer game (controller/variants/_killer-game.toml, ``[calls]`` keyed ``<role>.<what>``; the
#: catalogue holds exactly these lines, tests/voice/test_catalogue_coverage.py). ``name`` is the role's name, said
#: when a player voted out shows the first identity (D3); ``wake``/``sleep`` open and close its eyes (C2, 004 §3);
#: ``out``/``back`` call it out and back (V4.2), ``come``/``back`` in 6.0; ``recognize`` asks partners to recognise
#: each other (V2.10, V5.2); ``act`` asks for the night action; ``ask`` whether to use an optional power (V3.3, D2);
#: ``take_along`` is the angel's last act (V7.1).
ROLE_PROMPTS: Mapping[str, tuple[str, ...]] = MappingProxyType(shared_words(KILLER_GAME).role_whats())

#: Other names the variants use for a role (F1: "bandit" is the five-identities killer): the shared words' aliases
#: of the roles it has lines for.
ROLE_SYNONYMS: Mapping[str, str] = MappingProxyType(
    {alias: role for alias, role in shared_words(KILLER_GAME).names["aliases"].items() if role in ROLE_PROMPTS})

ROLES: tuple[str, ...] = tuple(ROLE_PROMPTS)


class PromptError(ValueError):
    """A prompt ID that cannot exist: malformed, an unknown role, or a number out of range."""


def prompt(prompt_id: str) -> str:
    """Mark a literal prompt ID (the static check finds it) and check its shape; returns it unchanged."""
    if not _ID.match(prompt_id):
        raise PromptError(f"prompt ID {prompt_id!r} is not dotted lower-case words (like 'night.falls')")
    return prompt_id


def canonical_role(role: str) -> str:
    """The catalogue's name for ``role`` (synonyms resolved); :class:`PromptError` if no pack knows it."""
    name = ROLE_SYNONYMS.get(role, role)
    if name not in ROLE_PROMPTS:
        known = ", ".join(sorted([*ROLE_PROMPTS, *ROLE_SYNONYMS]))
        raise PromptError(f"unknown role {role!r}; the voice knows: {known}")
    return name


def role_prompt(role: str, what: str) -> str:
    """The ID for saying ``what`` to or about ``role``, e.g. ``role_prompt("killer", "wake")`` →
    ``"role.killer.wake"``. Raises :class:`PromptError` if that role has no such prompt (civilians never
    wake), so a director bug shows up in tests, not as silence at the table."""
    name = canonical_role(role)
    if what not in ROLE_PROMPTS[name]:
        raise PromptError(f"role {name!r} has no {what!r} prompt; it has: {', '.join(ROLE_PROMPTS[name])}")
    return f"role.{name}.{what}"


def seat_number(seat: int) -> list[str]:
    """The parts that say a seat: ``["seat.5"]`` ("5号" / "Seat 5"); in D2 a card place (see MAX_PLACE)."""
    if not 1 <= seat <= MAX_PLACE:
        raise PromptError(f"seat {seat} is outside 1..{MAX_PLACE}")
    return [f"seat.{seat}"]


def count(n: int) -> list[str]:
    """The parts that say a number used as a count (``"number.3"``; zh says 两 for 2 in counts)."""
    if not 0 <= n <= MAX_COUNT:
        raise PromptError(f"count {n} is outside 0..{MAX_COUNT}")
    return [f"number.{n}"]


def votes(n: int) -> list[str]:
    """A tally: "3票" / "three votes" (singular in English for one)."""
    return [*count(n), prompt("unit.vote") if n == 1 else prompt("unit.votes")]


def phrase(*parts: str | Sequence[str]) -> list[str]:
    """Flatten IDs and lists of IDs into one utterance: ``phrase(seat_number(3), prompt("speech.your_turn"))``."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        else:
            out.extend(part)
    return out


def seats_list(seats: Iterable[int]) -> list[str]:
    """Several seats one after another ("3号，7号")."""
    return [p for seat in seats for p in seat_number(seat)]


# Composed sentences the director needs often. They only combine the parts above.


def night_deaths(seats: Sequence[int]) -> list[str]:
    """Dawn's announcement (C3, V3.4): the night's dead, or that nobody died."""
    if not seats:
        return [prompt("dawn.nobody_died")]
    return phrase(prompt("dawn.deaths"), seats_list(sorted(seats)))


def vote_call(seat: int, election: bool = False) -> list[str]:
    """The call for one seat in a public vote (V2.5): "5号，投他的请举手"; in the sheriff election (W10) a hand
    makes the candidate sheriff rather than voting him out: "5号，选他当警长的请举手"."""
    return phrase(seat_number(seat), prompt("sheriff.hands_for") if election else prompt("vote.hands_for"))


def tally(seat: int, n: int) -> list[str]:
    """A seat's result: "5号，3票"."""
    return phrase(seat_number(seat), votes(n))


def speech_turn(seat: int) -> list[str]:
    """"5号请发言" (V2.4)."""
    return phrase(seat_number(seat), prompt("speech.your_turn"))


def last_words(seat: int) -> list[str]:
    """"5号请留遗言" (V2.3)."""
    return phrase(seat_number(seat), prompt("lastwords.your_turn"))


#: The judge's words for a side's win (C4), version by version, as each version's seed words it (its file's
#: ``[words.endings]`` naming the killer game's shared endings): the same win is 「警察一方获胜」 in 2.0 (004 §4) but
#: 「好人胜利」 in 4.0 (000, 001) and 「警察平民勝」 in 7.0 (000). A variant not listed (a club's own file) says the
#: shared default endings, the generic 「杀手获胜」 / 「好人获胜」 / 「平局」. Keyed by variant id and the winning side of
#: its win table ("good", "killers", "draw").
_ENDING_GENERIC: Mapping[str, str] = MappingProxyType(
    {side: f"ending.{name}" for side, name in shared_words(KILLER_GAME).names["default_endings"].items()})


@functools.cache
def _endings() -> Mapping[str, Mapping[str, str]]:
    return MappingProxyType(shared_endings())


def __getattr__(name: str) -> Mapping[str, Mapping[str, str]]:
    """``ENDINGS``, read from the variant files when first asked for (not at import: a process that ends no game
    reads none)."""
    if name == "ENDINGS":
        return _endings()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def ending(winner: str | None, variant: str | None = None) -> list[str]:
    """The end of a game (C4): the winner in the words of the variant's seed, then "game over, show your
    cards". A side no table names (or no winner) is just the game over."""
    words = _endings().get(variant or "", _ENDING_GENERIC).get(winner or "")
    return [words, prompt("ending.game_over")] if words else [prompt("ending.game_over")]


def numbers_in_catalogue() -> list[str]:
    """Every seat and count ID the helpers can produce (for the pack checks)."""
    return [f"seat.{n}" for n in range(1, MAX_SEAT + 1)] + [f"number.{n}" for n in range(MAX_COUNT + 1)]


def role_prompts_in_catalogue(roles: Iterable[str] = ROLES) -> list[str]:
    """Every role ID :func:`role_prompt` can produce for ``roles``."""
    out: list[str] = []
    for role in roles:
        name = canonical_role(role)
        out.extend(f"role.{name}.{what}" for what in ROLE_PROMPTS[name])
    return out
