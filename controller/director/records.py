"""The records the director's parts keep: a seat as the director keeps it, an open input window, the remote's
question, an input in flight, a line of the transcript.

Plain data, no behaviour: the part that owns each record is named in seams.py (the seats part owns every
:class:`SeatUI`, the input windows part the open :class:`Window`, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.director.clock import Handle
from controller.ports import LED_OFF, RGB, Button
from controller.rules.actions import Action
from controller.rules.events import Event
from controller.rules.state import GameState
from controller.screens import views as v


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
    #: ◀ and ▶ held together (a table without a judge: the seat's own gesture, V2.11's surrender or W11's
    #: self-destruct), and the question shown on this seat: "" none, else the command it asks ("surrender",
    #: "self_destruct").
    held: set[Button] = field(default_factory=set)
    gesture_handle: Handle | None = None
    asking: str = ""


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
