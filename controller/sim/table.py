"""The ``sim`` adapter: a whole table in memory, first-class (it drives the simulator window and every
end-to-end test). Each seat's screen is a luma ``dummy`` device, so a test reads exactly the image a real
SSD1306 would have been sent; buttons and cards are pressed and tapped by tests, bots or the emulator window.

Inputs go to the sink like any adapter's; outputs are kept (``image``, ``led``) and counted, so tests can
assert that nothing is sent that did not change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from controller.ports import (
    LED_OFF,
    RGB,
    Button,
    ButtonEvent,
    CardEvent,
    InputEvent,
    RemoteKey,
    RemoteKeyEvent,
    Sink,
)
from controller.screens.luma_device import dummy_device, show, shown


@dataclass
class SimSeat:
    number: int
    device: Any = field(default_factory=dummy_device)
    led: RGB = LED_OFF
    frames: int = 0
    led_changes: int = 0
    #: Every LED colour ever set, for tests that check what a seat could have seen.
    led_history: list[RGB] = field(default_factory=list)

    def display(self, image: Image.Image) -> None:
        show(self.device, image)
        self.frames += 1

    def set_led(self, rgb: RGB) -> None:
        if rgb != self.led:
            self.led = rgb
            self.led_changes += 1
            self.led_history.append(rgb)

    @property
    def image(self) -> Image.Image:
        return shown(self.device)


@dataclass
class SimRemote:
    device: Any = field(default_factory=dummy_device)
    frames: int = 0

    def display(self, image: Image.Image) -> None:
        show(self.device, image)
        self.frames += 1

    @property
    def image(self) -> Image.Image:
        return shown(self.device)


class SimTable:
    """``players`` seats and (optionally) the judge's remote. ``clock`` stamps the input events."""

    def __init__(self, players: int, clock: Callable[[], float], remote: bool = True) -> None:
        self._seats = {n: SimSeat(n) for n in range(1, players + 1)}
        self._remote = SimRemote() if remote else None
        self._sink: Sink | None = None
        self._clock = clock
        self.held: set[tuple[int, Button]] = set()
        #: Every input the table delivered, in order (tests read it).
        self.inputs: list[InputEvent] = []

    @property
    def seats(self) -> Mapping[int, SimSeat]:
        return self._seats

    @property
    def remote(self) -> SimRemote | None:
        return self._remote

    def start(self, sink: Sink) -> None:
        self._sink = sink

    def stop(self) -> None:
        self._sink = None

    def _send(self, event: InputEvent) -> None:
        self.inputs.append(event)
        if self._sink is not None:
            self._sink(event)

    # ---- what people do at the table ----------------------------------------------------------------------
    def press(self, seat: int, button: Button) -> None:
        self.held.add((seat, button))
        self._send(ButtonEvent(seat, button, True, self._clock()))

    def release(self, seat: int, button: Button) -> None:
        self.held.discard((seat, button))
        self._send(ButtonEvent(seat, button, False, self._clock()))

    def click(self, seat: int, button: Button) -> None:
        """Press and release at once."""
        self.press(seat, button)
        self.release(seat, button)

    def tap(self, seat: int, uid: str) -> None:
        """A card arrives on the seat's reader and is taken away again."""
        self._send(CardEvent(seat, uid, True, self._clock()))
        self._send(CardEvent(seat, uid, False, self._clock()))

    def remote_key(self, key: RemoteKey) -> None:
        self._send(RemoteKeyEvent(key, True, self._clock()))
        self._send(RemoteKeyEvent(key, False, self._clock()))
