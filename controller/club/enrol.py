"""Enrolling a member card: the member taps it on any seat (or the enrolment reader, a seat of its own).

A script for the table tools' host (controller/diag/host.py), the same way ``tianhei deck enroll`` reads role
cards: every seat asks for the card, the first card tapped is the member's, and the seat that read it shows the
name. Every wait has a deadline (C5): nobody tapping leaves the member without a card, said plainly.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from controller.diag.script import Wait
from controller.ports import CardEvent, InputEvent, Table
from controller.screens import views as v
from controller.screens.render import render

TAP_S = 120.0


def tap_member_card(table: Table, name: str, lang: str = "zh", *, seconds: float = TAP_S,
                    taken: Callable[[str], str | None] = lambda uid: None) -> Generator[Any, Any, str | None]:
    """Wait for a card on any seat; its UID, or None when nobody tapped one in time. ``taken(uid)`` names the
    member who already holds that card (the seat says so and waits for another)."""
    seats = sorted(table.seats)

    def ask() -> None:
        for n in seats:
            table.seats[n].display(render(v.Message(v.L10n(f"会员 {name}", f"Member {name}"),
                                                    v.L10n("请刷会员卡", "Tap the member card")), lang))

    def card(e: InputEvent) -> bool:
        return isinstance(e, CardEvent) and e.present and e.seat in table.seats

    ask()
    while True:
        event = yield Wait(seconds, card, ("card", None))
        if not isinstance(event, CardEvent):
            return None
        holder = taken(event.uid)
        seat = table.seats[event.seat]
        if holder is not None and holder != name:
            seat.display(render(v.Message(v.L10n("这张卡已登记", "Card already used"),
                                          v.L10n(f"属于 {holder}", f"it is {holder}'s")), lang))
            continue
        seat.display(render(v.Message(name, v.L10n("会员卡已登记", "Member card enrolled")), lang))
        return event.uid
