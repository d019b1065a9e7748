"""``tianhei diag``: walk a person round the table, seat by seat, and say what works.

For each seat in turn: the screen shows the test pattern and the seat number (any button but ◀ confirms it, ◀
says it is wrong); the LED cycles red, green, blue (OK confirms, ◀ says no); the seat asks for ◀, ▶ and OK one at
a time (another button on that seat is named on the screen, and the wait goes on); then for a card tap. Last,
the speaker says ``test.sound`` and any seat confirms it was heard. Every wait has a deadline; a part that gets
no answer in time fails as "no answer", so a dead seat costs a few deadlines, never a hang. The result is a
pass/fail table per seat and part (:class:`DiagReport`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from PIL import Image

from controller.diag.pattern import pattern_for
from controller.diag.screen import BUTTON_MARK, seconds, show
from controller.diag.script import Resumed, Script, Sleep, Wait
from controller.director.clock import Handle, Scheduler
from controller.ports import (
    LED_OFF,
    RGB,
    SCREEN_SIZE,
    Button,
    ButtonEvent,
    CardEvent,
    InputEvent,
    Table,
    Voice,
)
from controller.screens.strings import Lang
from controller.screens.views import L10n
from controller.voice.prompts import prompt

PARTS = ("screen", "led", "prev", "next", "ok", "reader")
PART_TITLES = {"screen": "screen", "led": "LED", "prev": "◀", "next": "▶", "ok": "OK", "reader": "reader"}
BUTTON_PART = {Button.PREV: "prev", Button.NEXT: "next", Button.OK: "ok"}
LED_CYCLE: tuple[RGB, ...] = ((255, 0, 0), (0, 255, 0), (0, 0, 255))
LED_STEP_S = 0.5
TEST_PROMPT = prompt("test.sound")


class Verdict(enum.Enum):
    PASS = "pass"
    FAIL = "FAIL"  # the person said it does not work
    NO_ANSWER = "no answer"  # the deadline passed

    @property
    def ok(self) -> bool:
        return self is Verdict.PASS


@dataclass
class DiagReport:
    seats: dict[int, dict[str, Verdict]] = field(default_factory=dict)
    voice: Verdict = Verdict.NO_ANSWER
    cards: dict[int, str] = field(default_factory=dict)  # seat -> UID of the card tapped

    @property
    def ok(self) -> bool:
        return self.voice.ok and all(v.ok for parts in self.seats.values() for v in parts.values())

    def failed(self, seat: int) -> list[str]:
        return [part for part, verdict in self.seats[seat].items() if not verdict.ok]

    def table(self) -> str:
        """The pass/fail table, one row per seat, then the voice."""
        width = max(len(v.value) for v in Verdict) + 2
        head = "seat  " + "".join(f"{PART_TITLES[p]:<{width}}" for p in PARTS) + "card"
        rows = [head]
        for seat, parts in sorted(self.seats.items()):
            cells = "".join(f"{parts[p].value if p in parts else '-':<{width}}" for p in PARTS)
            rows.append(f"{seat:<6}{cells}{self.cards.get(seat, '')}".rstrip())
        rows.append(f"voice ({TEST_PROMPT}): {self.voice.value}")
        bad = sum(1 for parts in self.seats.values() for v in parts.values() if not v.ok) + (not self.voice.ok)
        rows.append("all parts pass" if bad == 0 else f"{bad} part{'s' if bad != 1 else ''} failed")
        return "\n".join(rows)


@dataclass
class Diagnostic:
    """The walk-through as a script for :class:`~controller.diag.script.ScriptRunner`.

    ``note`` receives each instruction as a line of text (the CLI prints it, so the person with the terminal
    knows what the table asks for even when a screen is dead)."""

    table: Table
    voice: Voice
    scheduler: Scheduler
    lang: Lang = Lang.ZH
    deadline_s: float = 20.0
    seats: Sequence[int] | None = None
    note: Callable[[str], None] = lambda line: None
    report: DiagReport = field(default_factory=DiagReport)
    _wait_started: float = field(default=0.0, init=False)

    def _t(self, zh: str, en: str) -> L10n:
        return L10n(zh, en)

    def script(self) -> Script:
        numbers = sorted(self.seats) if self.seats is not None else sorted(self.table.seats)
        for number in numbers:
            if number not in self.table.seats:
                raise ValueError(f"diag: there is no seat {number} on this table "
                                 f"(seats: {', '.join(map(str, sorted(self.table.seats)))})")
        for n in numbers:
            self.table.seats[n].display(render_blank())
        for n in numbers:
            self.report.seats[n] = {}
            yield from self._seat(n)
        yield from self._voice(numbers)
        for n in numbers:
            failed = self.report.failed(n)
            if failed:
                names = ", ".join(PART_TITLES[p] for p in failed)
                show(self.table.seats[n], self.lang, self._t(f"{n}号：有故障", f"Seat {n}: faults"), names)
            else:
                show(self.table.seats[n], self.lang, self._t(f"{n}号：全部正常", f"Seat {n}: all OK"))
        return self.report

    # --- one seat ---------------------------------------------------------------------------------------------
    def _seat(self, n: int) -> Script:
        seat = self.table.seats[n]
        verdicts = self.report.seats[n]

        self.note(f"seat {n}: does the screen show the test pattern and the number {n}? "
                  f"press OK or ▶ on seat {n} for yes, ◀ for no")
        seat.display(pattern_for(n))
        answer = yield self._confirm(n, lambda left: None)
        verdicts["screen"] = _yes_no(answer)

        self.note(f"seat {n}: does the LED cycle red, green, blue? OK for yes, ◀ for no")
        cycle = _LedCycle(self.scheduler, seat.set_led)
        cycle.start()
        try:
            answer = yield self._confirm(n, watch=LED_STEP_S * len(LED_CYCLE), tick=lambda left: show(
                seat, self.lang, self._t("灯：红、绿、蓝？", "LED: red, green, blue?"),
                self._t(f"OK 是 · ◀ 否  {seconds(left)}", f"OK yes · ◀ no  {seconds(left)}")))
        finally:
            cycle.stop()
        verdicts["led"] = _yes_no(answer)

        for button in (Button.PREV, Button.NEXT, Button.OK):
            mark = BUTTON_MARK[button]
            self.note(f"seat {n}: press {mark}")
            wrong: list[Button] = []

            def ask(left: float, mark: str = mark, wrong: list[Button] = wrong) -> None:
                title = self._t(f"请按 {mark}", f"Press {mark}")
                if wrong:
                    got = BUTTON_MARK[wrong[-1]]
                    title = self._t(f"那是 {got}，请按 {mark}", f"That was {got}; press {mark}")
                show(seat, self.lang, title, self._t(f"{n}号 · {seconds(left)}秒", f"seat {n} · {seconds(left)} s"))

            def accept(e: InputEvent, button: Button = button, wrong: list[Button] = wrong,
                       ask: Callable[[float], None] = ask) -> bool:
                if not (isinstance(e, ButtonEvent) and e.seat == n and e.pressed):
                    return False
                if e.button is button:
                    return True
                wrong.append(e.button)
                ask(self._left())
                return False

            self._wait_started = self.scheduler.now()
            answer = yield Wait(self.deadline_s, accept, ("button", n, button), ask)
            verdicts[BUTTON_PART[button]] = Verdict.PASS if answer is not None else Verdict.NO_ANSWER

        self.note(f"seat {n}: tap a card on the reader")
        self._wait_started = self.scheduler.now()
        answer = yield Wait(
            self.deadline_s, lambda e: isinstance(e, CardEvent) and e.seat == n and e.present, ("card", n),
            lambda left: show(seat, self.lang, self._t("请刷一张牌", "Tap a card"),
                              self._t(f"{n}号 · {seconds(left)}秒", f"seat {n} · {seconds(left)} s")))
        if isinstance(answer, CardEvent):
            verdicts["reader"] = Verdict.PASS
            self.report.cards[n] = answer.uid
        else:
            verdicts["reader"] = Verdict.NO_ANSWER
        show(seat, self.lang, self._t(f"{n}号测试完毕", f"Seat {n} done"))

    def _confirm(self, n: int, tick: Callable[[float], None], watch: float = 0.0) -> Wait:
        """Yes (OK or ▶) or no (◀) on seat ``n``; ``watch`` is how long a person looks before answering."""
        self._wait_started = self.scheduler.now()
        return Wait(self.deadline_s,
                    lambda e: isinstance(e, ButtonEvent) and e.seat == n and e.pressed, ("confirm", n, watch), tick)

    def _left(self) -> float:
        return self._wait_started + self.deadline_s - self.scheduler.now()

    # --- the speaker -------------------------------------------------------------------------------------------
    def _voice(self, numbers: Iterable[int]) -> Script:
        seats = [self.table.seats[n] for n in numbers]
        if not seats:
            return
        self.note(f"voice: did you hear the test sound ({TEST_PROMPT})? OK on any seat for yes, ◀ for no")
        length = self.voice.say([TEST_PROMPT])
        yield Sleep(max(0.0, length))
        asking = {seat.number for seat in seats}

        def ask(left: float) -> None:
            for seat in seats:
                show(seat, self.lang, self._t("听到测试音了吗？", "Heard the test sound?"),
                     self._t(f"OK 是 · ◀ 否  {seconds(left)}", f"OK yes · ◀ no  {seconds(left)}"))

        answer = yield Wait(self.deadline_s,
                            lambda e: isinstance(e, ButtonEvent) and e.pressed and e.seat in asking,
                            ("confirm", None, 0.0), ask)
        self.report.voice = _yes_no(answer)


def _yes_no(answer: Resumed) -> Verdict:
    """A confirm Wait's outcome: OK is yes, ◀ is no, the deadline is no answer."""
    if answer is None:
        return Verdict.NO_ANSWER
    if isinstance(answer, ButtonEvent) and answer.button is Button.PREV:
        return Verdict.FAIL
    return Verdict.PASS


def render_blank() -> Image.Image:
    return Image.new("1", SCREEN_SIZE, 0)


class _LedCycle:
    """Red, green, blue, red, ... every ``LED_STEP_S`` until stopped; the LED is off afterwards."""

    def __init__(self, scheduler: Scheduler, set_led: Callable[[RGB], None]) -> None:
        self.scheduler = scheduler
        self.set_led = set_led
        self.index = 0
        self.handle: Handle | None = None

    def start(self) -> None:
        self.set_led(LED_CYCLE[self.index % len(LED_CYCLE)])
        self.index += 1
        self.handle = self.scheduler.call_at(self.scheduler.now() + LED_STEP_S, self.start)

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.set_led(LED_OFF)
