"""``tianhei deck enroll`` and ``tianhei deck check`` as scripts on the table (see :mod:`controller.diag.script`).

Enrollment: tap a card on any seat. If the card carries an NDEF text record naming a role (``killer``, ``杀手``,
``Killer``), that is its role; otherwise the seat where it was tapped offers the variant's roles (◀/▶ to move,
OK to save). A card tapped twice is named on its seat and not enrolled again. OK on any seat while no card is
being assigned ends the enrollment, as do ``count`` cards or a quiet deadline (every wait has one, C5).

Check: tap every card of a deck; each seat says what it saw (✓ and the role, "tapped twice", or "foreign card"),
and the end gives what is missing, duplicated or foreign (:func:`controller.config.decks.compare`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from controller.config.decks import Card, Deck, DeckCheck, compare, normalise_uid
from controller.diag.screen import seconds, show
from controller.diag.script import Answer, Ask, Script, Wait
from controller.ports import Button, ButtonEvent, CardEvent, InputEvent, Table
from controller.screens.strings import ROLE_ALIASES, ROLES, Lang, role_name
from controller.screens.views import L10n

#: Asks for the text records of the card now on a seat's reader: ``(seat, uid) -> future texts`` (empty if
#: none), completed by whichever thread reads the card (the gpio adapter's I/O thread).
CardTexts = Callable[[int, str], Future[tuple[str, ...]]]


def role_from_text(text: str, roles: Sequence[str]) -> str | None:
    """The role a card's printed text names: its ID, an alias, or its Chinese or English name (any case)."""
    norm = text.strip().lower().replace("-", "_").replace(" ", "_")
    norm = ROLE_ALIASES.get(norm, norm)
    for role in roles:
        names = {role.lower(), *(n.lower().replace(" ", "_") for n in ROLES.get(role, ()))}
        if norm in names:
            return role
    return None


def _role(role: str, before: str = "") -> L10n:
    """A role's name in both languages (the renderer picks the table's)."""
    return L10n(before + role_name(role, Lang.ZH), before + role_name(role, Lang.EN))


def _next_card(seats: Sequence[int]) -> Callable[[InputEvent], bool]:
    """A card arriving on any seat, or OK on any seat (finish)."""
    def accept(e: InputEvent) -> bool:
        if isinstance(e, CardEvent):
            return e.present and e.seat in seats
        return isinstance(e, ButtonEvent) and e.pressed and e.button is Button.OK and e.seat in seats
    return accept


@dataclass
class Enrollment:
    table: Table
    name: str
    roles: Sequence[str]
    lang: Lang = Lang.ZH
    variant: str | None = None
    card_texts: CardTexts | None = None
    count: int | None = None
    idle_s: float = 120.0
    choose_s: float = 60.0
    read_s: float = 2.0  # a text read is a few dozen chip exchanges; past this the seat asks for the role
    note: Callable[[str], None] = lambda line: None
    cards: list[Card] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # UIDs whose role was never chosen

    def script(self) -> Script:
        if not self.roles:
            raise ValueError("deck enroll: the variant has no roles to choose from")
        seats = sorted(self.table.seats)
        last: int | None = None  # the seat that tapped last keeps its answer on screen until the next tap
        while self.count is None or len(self.cards) < self.count:
            self._idle([n for n in seats if n != last])
            self.note(f"{len(self.cards)} cards enrolled: tap the next card on any seat, or OK to finish")
            event = yield Wait(self.idle_s, _next_card(seats), ("next card", None), lambda left: None)
            if not isinstance(event, CardEvent):
                break  # OK pressed, or nobody tapped a card before the deadline: the deck is what was tapped
            last = event.seat
            yield from self._card(event.seat, normalise_uid(event.uid))
        deck = Deck(self.name, tuple(self.cards), self.variant)
        for n in seats:
            show(self.table.seats[n], self.lang, L10n("登记完成", "Enrollment done"),
                 L10n(f"{len(self.cards)} 张牌", f"{len(self.cards)} cards"))
        return deck

    def _idle(self, seats: Sequence[int]) -> None:
        for n in seats:
            show(self.table.seats[n], self.lang, L10n(f"登记牌组 {self.name}", f"Enroll deck {self.name}"),
                 L10n(f"已登记 {len(self.cards)} 张 · 刷下一张牌 · OK 结束",
                      f"{len(self.cards)} cards · tap the next · OK ends"))

    def _card(self, seat_no: int, uid: str) -> Script:
        seat = self.table.seats[seat_no]
        known = next((c for c in self.cards if c.uid == uid), None)
        if known is not None:
            self.note(f"seat {seat_no}: card {uid} is already enrolled as {known.role}")
            show(seat, self.lang, L10n("这张牌已登记", "Already enrolled"), _role(known.role))
            return
        texts = yield from self._texts(seat_no, uid)
        for text in texts:
            role = role_from_text(text, self.roles)
            if role is not None:
                self._save(seat_no, uid, role, L10n("（牌上写的）", "(written on the card)"))
                return
        if texts:
            self.note(f"seat {seat_no}: card {uid} says {texts[0]!r}, which is no role of this variant; choose one")
        index = 0
        while True:
            role = self.roles[index]

            def ask(left: float, role: str = role) -> None:
                show(seat, self.lang, L10n(f"这张牌是：{role_name(role, Lang.ZH)}",
                                       f"This card: {role_name(role, Lang.EN)}"),
                     L10n(f"◀ ▶ 选择 · OK 保存 · {seconds(left)}秒", f"◀ ▶ choose · OK save · {seconds(left)} s"))

            self.note(f"seat {seat_no}: card {uid}: choose its role with ◀ ▶, OK saves (now: {role})")
            event = yield Wait(self.choose_s,
                               lambda e: isinstance(e, ButtonEvent) and e.seat == seat_no and e.pressed,
                               ("choose", seat_no, uid, role), ask)
            if not isinstance(event, ButtonEvent):
                self.skipped.append(uid)
                self.note(f"seat {seat_no}: card {uid} not enrolled (no role chosen in time); tap it again")
                show(seat, self.lang, L10n("未保存：超时", "Not saved: time out"), L10n("请重刷", "tap it again"))
                return
            if event.button is Button.OK:
                self._save(seat_no, uid, role)
                return
            step = 1 if event.button is Button.NEXT else -1
            index = (index + step) % len(self.roles)

    def _texts(self, seat_no: int, uid: str) -> Generator[Ask, object, Sequence[str]]:
        """The card's text records, read while the loop goes on; a failed read is said, then it is no text."""
        read = self.card_texts
        if read is None:
            return ()
        answer = yield Ask(self.read_s, lambda: read(seat_no, uid), f"seat {seat_no}: reading card {uid}")
        if isinstance(answer, Answer) and answer.error is None:
            return tuple(answer.value or ())
        why = answer.error if isinstance(answer, Answer) else "no answer"
        self.note(f"seat {seat_no}: card {uid}: no text read ({why}); choose its role")
        return ()

    def _save(self, seat_no: int, uid: str, role: str, how: L10n | str = "") -> None:
        self.cards.append(Card(uid, role))
        self.note(f"seat {seat_no}: card {uid} is {role}")
        show(self.table.seats[seat_no], self.lang, _role(role, "✓ "),
             how)


@dataclass
class DeckCheckRun:
    """Tap every card of ``deck``; the result is a :class:`~controller.config.decks.DeckCheck`."""

    table: Table
    deck: Deck
    lang: Lang = Lang.ZH
    idle_s: float = 120.0
    note: Callable[[str], None] = lambda line: None
    tapped: list[str] = field(default_factory=list)
    where: dict[str, int] = field(default_factory=dict)  # UID -> seat it was first tapped on

    def script(self) -> Script:
        seats = sorted(self.table.seats)
        known = {c.uid: c for c in self.deck.cards}
        last: int | None = None  # the seat that tapped last keeps its answer on screen until the next tap
        while len(set(self.tapped) & set(known)) < len(known):
            self._idle([n for n in seats if n != last], len(set(self.tapped) & set(known)), len(known))
            event = yield Wait(self.idle_s, _next_card(seats), ("next card", None), lambda left: None)
            if not isinstance(event, CardEvent):
                break
            uid = normalise_uid(event.uid)
            last = event.seat
            seat = self.table.seats[event.seat]
            card = known.get(uid)
            if card is None:
                self.note(f"seat {event.seat}: foreign card {uid}: not in deck {self.deck.name}")
                show(seat, self.lang, L10n("外来牌！", "Foreign card!"),
                     L10n(f"不在牌组 {self.deck.name} 里", f"not in deck {self.deck.name}"))
            elif uid in self.where:
                self.note(f"seat {event.seat}: card {uid} ({card.role}) was already tapped on seat {self.where[uid]}")
                show(seat, self.lang, L10n("这张牌刷过了", "Tapped twice"),
                     L10n(f"第一次在 {self.where[uid]} 号", f"first on seat {self.where[uid]}"))
            else:
                self.note(f"seat {event.seat}: card {uid} is {card.role}")
                show(seat, self.lang, _role(card.role, "✓ "),
                     card.face)
            self.where.setdefault(uid, event.seat)
            self.tapped.append(uid)
        result = compare(self.deck, self.tapped)
        for n in seats:
            title = L10n("牌组完整", "Deck complete") if result.ok else L10n("牌组有问题", "Deck has problems")
            show(self.table.seats[n], self.lang, title, summary(result, self.lang))
        return result

    def _idle(self, seats: Sequence[int], seen: int, total: int) -> None:
        for n in seats:
            show(self.table.seats[n], self.lang, L10n(f"核对牌组 {self.deck.name}", f"Check deck {self.deck.name}"),
                 L10n(f"{seen}/{total} · 刷下一张 · OK 结束", f"{seen}/{total} · tap the next · OK ends"))


def summary(check: DeckCheck, lang: Lang) -> str:
    if lang is Lang.ZH:
        return f"缺 {len(check.missing)} · 重复 {len(check.duplicated)} · 外来 {len(check.foreign)}"
    return f"missing {len(check.missing)} · twice {len(check.duplicated)} · foreign {len(check.foreign)}"


def describe(check: DeckCheck, deck: Deck) -> list[str]:
    """The check's findings as lines for the terminal (with each missing card's role and face to find it)."""
    lines = []
    for card in check.missing:
        face = f" (printed {card.face})" if card.face else ""
        lines.append(f"missing: {card.uid} {card.role}{face}")
    by_uid: Mapping[str, Card] = {c.uid: c for c in deck.cards}
    for uid in check.duplicated:
        lines.append(f"tapped twice: {uid} {by_uid[uid].role}")
    for uid in check.foreign:
        lines.append(f"foreign: {uid} is not in deck {deck.name}")
    lines.append(f"deck {deck.name}: " + ("all " + str(len(deck.cards)) + " cards present" if check.ok
                                          else summary(check, Lang.EN)))
    return lines
