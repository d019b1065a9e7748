"""The ``gpio`` adapter: a :class:`controller.ports.Table` whose seats are wired straight to the Pi.

Built from a hardware profile (:func:`build_table`). Inputs arrive three ways, and all end at the director's
sink, which is thread-safe; nothing is processed where it lands:

* buttons on Pi pins: gpiozero calls back on its own thread; the edge is debounced (a few comparisons) and the
  :class:`~controller.ports.ButtonEvent` handed to the sink;
* buttons on MCP23017 expanders: the expander's interrupt line (a Pi pin) falls; the gpiozero callback only
  wakes the I/O thread, which reads the expander over I2C (the bus is never touched from gpiozero's thread);
* cards: the I/O thread polls every reader on a schedule (:mod:`controller.gpio.poller`).

Reading the text on a card (deck enrollment) is a request too (:meth:`GpioTable.read_card_text`): the I/O
thread runs it between poll rounds, so it never interleaves with the reader's own polling
(:mod:`controller.gpio.cardtext`), and hands the caller a future.

Screens: ``display`` only files the newest image for its seat (an older one not yet sent is dropped); the I/O
thread sends frames between reader rounds, at least one per turn, so a burst of redraws (every seat at a phase
change) cannot push a reader past the 100 ms promise. LEDs are a 3-byte transfer and go out at once. Every transfer
takes the bus lock, so none interleaves with another seat's transfer or a reader poll.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from PIL import Image

from controller.config.profile import PinRef, Profile, SeatSpec
from controller.gpio.cardtext import CardTextRequests, Texts
from controller.gpio.clock import Clock, SystemClock
from controller.gpio.debounce import Debouncer
from controller.gpio.i2c import RawI2c, SeatBus, SharedBus
from controller.gpio.led import ExpanderLed, PiPinLed, SeatLed
from controller.gpio.mcp23017 import Mcp23017
from controller.gpio.oled import MuxedI2cSerial, OledScreen
from controller.gpio.poller import ReaderScheduler
from controller.nfc import mfrc522, pn532
from controller.nfc.reader import CardPresence, CardReader
from controller.ports import RGB, Button, ButtonEvent, InputEvent, Remote, Seat, Sink

log = logging.getLogger(__name__)

SpiOpener = Callable[[int, PinRef], mfrc522.SpiTransport]
SerialOpener = Callable[[str, int], pn532.SerialPort]


class GpioSeat:
    """One seat's outputs."""

    def __init__(self, number: int, screen: OledScreen | None, led: SeatLed | None) -> None:
        self._number = number
        self.screen = screen
        self.led = led
        self.table: GpioTable | None = None

    @property
    def number(self) -> int:
        return self._number

    def display(self, image: Image.Image) -> None:
        if self.screen is None:
            return
        if self.table is not None and self.table.running:
            self.table.request_frame(self._number, image)
        else:
            self.screen.show(image)

    def set_led(self, rgb: RGB) -> None:
        if self.led is not None:
            self.led.set(rgb)


@dataclass
class _Expander:
    chip: Mcp23017
    buttons: dict[int, tuple[int, Button]]  # pin -> (seat, button)
    int_line: Any = None  # gpiozero DigitalInputDevice, active while the interrupt is asserted
    pending: bool = True


@dataclass
class ChipWiring:
    """Where the table's I2C chips are, for the diagnostic's register reads (controller/diag/chips.py)."""

    bus: SharedBus
    mux_address: int | None
    expanders: dict[str, Mcp23017]
    screens: dict[int, tuple[SeatBus, int]]  # seat -> (its bus view, the SSD1306's address)


class GpioTable:
    """Seats on Pi pins, expanders, a multiplexed I2C bus and card readers."""

    def __init__(self, seats: Mapping[int, GpioSeat], clock: Clock, scheduler: ReaderScheduler,
                 bounce_s: float = 0.02) -> None:
        self._seats = dict(seats)
        for seat in self._seats.values():
            seat.table = self
        self._frames: dict[int, Image.Image] = {}
        self._frames_lock = threading.Lock()
        self.running = False
        self.clock = clock
        self.scheduler = scheduler
        self.bounce_s = bounce_s
        self.expanders: list[_Expander] = []
        self._debouncers: dict[tuple[int, Button], Debouncer] = {}
        self._devices: list[Any] = []
        self._sink: Sink | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.card_texts = CardTextRequests(self._wake.set)
        self.chips: ChipWiring | None = None

    # --- ports.Table ------------------------------------------------------------------------------------
    @property
    def seats(self) -> Mapping[int, Seat]:
        return self._seats

    @property
    def remote(self) -> Remote | None:
        return None

    def start(self, sink: Sink, *, thread: bool = True) -> None:
        """Deliver inputs to ``sink``. With ``thread=False`` nothing runs in the background: call :meth:`step`."""
        self._sink = sink
        for presence in self.scheduler.presences:
            presence.emit = self._emit  # readers report through the same sink
        self.scheduler.setup()
        self.running = True
        if thread:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="tianhei-gpio-io", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
        self.running = False
        self.card_texts.cancel_all("the table stopped")
        self.flush_frames()
        for seat in self._seats.values():
            if seat.led is not None:
                seat.led.close()
        for device in self._devices:
            device.close()
        self._devices.clear()
        self._sink = None

    # --- inputs -----------------------------------------------------------------------------------------
    def _emit(self, event: InputEvent) -> None:
        sink = self._sink
        if sink is not None:
            sink(event)

    def button_edge(self, seat: int, button: Button, pressed: bool) -> None:
        """A raw edge from a pin or an expander; debounced, then handed to the sink."""
        at = self.clock.monotonic()
        debouncer = self._debouncers.setdefault((seat, button), Debouncer(self.bounce_s))
        for level in debouncer.edge(pressed, at):
            self._emit(ButtonEvent(seat, button, level, at))

    def interrupt(self, expander: _Expander) -> None:
        """Called on gpiozero's thread when an interrupt line falls: only wake the I/O thread."""
        expander.pending = True
        self._wake.set()

    # --- card memory ------------------------------------------------------------------------------------
    def read_card_text(self, seat: int, uid: str) -> Future[Texts]:
        """The Text records on card ``uid`` now on seat ``seat``'s reader, read by the I/O thread between two
        poll rounds (or by the next :meth:`step` when started without a thread). Completes on the I/O thread;
        fails with an :class:`~controller.nfc.reader.NfcError` that names the seat and the card."""
        if not self.running:
            future: Future[Texts] = Future()
            future.set_exception(RuntimeError(f"seat {seat}: card {uid}: the gpio table is not started"))
            return future
        return self.card_texts.submit(seat, uid)

    # --- screens ----------------------------------------------------------------------------------------
    def request_frame(self, seat: int, image: Image.Image) -> None:
        """File ``image`` as seat ``seat``'s next frame (replacing one not yet sent) and wake the I/O thread."""
        with self._frames_lock:
            self._frames.pop(seat, None)  # re-insert: oldest request goes first
            self._frames[seat] = image.copy()
        self._wake.set()

    def _next_frame(self) -> tuple[int, Image.Image] | None:
        with self._frames_lock:
            if not self._frames:
                return None
            seat = next(iter(self._frames))
            return seat, self._frames.pop(seat)

    def send_frames(self, at_least: int = 1) -> int:
        """Send queued frames: at least ``at_least``, then more while the next reader round is not due."""
        sent = 0
        while sent < at_least or self.scheduler.due_in() > 0:
            item = self._next_frame()
            if item is None:
                break
            seat, image = item
            screen = self._seats[seat].screen
            if screen is not None:
                try:
                    screen.show(image)
                except OSError as exc:
                    log.warning("seat %d screen: %s", seat, exc)
            sent += 1
        return sent

    def flush_frames(self) -> None:
        """Send every queued frame now."""
        while self._next_frame_pending():
            self.send_frames()

    def _next_frame_pending(self) -> bool:
        with self._frames_lock:
            return bool(self._frames)

    # --- the I/O thread ---------------------------------------------------------------------------------
    def step(self) -> None:
        """One turn of the I/O thread: read expanders that signalled, poll readers if a round is due, then send
        queued screen frames (at least one, more while the next round is not due)."""
        for expander in self.expanders:
            asserted = expander.int_line is not None and expander.int_line.is_active
            if not (expander.pending or asserted):
                continue
            expander.pending = False
            try:
                changes = expander.chip.changes()
            except OSError as exc:
                log.warning("%s: %s (will retry)", expander.chip.name, exc)
                expander.pending = True
                continue
            for pin, level in changes:
                if pin in expander.buttons:
                    seat, button = expander.buttons[pin]
                    self.button_edge(seat, button, not level)  # pulled up: pressed = low
        self.scheduler.step()
        if self.card_texts.pending():  # the chip's listed target is the card its last poll saw
            self.card_texts.serve({p.seat: p for p in self.scheduler.presences})
        self.send_frames()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            except Exception:  # keep the table alive; the message says where
                log.exception("gpio I/O thread")
            if not (self._next_frame_pending() or self.card_texts.pending()):
                self._wake.wait(timeout=max(0.001, self.scheduler.due_in()))
            self._wake.clear()


def _default_spi(bus: int, cs: PinRef, pin_factory: object) -> mfrc522.SpiTransport:
    """spidev with the chip-select driven by hand (one GPIO per seat), for real Pis."""
    import spidev
    from gpiozero import DigitalOutputDevice

    device = spidev.SpiDev()
    device.open(bus, 0)
    device.no_cs = True
    device.max_speed_hz = 1_000_000
    select = DigitalOutputDevice(cs.index, active_high=False, initial_value=False, pin_factory=pin_factory)

    class _Spi:
        def xfer(self, data: list[int]) -> list[int]:
            select.on()
            try:
                return list(device.xfer2(data))
            finally:
                select.off()

    return _Spi()


def _default_serial(port: str, baud: int) -> pn532.SerialPort:
    import serial

    return serial.Serial(port, baud, timeout=0.02)


def build_table(profile: Profile, *, pin_factory: object, i2c: RawI2c, clock: Clock | None = None,
                spi_open: SpiOpener | None = None, serial_open: SerialOpener | None = None,
                poll_period: float = 0.05, bounce_s: float = 0.02) -> GpioTable:
    """Wire a :class:`GpioTable` from a ``gpio`` profile. ``pin_factory`` is gpiozero's (lgpio on a Pi,
    ``MockFactory`` in tests), ``i2c`` the raw bus (:class:`~controller.gpio.i2c.Smbus2I2c` on a Pi)."""
    if profile.adapter != "gpio":
        raise ValueError(f"profile {profile.name!r} is for the {profile.adapter!r} adapter, not 'gpio'")
    from gpiozero import DigitalInputDevice  # not gpiozero.Button: its hold thread is not needed here

    clock = clock or SystemClock()
    bus = SharedBus(i2c, profile.mux_address)
    inputs: dict[str, int] = {e.name: 0 for e in profile.expanders}
    for seat in profile.seats:
        for pin in seat.buttons.values():
            if pin.chip is not None:
                inputs[pin.chip] |= 1 << pin.index
    chips = {e.name: Mcp23017(bus, e.address, inputs[e.name], e.name) for e in profile.expanders}
    for chip in chips.values():
        chip.configure()

    seats: dict[int, GpioSeat] = {}
    presences: list[CardPresence] = []
    screens: dict[int, tuple[SeatBus, int]] = {}
    for spec in profile.seats:
        seat_bus = bus.channel(spec.mux_channel)
        screen = None
        if spec.screen.type == "ssd1306":
            screen = OledScreen(MuxedI2cSerial(seat_bus, spec.screen.address), rotate=spec.screen.rotate)
            screens[spec.number] = (seat_bus, spec.screen.address)
        seats[spec.number] = GpioSeat(spec.number, screen, _led(spec, chips, pin_factory))
        reader = _reader(spec, seat_bus, clock, pin_factory, spi_open, serial_open)
        if reader is not None:
            presences.append(CardPresence(spec.number, reader, lambda e: None, clock.monotonic))

    table = GpioTable(seats, clock, ReaderScheduler(presences, clock, poll_period), bounce_s)
    table.chips = ChipWiring(bus, profile.mux_address, chips, screens)
    by_chip: dict[str, dict[int, tuple[int, Button]]] = {name: {} for name in chips}
    for spec in profile.seats:
        for button, pin in spec.buttons.items():
            if pin.chip is not None:
                by_chip[pin.chip][pin.index] = (spec.number, button)
                continue
            device = DigitalInputDevice(pin.index, pull_up=True, bounce_time=None, pin_factory=pin_factory)
            device.when_activated = _edge(table, spec.number, button, True)  # pulled up: active = low = pressed
            device.when_deactivated = _edge(table, spec.number, button, False)
            table._devices.append(device)
    for exp_spec in profile.expanders:
        expander = _Expander(chips[exp_spec.name], by_chip[exp_spec.name])
        if exp_spec.int_pin is not None:
            line = DigitalInputDevice(exp_spec.int_pin.index, pull_up=True, pin_factory=pin_factory)
            line.when_activated = _interrupt(table, expander)
            expander.int_line = line
            table._devices.append(line)
        if expander.buttons:
            table.expanders.append(expander)
    return table


def _edge(table: GpioTable, seat: int, button: Button, pressed: bool) -> Callable[[], None]:
    return lambda: table.button_edge(seat, button, pressed)


def _interrupt(table: GpioTable, expander: _Expander) -> Callable[[], None]:
    return lambda: table.interrupt(expander)


def _led(spec: SeatSpec, chips: Mapping[str, Mcp23017], pin_factory: object) -> SeatLed | None:
    if spec.led is None:
        return None
    pins = spec.led.pins
    if all(p.chip is None for p in pins):
        return PiPinLed((pins[0].index, pins[1].index, pins[2].index), pwm=spec.led.pwm,
                        active_high=spec.led.active_high, pin_factory=pin_factory)
    lines = []
    for pin in pins:
        if pin.chip is None:
            raise ValueError(f"seat {spec.number}: an LED's three lines must all be on Pi pins or all on expanders")
        lines.append((chips[pin.chip], pin.index))
    return ExpanderLed((lines[0], lines[1], lines[2]), active_high=spec.led.active_high)


def _reader(spec: SeatSpec, seat_bus: Any, clock: Clock, pin_factory: object,
            spi_open: SpiOpener | None, serial_open: SerialOpener | None) -> CardReader | None:
    kind = spec.reader.type
    if kind == "pn532-i2c":
        return pn532.Pn532(pn532.I2cPn532Transport(seat_bus.write, seat_bus.read, spec.reader.address), clock)
    if kind == "pn532-uart":
        port = (serial_open or _default_serial)(spec.reader.port, spec.reader.baud)
        return pn532.Pn532(pn532.UartPn532Transport(port), clock)
    if kind == "mfrc522-spi":
        assert spec.reader.cs is not None  # the profile loader insists on it
        if spi_open is None:
            return mfrc522.Mfrc522(_default_spi(spec.reader.spi_bus, spec.reader.cs, pin_factory), clock)
        return mfrc522.Mfrc522(spi_open(spec.reader.spi_bus, spec.reader.cs), clock)
    return None


def open_table(profile: Profile) -> GpioTable:
    """The table on a real Raspberry Pi: gpiozero's lgpio pin factory and the kernel's I2C bus.

    The bus speed is set by the kernel (``dtparam=i2c_arm_baudrate=`` in config.txt), not at run time; the
    profile's ``i2c.speed_hz`` is what the wiring docs and the poll-schedule figures assume."""
    from gpiozero.pins.lgpio import LGPIOFactory

    from controller.gpio.i2c import Smbus2I2c

    return build_table(profile, pin_factory=LGPIOFactory(), i2c=Smbus2I2c(profile.i2c_bus))
