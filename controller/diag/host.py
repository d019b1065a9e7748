"""Running a table script from the command line: choose the table, the voice and the clock, run to the end.

``sim`` runs on the virtual clock (a walk-through takes milliseconds), with simulated people answering when
``auto`` is set; a ``gpio`` or ``bus`` profile runs on the asyncio loop with the real table, and the adapter's
threads (gpiozero's, the bus master's poll thread) hand every input to the loop (``call_soon_threadsafe``) before
the script sees it, and so do answers to a script's requests (reading a card's text on the I/O thread).
:func:`bus_sim_host` is the seat bus with real firmware under ``micropython`` on a simulated
bus, on the bus's own clock: what the tests use to run the tools over the bus adapter end to end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from controller.config.profile import Profile
from controller.diag.people import SimPeople
from controller.diag.script import Script, ScriptRunner
from controller.director.clock import AsyncioScheduler, Scheduler, VirtualScheduler
from controller.ports import InputEvent, Table, Voice
from controller.sessions.bus_session import BusScheduler
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
        scheduler = self.scheduler
        if isinstance(scheduler, (VirtualScheduler, BusScheduler)):
            runner = ScriptRunner(scheduler, make_script(scheduler))
            if self.people is not None:
                runner.listeners.append(self.people.on_wait)
            # Inputs wait for the scheduler's next turn (on the bus: never inside the master's poll cycle).
            def sink(event: InputEvent) -> None:
                scheduler.call_soon(lambda: runner.handle(event))

            self.table.start(sink)
            try:
                runner.start()
                scheduler.run(until=lambda: runner.done)
            finally:
                self.table.stop()
            return runner.result
        return asyncio.run(self._run_real(make_script))

    async def _run_real(self, make_script: Callable[[Scheduler], Script]) -> Any:
        loop = asyncio.get_running_loop()
        self.scheduler = AsyncioScheduler(loop)
        runner = ScriptRunner(self.scheduler, make_script(self.scheduler), post=loop.call_soon_threadsafe)

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
    if profile.adapter == "bus":
        from controller.bus.table import open_bus_table

        try:
            real = open_bus_table(profile)
        except (ImportError, OSError, ValueError) as exc:
            port = profile.bus.port if profile.bus is not None else "?"
            raise HardwareError(f"hardware {profile.name!r} ({profile.source}): cannot open the seat bus on "
                                f"{port}: {exc}; plug in the RS-485 adapter, set [bus] port in the profile, "
                                f"or use --hardware sim") from exc
        yield Host(real, _NotYet())
        return
    raise HardwareError(f"hardware {profile.name!r} uses the {profile.adapter!r} adapter, which the table tools "
                        f"do not know; use --hardware sim, a gpio or a bus profile")


@contextmanager
def bus_sim_host(seats: int, *, auto: bool = True, absent: Collection[int] = (),
                 pile: list[tuple[str, str]] | None = None, fault_rate: float = 0.0, seed: int = 0) -> Iterator[Host]:
    """``seats`` firmware nodes under ``micropython`` on a simulated seat bus, found and up, with simulated people
    pressing their fake buttons and laying cards on their fake readers when ``auto``."""
    from controller.bus.sim import start_sim_table
    from controller.sessions.bus_session import BusHands

    sim = start_sim_table(seats, fault_rate=fault_rate, seed=seed)
    try:
        clock = BusScheduler(sim)
        sim.table.start(lambda event: None)
        clock.run(until=lambda: all(n.status == "up" for n in sim.master.nodes.values()), max_time=2.0)
        down = [n.spec.name for n in sim.master.nodes.values() if n.status != "up"]
        if down:
            raise HardwareError(f"simulated bus: {', '.join(down)} did not answer ({sim.master.alerts})")
        people = SimPeople(BusHands(sim, clock), clock, absent=absent, pile=list(pile or [])) if auto else None
        yield Host(sim.table, clock, people, simulated=True)
    finally:
        sim.close()


def voice_for(host: Host, pack: str, volume: float = 1.0) -> Voice:
    """The speaker: a silent recorder on the simulated table, the pack through pygame on a real one."""
    from controller.voice.factory import open_voice

    if host.simulated:
        return open_voice("null", pack, clock=host.scheduler.now)
    voice = open_voice("pygame", pack, volume=volume)
    host.pump = getattr(voice, "pump", None)
    return voice
