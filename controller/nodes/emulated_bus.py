"""Emulated Picos on one seat bus, as a :class:`~controller.bus.transport.Transport` on emulated time.

The unchanged :class:`~controller.bus.master.BusMaster` talks to them: its ``write`` puts bytes on the line at
the bus speed, its ``read`` lets the Picos run (in Node, picobus.js) until bytes come back or the timeout passes
in *their* time, and ``now`` is that time. So the master runs in lockstep with the chips: a reply timeout of 10 ms
means 10 ms of a 125 MHz Cortex-M0+ running the rp2 firmware, however slow the host.

Each Pico's screen is the SSD1306 model and its reader the MFRC522 model that the rest of the project tests
against (controller/gpio/fakes.py, controller/nfc/fakes.py): every I2C transfer and SPI byte the firmware makes
goes to them. Buttons are GPIO inputs (pulled up: a press is a low level).
"""

from __future__ import annotations

import heapq
import itertools
import json
import os
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.gpio.fakes import Ssd1306Model
from controller.nfc.fakes import FakeMfrc522

from . import emulator_setup

HARNESS = Path(__file__).with_name("picobus.js")
NS = 1_000_000_000
SPI_BASES = (0x4003C000, 0x40040000)  # SPI0, SPI1 (RP2040 datasheet §2.2.4)
# The rp2 port's clk_peri once its system clock is set: the USB PLL's 48 MHz (pico-sdk's set_sys_clock_pll, without
# PICO_CLOCK_ADJUST_PERI_CLOCK_WITH_SYS_CLOCK), which the SPI's divisors are worked out from.
CLK_PERI_HZ = 48_000_000
NFC_SPI_BAUD = 4_000_000  # firmware/lib/board.py's: the card reader's SPI clock, which the harness's fake keeps


class EmulatorError(RuntimeError):
    """The emulator process failed or said something the bus does not understand (one line, with its stderr)."""


class EmulatedPico:
    """One emulated seat node: its screen, card reader, buttons and LED, as the bus sees them."""

    def __init__(self, bus: EmulatedBus, index: int, config: dict[str, Any]) -> None:
        self.bus = bus
        self.index = index
        self.config = config
        self.screen = Ssd1306Model()
        self.reader = FakeMfrc522()
        self.usb = ""  # what the firmware printed on its USB console (tracebacks, a bad config's message)
        self.resets: list[int] = []  # the watchdog's REASON bits at each reset it caused
        self._sent: list[int] = []  # the SPI bytes of the transfer under way (CS low)
        self.powered = True

    # --- the chips' side (called by the bus while the Picos run) --------------------------------------------
    def i2c_transfer(self, address: int, data: bytes) -> None:
        if address == self.config.get("display", {}).get("addr", 0x3C):
            self.screen.on_write(data)

    def chip_select(self, selected: bool) -> None:
        self._sent = []

    def spi_byte(self, mosi: int, at_ns: int | None = None) -> int:
        """The MFRC522's MISO for this byte (§8.1.2: in a read, each byte answers the address sent before it), at
        ``at_ns`` on the Pico's clock (the card's answer and the chip's timer take their time on the air)."""
        self.reader.now_ns = at_ns
        sent = self._sent
        sent.append(mosi)
        if len(sent) == 1:
            return 0
        if sent[0] & 0x80:
            return self.reader.xfer([sent[-2], 0])[1]
        self.reader.xfer([sent[0], mosi])
        return 0

    def reader_spi_hz(self) -> float:
        """The card reader's SPI clock as the chip's PL022 is set (RP2040 datasheet §4.4.4: clk_peri / (CPSDVSR x
        (1 + SCR))), clk_peri at 48 MHz: what ``[nfc] baud`` in the node's config.json gave."""
        base = SPI_BASES[self.config["nfc"]["spi"]]
        scr = (self.bus.call({"op": "peek", "pico": self.index, "address": base})["value"] >> 8) & 0xFF
        cpsdvsr = self.bus.call({"op": "peek", "pico": self.index, "address": base + 0x10})["value"] & 0xFF
        return CLK_PERI_HZ / (cpsdvsr * (1 + scr)) if cpsdvsr else 0.0

    # --- a player's side ---------------------------------------------------------------------------------------
    def button(self, name: str, pressed: bool) -> None:
        pins = self.config.get("buttons") or self.config.get("keys") or {}
        if name not in pins:
            raise ValueError(f"node {self.config.get('address')} has no button {name!r} (it has {sorted(pins)})")
        self.bus.call({"op": "pin", "pico": self.index, "gpio": pins[name], "value": 0 if pressed else 1})

    def card(self, uid: bytes | None) -> None:
        """Put a card with ``uid`` (4, 7 or 10 bytes) on the reader, or lift it (None)."""
        self.reader.card = uid
        self.reader.halted = False

    def led(self) -> tuple[float, float, float]:
        """The LED's red, green and blue duty cycles (0..1) as the PWM slices drive them now."""
        led = self.config["led"]
        answer = self.bus.call({"op": "pwm", "pico": self.index, "gpios": [led["r"], led["g"], led["b"]]})
        r, g, b = (float(x) for x in answer["levels"])
        return (r, g, b)

    def pixels(self) -> list[list[int]]:
        return [[self.screen.pixel(x, y) for x in range(128)] for y in range(64)]

    def flash(self, offset: int, length: int) -> bytes:
        """``length`` bytes of the Pico's flash from ``offset``, as the node left them."""
        answer = self.bus.call({"op": "flash", "pico": self.index, "offset": offset, "length": length})
        return bytes.fromhex(answer["data"])

    def power_cycle(self) -> None:
        self.screen = Ssd1306Model()
        self.powered = True
        self.bus.call({"op": "power", "pico": self.index})

    def power_off(self) -> None:
        """Cut the Pico's power (its RAM and its panel's are gone; :meth:`power_cycle` boots it again)."""
        self.powered = False
        self.bus.call({"op": "off", "pico": self.index})


class EmulatedBus:
    """The line and the clock the master shares with the emulated Picos (a Transport)."""

    def __init__(self, baud: int = 1_000_000) -> None:
        node = emulator_setup.node_binary()
        modules = emulator_setup.rp2040js_modules()
        words = emulator_setup.bootrom()
        env = dict(os.environ, NODE_PATH=str(modules))
        # stderr to a file, not a pipe: rp2040js complains of every access to a part it does not emulate, and a
        # full pipe nobody reads would stop the emulator mid-write.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close(), it outlives this call)
        self._proc = subprocess.Popen([node, str(HARNESS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, env=env)
        self.baud = baud
        self.byte_ns = round(10 * NS / baud)
        self.picos: list[EmulatedPico] = []
        self._t_ns = 0
        #: (time in ns, byte) of every byte towards the master, as it ended on the line: the benchmark's reply latencies
        #: come from it.
        self.heard: list[tuple[int, int]] = []
        #: (time in ns the last byte is on the line, bytes) of every master write.
        self.said: list[tuple[int, bytes]] = []
        self.on_reset: Callable[[EmulatedPico, int], None] | None = None
        #: Bytes garbled on the line because two senders (Picos, a Pico and noise, or a Pico and the master) were on it
        #: at once.
        self.collisions = 0
        #: What ``at`` planned: (ns, order, action), run when the line's time reaches it, inside a read or a run.
        self._actions: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        #: The host's way from the line to the master, as in :class:`~controller.bus.sim.SimBus`: a USB adapter's
        #: latency timer (seconds; an FTDI chip hands on what it received only when its timer runs out, every 1
        #: ms with systemd/99-tianhei.rules) and the host's own delay after a byte's end (the Pi's UART, about
        #: 0.2 ms). Both 0: the master hears each byte as it ends on the line.
        self.adapter_tick = 0.0
        self.host_delay = 0.0
        #: Bytes on their way to the master: (ns they reach it, byte).
        self._held: deque[tuple[int, int]] = deque()
        self.call({"op": "hello", "baud": baud, "bootrom": words})

    # --- the process ------------------------------------------------------------------------------------------
    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self._proc.stdin, self._proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(request).encode() + b"\n")
            stdin.flush()
            while True:
                line = stdout.readline()
                if not line:
                    raise EmulatorError(f"the emulator stopped: {self._stderr_tail()}")
                answer = json.loads(line)
                if "spi" in answer:
                    pico, mosi, at_ns = answer["spi"]
                    stdin.write(b'{"miso": %d}\n' % self.picos[pico].spi_byte(mosi, int(at_ns)))
                    stdin.flush()
                elif "cs" in answer:
                    pico, selected = answer["cs"]
                    if pico < len(self.picos):
                        self.picos[pico].chip_select(bool(selected))
                elif "error" in answer:
                    raise EmulatorError(f"the emulator refused {request.get('op')}: {answer['error']}")
                else:
                    return dict(answer)
        except BrokenPipeError as err:
            raise EmulatorError(f"the emulator stopped: {self._stderr_tail()}") from err

    def stderr(self) -> str:
        """What the emulator said on stderr so far (rp2040js's complaints, Node's own errors)."""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def _stderr_tail(self) -> str:
        self._proc.kill()
        self._proc.wait()
        return (self.stderr().strip().splitlines() or ["no message"])[-1]

    def close(self) -> None:
        try:
            self._stop()
        finally:
            self._stderr.close()

    def _stop(self) -> None:
        if self._proc.poll() is None:
            if self._proc.stdin:
                self._proc.stdin.close()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> EmulatedBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the Picos --------------------------------------------------------------------------------------------
    def add(self, uf2: Path, config: dict[str, Any], usb: bool = False) -> EmulatedPico:
        """Boot a Pico from ``uf2`` (built by node_image.node_uf2 with this ``config``); ``usb``: with a host on
        its USB console, whose text collects in ``EmulatedPico.usb`` (a seat on the bus cable has none)."""
        pins = config.get("buttons") or config.get("keys") or {}
        spec: dict[str, Any] = {"op": "add", "uf2": str(uf2), "uart": config["uart"]["id"], "usb": usb,
                                "inputs": {str(pin): 1 for pin in pins.values()}}
        if "i2c" in config:
            spec.update(i2c=config["i2c"]["id"], i2c_hz=config["i2c"].get("freq", 400_000),
                        i2c_devices=[config.get("display", {}).get("addr", 0x3C)])
        if "nfc" in config:
            nfc = config["nfc"]
            spec.update(spi=nfc["spi"], spi_cs=nfc["cs"], spi_hz=nfc.get("baud", NFC_SPI_BAUD))
        pico = EmulatedPico(self, len(self.picos), config)
        self.picos.append(pico)
        answer = self.call(spec)
        assert answer["pico"] == pico.index
        return pico

    def run(self, seconds: float) -> bytes:
        """Let every Pico run ``seconds`` of its time; the bytes that reached the master meanwhile."""
        return self._run(self._t_ns + round(seconds * NS), stop_on_rx=False)

    def at(self, when: float, action: Callable[[], None]) -> None:
        """Run ``action`` (a finger on a button) when the line's time reaches ``when`` (seconds), wherever the
        master is then: in the middle of its read, not only between its calls, as a person presses at any moment."""
        heapq.heappush(self._actions, (round(when * NS), next(self._order), action))

    def _run(self, until_ns: int, stop_on_rx: bool) -> bytes:
        got = b""
        while self._actions and self._actions[0][0] <= until_ns:
            if self._actions[0][0] > self._t_ns:
                got += self._run_to(self._actions[0][0], stop_on_rx)
                if got and stop_on_rx:
                    return got
            heapq.heappop(self._actions)[2]()
        return got + self._run_to(until_ns, stop_on_rx)

    def _run_to(self, until_ns: int, stop_on_rx: bool) -> bytes:
        if not (self.adapter_tick > 0 or self.host_delay > 0):
            return bytes(b for _, b in self._emulate(until_ns, stop_on_rx))
        got = bytearray()
        while True:
            while self._held and self._held[0][0] <= self._t_ns:
                got.append(self._held.popleft()[1])
            if (got and stop_on_rx) or self._t_ns >= until_ns:
                return bytes(got)
            if self._held:  # the Picos run on while the adapter holds what came; what comes meanwhile waits too
                rx = self._emulate(min(until_ns, self._held[0][0]), stop_on_rx=False)
            else:
                rx = self._emulate(until_ns, stop_on_rx)
            self._held.extend((self._reaches_master(t), b) for t, b in rx)

    def _reaches_master(self, t_ns: int) -> int:
        """When a byte that ended on the line at ``t_ns`` reaches the master: the host's delay, then the
        adapter's next tick (the ticks counted from the line's time 0)."""
        due = t_ns + round(self.host_delay * NS)
        if self.adapter_tick > 0:
            tick = round(self.adapter_tick * NS)
            due = -(-due // tick) * tick
        return due

    def _emulate(self, until_ns: int, stop_on_rx: bool) -> list[tuple[int, int]]:
        """Let the Picos run to ``until_ns`` (or the first byte towards the master); the bytes, timed on the line."""
        answer = self.call({"op": "run", "until": until_ns, "stop_on_rx": stop_on_rx})
        self._t_ns = int(answer["t"])
        self.collisions = int(answer.get("collisions", self.collisions))
        for index, transfers in answer["i2c"]:
            pico = self.picos[index]
            for address, data in transfers:
                pico.i2c_transfer(address, bytes.fromhex(data))
        for index, text in answer["usb"]:
            self.picos[index].usb += text
        for index, reason in answer["resets"]:
            pico = self.picos[index]
            pico.resets.append(reason)
            if self.on_reset is not None:
                self.on_reset(pico, reason)
        rx = [(int(t), int(b)) for t, b in answer["rx"]]
        self.heard.extend(rx)
        return rx

    def noise(self, data: bytes, after: float = 0.0) -> float:
        """Put ``data`` on the line from no node, its first byte ``after`` seconds from now (a spike, a node
        gone mad): every Pico and the master receive it, garbled with whatever else is on the line. Returns when
        its last byte has ended (seconds, the bus's time)."""
        answer = self.call({"op": "noise", "data": data.hex(), "at": self._t_ns + round(after * NS)})
        return int(answer["until"]) / NS

    # --- Transport ----------------------------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        answer = self.call({"op": "write", "data": data.hex()})
        self.said.append((int(answer["done"]), bytes(data)))

    def read(self, timeout: float) -> bytes:
        return self._run(self._t_ns + max(1, round(timeout * NS)), stop_on_rx=True)

    def now(self) -> float:
        return self._t_ns / NS
