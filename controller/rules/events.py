"""Events: every change to a game is one of these. The journal of events *is* the game; ``fold`` (engine.py)
rebuilds the state from them. Events hold only JSON-friendly values (ints, strings, bools, None, tuples), so
``to_json``/``from_json`` round-trip them exactly.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from controller.rules.record import Record, dataclass_view

Target = int | None


@mypyc_attr(acyclic=True)
class Event(Record):
    type: ClassVar[str] = ""
    #: Whether the whole room may know all of this event before the game ends (the board, the voice, logs).
    public: ClassVar[bool] = True

    def public_view(self) -> Event | None:
        """What the whole room may know of this event before the game ends: all of it (``public``), nothing
        (None), or, for the few events with a public part, that part (:class:`Opened`, :class:`Dawn`)."""
        return self if self.public else None


@mypyc_attr(acyclic=True)
class GameCreated(Event):
    """The set-up. ``variant`` is the variant's whole data, so a journal replays without the variant file."""

    type: ClassVar[str] = "game_created"
    __match_args__ = ("variant", "variant_source", "players", "options", "composition", "history", "quota",
                      "seed", "talk")
    variant: Final[Any]
    variant_source: Final[str]
    players: Final[int]
    options: Final[tuple[tuple[str, Any], ...]]
    composition: Final[tuple[tuple[str, int], ...]]
    history: Final[tuple[int, ...]]
    quota: Final[int]
    seed: Final[int | None]
    talk: Final[bool]

    def __init__(self, variant: Any, variant_source: str, players: int, options: tuple[tuple[str, Any], ...],
                 composition: tuple[tuple[str, int], ...], history: tuple[int, ...], quota: int,
                 seed: int | None = None, talk: bool = True) -> None:
        self.variant = variant
        self.variant_source = variant_source
        self.players = players
        self.options = options
        self.composition = composition
        self.history = history
        self.quota = quota
        self.seed = seed
        self.talk = talk

    def public_view(self) -> Event:
        """The set-up without its seed: with a digital deal the seed deals every card again, so it is as secret
        as the deal itself until the game is over."""
        return GameCreated(self.variant, self.variant_source, self.players, self.options, self.composition,
                           self.history, self.quota, None, self.talk)


@mypyc_attr(acyclic=True)
class Dealt(Event):
    """C1: ``roles[i]`` is the card of seat ``i + 1``. Secret."""

    type: ClassVar[str] = "dealt"
    public: ClassVar[bool] = False
    __match_args__ = ("roles",)
    roles: Final[tuple[str, ...]]

    def __init__(self, roles: tuple[str, ...]) -> None:
        self.roles = roles


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class NightFell(Event):
    type: ClassVar[str] = "night_fell"
    __match_args__ = ("night",)
    night: Final[int]

    def __init__(self, night: int) -> None:
        self.night = night


@mypyc_attr(acyclic=True)
class DayBroke(Event):
    """A day begins without a night before it (``first = "day"``, V2.10's blind push needs no dawn)."""

    type: ClassVar[str] = "day_broke"
    __match_args__ = ("day",)
    day: Final[int]

    def __init__(self, day: int) -> None:
        self.day = day


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class Opened(Event):
    """The engine now waits for ``seats`` (0 = the judge) to act in ``step``. ``agenda`` is what follows.

    kinds: night (a night action), recognition, last_words, speeches, defence_claim, direction, vote.
    Not public: the seats of a night step are its actors, and its choices leave out their partners (C2, C4); the
    room knows only which step was called (:meth:`public_view`).
    """

    type: ClassVar[str] = "opened"
    public: ClassVar[bool] = False
    __match_args__ = ("kind", "step", "seats", "choices", "group", "agenda", "role", "ability")
    kind: Final[str]
    step: Final[str]
    seats: Final[tuple[int, ...]]
    choices: Final[tuple[Target, ...]]
    group: Final[bool]
    agenda: Final[tuple[Any, ...]]
    role: Final[str]
    ability: Final[str]

    def __init__(self, kind: str, step: str, seats: tuple[int, ...], choices: tuple[Target, ...], group: bool,
                 agenda: tuple[Any, ...], role: str = "", ability: str = "") -> None:
        self.kind = kind
        self.step = step
        self.seats = seats
        self.choices = choices
        self.group = group
        self.agenda = agenda
        self.role = role
        self.ability = ability

    def public_view(self) -> Event:
        if self.kind in SECRET_WAITS:
            return Opened(self.kind, self.step, (), (), False, (), self.role, self.ability)
        return self


#: The waits whose seats and choices are secret: who wakes at night, who recognises whom, the D1 first card.
SECRET_WAITS: Final = frozenset({"night", "recognition", "first_identity"})


@mypyc_attr(acyclic=True)
class Picked(Event):
    """A member of a waking group points at ``target`` (C6). Secret."""

    type: ClassVar[str] = "picked"
    public: ClassVar[bool] = False
    __match_args__ = ("seat", "target")
    seat: Final[int]
    target: Final[Target]

    def __init__(self, seat: int, target: Target) -> None:
        self.seat = seat
        self.target = target


@mypyc_attr(acyclic=True)
class Reasked(Event):
    """C6: the group is evenly split; its members are asked again."""

    type: ClassVar[str] = "reasked"
    public: ClassVar[bool] = False
    __match_args__ = ("step",)
    step: Final[str]

    def __init__(self, step: str) -> None:
        self.step = step


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class Acted(Event):
    """A night step is settled: ``target`` None means skipped or forfeited (``how`` says which). ``result`` is
    what the actors learn at once ("nod"/"shake" for a check). ``marks`` are ability bookkeeping changes."""

    type: ClassVar[str] = "acted"
    public: ClassVar[bool] = False
    __match_args__ = ("step", "ability", "actors", "target", "how", "result", "marks")
    step: Final[str]
    ability: Final[str]
    actors: Final[tuple[int, ...]]
    target: Final[Target]
    how: Final[str]  # chosen | skipped | forfeited | judge
    result: Final[str]
    marks: Final[tuple[tuple[str, int], ...]]

    def __init__(self, step: str, ability: str, actors: tuple[int, ...], target: Target, how: str = "chosen",
                 result: str = "", marks: tuple[tuple[str, int], ...] = ()) -> None:
        self.step = step
        self.ability = ability
        self.actors = actors
        self.target = target
        self.how = how
        self.result = result
        self.marks = marks


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class Dawn(Event):
    """C8: the night's effects, all at once. ``deaths`` are (seat, cause) in seat order. Not public: the room
    learns who died, not how (a kill, a shot, an empty needle), nor the abilities' bookkeeping (``marks``)."""

    type: ClassVar[str] = "dawn"
    public: ClassVar[bool] = False
    __match_args__ = ("night", "deaths", "marks")
    night: Final[int]
    deaths: Final[tuple[tuple[int, str], ...]]
    marks: Final[tuple[tuple[str, int], ...]]

    def __init__(self, night: int, deaths: tuple[tuple[int, str], ...],
                 marks: tuple[tuple[str, int], ...] = ()) -> None:
        self.night = night
        self.deaths = deaths
        self.marks = marks

    def public_view(self) -> Event:
        return Dawn(self.night, tuple([(seat, "died") for seat, _ in self.deaths]), ())


@mypyc_attr(acyclic=True)
class Spoke(Event):
    """``seat``'s speech (or last words, or defence) is over: they said "pass", or the timer ran out."""

    type: ClassVar[str] = "spoke"
    __match_args__ = ("seat", "how")
    seat: Final[int]
    how: Final[str]  # pass | timeout | skipped

    def __init__(self, seat: int, how: str = "pass") -> None:
        self.seat = seat
        self.how = how


@mypyc_attr(acyclic=True)
class DefenceClaimed(Event):
    type: ClassVar[str] = "defence_claimed"
    __match_args__ = ("seat",)
    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@mypyc_attr(acyclic=True)
class DirectionChosen(Event):
    """V2.4 ``speech.any_direction``: the judge's pick; +1 clockwise, -1 counter-clockwise."""

    type: ClassVar[str] = "direction_chosen"
    __match_args__ = ("direction",)
    direction: Final[int]

    def __init__(self, direction: int) -> None:
        self.direction = direction


@mypyc_attr(acyclic=True)
class Voted(Event):
    """One hand for ``target`` (None: an explicit abstention)."""

    type: ClassVar[str] = "voted"
    __match_args__ = ("seat", "target")
    seat: Final[int]
    target: Final[Target]

    def __init__(self, seat: int, target: Target) -> None:
        self.seat = seat
        self.target = target


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class VoteClosed(Event):
    """The tally, and what it means: ``out`` is voted out; ``tied`` go to the tie procedure."""

    type: ClassVar[str] = "vote_closed"
    __match_args__ = ("tally", "out", "tied")
    tally: Final[tuple[tuple[int, int], ...]]
    out: Final[Target]
    tied: Final[tuple[int, ...]]

    def __init__(self, tally: tuple[tuple[int, int], ...], out: Target, tied: tuple[int, ...] = ()) -> None:
        self.tally = tally
        self.out = out
        self.tied = tied


@mypyc_attr(acyclic=True)
class TieRound(Event):
    """V2.7: a step of the variant's tie procedure. ``stage`` counts the rounds for this tied set."""

    type: ClassVar[str] = "tie_round"
    __match_args__ = ("procedure", "stage", "tied", "outcome")
    procedure: Final[str]
    stage: Final[int]
    tied: Final[tuple[int, ...]]
    outcome: Final[str]  # revote | nobody_out | draw

    def __init__(self, procedure: str, stage: int, tied: tuple[int, ...], outcome: str = "revote") -> None:
        self.procedure = procedure
        self.stage = stage
        self.tied = tied
        self.outcome = outcome


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class Died(Event):
    """A death by day: executed (vote), ejected (V2.11), surrendered."""

    type: ClassVar[str] = "died"
    __match_args__ = ("seat", "cause")
    seat: Final[int]
    cause: Final[str]

    def __init__(self, seat: int, cause: str) -> None:
        self.seat = seat
        self.cause = cause


@mypyc_attr(acyclic=True)
class Penalised(Event):
    """V2.11 §5.4: a penalty point."""

    type: ClassVar[str] = "penalised"
    __match_args__ = ("seat", "total")
    seat: Final[int]
    total: Final[int]

    def __init__(self, seat: int, total: int) -> None:
        self.seat = seat
        self.total = total


@mypyc_attr(acyclic=True)
class GameEnded(Event):
    type: ClassVar[str] = "game_ended"
    __match_args__ = ("winner", "reason")
    winner: Final[str]  # "good", "killers" or "draw"
    reason: Final[str]

    def __init__(self, winner: str, reason: str) -> None:
        self.winner = winner
        self.reason = reason


@mypyc_attr(acyclic=True)
class CardShown(Event):
    """A player shows their card to everyone, by a role's rule (W9: the idiot voted out, ``why`` =
    "voted_out"; W11: a werewolf's self-destruct, "self_destruct", which also ends what the day waited for): one
    public event for every such rule. The seat keeps the mark ``shown``."""

    type: ClassVar[str] = "card_shown"
    __match_args__ = ("seat", "role", "why")
    seat: Final[int]
    role: Final[str]
    why: Final[str]

    def __init__(self, seat: int, role: str, why: str) -> None:
        self.seat = seat
        self.role = role
        self.why = why


@mypyc_attr(acyclic=True)
class Candidacy(Event):
    """W10: at the call, ``seat`` runs for sheriff (``running``) or declines; during the candidates' speeches, a
    candidate withdraws (退水, ``running`` false)."""

    type: ClassVar[str] = "candidacy"
    __match_args__ = ("seat", "running")
    seat: Final[int]
    running: Final[bool]

    def __init__(self, seat: int, running: bool) -> None:
        self.seat = seat
        self.running = running


@mypyc_attr(acyclic=True)
class ElectionClosed(Event):
    """W10/W11: a part of the sheriff election is over. ``outcome``: "run" (the call is over: ``candidates`` run,
    their speeches and the vote follow), "postponed" (W11: a werewolf self-destructed; the election is held again
    the next day) or "no_sheriff" (nobody ran or nobody was left to vote, a second tie, a second self-destruct:
    no sheriff this game)."""

    type: ClassVar[str] = "election_closed"
    __match_args__ = ("candidates", "outcome")
    candidates: Final[tuple[int, ...]]
    outcome: Final[str]

    def __init__(self, candidates: tuple[int, ...], outcome: str) -> None:
        self.candidates = candidates
        self.outcome = outcome


@mypyc_attr(acyclic=True)
class BadgeChanged(Event):
    """W10: the sheriff's badge goes to ``seat``: ``how`` "elected", or "passed" by a dying sheriff; "torn" (seat
    0): the dying sheriff tears it, and there is no sheriff from then on."""

    type: ClassVar[str] = "badge_changed"
    __match_args__ = ("seat", "how")
    seat: Final[int]
    how: Final[str]

    def __init__(self, seat: int, how: str) -> None:
        self.seat = seat
        self.how = how


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (GameCreated, Dealt, NightFell, DayBroke, Opened, Picked, Reasked, Acted, Dawn, Spoke,
                DefenceClaimed, DirectionChosen, Voted, VoteClosed, TieRound, Died, Penalised, GameEnded, CardShown,
                Candidacy, ElectionClosed, BadgeChanged)
}


# ---- the dual-card versions (D1-D3; controller/rules/cards.py) ---------------------------------------------------

@mypyc_attr(acyclic=True)
class HandsDealt(Event):
    """D1: ``hands[i]`` are the two cards of seat ``i + 1`` as dealt, before each player chooses the first
    identity. Secret."""

    type: ClassVar[str] = "hands_dealt"
    public: ClassVar[bool] = False
    __match_args__ = ("hands",)
    hands: Final[tuple[tuple[str, ...], ...]]

    def __init__(self, hands: tuple[tuple[str, ...], ...]) -> None:
        self.hands = hands


@mypyc_attr(acyclic=True)
class HandsSettled(Event):
    """D1/D3: each seat's cards in playing order, the first identity first (a police+killer hand already
    resolved). Secret; a ``Dealt`` with the first identities follows."""

    type: ClassVar[str] = "hands_settled"
    public: ClassVar[bool] = False
    __match_args__ = ("cards",)
    cards: Final[tuple[tuple[str, ...], ...]]

    def __init__(self, cards: tuple[tuple[str, ...], ...]) -> None:
        self.cards = cards


@mypyc_attr(acyclic=True)
class CardLost(Event):
    """D1: ``seat``'s current card died (``cause``); the second card takes over and the player plays on.
    ``shown`` is the lost card's role when the rules show it (D3: a player voted out shows the first identity),
    else ""."""

    type: ClassVar[str] = "card_lost"
    __match_args__ = ("seat", "cause", "shown")
    seat: Final[int]
    cause: Final[str]
    shown: Final[str]

    def __init__(self, seat: int, cause: str, shown: str = "") -> None:
        self.seat = seat
        self.cause = cause
        self.shown = shown


EVENT_TYPES.update({cls.type: cls for cls in (HandsDealt, HandsSettled, CardLost)})
dataclass_view(*EVENT_TYPES.values())


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
    for name in event.__match_args__:
        out[name] = _to_plain(getattr(event, name))
    return out


def from_json(data: dict[str, Any]) -> Event:
    """The inverse of :func:`to_json`; raises ValueError on an unknown type or wrong fields."""
    kind = data.get("type")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    fields = {}
    for name in cls.__match_args__:
        if name in data:
            raw = data[name]
            # The variant's raw data keeps its TOML shape (lists stay lists); everything else is tuples.
            fields[name] = raw if name == "variant" else _to_tuples(raw)
    try:
        return cls(**fields)
    except TypeError as exc:
        raise ValueError(f"event {kind!r}: {exc}") from None
