"""The waiting list and the rooms the hall proposes: pure rules of seed 000 「遊戲方式」.

* "在等候的會員人數滿6人時俱樂部即可以為會員提供一個遊戲包房先進行入門遊戲": six members waiting open a free
  room for the entry game (``ENTRY_VARIANT``, the blind-push game);
* "包房內的玩家數少於可容納的最多人數時由俱樂部統一安排加入": a room with fewer players than seats is filled from the
  waiting list (they join its next game);
* "當包房內玩家滿11人時遊戲將自動升級為標準遊戲": an entry room that reaches 11 players plays the standard game next.

Rooms of the kinds ``training`` and ``recruit`` (the training room and the recruit camp, members below level 2
only) are left to the organiser: the waiting list knows no levels. Proposals are only proposals: the organiser sends
them from the hall page (or the hall sends them itself with ``[hall] auto_send``). The list is first come, first
served.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Seed 000: six waiting members are enough for an entry game.
ENTRY_MIN = 6
#: Seed 000: a room of 11 or more plays the standard game.
STANDARD_MIN = 11
ENTRY_VARIANT = "classic-1.0"
STANDARD_VARIANT = "standard-2.0"
PLAYING_KINDS = ("standard", "entry")


@dataclass(frozen=True, slots=True)
class Room:
    """What the rules need of a room: its seats, its kind, whether a game runs, who is in it, who was sent."""

    id: str
    seats: int
    kind: str = "standard"  # standard | entry | training | recruit
    state: str = "idle"  # idle | checkin | playing | ended
    players: tuple[str, ...] = ()
    sent: tuple[str, ...] = ()
    variant: str = ""
    next_variant: str = ""

    @property
    def people(self) -> int:
        """Players of its next game: those in it now and those sent to it."""
        return len(set(self.players) | set(self.sent))

    @property
    def playing_entry(self) -> bool:
        """The room's next game is the entry game, as things stand."""
        if self.next_variant:
            return self.next_variant == ENTRY_VARIANT
        return self.variant == ENTRY_VARIANT or (not self.variant and self.kind == "entry")


@dataclass(frozen=True, slots=True)
class Proposal:
    """``fill`` (free seats), ``open_entry`` (six waiting, an empty room) or ``upgrade`` (11 players: standard)."""

    kind: str
    room: str
    members: tuple[str, ...] = ()
    variant: str = ""

    def key(self) -> str:
        return f"{self.kind}:{self.room}:{','.join(self.members)}:{self.variant}"


def propose(waiting: Sequence[str], rooms: Sequence[Room]) -> list[Proposal]:
    """What the hall proposes now. Each waiting member is in at most one proposal."""
    left = [m for m in dict.fromkeys(waiting) if not any(m in r.players or m in r.sent for r in rooms)]
    out: list[Proposal] = []
    playable = [r for r in rooms if r.kind in PLAYING_KINDS]
    # Free seats first, in rooms that have a game going (or just ended): their players are already there.
    # Between games first, then rooms still playing (those sent wait for the next game there).
    occupied = sorted((r for r in playable if r.people > 0), key=lambda r: (r.state == "playing", r.id))
    sizes = {r.id: r.people for r in rooms}
    for room in occupied:
        free = room.seats - room.people
        if free > 0 and left:
            take, left = left[:free], left[free:]
            out.append(Proposal("fill", room.id, tuple(take)))
            sizes[room.id] += len(take)
    # Six or more still waiting and an empty room: the entry game.
    for room in sorted((r for r in playable if r.people == 0 and r.state != "playing"), key=lambda r: r.id):
        if len(left) < ENTRY_MIN:
            break
        take, left = left[:room.seats], left[room.seats:]
        variant = ENTRY_VARIANT if len(take) < STANDARD_MIN else STANDARD_VARIANT
        out.append(Proposal("open_entry", room.id, tuple(take), variant))
        sizes[room.id] = len(take)
    # An entry room with 11 or more for its next game moves up to the standard game.
    for room in playable:
        if room.playing_entry and room.people >= STANDARD_MIN:
            out.append(Proposal("upgrade", room.id, (), STANDARD_VARIANT))
    return out


def next_variant(room: Room, fallback: str) -> str:
    """The variant a room's next game should play: what was decided for it, else its kind's game."""
    if room.next_variant:
        return room.next_variant
    if room.kind == "entry":
        return STANDARD_VARIANT if room.people >= STANDARD_MIN else ENTRY_VARIANT
    return fallback
