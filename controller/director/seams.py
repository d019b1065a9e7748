"""The seams between the director's parts, and the registry they find one another in.

The director (director.py) is a small coordinator that owns one part per part of the game: the game loop, the
announcer of the rules' events, the input windows, the vote calls, the deal, the routing of inputs, the judge's
commands, the remote's screens and the seats' output. Each part is a class with its own state; each is built
with the table's :class:`Setup` and the :class:`Parts` registry, and finds the others there by name (as a
Klipper host object finds another with ``printer.lookup_object(name)``). What a part may ask of another is that
part's seam below: its public methods, and the state it owns that others read. Because the parts name one
another only through these protocols, no part module imports another part's class, and a test can build one
part with fakes of the others (tests/director/test_parts.py).

Who owns what: the loop owns the game as it stands (``state``, ``events``, the beats, the transcript, the
stage); the windows own the open window; the judge owns the pause; the remote its menu; the seats every
:class:`~controller.director.records.SeatUI` and what was last sent to the seats and the board.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controller.director.clock import Scheduler
from controller.director.journal import SqliteJournal
from controller.director.judge_table import Choice, Offer, Outcome
from controller.director.night_calls import NightCalls
from controller.director.records import InFlight, SeatUI, Window
from controller.director.timing import Timings
from controller.ports import RGB, Board, InputEvent, RemoteKey, Table, Voice
from controller.rules import engine
from controller.rules.actions import Action, Rejected
from controller.rules.events import Event
from controller.rules.setup import GameConfig
from controller.rules.state import GameState
from controller.rules.variant import NightStep
from controller.screens import views as v


@dataclass(eq=False)
class Setup:
    """What every part is built with: the table's adapters (through their ports), the clock, the game's
    configuration and the director's arguments. Fixed for the director's life, except :attr:`board`, which a
    front end may attach later (the parts read it here each time)."""

    table: Table
    voice: Voice
    clock: Scheduler
    config: GameConfig
    journal: SqliteJournal | None
    t: Timings
    lang: str
    #: How screens write a seat number (D2: a card place as seat and card, controller/screens/numbering.py).
    label: Callable[[int], str]
    seed: int
    deck: dict[str, str] | None
    judge_entry: bool
    #: Judge or not (a table without a judge: players surrender from their seats, V2.11).
    has_judge: bool
    #: The public big screen (optional): fed only public facts (controller/board/public.py).
    board: Board | None
    #: The seats in this game (a 16-seat table playing 12 leaves the rest out).
    seats: tuple[int, ...]


class FollowersSeam(Protocol):
    """Whoever follows the table (the bots, the transcript, a recorder): told through the coordinator."""

    def window(self, w: Window) -> None: ...

    def pause(self, paused: bool) -> None: ...

    def over(self) -> None: ...

    def commit(self, events: Sequence[Event]) -> None: ...


class GameLoopSeam(Protocol):
    """loop (game_loop.py): the game as it stands, its inputs to the rules and the beats played in order."""

    @property
    def state(self) -> GameState | None: ...
    @property
    def events(self) -> list[Event]: ...
    @property
    def groups(self) -> list[tuple[Action | None, int]]: ...
    @property
    def inflight(self) -> deque[InFlight]: ...
    @property
    def last_prompts(self) -> list[str]: ...
    @property
    def opened(self) -> int: ...
    @property
    def stage(self) -> str: ...

    def begin_play(self) -> None: ...

    def settle(self) -> None: ...

    def commit(self, action: Action | None, state: GameState, events: Sequence[Event],
               cards: Mapping[int, tuple[str, ...]] | None = None) -> None: ...

    def submit(self, action: Action, seat: int | None = None) -> Rejected | None: ...

    def finish(self) -> None: ...

    def take_back(self) -> Action | None: ...

    def beat(self, kind: str, arg: Any) -> None: ...

    def beat_now(self, kind: str, arg: Any) -> None: ...

    def pump(self) -> None: ...

    def hold_beats(self) -> None: ...

    def drop_beats(self, current: bool = True) -> None: ...

    def say_now(self, parts: list[str]) -> float: ...

    def checkpoint(self) -> None: ...

    def note(self, who: str, what: str, public: bool = True) -> None: ...


class AnnouncerSeam(Protocol):
    """announcer (event_beats.py): the rules' events turned into beats: said, shown, lit."""

    @property
    def night_shown(self) -> bool: ...
    @property
    def board_night(self) -> dict[str, object] | None: ...

    def announce(self, events: Sequence[Event]) -> None: ...

    def show_end(self) -> None: ...

    def night_resumed(self) -> None: ...

    def eyes_open(self) -> None: ...

    def take_unseen(self, seats: Sequence[int]) -> dict[int, list[tuple[int, v.Answer]]]: ...


class WindowsSeam(Protocol):
    """windows (windows.py): the rules' waits as windows with a visible countdown, and what each seat shows."""

    @property
    def window(self) -> Window | None: ...
    @property
    def last_vote_step(self) -> str: ...
    @property
    def calls(self) -> NightCalls: ...

    def call_skipped(self, step: NightStep) -> None: ...

    def mark_call(self, step: str, begun: bool) -> None: ...

    def recall(self, mark: dict[str, Any] | None, salt: int) -> None: ...

    def sleep(self, step: str) -> list[str]: ...

    def key(self) -> str: ...

    def where(self) -> str: ...

    def open(self, left: float | None = None) -> None: ...

    def start(self, p: engine.Pending, total: float, left: float | None = None) -> None: ...

    def take(self, w: Window) -> None: ...

    def forget(self) -> None: ...

    def schedule_ticks(self, w: Window) -> None: ...

    def deadline(self) -> None: ...

    def close_window(self) -> None: ...

    def countdown(self) -> v.Countdown: ...

    def redraw_window(self) -> None: ...


class VotesSeam(Protocol):
    """votes (vote_calls.py): the day vote's calls, one per candidate, and the hands raised for them."""

    def start_vote(self, p: engine.Pending) -> None: ...

    def hand(self, seat: int, w: Window) -> None: ...


class DealSeam(Protocol):
    """deal (card_deal.py): the deal with cards, and the private peek at one's own role."""

    def ask_for_cards(self) -> None: ...

    def again(self) -> None: ...

    def card(self, seat: int, uid: str) -> None: ...

    def tap_prompt(self) -> str: ...

    def arm_peek(self, seat: int, now: bool = False) -> None: ...


class InputsSeam(Protocol):
    """inputs (input_routing.py): every adapter's inputs, routed to the part of the game they are for."""

    def handle(self, event: InputEvent) -> None: ...

    def take_presses_from(self, when: float) -> None: ...

    def rejected(self, exc: Rejected, seat: int | None, action: Action) -> None: ...


class JudgeSeam(Protocol):
    """judge (judge_commands.py): what the judge can order the table to do; the one door every remote uses."""

    @property
    def paused(self) -> bool: ...
    @property
    def paused_left(self) -> float | None: ...

    def judge_menu(self) -> tuple[Offer, ...]: ...

    def judge_choices(self, name: str) -> tuple[Choice, ...]: ...

    def judge_question(self, name: str, value: Any = None) -> v.L10n: ...

    def judge(self, name: str, value: Any = None) -> Outcome: ...

    def pause(self, reason: str = "judge") -> None: ...

    def resume_play(self) -> None: ...


class RemoteSeam(Protocol):
    """remote (remote_screens.py): the judge's handheld: its menu, keys and status screens."""

    def remote_key(self, key: RemoteKey) -> None: ...

    def remote_line(self, text: v.Text) -> None: ...

    def remote_status(self) -> None: ...

    def show_story(self) -> None: ...

    def redraw(self) -> None: ...


class SeatsSeam(Protocol):
    """seats (seat_output.py): each seat's screen and LED, and the public board. ``ui`` is every seat's record
    (its view, LED, cursor, peek, cards): the parts set its fields, the seats part alone sends them."""

    @property
    def ui(self) -> dict[int, SeatUI]: ...

    def set(self, seat: int, view: v.View, led: RGB | None = None) -> None: ...

    def notice(self, seat: int, view: v.View, keep: bool = False) -> None: ...

    def eyes_closed(self, seat: int) -> bool: ...

    def refresh(self) -> None: ...

    def redraw(self, seat: int) -> None: ...


class Parts:
    """The registry: every part by name (director.py fills it, then every part may call every other)."""

    loop: GameLoopSeam
    announcer: AnnouncerSeam
    windows: WindowsSeam
    votes: VotesSeam
    deal: DealSeam
    inputs: InputsSeam
    judge: JudgeSeam
    remote: RemoteSeam
    seats: SeatsSeam
    follow: FollowersSeam

    def lookup(self, name: str) -> object:
        """A part by its name ("seats"), for tools and tests that name parts as text."""
        if name not in type(self).__annotations__:
            raise KeyError(f"no director part named {name!r}")
        return getattr(self, name)
