"""Before a game: the judge chooses the variant and its options, seats check in with OK, the judge sees which
cards to put in the deck, and the game starts.

The remote has two pages; MENU switches between them. The setup page lists the variant and each option it
offers (RULES IDs in controller/rules/options.py): UP/DOWN move, LEFT/RIGHT change the value (choosing another
variant resets the options to that variant's defaults). The check-in page is described below. CENTER starts the
game from either page.

Seats check in by pressing OK (again to leave), as guests; with a club (controller/club), a member taps their
member card on the seat instead and the seat shows their name, or why this room refuses them (V2.13: the recruit
camp takes members of level 2 and below). The lobby knows nothing of the club: it is given a ``member_card`` lookup,
the lines the remote shows of the last game's points, and what the public board shows between games. The remote shows who joined and, for that many players, the
deck to lay out ("3 killer, 3 police, 6 civilian", V2.1). The judge starts the game with the centre key, or
sets the count with ◀/▶ first (then seats 1..N play). A table without a judge starts by itself once the seats
that joined are 1..N, N is a count the variant plays, and nobody has joined or left for ``settle_s`` (every
wait has a deadline, C5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from controller.director.clock import Handle, Scheduler
from controller.ports import (
    Board,
    Button,
    ButtonEvent,
    CardEvent,
    InputEvent,
    RemoteKey,
    RemoteKeyEvent,
    Table,
)
from controller.rules.options import OPTIONS, OptionValue
from controller.rules.setup import configure
from controller.rules.variant import Variant, VariantError
from controller.screens import views as v
from controller.screens.canvas import W
from controller.screens.fonts import SMALL
from controller.screens.render import render
from controller.screens.strings import UI, Lang, option_name, option_value, role_name


@dataclass(frozen=True)
class MemberCard:
    """A member card read at check-in: the member's name and, if this room refuses them, why (zh, en)."""

    name: str
    refused: tuple[str, str] | None = None


class Lobby:
    def __init__(self, table: Table, scheduler: Scheduler, variant: Variant, options: Mapping[str, object],
                 on_start: Callable[[int], None], *, judge: bool = True, lang: str = "zh",
                 settle_s: float = 20.0, variants: Sequence[Variant] = (),
                 member_card: Callable[[str], MemberCard | None] | None = None,
                 remote_lines: Sequence[v.Text] = (), board: Board | None = None,
                 board_facts: Mapping[str, object] | None = None) -> None:
        self.table = table
        self.clock = scheduler
        self.variant = variant
        self.options = dict(options)
        #: The variants the judge may choose from on the setup page (the configured one is among them).
        self.variants: list[Variant] = list(variants) or [variant]
        if all(x.id != variant.id for x in self.variants):
            self.variants.insert(0, variant)
        self.page = "checkin"  # checkin | setup
        self.row = 0  # the setup page's cursor: 0 = the variant, then one row per option
        self.on_start = on_start
        self.judge = judge
        self.lang = lang
        self.settle_s = settle_s
        self.joined: set[int] = set()
        self.count: int | None = None  # the judge's count, when set
        self.started = False
        self._settle: Handle | None = None
        self.member_card = member_card
        #: Seat -> the member who checked in there with their card (other joined seats are guests).
        self.members: dict[int, str] = {}
        #: A seat's refusal or card notice, shown until that seat does something else.
        self.notices: dict[int, v.View] = {}
        self.remote_lines = tuple(remote_lines)
        self.board = board
        self.board_facts = board_facts

    def start(self) -> None:
        self.table.start(self.handle)
        if self.board is not None and self.board_facts is not None:
            self.board.show(self.board_facts)  # between games: the evening's standings
        self._draw()

    # ---- what the table would play ----------------------------------------------------------------------
    def players(self) -> int:
        return self.count if self.count is not None else len(self.joined)

    def deck(self, lang: Lang | None = None) -> str:
        """The cards to lay out for the current count (in ``lang``: "杀手3、警察3、平民6"), or why that count
        cannot be played."""
        n = self.players()
        try:
            config = configure(self.variant, n, self.options)
        except VariantError as exc:
            return UI["lobby_cannot"][0].format(n=n) if lang is Lang.ZH else exc.problem
        if lang is Lang.ZH:
            return "、".join(f"{role_name(role, lang)}{count}" for role, count in config.composition)
        return ", ".join(f"{count} {role}" for role, count in config.composition)

    def ready(self) -> str | None:
        """None if the game can start now, else what is missing."""
        problem = self._problem()
        return problem.en if isinstance(problem, v.L10n) else problem

    def problem(self, lang: Lang) -> str | None:
        """What keeps the game from starting, in ``lang`` (None: it can start); the lobby's own words in either
        language, a variant's reason in English only where the lobby has no words of its own."""
        problem = self._problem()
        if isinstance(problem, v.L10n):
            return problem.zh if lang is Lang.ZH else problem.en
        return problem

    def _problem(self) -> v.Text | None:
        """What keeps the game from starting, in both languages where it is the lobby's own words."""
        n = self.players()
        if n == 0:
            return v.L10n(*UI["lobby_nobody"])
        if self.count is None and self.joined != set(range(1, n + 1)):
            zh, en = UI["lobby_sit"]
            return v.L10n(zh.format(n=n), en.format(n=n))
        try:
            configure(self.variant, n, self.options)
        except VariantError as exc:
            return v.L10n(UI["lobby_cannot"][0].format(n=n), exc.problem)
        return None

    # ---- inputs -----------------------------------------------------------------------------------------------
    def handle(self, event: InputEvent) -> None:
        if self.started:
            return
        if isinstance(event, ButtonEvent) and event.pressed and event.button is Button.OK:
            self.joined ^= {event.seat}
            self.members.pop(event.seat, None)
            self.notices.pop(event.seat, None)
            self._changed()
        elif isinstance(event, CardEvent) and event.present and self.member_card is not None:
            self._member_card(event.seat, event.uid)
        elif isinstance(event, RemoteKeyEvent) and event.pressed:
            if event.key is RemoteKey.MENU:
                self.page = "setup" if self.page == "checkin" else "checkin"
                self._changed()
            elif self.page == "setup" and event.key is not RemoteKey.CENTER:
                self._setup_key(event.key)
            elif event.key in (RemoteKey.LEFT, RemoteKey.RIGHT):
                n = self.players() + (1 if event.key is RemoteKey.RIGHT else -1)
                self.count = max(1, min(len(self.table.seats), n))
                self._changed()
            elif event.key is RemoteKey.CENTER:
                self._try_start()

    def _member_card(self, seat: int, uid: str) -> None:
        """A member checks in with their card (on any seat: they sit where they tapped it)."""
        if seat not in self.table.seats:
            return
        assert self.member_card is not None
        card = self.member_card(uid)
        if card is None:
            self.notices[seat] = v.Message(v.L10n("不是会员卡", "Not a member card"),
                                           v.L10n("按OK作访客加入", "OK: join as a guest"))
        elif card.refused is not None:
            self.notices[seat] = v.Message(v.L10n("不能签到", "Not admitted"), v.L10n(*card.refused))
        else:
            for other, name in list(self.members.items()):  # the same member moved to another seat
                if name == card.name and other != seat:
                    del self.members[other]
                    self.joined.discard(other)
            self.members[seat] = card.name
            self.joined.add(seat)
            self.notices.pop(seat, None)
        self._changed()

    # ---- the setup page ---------------------------------------------------------------------------------------
    def setup_rows(self) -> list[tuple[str, OptionValue]]:
        """(name, value) per row of the setup page: the variant, then each option the variant offers."""
        rows: list[tuple[str, OptionValue]] = [("variant", self.variant.id)]
        for key, default in self.variant.options.items():
            value = self.options.get(key, default)
            rows.append((key, value if isinstance(value, bool | int | float | str) else str(value)))
        return rows

    def _setup_key(self, key: RemoteKey) -> None:
        rows = self.setup_rows()
        if key in (RemoteKey.UP, RemoteKey.DOWN):
            self.row = (self.row + (1 if key is RemoteKey.DOWN else -1)) % len(rows)
        elif key in (RemoteKey.LEFT, RemoteKey.RIGHT):
            step = 1 if key is RemoteKey.RIGHT else -1
            name, value = rows[self.row]
            if name == "variant":
                ids = [x.id for x in self.variants]
                self.variant = self.variants[(ids.index(self.variant.id) + step) % len(ids)]
                # the options go back to the new variant's defaults (another variant may not offer the same ones)
                self.options = {}
            else:
                self.options[name] = self._stepped(name, value, step)
        self._changed()

    def _stepped(self, key: str, value: OptionValue, step: int) -> OptionValue:
        """The next value of an option: a choice cycles, a switch flips, a number moves within its bounds."""
        spec = OPTIONS[key]
        value = spec.parse(value)  # a value from the config file may still be text
        if spec.kind is bool:
            return not value
        if spec.kind is str:
            tables = {"roles": self.variant.role_tables, "win": self.variant.win_tables}.get(key)
            choices = tuple(tables) if tables and value in tables else spec.choices
            if not choices:
                return value
            i = choices.index(str(value)) if value in choices else 0
            return choices[(i + step) % len(choices)]
        unit = 1.0 if spec.kind is int else 0.5
        low = spec.minimum if spec.minimum is not None else float("-inf")
        high = spec.maximum if spec.maximum is not None else float("inf")
        moved = max(low, min(high, float(value) + step * unit))
        return int(moved) if spec.kind is int else moved

    def _changed(self) -> None:
        if self._settle is not None:
            self._settle.cancel()
            self._settle = None
        if not self.judge and self.ready() is None:
            self._settle = self.clock.call_at(self.clock.now() + self.settle_s, self._try_start)
        self._draw()

    def _try_start(self) -> None:
        problem = self._problem()
        if problem is not None:
            self._draw(problem)
            return
        self.started = True
        self.on_start(self.players())

    # ---- output -----------------------------------------------------------------------------------------------
    def _draw(self, problem: v.Text | None = None) -> None:
        for seat, port in self.table.seats.items():
            view: v.View = v.CheckIn(seat, seat in self.joined)
            if seat in self.notices:
                view = self.notices[seat]
            elif seat in self.members:
                view = v.Message(self.members[seat], v.L10n(f"{seat}号 已签到", f"Seat {seat}: checked in"))
            port.display(render(view, self.lang))
        remote = self.table.remote
        if remote is not None and self.page == "setup":
            rows: tuple[v.Text, ...] = tuple(
                v.L10n(*(self._shown(name, value, lang) if name == "variant" and lang is Lang.ZH  # 标准版 2.0（警匪）
                         else _row(option_name(name, lang), self._shown(name, value, lang)) for lang in Lang))
                for name, value in self.setup_rows())
            if problem:
                rows += (problem,)
            remote.display(render(v.JudgeList(v.L10n(*UI["lobby_setup"]), rows, self.row), self.lang))
        elif remote is not None:
            n = self.players()
            joined = ",".join(map(str, sorted(self.joined))) or "-"
            items: tuple[v.Text, ...] = (
                v.L10n(*(UI["lobby_players"][i].format(n=n, joined=joined) for i in (0, 1))),
                v.L10n(*(UI["lobby_deck"][i].format(deck=self.deck(lang)) for i, lang in enumerate(Lang))),
                problem or v.L10n(*UI["lobby_hint"]), *self.remote_lines)
            remote.display(render(v.JudgeList(v.L10n(*UI["lobby_checkin"]), items, None), self.lang))

    def _shown(self, name: str, value: OptionValue, lang: Lang) -> str:
        """An option's value in words: on/off, a choice's name, a number; the variant by its name."""
        if name == "variant":
            return self.variant.name_zh if lang is Lang.ZH and self.variant.name_zh else str(value)
        if isinstance(value, bool):
            return option_value("on" if value else "off", lang)
        if isinstance(value, float):
            return f"{value:g}"
        return option_value(str(value), lang)


def _row(name: str, value: str) -> str:
    """"tie: revote"; a name too long for the remote's row loses its middle, never the value."""
    row = f"{name}: {value}"
    keep = len(name) - 1
    while SMALL.width(row) > W - 4 and keep > 2:
        head = (keep + 1) // 2
        row = f"{name[:head]}…{name[len(name) - (keep - head):]}: {value}"
        keep -= 1
    return row
