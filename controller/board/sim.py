"""The ``sim`` board: keeps the last public state and every state shown (tests read them)."""

from __future__ import annotations

from collections.abc import Mapping


class SimBoard:
    def __init__(self) -> None:
        self.last: dict[str, object] = {}
        self.history: list[dict[str, object]] = []

    def show(self, public: Mapping[str, object]) -> None:
        self.last = dict(public)
        self.history.append(self.last)
