"""The state the director's parts share, and the seams between them.

The director is one object made of one part per part of the game (director.py composes them); each part is a
mixin over this base. The base declares every piece of state (so each part reads and writes typed attributes)
and, as abstract methods, what each part offers the others: a part calls another only through a method listed
here, and a Director that lacks one cannot be made.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.director.clock import Handle, Scheduler
from controller.director.journal import SqliteJournal
from controller.director.timing import Timings
from controller.ports import LED_OFF, RGB, Board, Button, InputEvent, RemoteKey, Table, Voice
from controller.rules import engine
from controller.rules.actions import Action, Rejected
from controller.rules.events import Event
from controller.rules.setup import GameConfig
from controller.rules.state import GameState
from controller.screens import views as v
from controller.screens.numbering import label_for

if TYPE_CHECKING:
    from controller.director.director import Director
    from controller.director.judge_commands import Choice as JudgeChoice
    from controller.director.judge_commands import Offer as JudgeOffer
    from controller.director.judge_commands import Outcome as JudgeOutcome


@dataclass
class SeatUI:
    """One seat as the director keeps it: the view it should show, the frame last sent, its LED, its cursor, a
    passing notice, its peek at its own role and the cards it tapped at the deal."""

    view: v.View = field(default_factory=v.Dark)
    drawn: v.View | None = None
    led: RGB = LED_OFF
    #: The LED the seat's own input lit before the game took it (its write still on its way to the disk): shown
    #: over :attr:`led` until then (game_loop.py, "in flight").
    local_led: RGB | None = None
    cursor: int | None = None
    notice: v.View | None = None
    notice_handle: Handle | None = None
    ok_down: bool = False
    peek_handle: Handle | None = None
    peeking: bool = False
    #: The cards this seat tapped at the deal, in order (two in the dual-card versions).
    cards: tuple[str, ...] = ()
    reveal_handle: Handle | None = None
    #: ◀ and ▶ held together (a table without a judge: the surrender gesture, V2.11), and the question shown.
    held: set[Button] = field(default_factory=set)
    surrender_handle: Handle | None = None
    asking_surrender: bool = False


@dataclass
class Window:
    """An open input window: the engine waits, the table shows a countdown. ``key`` names it in checkpoints."""

    kind: str
    step: str
    seats: tuple[int, ...]
    key: str
    total: float
    deadline: float
    handles: list[Handle] = field(default_factory=list)
    #: vote calls: (candidate, call end time) of the call in progress, and the calls still to make
    call: tuple[int, float] | None = None
    calls: list[int] = field(default_factory=list)
    previous_call: tuple[int, float] | None = None
    window_open: bool = False


@dataclass
class RemoteAsk:
    """A judge's command on the remote waiting for its value (◀/▶) or for the confirming second press."""

    command: str
    choice: int = 0
    confirming: bool = False


@dataclass(eq=False)
class InFlight:
    """An input the rules took whose write is on its way to the disk: its state is where the next input is decided
    from; the room learns its consequences only once it is durable (game_loop.py)."""

    action: Action
    seat: int | None
    state: GameState
    events: tuple[Event, ...]
    #: It ends the wait it was given in (the window closes once it is in effect).
    ends_wait: bool


@dataclass
class Line:
    """One line of the transcript: public lines may be printed while the game runs; private ones only after."""

    at: float
    who: str
    what: str
    public: bool = True


class DirectorBase(ABC):
    """The director's state, and the methods its parts call on one another."""

    #: A resumed game takes presses made from this moment (the table's clock) on. Seat nodes that kept their
    #: power while the table restarted (a crash, the watchdog) still hold the presses made on the screens of
    #: before, and hand them over as soon as the new table polls them: a player's OK meant for the screen that
    #: was shown then must not land in a window the resumed game has just opened.
    inputs_from: float | None = None

    def __init__(
        self,
        table: Table,
        voice: Voice,
        scheduler: Scheduler,
        config: GameConfig,
        *,
        journal: SqliteJournal | None = None,
        timings: Timings | None = None,
        lang: str = "zh",
        seed: int = 0,
        deck: Mapping[str, str] | None = None,
        judge_entry: bool = False,
        board: Board | None = None,
        judge: bool | None = None,
    ) -> None:
        self.table = table
        self.voice = voice
        self.clock = scheduler
        self.config = config
        self.journal = journal
        self.t = timings or Timings()
        self.lang = lang
        #: How screens write a seat number (D2: a card place as seat and card, controller/screens/numbering.py).
        self.label = label_for(config.variant)
        self.seed = seed
        self.deck = dict(deck) if deck is not None else None
        self.judge_entry = judge_entry
        self.state: GameState | None = None
        self.events: list[Event] = []
        self.groups: list[tuple[Action | None, int]] = []
        #: Inputs taken, oldest first, whose writes are not yet durable (only with a journal writer thread).
        self.inflight: deque[InFlight] = deque()
        # Seats past the game's player count (a 16-seat table playing 12) stay out of the game.
        self.ui: dict[int, SeatUI] = {n: SeatUI() for n in table.seats if n <= config.players}
        self.window: Window | None = None
        self.beats: deque[tuple[str, Any]] = deque()
        self.beat_handle: Handle | None = None
        self.paused = False
        self.paused_for: set[int] = set()
        self.paused_left: float | None = None
        self.last_prompts: list[str] = []
        self.transcript: list[Line] = []
        #: Told ``(director, window)`` when a window opens (or a group is asked again, C6): the bots plan there.
        self.listeners: list[Callable[[Director, Window], None]] = []
        #: Told ``(director, True)`` when play pauses and ``(director, False)`` when it resumes, before the window
        #: that was open is opened again with the same key: whoever acts at the table (the bots' hands) holds
        #: still meanwhile and, told of the resume first, knows that window is not a new one to plan.
        self.pause_listeners: list[Callable[[Director, bool], None]] = []
        self.on_over: list[Callable[[Director], None]] = []
        #: Told ``(director, events)`` as each input's events are committed (the transcript writes them down).
        self.on_commit: list[Callable[[Director, Sequence[Event]], None]] = []
        self.stage = "idle"  # idle | deal | play | over
        self.opened = 0
        #: What the remote was told (a card problem, a seat gone quiet, a command's outcome), newest last.
        self.remote_lines: deque[v.Text] = deque(maxlen=40)
        #: The remote's menu: the cursor in the commands open now (None: closed), the command being chosen for
        #: or confirmed, and the outcome shown until the next key (remote_screens.py).
        self.menu: int | None = None
        self.asking: RemoteAsk | None = None
        self.remote_result: tuple[v.L10n, v.L10n, bool] | None = None
        self.remote_result_handle: Handle | None = None
        #: Judge or not (a table without a judge: players surrender from their seats, V2.11).
        self.has_judge = judge if judge is not None else table.remote is not None
        #: Who taps cards at the deal, and how many each (C1; D1-D3 two): every seat, one card; D1/D3 every
        #: seat, two; D2 the card 1 place of each physical seat (places.py routes a seat's taps there while
        #: nothing is dealt), whose two cards are its two places'.
        self.hand = 1 if config.variant.hand == 1 else 2
        #: The engine refused the last deal (a void hand): the redeal need not say someone saw a card.
        self.deal_void = False
        self.dealers = tuple(sorted(n for n in self.ui if config.variant.live != "both" or n % 2 == 1))
        self.dealer_of = {n: n - (1 - n % 2) if config.variant.live == "both" else n for n in self.ui}
        self._front: list[tuple[str, Any]] = []
        self.led_sent: dict[int, RGB] = {}
        self.remote_drawn: v.View | None = None
        #: The public big screen (optional): fed only public facts (controller/board/public.py).
        self.board = board
        self.board_shown: dict[str, object] | None = None
        #: The board as night fell, held until dawn is announced (seat_output.py).
        self.board_night: dict[str, object] | None = None
        self.story_cursor = 0
        #: The step of the last vote window (a V4.8 turn vote's one-hand close is not announced).
        self.last_vote_step = ""
        #: Check answers a seat may see but has not yet (V7.1: shown when it next wakes).
        self.unseen: dict[int, list[tuple[int, v.Answer]]] = {}
        #: The room has been told to close its eyes (the nightfall beat ran) and not yet to open them (dawn):
        #: a seat not woken by the open window then shows nothing but what the game draws on it.
        self.night_shown = False
        #: D1: seats whose second card turned up in the night, shown to their owners at dawn.
        self.turned_up: set[int] = set()

    # ==== told to whoever follows the table (director.py: only the whole Director is handed out) ============
    @abstractmethod
    def _tell_window(self, w: Window) -> None: ...

    @abstractmethod
    def _tell_pause(self, paused: bool) -> None: ...

    @abstractmethod
    def _tell_over(self) -> None: ...

    @abstractmethod
    def _tell_commit(self, events: Sequence[Event]) -> None: ...

    # ==== what each part offers the others ==================================================================
    # ---- game_loop.py --------------------------------------------------------------------------------------
    @abstractmethod
    def _begin_play(self) -> None: ...

    @abstractmethod
    def _commit(self, action: Action | None, state: GameState, events: Sequence[Event],
                cards: Mapping[int, tuple[str, ...]] | None = None) -> None: ...

    @abstractmethod
    def submit(self, action: Action, seat: int | None = None) -> Rejected | None: ...

    @abstractmethod
    def _settle(self) -> None: ...

    @abstractmethod
    def _beat(self, kind: str, arg: Any) -> None: ...

    @abstractmethod
    def _beat_now(self, kind: str, arg: Any) -> None: ...

    @abstractmethod
    def _pump(self) -> None: ...

    @abstractmethod
    def _checkpoint(self) -> None: ...

    @abstractmethod
    def _note(self, who: str, what: str, public: bool = True) -> None: ...

    # ---- event_beats.py ------------------------------------------------------------------------------------
    @abstractmethod
    def _announce(self, events: Sequence[Event]) -> None: ...

    @abstractmethod
    def _show_end(self) -> None: ...

    # ---- windows.py ----------------------------------------------------------------------------------------
    @abstractmethod
    def _key(self) -> str: ...

    @abstractmethod
    def _where(self) -> str: ...

    @abstractmethod
    def _open(self, left: float | None = None) -> None: ...

    @abstractmethod
    def _start(self, p: engine.Pending, total: float, left: float | None = None) -> None: ...

    @abstractmethod
    def _schedule_ticks(self, w: Window) -> None: ...

    @abstractmethod
    def _deadline(self) -> None: ...

    @abstractmethod
    def _close_window(self) -> None: ...

    @abstractmethod
    def _countdown(self) -> v.Countdown: ...

    @abstractmethod
    def _redraw_window(self) -> None: ...

    # ---- vote_calls.py -------------------------------------------------------------------------------------
    @abstractmethod
    def _start_vote(self, p: engine.Pending) -> None: ...

    @abstractmethod
    def _hand(self, seat: int, w: Window) -> None: ...

    # ---- input_routing.py ----------------------------------------------------------------------------------
    @abstractmethod
    def handle(self, event: InputEvent) -> None: ...

    @abstractmethod
    def _rejected(self, exc: Rejected, seat: int | None, action: Action) -> None: ...

    # ---- card_deal.py --------------------------------------------------------------------------------------
    @abstractmethod
    def _ask_for_cards(self) -> None: ...

    @abstractmethod
    def _card(self, seat: int, uid: str) -> None: ...

    @abstractmethod
    def _tap_prompt(self) -> str: ...

    @abstractmethod
    def _arm_peek(self, seat: int, now: bool = False) -> None: ...

    @abstractmethod
    def _eyes_closed(self, seat: int) -> bool: ...

    # ---- judge_commands.py ---------------------------------------------------------------------------------
    @abstractmethod
    def redeal(self) -> None: ...

    @abstractmethod
    def pause(self, reason: str = "judge") -> None: ...

    @abstractmethod
    def resume_play(self) -> None: ...

    @abstractmethod
    def repeat(self) -> None: ...

    @abstractmethod
    def extend(self, seconds: float) -> None: ...

    @abstractmethod
    def end_timer(self) -> None: ...

    @abstractmethod
    def undo(self) -> bool: ...

    @abstractmethod
    def abort(self) -> None: ...

    @abstractmethod
    def judge_menu(self) -> tuple[JudgeOffer, ...]: ...

    @abstractmethod
    def judge_choices(self, name: str) -> tuple[JudgeChoice, ...]: ...

    @abstractmethod
    def judge_question(self, name: str, value: Any = None) -> v.L10n: ...

    @abstractmethod
    def judge(self, name: str, value: Any = None) -> JudgeOutcome: ...

    # ---- remote_screens.py ---------------------------------------------------------------------------------
    @abstractmethod
    def _remote_key(self, key: RemoteKey) -> None: ...

    @abstractmethod
    def _remote_line(self, text: v.Text) -> None: ...

    @abstractmethod
    def _remote_status(self) -> None: ...

    # ---- seat_output.py ------------------------------------------------------------------------------------
    @abstractmethod
    def _set(self, seat: int, view: v.View, led: RGB | None = None) -> None: ...

    @abstractmethod
    def _notice(self, seat: int, view: v.View, keep: bool = False) -> None: ...

    @abstractmethod
    def _refresh(self) -> None: ...
