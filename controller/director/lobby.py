"""Before a game: seats check in with OK, the judge sees which cards to put in the deck, and the game starts.

Seats check in by pressing OK (again to leave). The remote shows who joined and, for that many players, the
deck to lay out ("3 killer, 3 police, 6 civilian", V2.1). The judge starts the game with the centre key, or
sets the count with ◀/▶ first (then seats 1..N play). A table without a judge starts by itself once the seats
that joined are 1..N, N is a count the variant plays, and nobody has joined or left for ``settle_s`` (every
wait has a deadline, C5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from controller.director.clock import Handle, Scheduler
from controller.ports import Button, ButtonEvent, InputEvent, RemoteKey, RemoteKeyEvent, Table
from controller.rules.setup import configure
from controller.rules.variant import Variant, VariantError
from controller.screens import views as v
from controller.screens.render import render


class Lobby:
    def __init__(self, table: Table, scheduler: Scheduler, variant: Variant, options: Mapping[str, object],
                 on_start: Callable[[int], None], *, judge: bool = True, lang: str = "zh",
                 settle_s: float = 20.0) -> None:
        self.table = table
        self.clock = scheduler
        self.variant = variant
        self.options = dict(options)
        self.on_start = on_start
        self.judge = judge
        self.lang = lang
        self.settle_s = settle_s
        self.joined: set[int] = set()
        self.count: int | None = None  # the judge's count, when set
        self.started = False
        self._settle: Handle | None = None

    def start(self) -> None:
        self.table.start(self.handle)
        self._draw()

    # ---- what the table would play ----------------------------------------------------------------------
    def players(self) -> int:
        return self.count if self.count is not None else len(self.joined)

    def deck(self) -> str:
        """The cards to lay out for the current count, or why that count cannot be played."""
        n = self.players()
        try:
            config = configure(self.variant, n, self.options)
        except VariantError as exc:
            return exc.problem
        return ", ".join(f"{count} {role}" for role, count in config.composition)

    def ready(self) -> str | None:
        """None if the game can start now, else what is missing."""
        n = self.players()
        if n == 0:
            return "nobody has checked in"
        if self.count is None and self.joined != set(range(1, n + 1)):
            return f"players sit in seats 1..{n}"
        try:
            configure(self.variant, n, self.options)
        except VariantError as exc:
            return exc.problem
        return None

    # ---- inputs -----------------------------------------------------------------------------------------------
    def handle(self, event: InputEvent) -> None:
        if self.started:
            return
        if isinstance(event, ButtonEvent) and event.pressed and event.button is Button.OK:
            self.joined ^= {event.seat}
            self._changed()
        elif isinstance(event, RemoteKeyEvent) and event.pressed:
            if event.key in (RemoteKey.LEFT, RemoteKey.RIGHT):
                n = self.players() + (1 if event.key is RemoteKey.RIGHT else -1)
                self.count = max(1, min(len(self.table.seats), n))
                self._changed()
            elif event.key is RemoteKey.CENTER:
                self._try_start()

    def _changed(self) -> None:
        if self._settle is not None:
            self._settle.cancel()
            self._settle = None
        if not self.judge and self.ready() is None:
            self._settle = self.clock.call_at(self.clock.now() + self.settle_s, self._try_start)
        self._draw()

    def _try_start(self) -> None:
        problem = self.ready()
        if problem is not None:
            self._draw(problem)
            return
        self.started = True
        self.on_start(self.players())

    # ---- output -----------------------------------------------------------------------------------------------
    def _draw(self, problem: str | None = None) -> None:
        for seat, port in self.table.seats.items():
            port.display(render(v.CheckIn(seat, seat in self.joined), self.lang))
        remote = self.table.remote
        if remote is not None:
            n = self.players()
            joined = ",".join(map(str, sorted(self.joined))) or "-"
            items: tuple[str, ...] = (f"{n} players: {joined}", f"deck: {self.deck()}",
                                      problem or "centre = start, ◀▶ = count")
            remote.display(render(v.JudgeList(v.L10n("签到", "Check-in"), items, None), self.lang))
