"""Faults on the stretch of RS-485 line next to the emulated Picos: what a loose connector, a long unshielded
cable beside the speaker's amplifier, or a node gone mad does to the bytes (controller/nodes/pico_table.py).

Three kinds, drawn from one seeded generator so a test is the same every run:

- **flipped**: one to three bits of a frame turned over (a frame to a Pico, or a Pico's answer), as noise on
  the pair does: the CRC-32 of firmware/PROTOCOL.md must throw it away, at either end;
- **cut**: a frame that stops short (the sender lost power or the connector its contact mid-frame): the rest
  never comes, and the receiver's decoder must not wait for it or glue it to the next frame;
- **noise**: a few random bytes on the line from nobody, inside a POLL_ALL's or a LISTEN's answer slots, where
  the Picos listen for their slot and the master for their answers: a collision for the master (it polls every
  seat by name, PROTOCOL.md "POLL_ALL").

The micropython half of the line has its own faults (controller/bus/sim.py's ``Faults``): these are only the
Picos' side, where the chips' own UART and decoder take them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

#: How far into a window of slots noise may fall (seconds after the frame that opened it): the first few
#: slots, where the answers are.
NOISE_WITHIN_S = 0.002


@dataclass
class LineFaults:
    """A share ``rate`` of the frames next to the Picos is flipped or cut, and of the slotted windows noisy."""

    rate: float
    seed: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"a fault rate is a share of frames from 0 to 1, not {self.rate}")
        self._rng = random.Random(f"pico-line:{self.seed}")

    def frame(self, data: bytes) -> bytes:
        """``data`` (a frame to a Pico, or what the Picos said in one read) as it arrives, maybe damaged."""
        rng = self._rng
        if not data or rng.random() >= self.rate:
            return data
        if rng.random() < 0.5 or len(data) < 2:
            bad = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
            self.counts["flipped"] += 1
            return bytes(bad)
        self.counts["cut"] += 1
        return data[: rng.randrange(1, len(data))]

    def slot_noise(self) -> tuple[float, bytes] | None:
        """Noise for the slots a broadcast just opened: (seconds after its end, the bytes), or None."""
        rng = self._rng
        if rng.random() >= self.rate:
            return None
        self.counts["noise"] += 1
        return rng.uniform(0.0, NOISE_WITHIN_S), rng.randbytes(rng.randint(2, 8))
