"""What a screen shows, as pure data.

The director builds one of these for a seat (or the judge's remote) and hands it to
:func:`controller.screens.render.render`; it never draws. Views carry IDs (role, action, side) and numbers,
never sentences, so one view renders in every language, compares by value (an adapter can skip redrawing an
equal view) and is safe to log: a view is private to the screen it is meant for (DESIGN: secrets stay where
they belong), so the director must only build a view with a role for its owner's seat or the remote.

Times are seconds as floats (``remaining`` of ``total``); the director computes them from its clock, so a
countdown redraw is just a new view.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class L10n:
    """Free text in both languages (a message from the director, a variant name)."""

    zh: str
    en: str


#: Free text: a plain string (shown as is in every language) or a :class:`L10n` pair.
Text = str | L10n


@dataclass(frozen=True, slots=True)
class Countdown:
    """A visible deadline (RULES C5): ``remaining`` of ``total`` seconds."""

    remaining: float
    total: float

    @property
    def fraction(self) -> float:
        return 0.0 if self.total <= 0 else max(0.0, min(1.0, self.remaining / self.total))

    @property
    def seconds(self) -> int:
        """Whole seconds to show, rounded up: "1" until the very end, never a premature "0"."""
        whole = int(self.remaining)
        return max(0, whole + (1 if self.remaining > whole else 0))


class View:
    """Base class of every view (for type hints and the renderer's registry)."""

    __slots__ = ()


# --- setup and deal ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CheckIn(View):
    """Before a game: "Seat 3 · press OK to join", or joined ✓."""

    seat: int
    joined: bool = False


@dataclass(frozen=True, slots=True)
class TapCard(View):
    """Deal with cards: tap your card. ``digital`` deals have no cards: hold OK to peek instead."""

    seat: int
    digital: bool = False
    #: The dual-card versions (D1-D3) tap two cards a seat: which one the reader waits for now (1 or 2), so
    #: the player knows the first was read; 0 in the single-card versions ("tap your card").
    card: int = 0


@dataclass(frozen=True, slots=True)
class RoleReveal(View):
    """The seat's own role, big; the partners it knows (killers know killers, V2.2); a peek hint."""

    seat: int
    role: str
    partners: tuple[int, ...] = ()
    hint: bool = True
    #: The dual-card versions (D1): the seat's cards still to play, the current one first (``"doctor#2"`` names
    #: a numbered copy), so a player sees the card that takes over; empty in the single-card versions.
    hand: tuple[str, ...] = ()
    #: At a dual-card deal, which of the seat's two cards was just read (1 or 2); 0 otherwise.
    card: int = 0


@dataclass(frozen=True, slots=True)
class HandChoice(View):
    """D1 at the deal: the seat's two cards as dealt; ◀/▶ choose which plays first (``chosen`` is 1 or 2), OK
    confirms. Private to its seat like a role reveal."""

    cards: tuple[str, ...]
    chosen: int
    countdown: Countdown
    confirmed: bool = False


class CardProblemKind(enum.Enum):
    UNKNOWN = "unknown"  # the card is not in this deck
    DUPLICATE = "duplicate"  # the same card is already at another seat
    TAPPED_TWICE = "tapped_twice"  # this seat already tapped a card
    DECK_MISMATCH = "deck_mismatch"  # the deck does not match the table (missing / extra roles)
    VOID_HAND = "void_hand"  # D2/D3: this hand holds killer and police, the deal is void (the judge redeals)


@dataclass(frozen=True, slots=True)
class CardProblem(View):
    """A card error on the seat where it happened (C1; the judge may order a redeal)."""

    kind: CardProblemKind
    other_seat: int | None = None  # DUPLICATE: where the card already is
    missing: tuple[tuple[str, int], ...] = ()  # DECK_MISMATCH: (role, count) the deck lacks
    extra: tuple[tuple[str, int], ...] = ()  # DECK_MISMATCH: (role, count) too many
    hand: int = 1  # TAPPED_TWICE: how many cards a seat taps (two in the dual-card versions)


# --- night ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Dark(View):
    """Fully black: every non-waking seat at night (no light leaks past closed eyes, no burn-in)."""


@dataclass(frozen=True, slots=True)
class EyesClosed(View):
    """The moment night falls: a small "close your eyes" line, then :class:`Dark`."""


@dataclass(frozen=True, slots=True)
class NightChoice(View):
    """A waking seat choosing a target: ◀/▶ move, OK confirms (C2, C5, C6).

    ``target`` None means "no action" (every action is optional, V4.2). ``partner_picks`` are the other group
    members' current picks as (their seat, their target) for group decisions (C6). ``words``: the action as the
    version played says it (its ``[words.actions]``, zh then en: 开枪 for the W boards' hunter, W8); empty: the
    seeds' words for ``action``."""

    action: str
    target: int | None
    countdown: Countdown
    partner_picks: tuple[tuple[int, int | None], ...] = ()
    confirmed: bool = False
    words: tuple[str, ...] = ()


class Answer(enum.Enum):
    NOD = "nod"  # the checked player is a killer
    SHAKE = "shake"  # not a killer
    NONE = "none"  # no signal at all (V4.3: the butterfly hugged the checked player)


@dataclass(frozen=True, slots=True)
class PoliceAnswer(View):
    """The judge's answer to a check (V2.2): a nod or a shake, as an unmistakable mark. ``words``: the answer as
    the version played says it (its ``[words.answers]``, zh then en: 狼人 for the W boards' seer, W1); empty: the
    seeds' 是杀手 / 不是杀手."""

    target: int
    answer: Answer
    words: tuple[str, ...] = ()


# --- day -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Dead(View):
    """This seat is out (dead players make no sound, 004 §3.14). ``cause`` "ejected": the judge ruled it out
    (V2.11 §5.14/§5.15), and the seat is told so."""

    seat: int
    cause: str = ""


@dataclass(frozen=True, slots=True)
class Speaking(View):
    """Another seat is speaking (or leaving last words) — shown to everyone else."""

    speaker: int
    countdown: Countdown
    last_words: bool = False


@dataclass(frozen=True, slots=True)
class YourSpeech(View):
    """This seat's own speech or last words: a big countdown, "OK = pass", inverted when ``warning``."""

    countdown: Countdown
    warning: bool = False
    last_words: bool = False


@dataclass(frozen=True, slots=True)
class VoteCall(View):
    """The vote window for one candidate (V2.5): hands up = OK within the window.

    ``voted`` says this seat's one vote is in; ``voted_for`` names whom it counted for. A seat whose hand went
    to an earlier candidate must not read the call for the next one as its own vote, so the screen tells the
    two apart (``voted_for`` None with ``voted`` is a vote for nobody, V2.5's abstention)."""

    candidate: int
    countdown: Countdown
    voted: bool = False
    voted_for: int | None = None


class VoteResult(enum.Enum):
    COUNTED = "counted"
    LATE = "late"  # a follow-vote, invalid (V2.6)
    ALREADY = "already"  # one vote each (V2.5)


@dataclass(frozen=True, slots=True)
class VoteFeedback(View):
    """What became of this seat's OK press during a vote."""

    result: VoteResult
    candidate: int


@dataclass(frozen=True, slots=True)
class Tally(View):
    """The vote's result: (seat, votes) per candidate, who is out, or the tie (V2.7)."""

    counts: tuple[tuple[int, int], ...]
    out: int | None = None
    tie: tuple[int, ...] = ()


# --- any time ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Paused(View):
    """The judge paused the game; timers are frozen."""


@dataclass(frozen=True, slots=True)
class Message(View):
    """A generic message: a title and a body, wrapped and shrunk to fit."""

    title: Text
    body: Text = ""


@dataclass(frozen=True, slots=True)
class GameOver(View):
    """The end (C4): the winner, this seat's role revealed, won or lost (None: a draw). ``variant``: the version
    played, whose seed names the winning side in its own words (as the voice's ending does). ``words``: the
    winning side's name from the variant file itself (zh then en), for a club's own file that is no built-in id."""

    winner: str
    role: str
    won: bool | None = None
    variant: str = ""
    words: tuple[str, ...] = ()


# --- the judge's remote --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class JudgeSeat:
    """One line of the judge's seat list."""

    seat: int
    role: str
    alive: bool = True
    note: Text = ""  # e.g. tonight's choice "→5"


@dataclass(frozen=True, slots=True)
class JudgeSeats(View):
    """Every seat with its role and state; the cursor row is highlighted and kept in view."""

    seats: tuple[JudgeSeat, ...]
    cursor: int = 0
    title: Text = ""


@dataclass(frozen=True, slots=True)
class JudgeList(View):
    """A titled, scrolling list: menus, tonight's choices, the story of the game."""

    title: Text
    items: tuple[Text, ...]
    cursor: int | None = 0


@dataclass(frozen=True, slots=True)
class JudgeStatus(View):
    """The phase, whose turn it is and the running timer, plus a few free lines."""

    phase: Text
    turn: Text
    countdown: Countdown | None = None
    lines: tuple[Text, ...] = ()


@dataclass(frozen=True, slots=True)
class JudgeAsk(View):
    """A judge's command on the remote: its name, the value chosen (big: "5号"), and what to press ("←→
    choose", "centre again to confirm"); once given (``done`` True, or False: refused) its outcome as ``value``,
    with a tick or a cross beside the name."""

    title: Text
    value: Text
    hint: Text = ""
    done: bool | None = None
