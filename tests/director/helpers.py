"""A scripted table, so that director tests read like the game:

    t = ScriptedTable("standard-2.0", "K K P P C C C C")   # seat 1 holds a killer card, seat 3 a police card, ...
    t.deal()                                                # every seat taps its card
    t.until_window("night", "kill")
    t.point(1, 5); t.point(2, 5)                            # both killers move the pointer to seat 5 and press OK
    t.until_window("night", "check")

Everything goes through the simulated table's buttons and card readers and the director, on a virtual clock:
no engine call, no sleep.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from controller.director.clock import VirtualScheduler
from controller.director.director import Director, Window
from controller.director.journal import SqliteJournal
from controller.director.judge_commands import BY_NAME
from controller.director.timing import Timings
from controller.ports import Button, RemoteKey
from controller.rules.setup import GameConfig, configure
from controller.rules.variant import load_variant
from controller.screens import views as v
from controller.sessions.session import Session
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack
from tests.rules.table import LETTERS

#: Virtual seconds a scripted wait may take before the test says it got stuck.
PATIENCE_S = 3600.0


def game_config(variant: str, players: int, options: Mapping[str, Any] | None = None,
                roles: Mapping[str, int] | None = None) -> GameConfig:
    return configure(load_variant(variant), players, dict(options or {}), roles)


def card_uid(seat: int) -> str:
    """The UID of the card dealt to ``seat`` in a scripted deck."""
    return f"04c0{seat:04x}"


class ScriptedTable:
    """A sim table with a director and no bots: the test is every player and the judge."""

    def __init__(self, variant: str, cards: str, options: Mapping[str, Any] | None = None, *,
                 timings: Timings | None = None, judge_entry: bool = False, seed: int = 1,
                 journal: SqliteJournal | None = None, lang: str = "en", judge: bool | None = None) -> None:
        roles = [LETTERS[c] for c in cards.split()]
        counts: dict[str, int] = {}
        for r in roles:
            if r != "civilian":
                counts[r] = counts.get(r, 0) + 1
        self.config = game_config(variant, len(roles), options, counts)
        self.roles = {seat: role for seat, role in enumerate(roles, start=1)}
        self.deck = {card_uid(seat): role for seat, role in self.roles.items()}
        self.clock = VirtualScheduler()
        self.table = SimTable(len(roles), self.clock.now)
        self.voice = NullVoice(self.clock.now, load_voice_pack("en"))
        self.director = Director(self.table, self.voice, self.clock, self.config, journal=journal,
                                 timings=timings or Timings(), lang=lang, seed=seed, deck=self.deck,
                                 judge_entry=judge_entry, judge=judge)
        self.director.start()

    # ---- what the players do ------------------------------------------------------------------------------
    def deal(self) -> None:
        """Every seat taps its own card, then the table waits for the first night."""
        for seat in sorted(self.roles):
            self.table.tap(seat, card_uid(seat))
        self.run_until(lambda: self.director.stage == "play")

    def seats_of(self, role: str) -> list[int]:
        return [s for s, r in sorted(self.roles.items()) if r == role]

    def point(self, seat: int, target: int | None, confirm: bool = True) -> int:
        """The seat moves its pointer with ▶ until it shows ``target``, then presses OK. Returns the presses."""
        presses = 0
        while self.director.ui[seat].cursor != target:
            self.table.click(seat, Button.NEXT)
            presses += 1
            assert presses <= 40, f"seat {seat}'s pointer never reached {target}"
        if confirm:
            self.table.click(seat, Button.OK)
        return presses

    def first_night(self, kill: int, check: int) -> None:
        """Night 1 of a killers-and-police table: every killer points at ``kill`` (C6: they agree), then every
        police officer at ``check`` (V2.2); returns once the check is in."""
        self.until_window("night", "kill")
        for seat in self.seats_of("killer"):
            self.point(seat, kill)
        self.until_window("night", "check")
        for seat in self.seats_of("police"):
            self.point(seat, check)

    def ok(self, *seats: int) -> None:
        for seat in seats:
            self.table.click(seat, Button.OK)

    def menu(self, command: str, value: Any = None, *, confirm: bool = True) -> None:
        """The judge opens the remote's menu, scrolls to ``command`` and presses the centre key; for a command
        that takes a seat (a target, a direction, seconds) presses ▶ until the remote shows ``value`` and the
        centre key; for one that asks again, presses the centre key once more (unless ``confirm`` is False)."""
        d = self.director
        self.table.remote_key(RemoteKey.MENU)
        assert command in d.menu_rows, f"{command} is not on the remote's menu now: {d.menu_rows}"
        while d.menu_rows[d.menu or 0] != command:
            self.table.remote_key(RemoteKey.DOWN)
        self.table.remote_key(RemoteKey.CENTER)
        spec = BY_NAME[command]
        if (spec.takes and value is not None) or command == "judge_pick":
            values = [c.value for c in d.judge_choices(command)]
            assert value in values, f"{value} is not among the remote's choices for {command}: {values}"
            for _ in range(len(values)):
                if d.asking is None or values[d.asking.choice] == value:
                    break
                self.table.remote_key(RemoteKey.RIGHT)
        if spec.takes:
            self.table.remote_key(RemoteKey.CENTER)
        if spec.confirm and confirm:
            self.table.remote_key(RemoteKey.CENTER)

    def remote(self) -> v.View | None:
        """The view last drawn on the judge's remote."""
        return self.director.remote_drawn

    def remote_told(self) -> list[str]:
        """What the remote was told (card problems, a seat gone quiet, the judge's outcomes), in the table's
        language."""
        return [line if isinstance(line, str) else line.zh if self.director.lang == "zh" else line.en
                for line in self.director.remote_lines]

    # ---- time -----------------------------------------------------------------------------------------------
    def run_until(self, done: Callable[[], bool], patience: float = PATIENCE_S) -> None:
        limit = self.clock.now() + patience
        self.clock.run(until=done, max_time=limit)
        assert done(), f"the table never got there (stopped at {self.clock.now():.1f}s, {self.where()})"

    def run_for(self, seconds: float) -> None:
        self.clock.run(max_time=self.clock.now() + seconds)

    def until_window(self, kind: str, step: str | None = None, *, call: int | None = None,
                     open_: bool | None = None) -> Window:
        def there() -> bool:
            w = self.director.window
            return (w is not None and w.kind == kind and (step is None or w.step == step)
                    and (call is None or (w.call is not None and w.call[0] == call))
                    and (open_ is None or w.window_open == open_) and self.director.beat_handle is None
                    and not self.director.beats)
        self.run_until(there)
        w = self.director.window
        assert w is not None
        return w

    def until_wait(self) -> Window:
        """Until the table waits for someone (a window is open and nothing is being said)."""
        d = self.director
        self.run_until(lambda: d.window is not None and d.beat_handle is None and not d.beats)
        assert d.window is not None
        return d.window

    def talk(self) -> None:
        """Every speaker in turn (last words included) presses OK to pass, up to the next other wait."""
        while self.until_wait().kind in ("speeches", "last_words"):
            self.ok(self.director.state.queue[0])  # type: ignore[union-attr]

    def until_over(self) -> None:
        self.run_until(lambda: self.director.stage == "over", patience=100_000)

    # ---- what the table shows ------------------------------------------------------------------------------
    def screen(self, seat: int) -> v.View | None:
        """The view last sent to the seat's screen."""
        return self.director.ui[seat].drawn

    def led(self, seat: int) -> tuple[int, int, int]:
        return self.table.seats[seat].led

    def said(self) -> list[str]:
        return self.voice.prompts_said()

    def where(self) -> str:
        d = self.director
        s = d.state
        w = d.window
        return (f"stage {d.stage}, phase {s.phase if s else '-'}, window {w.kind + ':' + w.step if w else None}, "
                f"waiting {s.waiting.kind + ':' + s.waiting.step if s and s.waiting else None}")


def session(variant: str = "standard-2.0", players: int = 12, seed: int = 1, policy: str | None = "heuristic",
            options: Mapping[str, Any] | None = None, **kw: Any) -> Session:
    return Session(game_config(variant, players, options), seed, policy, **kw)


def play(s: Session, max_time: float = 100_000.0) -> dict[str, Any]:
    """Start and run a whole game; return its result."""
    s.start()
    s.run(max_time=max_time)
    assert s.director.stage == "over", f"the game did not end by {max_time}s"
    return s.result()
