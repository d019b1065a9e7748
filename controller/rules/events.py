"""Events: every change to a game is one of these. The journal of events *is* the game; ``fold`` (engine.py)
rebuilds the state from them. Events hold only JSON-friendly values (ints, strings, bools, None, tuples), so
``to_json``/``from_json`` round-trip them exactly.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from controller.rules.record import record

Target = int | None


@record
class Event:
    type: ClassVar[str] = ""
    #: Whether the whole room may know all of this event before the game ends (the board, the voice, logs).
    public: ClassVar[bool] = True

    def public_view(self) -> Event | None:
        """What the whole room may know of this event before the game ends: all of it (``public``), nothing
        (None), or, for the few events with a public part, that part (:class:`Opened`, :class:`Dawn`)."""
        return self if self.public else None


@record
class GameCreated(Event):
    """The set-up. ``variant`` is the variant's whole data, so a journal replays without the variant file."""

    type: ClassVar[str] = "game_created"
    variant: Any
    variant_source: str
    players: int
    options: tuple[tuple[str, Any], ...]
    composition: tuple[tuple[str, int], ...]
    history: tuple[int, ...]
    quota: int
    seed: int | None = None
    talk: bool = True

    def public_view(self) -> Event:
        """The set-up without its seed: with a digital deal the seed deals every card again, so it is as secret
        as the deal itself until the game is over."""
        return dataclasses.replace(self, seed=None)


@record
class Dealt(Event):
    """C1: ``roles[i]`` is the card of seat ``i + 1``. Secret."""

    type: ClassVar[str] = "dealt"
    public: ClassVar[bool] = False
    roles: tuple[str, ...]


@record
class NightFell(Event):
    type: ClassVar[str] = "night_fell"
    night: int


@record
class DayBroke(Event):
    """A day begins without a night before it (``first = "day"``, V2.10's blind push needs no dawn)."""

    type: ClassVar[str] = "day_broke"
    day: int


@record
class Opened(Event):
    """The engine now waits for ``seats`` (0 = the judge) to act in ``step``. ``agenda`` is what follows.

    kinds: night (a night action), recognition, last_words, speeches, defence_claim, direction, vote.
    Not public: the seats of a night step are its actors, and its choices leave out their partners (C2, C4); the
    room knows only which step was called (:meth:`public_view`).
    """

    type: ClassVar[str] = "opened"
    public: ClassVar[bool] = False
    kind: str
    step: str
    seats: tuple[int, ...]
    choices: tuple[Target, ...]
    group: bool
    agenda: tuple[Any, ...]
    role: str = ""
    ability: str = ""

    def public_view(self) -> Event:
        if self.kind in SECRET_WAITS:
            return dataclasses.replace(self, seats=(), choices=(), group=False, agenda=())
        return self


#: The waits whose seats and choices are secret: who wakes at night, who recognises whom, the D1 first card.
SECRET_WAITS = frozenset({"night", "recognition", "first_identity"})


@record
class Picked(Event):
    """A member of a waking group points at ``target`` (C6). Secret."""

    type: ClassVar[str] = "picked"
    public: ClassVar[bool] = False
    seat: int
    target: Target


@record
class Reasked(Event):
    """C6: the group is evenly split; its members are asked again."""

    type: ClassVar[str] = "reasked"
    public: ClassVar[bool] = False
    step: str


@record
class Acted(Event):
    """A night step is settled: ``target`` None means skipped or forfeited (``how`` says which). ``result`` is
    what the actors learn at once ("nod"/"shake" for a check). ``marks`` are ability bookkeeping changes."""

    type: ClassVar[str] = "acted"
    public: ClassVar[bool] = False
    step: str
    ability: str
    actors: tuple[int, ...]
    target: Target
    how: str = "chosen"  # chosen | skipped | forfeited | judge
    result: str = ""
    marks: tuple[tuple[str, int], ...] = ()


@record
class Dawn(Event):
    """C8: the night's effects, all at once. ``deaths`` are (seat, cause) in seat order. Not public: the room
    learns who died, not how (a kill, a shot, an empty needle), nor the abilities' bookkeeping (``marks``)."""

    type: ClassVar[str] = "dawn"
    public: ClassVar[bool] = False
    night: int
    deaths: tuple[tuple[int, str], ...]
    marks: tuple[tuple[str, int], ...] = ()

    def public_view(self) -> Event:
        return dataclasses.replace(self, deaths=tuple((seat, "died") for seat, _ in self.deaths), marks=())


@record
class Spoke(Event):
    """``seat``'s speech (or last words, or defence) is over: they said "pass", or the timer ran out."""

    type: ClassVar[str] = "spoke"
    seat: int
    how: str = "pass"  # pass | timeout | skipped


@record
class DefenceClaimed(Event):
    type: ClassVar[str] = "defence_claimed"
    seat: int


@record
class DirectionChosen(Event):
    """V2.4 ``speech.any_direction``: the judge's pick; +1 clockwise, -1 counter-clockwise."""

    type: ClassVar[str] = "direction_chosen"
    direction: int


@record
class Voted(Event):
    """One hand for ``target`` (None: an explicit abstention)."""

    type: ClassVar[str] = "voted"
    seat: int
    target: Target


@record
class VoteClosed(Event):
    """The tally, and what it means: ``out`` is voted out; ``tied`` go to the tie procedure."""

    type: ClassVar[str] = "vote_closed"
    tally: tuple[tuple[int, int], ...]
    out: Target
    tied: tuple[int, ...] = ()


@record
class TieRound(Event):
    """V2.7: a step of the variant's tie procedure. ``stage`` counts the rounds for this tied set."""

    type: ClassVar[str] = "tie_round"
    procedure: str
    stage: int
    tied: tuple[int, ...]
    outcome: str = "revote"  # revote | nobody_out | draw


@record
class Died(Event):
    """A death by day: executed (vote), ejected (V2.11), surrendered."""

    type: ClassVar[str] = "died"
    seat: int
    cause: str


@record
class Penalised(Event):
    """V2.11 §5.4: a penalty point."""

    type: ClassVar[str] = "penalised"
    seat: int
    total: int


@record
class GameEnded(Event):
    type: ClassVar[str] = "game_ended"
    winner: str  # "good", "killers" or "draw"
    reason: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (GameCreated, Dealt, NightFell, DayBroke, Opened, Picked, Reasked, Acted, Dawn, Spoke,
                DefenceClaimed, DirectionChosen, Voted, VoteClosed, TieRound, Died, Penalised, GameEnded)
}


# ---- the dual-card versions (D1-D3; controller/rules/cards.py) ---------------------------------------------------

@record
class HandsDealt(Event):
    """D1: ``hands[i]`` are the two cards of seat ``i + 1`` as dealt, before each player chooses the first
    identity. Secret."""

    type: ClassVar[str] = "hands_dealt"
    public: ClassVar[bool] = False
    hands: tuple[tuple[str, ...], ...]


@record
class HandsSettled(Event):
    """D1/D3: each seat's cards in playing order, the first identity first (a police+killer hand already
    resolved). Secret; a ``Dealt`` with the first identities follows."""

    type: ClassVar[str] = "hands_settled"
    public: ClassVar[bool] = False
    cards: tuple[tuple[str, ...], ...]


@record
class CardLost(Event):
    """D1: ``seat``'s current card died (``cause``); the second card takes over and the player plays on.
    ``shown`` is the lost card's role when the rules show it (D3: a player voted out shows the first identity),
    else ""."""

    type: ClassVar[str] = "card_lost"
    seat: int
    cause: str
    shown: str = ""


EVENT_TYPES.update({cls.type: cls for cls in (HandsDealt, HandsSettled, CardLost)})


def _to_plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_to_plain(v) for v in value]
    if isinstance(value, dict) or hasattr(value, "items"):
        return {k: _to_plain(v) for k, v in value.items()}
    return value


def _to_tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_to_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_tuples(v) if not isinstance(v, list) else [_to_tuples(x) for x in v] for k, v in value.items()}
    return value


def to_json(event: Event) -> dict[str, Any]:
    """A JSON-ready dict: ``{"type": ..., fields...}``."""
    out: dict[str, Any] = {"type": event.type}
    for f in dataclasses.fields(event):
        out[f.name] = _to_plain(getattr(event, f.name))
    return out


def from_json(data: dict[str, Any]) -> Event:
    """The inverse of :func:`to_json`; raises ValueError on an unknown type or wrong fields."""
    kind = data.get("type")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    fields = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            raw = data[f.name]
            # The variant's raw data keeps its TOML shape (lists stay lists); everything else is tuples.
            fields[f.name] = raw if f.name == "variant" else _to_tuples(raw)
    try:
        return cls(**fields)
    except TypeError as exc:
        raise ValueError(f"event {kind!r}: {exc}") from None
