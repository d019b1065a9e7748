"""A bus table where some seats are emulated Picos running the rp2 image and the others the firmware under
``micropython``: the unchanged master and director play a whole game with both (controller/sessions).

The ``micropython`` nodes live on the simulated bus (:class:`~controller.bus.sim.SimBus`), whose clock is the
table's; the Picos live on an :class:`~controller.nodes.emulated_bus.EmulatedBus`, whose clock is their cores'.
:class:`PicoBus` joins them: every frame the master writes goes to both, and a read lets both run to the same
moment, so a Pico answers in its own emulated time, as on the line.

Emulating a Pico costs about three seconds of the host's time per emulated second, and a game with the table's
timings compressed is still a hundred seconds long, most of it a quiet table waiting for the next press, which
the simulated bus skips (:meth:`~controller.bus.sim.SimBus.skip_to`) instead of polling. The Picos do not live
through those stretches: their clocks stop while the table's runs on, as if the master had not been talking and
nobody had touched anything, which is what a quiet stretch is (the firmware keeps no timer that would fire in
one: a node's state changes only with a frame or an input). A Pico that was just touched keeps the table awake
for a while (its debounce, its card read), so its press is polled as at a real table.

One line: a Pico's byte on the wire while a ``micropython`` node's frame is (both in one slot, a slot answered
late, noise) garbles both, as on an RS-485 pair: the master's decoder sees garbage, never a good frame from the
wrong node (each half already garbles its own overlaps: sim.py between ``micropython`` nodes, picobus.js between
Picos). Faults next to the Picos (:class:`~controller.nodes.line_faults.LineFaults`: flipped bits, frames cut
short, noise in the slots) and their power cuts (:meth:`PicoBus.power_cut`) are the Picos' side of what
``Faults`` does to the ``micropython`` nodes.

Simplifications: the Picos do not hear the ``micropython`` nodes' answers (only the master's frames, each
other's and noise), and a collision is found by byte times: a Pico byte that begins in the last byte of a
``micropython`` frame already handed to the master garbles only itself (the Picos are run two byte times ahead
of such a read to make it rare).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from controller.bus import seatbus as sb
from controller.bus.sim import SimBus, SimNode, SimTable, start_sim_table

from .check import BOOT_S
from .emulated_bus import NS, EmulatedBus, EmulatedPico
from .images import FIRMWARE_DIR
from .line_faults import LineFaults
from .node_image import node_uf2

#: How long a Pico keeps the table from skipping after a finger or a card: its debounce (20 ms) and press
#: echo (200 ms), or a few of its card reads (every 100 ms), and the poll that takes the event.
AWAKE_AFTER_BUTTON_S = 0.15
AWAKE_AFTER_CARD_S = 0.4
#: After a frame for a Pico: time to act on it (a whole screen is 1 KiB over 400 kHz I2C, about 25 ms, drawn
#: after the ACK), before the table may call itself quiet and stop the Pico's clock.
AWAKE_AFTER_FRAME_S = 0.03
#: The reply timeout of firmware/PROTOCOL.md (the simulated nodes answer at once; a Pico takes its time).
REPLY_TIMEOUT_S = 0.01
#: Two transmissions whose times overlap by less than this are not a collision (float rounding between the
#: halves' clocks: nanoseconds on one side, seconds on the other).
OVERLAP_EPS_S = 1e-7


def overlap(start_a: float, end_a: float, start_b: float, end_b: float) -> bool:
    """Are two transmissions on the wire at the same time (by more than float rounding)?"""
    return start_a < end_b - OVERLAP_EPS_S and start_b < end_a - OVERLAP_EPS_S


def seat_config(address: int) -> dict[str, Any]:
    """What a club flashes on seat ``address``: firmware/config.example.json with its address."""
    config = json.loads((FIRMWARE_DIR / "config.example.json").read_text(encoding="utf-8"))
    config["address"] = address
    return dict(config)


class PicoBus(SimBus):
    """The simulated bus with emulated Picos on the same line (see the module's docstring)."""

    def __init__(self, nodes: dict[int, SimNode], *, emulated: EmulatedBus, picos: dict[int, EmulatedPico],
                 **kwargs: Any) -> None:
        super().__init__(nodes, **kwargs)
        self.emulated = emulated
        self.picos = picos
        self.pico_seconds_skipped = 0.0  # table time the Picos' clocks stood still (quiet stretches)
        self._heard = bytearray()  # what the Picos said while catching up with the table, for the next read
        self._touched_until: dict[int, float] = {}
        self._to_pico = False
        #: Faults on the Picos' side of the line (None: a clean line).
        self.line_faults: LineFaults | None = None
        #: Collisions between the halves: a Pico byte (or noise) on the wire with a ``micropython`` node's frame.
        self.cross_collisions = 0
        self._pico_air: list[tuple[float, float]] = []  # recent bytes from the Picos' side (start, end), table time
        self._hit: set[int] = set()  # the starts (in 0.1 us) of the ``micropython`` frames the Picos' side hit
        self._delivered: list[tuple[float, float, int, bool]] = []  # frames one read got: start, end, size, garbled

    # --- the two clocks -------------------------------------------------------------------------------------
    def _pico_now(self) -> float:
        """The table's time the Picos have run up to."""
        return self.emulated.now() + self.pico_seconds_skipped

    def _catch_up(self, when: float) -> None:
        """Let the Picos run up to the table's ``when``, keeping what they say for the master's next read."""
        if when > self._pico_now():
            mark = len(self.emulated.heard)
            self.emulated.run(when - self._pico_now())
            self._note_pico_air(mark)
            self._heard += self._from_picos(mark)

    def _pico_read(self, until: float) -> int:
        """Run the Picos until they say something or the table's ``until``; whole frames only (a frame cut at
        ``until`` runs on until the line is quiet). What they said is ``emulated.heard`` from the index returned
        (:meth:`_from_picos` hands it over once the other half has run as far)."""
        mark = len(self.emulated.heard)
        if until <= self._pico_now():
            return mark
        got = self.emulated.read(until - self._pico_now())
        quiet_ns = 2 * self.emulated.byte_ns
        while got and self.emulated.heard[-1][0] > self.emulated.now() * NS - quiet_ns:
            got += self.emulated.read(3 * self.emulated.byte_ns / NS)
        self._note_pico_air(mark)
        return mark

    # --- one line: the halves' collisions ---------------------------------------------------------------------
    def _note_pico_air(self, mark: int) -> None:
        """Note when the bytes since ``emulated.heard[mark]`` were on the wire (table time): a ``micropython``
        frame delivered from now on is garbled where they overlap it."""
        skipped = self.pico_seconds_skipped
        byte_s = self.emulated.byte_ns / NS
        horizon = self._now - 0.05
        self._pico_air = [(s, e) for s, e in self._pico_air if e > horizon]
        self._hit = {key for key in self._hit if key / 1e7 > horizon - 0.05}
        for t_ns, _byte in self.emulated.heard[mark:]:
            end = t_ns / NS + skipped
            self._pico_air.append((end - byte_s, end))

    def _from_picos(self, mark: int) -> bytes:
        """What the Picos' side put on the line since ``emulated.heard[mark]``, as the master receives it: each
        byte that overlapped a ``micropython`` node's frame garbled, then the line's faults. (Call it once the
        ``micropython`` half has run as far as the Picos, so its frames are on the air.)"""
        out = bytearray()
        skipped = self.pico_seconds_skipped
        byte_s = self.emulated.byte_ns / NS
        nodes_air = self._nodes_air()
        for t_ns, byte in self.emulated.heard[mark:]:
            end = t_ns / NS + skipped
            hit = [s for s, e in nodes_air if overlap(s, e, end - byte_s, end)]
            if hit:
                byte ^= 0x5A  # as sim.py garbles a collision
                self._count_hits(hit)
            out.append(byte)
        data = bytes(out)
        return self.line_faults.frame(data) if self.line_faults is not None else data

    def _count_hits(self, starts: list[float]) -> None:
        """Count each ``micropython`` frame (by its start) that met the Picos' side once."""
        keys = {round(start * 1e7) for start in starts}
        self.cross_collisions += len(keys - self._hit)
        self._hit |= keys

    def _nodes_air(self) -> list[tuple[float, float]]:
        """The recent and coming frames of the ``micropython`` nodes (what is on the air less the master's)."""
        master = set(self._master_air)
        return [one for one in self._air if one not in master]

    def _handle(self, kind: str, address: int, data: bytes, when: float) -> None:
        if kind == "host" and data:
            start = when - self.wire_time(len(data))
            garbled = self._garbled(data, start)
            self._delivered.append((start, when, len(data), garbled != data))
            data = garbled
        super()._handle(kind, address, data, when)

    def _garbled(self, frame: bytes, start: float) -> bytes:
        """A ``micropython`` node's ``frame`` (on the wire from ``start``) with each byte that a byte from the
        Picos' side overlapped garbled: the bytes before the overlap (its SYNC, most often) arrive whole."""
        byte_s = self.wire_time(1)
        ours = [(s, e) for s, e in self._pico_air if overlap(s, e, start, start + len(frame) * byte_s)]
        if not ours:
            return frame
        self._count_hits([start])
        out = bytearray(frame)
        for i in range(len(out)):
            at = start + i * byte_s
            if any(overlap(s, e, at, at + byte_s) for s, e in ours):
                out[i] ^= 0x5A  # as sim.py garbles a collision
        return bytes(out)

    def _regarbled(self, heard: bytes) -> bytes:
        """``heard`` (what one read of the ``micropython`` half got: its last frames are those noted in
        ``_delivered``) with each frame that a byte from the Picos' side, found since, overlapped garbled: the
        Picos ran a little further than the frame's end."""
        at = len(heard) - sum(size for _, _, size, _ in self._delivered)
        out = bytearray(heard[:max(at, 0)])
        for start, _end, size, garbled in self._delivered:
            frame = heard[at:at + size] if at >= 0 else b""
            at += size
            out += frame if garbled else self._garbled(frame, start)
        self._delivered.clear()
        return bytes(out)

    # --- Transport ------------------------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        self._catch_up(max(self._now, self._line_free))
        super().write(data)
        faults = self.line_faults
        self.emulated.write(faults.frame(data) if faults is not None else data)
        address = data[2] & 0x7F if len(data) > 2 else 0
        if faults is not None and address == sb.BROADCAST and len(data) > 4 and data[4] in (sb.POLL_ALL, sb.LISTEN):
            noise = faults.slot_noise()
            if noise is not None:
                after, junk = noise
                self.emulated.noise(junk, after=self.wire_time(len(data)) + after)
        self._to_pico = address in self.picos
        if self._to_pico:
            self._wake(address, AWAKE_AFTER_FRAME_S)

    def read(self, timeout: float) -> bytes:
        if self._heard:
            out = bytes(self._heard)
            self._heard.clear()
            return out
        if not self._to_pico:
            self._delivered.clear()
            heard = super().read(timeout)
            # (two byte times on: a Pico byte that began inside the frame just read garbles it before it goes)
            ahead = 2 * self.emulated.byte_ns / NS if heard else 0.0
            mark = self._pico_read(self._now + ahead)
            return self._regarbled(heard) + self._from_picos(mark)
        # A frame for a Pico: it speaks first; then the simulated half catches up with it (to the deadline if
        # the Pico said nothing), and then what the Picos said is handed over, garbled where the two met. A read
        # that returns nothing has run to its end, whatever the floats say.
        deadline = self._now + timeout
        mark = self._pico_read(deadline)
        said = len(self.emulated.heard) > mark
        simulated = self._simulated_until(self._pico_now() if said else deadline)
        return self._from_picos(mark) + simulated

    def _simulated_until(self, until: float) -> bytes:
        """Run the simulated half up to ``until``; what its nodes said meanwhile."""
        heard = b""
        while True:
            got = super().read(max(until - self._now, 0.0))
            heard += got
            if not got or self._now >= until:
                return heard

    def settle(self, seconds: float) -> None:
        """Let the line stay silent for ``seconds`` with every node running (a node draws a picture after it has
        ACKed it): a test looks at the Picos' screens after this. What is said meanwhile comes with the next read."""
        until = self._now + seconds
        self._catch_up(until)
        self._heard += self._simulated_until(until)

    # --- quiet stretches --------------------------------------------------------------------------------------
    def quiet(self) -> bool:
        if self._heard or any(self._now < until for until in self._touched_until.values()):
            return False
        return super().quiet()

    def skip_to(self, when: float) -> None:
        self._catch_up(self._now)
        before = self._now
        super().skip_to(when)
        self.pico_seconds_skipped += self._now - before

    # --- the players' hands ------------------------------------------------------------------------------------
    def lands_exactly(self, address: int) -> bool:
        # A Pico runs in its own steps beside the simulated half: its finger lands at the table's next turn.
        return address not in self.picos

    def button(self, address: int, name: str, pressed: bool, when: float | None = None) -> None:
        pico = self.picos.get(address)
        if pico is None:
            super().button(address, name, pressed, when)
            return
        self._catch_up(self._now)  # the finger lands now, in the Pico's time too
        pico.button(name, pressed)
        self._wake(address, AWAKE_AFTER_BUTTON_S)

    def card(self, address: int, uid: bytes | None) -> None:
        pico = self.picos.get(address)
        if pico is None:
            super().card(address, uid)
            return
        self._catch_up(self._now)
        pico.card(uid)
        self._wake(address, AWAKE_AFTER_CARD_S)

    def _wake(self, address: int, seconds: float) -> None:
        self._touched_until[address] = max(self._touched_until.get(address, 0.0), self._now + seconds)

    def unpowered(self, address: int) -> bool:
        pico = self.picos.get(address)
        return super().unpowered(address) if pico is None else not pico.powered

    # --- power -----------------------------------------------------------------------------------------------------
    def power_cut(self, address: int) -> None:
        """Cut the power of the Pico at ``address`` now (its RAM, its queue and its panel's picture are gone)."""
        self._catch_up(self._now)
        self.picos[address].power_off()

    def power_on(self, address: int) -> None:
        """Give the Pico at ``address`` its power back: it boots from its flash as after a power cut."""
        self._catch_up(self._now)
        self.picos[address].power_cycle()
        self._wake(address, BOOT_S)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.emulated.close()


def start_pico_table(seats: int, picos: Collection[int], firmware: bytes, **kwargs: Any) -> SimTable:
    """:func:`~controller.bus.sim.start_sim_table` with the seats in ``picos`` on emulated Picos booting
    ``firmware`` (the rp2 image, ``./dev firmware``) with the config a club would flash on them."""
    emulated = EmulatedBus(baud=kwargs.get("baud", 1_000_000))
    try:
        boards: dict[int, EmulatedPico] = {}
        with tempfile.TemporaryDirectory(prefix="tianhei-picos-") as tmp:
            for address in sorted(picos):
                if not 1 <= address <= seats:
                    raise ValueError(f"seat {address} cannot be a Pico: the table has seats 1 to {seats}")
                config = seat_config(address)
                path = Path(tmp) / f"seat-{address:02d}.uf2"
                path.write_bytes(node_uf2(firmware, config))
                boards[address] = emulated.add(path, config)

        def make_bus(nodes: dict[int, SimNode], **bus_args: Any) -> SimBus:
            return PicoBus(nodes, emulated=emulated, picos=boards, **bus_args)

        kwargs.setdefault("reply_timeout", REPLY_TIMEOUT_S)
        return start_sim_table(seats, elsewhere=boards.keys(), make_bus=make_bus, **kwargs)
    except BaseException:
        emulated.close()
        raise
