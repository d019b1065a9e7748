"""Running a table script from the command line: choose the table, the voice and the clock, run to the end.

``sim`` runs on the virtual clock (a walk-through takes milliseconds), with simulated people answering when
``auto`` is set; a ``gpio`` profile runs on the asyncio loop with the real table, and the adapter's threads hand
every input to the loop (``call_soon_threadsafe``) before the script sees it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from controller.config.profile import Profile
from controller.diag.people import SimPeople
from controller.diag.script import Script, ScriptRunner
from controller.director.clock import AsyncioScheduler, Scheduler, VirtualScheduler
from controller.ports import InputEvent, Table, Voice
from controller.sim.table import SimTable


class _NotYet:
    """Stands for the asyncio scheduler until :meth:`Host.run` starts the loop."""

    def now(self) -> float:
        raise RuntimeError("the loop has not started")

    def call_at(self, when: float, callback: Callable[[], Any]) -> Any:
        raise RuntimeError("the loop has not started")

    def call_soon(self, callback: Callable[[], Any]) -> Any:
        raise RuntimeError("the loop has not started")


class HardwareError(Exception):
    """The chosen hardware cannot run a table tool (the message says why and what to do)."""


@dataclass
class Host:
    """A table, its scheduler and how to run a script on them."""

    table: Table
    scheduler: Scheduler
    people: SimPeople | None = None
    simulated: bool = False
    #: Called every loop turn on a real table (pygame's mixer needs its queue fed: ``PygameVoice.pump``).
    pump: Callable[[], object] | None = None

    def run(self, make_script: Callable[[Scheduler], Script]) -> Any:
        """Run the script ``make_script(scheduler)`` to its end and return its result."""
        if isinstance(self.scheduler, VirtualScheduler):
            runner = ScriptRunner(self.scheduler, make_script(self.scheduler))
            if self.people is not None:
                runner.listeners.append(self.people.on_wait)
            self.table.start(runner.handle)
            try:
                runner.start()
                self.scheduler.run(until=lambda: runner.done)
            finally:
                self.table.stop()
            return runner.result
        return asyncio.run(self._run_real(make_script))

    async def _run_real(self, make_script: Callable[[Scheduler], Script]) -> Any:
        loop = asyncio.get_running_loop()
        self.scheduler = AsyncioScheduler(loop)
        runner = ScriptRunner(self.scheduler, make_script(self.scheduler))

        def sink(event: InputEvent) -> None:
            loop.call_soon_threadsafe(runner.handle, event)

        self.table.start(sink)
        try:
            runner.start()
            while not runner.done:
                if self.pump is not None:
                    self.pump()
                await asyncio.sleep(0.05)
        finally:
            self.table.stop()
        return runner.result


def sim_seats(profile: Profile | None, default: int = 8) -> int:
    if profile is not None and profile.seats:
        return len(profile.seats)
    return default


@contextmanager
def open_host(profile: Profile, *, auto: bool = False, players: int = 8,
              pile: list[tuple[str, str]] | None = None) -> Iterator[Host]:
    """The table the profile describes. ``players`` sizes the ``sim`` table."""
    if profile.adapter == "sim":
        clock = VirtualScheduler()
        table = SimTable(players, clock.now, remote=False)
        people = SimPeople(table, clock, pile=list(pile or [])) if auto else None
        yield Host(table, clock, people, simulated=True)
        return
    if auto:
        raise HardwareError("--auto is only for --hardware sim: on a real table, people answer")
    if profile.adapter == "gpio":
        from controller.gpio.table import open_table

        try:
            real: Table = open_table(profile)
        except (ImportError, OSError, RuntimeError) as exc:
            raise HardwareError(f"hardware {profile.name!r} ({profile.source}): cannot open the Pi's pins or "
                                f"I2C bus: {exc}; run it on the table's Raspberry Pi, or use --hardware sim") from exc
        # The asyncio scheduler replaces this placeholder once the loop runs (Host._run_real).
        yield Host(real, _NotYet())
        return
    raise HardwareError(f"hardware {profile.name!r} uses the {profile.adapter!r} adapter, which the table tools "
                        f"do not open yet; use --hardware sim or a gpio profile")


def voice_for(host: Host, pack: str, volume: float = 1.0) -> Voice:
    """The speaker: a silent recorder on the simulated table, the pack through pygame on a real one."""
    from controller.voice.factory import open_voice

    if host.simulated:
        return open_voice("null", pack, clock=host.scheduler.now)
    voice = open_voice("pygame", pack, volume=volume)
    host.pump = getattr(voice, "pump", None)
    return voice
