"""The ports: what the director needs from the world, as small protocols.

Adapters (``sim``, ``gpio``, ``bus``, ``pygame`` audio, ``sqlite`` journal, ...) implement these. The director
never imports an adapter; the configuration chooses one, the way gpiozero chooses a pin factory.

Threading contract: an adapter may notice an input on any thread (gpiozero callbacks, a serial reader), but it
must hand every :class:`InputEvent` to the ``sink`` it was given in :meth:`Table.start`. The director's sink is
thread-safe (it uses ``loop.call_soon_threadsafe``); nothing is processed where it lands.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from PIL import Image

#: Seat screens are 128x64, one colour (SSD1306 class). The controller draws them with Pillow, once,
#: whatever the transport.
SCREEN_SIZE = (128, 64)

RGB = tuple[int, int, int]

LED_OFF: RGB = (0, 0, 0)


class Button(enum.Enum):
    """The three seat buttons. OK also means "pass" (end my speech) and "raise my hand" (vote)."""

    PREV = "prev"  # ◀
    NEXT = "next"  # ▶
    OK = "ok"


class RemoteKey(enum.Enum):
    """The judge's handheld: a 5-way switch (four directions and a centre press) plus two side keys."""

    UP = "up"
    DOWN = "down"
    LEFT = "left"
    RIGHT = "right"
    CENTER = "center"
    MENU = "menu"
    BACK = "back"


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A seat button went down (``pressed``) or up. ``at`` is the adapter's monotonic time in seconds."""

    seat: int
    button: Button
    pressed: bool
    at: float


@dataclass(frozen=True, slots=True)
class CardEvent:
    """A card arrived on (``present``) or left a seat's reader. ``uid`` is the card's UID as hex."""

    seat: int
    uid: str
    present: bool
    at: float


@dataclass(frozen=True, slots=True)
class RemoteKeyEvent:
    """A key on the judge's handheld."""

    key: RemoteKey
    pressed: bool
    at: float


@dataclass(frozen=True, slots=True)
class LinkEvent:
    """A seat (``seat`` > 0) or the remote (``seat`` == 0) lost or regained its link (bus adapter)."""

    seat: int
    up: bool
    at: float
    reason: str = ""


InputEvent = ButtonEvent | CardEvent | RemoteKeyEvent | LinkEvent
Sink = Callable[[InputEvent], None]


@runtime_checkable
class Seat(Protocol):
    """One seat's outputs. Inputs arrive through the table's sink as :data:`InputEvent`."""

    @property
    def number(self) -> int: ...

    def display(self, image: Image.Image) -> None:
        """Show a 128x64 mode "1" image. Adapters send only what changed."""

    def set_led(self, rgb: RGB) -> None:
        """Set the seat's RGB LED; each channel 0..255."""


@runtime_checkable
class Remote(Protocol):
    """The judge's private screen (its keys arrive as :class:`RemoteKeyEvent`)."""

    def display(self, image: Image.Image) -> None: ...


@runtime_checkable
class Table(Protocol):
    """A set of seats plus an optional remote, started and stopped together."""

    @property
    def seats(self) -> Mapping[int, Seat]: ...

    @property
    def remote(self) -> Remote | None: ...

    def start(self, sink: Sink) -> None:
        """Begin delivering input events to ``sink`` (from any thread)."""

    def stop(self) -> None: ...


@runtime_checkable
class Voice(Protocol):
    """Speaks prompt IDs from a voice pack (see sounds/). Durations are known in advance so the director can
    open a vote window exactly when a call ends."""

    def duration(self, prompts: Sequence[str]) -> float:
        """Seconds that saying ``prompts`` back to back takes."""

    def say(self, prompts: Sequence[str], *, urgent: bool = False) -> float:
        """Queue ``prompts`` (urgent ones cut in); return the seconds until they are all said."""

    def masking(self, on: bool) -> None:
        """Start or stop the night masking loop (C2), ducked under prompts."""

    def beep(self, kind: str = "warning") -> None:
        """A short countdown beep."""


@runtime_checkable
class Board(Protocol):
    """The public big screen (V2.11, 004 §3.10): only what the whole room may see."""

    def show(self, public: Mapping[str, object]) -> None: ...


@runtime_checkable
class Journal(Protocol):
    """Durable, append-only record of a game's events. ``append`` returns only once the record is durable."""

    def append(self, record: Mapping[str, object]) -> None: ...

    def read(self) -> list[dict[str, object]]: ...


@runtime_checkable
class Publisher(Protocol):
    """What a table tells the club beyond itself (the hall, controller/hall/): ``kind`` is status, event, result
    or record. Only public facts are handed over (an event's public view); ``publish`` never waits for the
    network (the MQTT adapter writes an outbox and sends it later)."""

    def publish(self, kind: str, body: Mapping[str, object]) -> None: ...
