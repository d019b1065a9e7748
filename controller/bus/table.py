"""``BusTable``: the :class:`controller.ports.Table` of seats and a remote that are nodes on the seat bus.

Screens are drawn by luma's own ``ssd1306`` device class, given a :class:`BusSerialInterface` instead of I2C, so
the pixels a seat shows are exactly those luma would put on a locally wired panel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from luma.oled.device import ssd1306
from PIL import Image

from controller.config.profile import Profile
from controller.ports import RGB, SCREEN_SIZE, InputEvent, Sink

from . import seatbus as sb
from .display import BusSerialInterface, ssd1306_bytes
from .master import BusMaster


class BusScreen:
    """A seat's SSD1306 whose bytes travel as DISPLAY_RLE (or DISPLAY) frames to one node.

    luma's ``ssd1306`` device still sets the panel up (its commands pass through the interface, which keeps
    contrast, on/off and invert and drops what the node does itself), but a picture goes through
    ``ssd1306_bytes``: the same bytes luma would compute, without its per-pixel Python loop, which cost a
    millisecond a seat on every countdown tick."""

    def __init__(self, master: BusMaster, address: int) -> None:
        self.interface = BusSerialInterface(
            lambda mtype, payload: master.send(address, mtype, payload),
            rle=lambda: master.supports(address, sb.CAP_DISPLAY_RLE),
            offer=lambda old, new: master.offer_picture(address, old, new),
        )
        self._last: bytes | None = None
        self.device = ssd1306(self.interface, width=SCREEN_SIZE[0], height=SCREEN_SIZE[1])
        self.device.persist = (
            True  # at exit luma would blank the panel; the node keeps showing the last screen
        )
        master.nodes[address].restore = self.interface.restore_frames

    def display(self, image: Image.Image) -> None:
        if image.size != SCREEN_SIZE:
            raise ValueError(
                f"a seat screen is {SCREEN_SIZE[0]}x{SCREEN_SIZE[1]}, this image is {image.size}"
            )
        frame = ssd1306_bytes(image.convert("1"))
        if frame == self._last:
            return  # the same picture again (a new view drawn alike): nothing to compare byte by byte
        self._last = frame
        self.interface.show(frame)


class BusSeat:
    def __init__(self, master: BusMaster, address: int, number: int) -> None:
        self._master = master
        self._address = address
        self._number = number
        self.screen = BusScreen(master, address)

    @property
    def number(self) -> int:
        return self._number

    def display(self, image: Image.Image) -> None:
        self.screen.display(image)

    def set_led(self, rgb: RGB) -> None:
        if any(not 0 <= c <= 255 for c in rgb):
            raise ValueError(f"seat {self._number}: LED channels must be 0..255, got {rgb}")
        self._master.send(self._address, sb.SET_LED, bytes(rgb))


class BusRemote:
    def __init__(self, master: BusMaster, address: int) -> None:
        self.screen = BusScreen(master, address)

    def display(self, image: Image.Image) -> None:
        self.screen.display(image)


class BusTable:
    """Seats and remote over one :class:`BusMaster`.

    With ``threaded=True`` (real hardware) :meth:`start` runs the poll cycle on its own thread until
    :meth:`stop`. With ``threaded=False`` (the simulator, tests) nothing runs by itself: the caller advances the
    bus with :meth:`run_cycle` or :meth:`run_for`, so a whole game stays deterministic on a simulated clock.
    """

    def __init__(
        self,
        master: BusMaster,
        *,
        threaded: bool = True,
        idle: Callable[[], None] | None = None,
        post: Callable[..., object] | None = None,
    ) -> None:
        self.master = master
        #: How the poll thread hands an input to the loop (``loop.call_soon_threadsafe``): the director's
        #: sink must never run on the poll thread (ports.py's threading contract).
        self._post = post
        self._seats = {
            n.spec.seat: BusSeat(master, n.spec.address, n.spec.seat)
            for n in master.nodes.values()
            if n.spec.seat
        }
        remotes = [n.spec.address for n in master.nodes.values() if n.spec.seat == 0]
        self._remote = BusRemote(master, remotes[0]) if remotes else None
        self._threaded = threaded
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._idle = idle

    @property
    def seats(self) -> Mapping[int, BusSeat]:
        return self._seats

    @property
    def remote(self) -> BusRemote | None:
        return self._remote

    def start(self, sink: Sink) -> None:
        post = self._post
        if post is None:
            self.master.sink = sink
        else:
            def hand_over(event: InputEvent) -> None:
                post(sink, event)

            self.master.sink = hand_over
        # Started again by the next user of the same table (the lobby's check-in, then the game): the inputs go
        # to the new sink, and the one poll thread goes on. A second thread would drive the master at the same
        # time, each reading (and dropping) the answers the other waits for, until the seats count as down.
        if self._threaded and (self._thread is None or not self._thread.is_alive()):
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="seat-bus", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.master.cycle()
            if self._idle is not None:
                self._idle()

    def run_cycle(self) -> None:
        self.master.cycle()

    def run_for(self, seconds: float) -> None:
        """Poll until the transport's clock has moved on by ``seconds`` (simulated time in the simulator)."""
        end = self.master.transport.now() + seconds
        while self.master.transport.now() < end:
            self.master.cycle()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None


def open_bus_table(
    profile: Profile, remote_key_file: Path | None = None, post: Callable[..., object] | None = None
) -> BusTable:
    """The seats (and the judge's handheld) of a ``bus`` hardware profile, on its serial port, polled by a
    thread that hands inputs to the loop with ``post`` (``loop.call_soon_threadsafe``). The remote is paired with
    the key in ``remote_key_file`` (``tianhei remote pair``), its accepted counters remembered beside it. Raises
    OSError (pyserial's SerialException is one) when the port cannot be opened,
    :class:`~controller.bus.pairing.PairingError` when the profile has a remote and its key is unusable."""
    from .nodes import NodeSpec
    from .pairing import load_key, open_counters
    from .transport import NoRS485Mode, SerialTransport

    if profile.bus is None:
        raise ValueError(f"hardware {profile.name!r} ({profile.source}) has no [bus] table; add port and baud")
    nodes = [NodeSpec(address=seat.node or seat.number, seat=seat.number) for seat in profile.seats]
    if profile.bus.remote_address is not None and remote_key_file is not None:
        key = load_key(remote_key_file)
        nodes.append(NodeSpec(address=profile.bus.remote_address, seat=0, key=key,
                              counters=open_counters(remote_key_file, key)))
    addresses = [n.address for n in nodes]
    if len(set(addresses)) != len(addresses):  # `tianhei config check` says which; never let one node vanish
        raise ValueError(f"hardware {profile.name!r}: two nodes share a bus address ({sorted(addresses)})")
    try:
        transport = SerialTransport.open(profile.bus.port, profile.bus.baud,
                                         rts_direction=profile.bus.direction == "rts")
    except NoRS485Mode as exc:
        raise OSError(exc.errno, f"{exc.strerror} (direction = \"rts\" in {profile.source})") from exc
    except OSError as exc:  # pyserial's SerialException
        what, fix = (("the Pi's UART", "turn it on in config.txt (enable_uart=1, dtoverlay=disable-bt: "
                                       "docs/hardware.md, \"The Pi's own UART\")")
                     if profile.bus.direction == "rts" else
                     ("the seat bus adapter", "plug in the USB RS-485 adapter (udev names it /dev/tianhei-bus)"))
        raise OSError(exc.errno, f"{what} {profile.bus.port} cannot be opened ({exc.strerror or exc}); {fix} or set "
                                 f"[bus] port in {profile.source}") from exc
    master = BusMaster(transport, nodes, baud=profile.bus.baud, reply_timeout=profile.bus.reply_timeout_ms / 1000)
    master.short_guard_us = profile.bus.slot_guard_us
    return BusTable(master, post=post)
