"""The hall's spoken announcement (004 §5.13): 「3号包房游戏结束，请等候的玩家回到包房」, through the same voice
packs and :class:`~controller.ports.Voice` adapter as the tables, in each of the hall's languages in turn; and the
same words for the screen."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from controller.ports import Voice
from controller.voice.prompts import phrase, prompt

#: Rooms the packs can name ("3号包房" / "Room 3"). Written out so the pack check sees every ID.
ROOM_PROMPTS: dict[str, str] = {
    "1": prompt("room.1"), "2": prompt("room.2"), "3": prompt("room.3"), "4": prompt("room.4"),
    "5": prompt("room.5"), "6": prompt("room.6"), "7": prompt("room.7"), "8": prompt("room.8"),
    "9": prompt("room.9"), "10": prompt("room.10"), "11": prompt("room.11"), "12": prompt("room.12"),
}


def game_over(room: str) -> list[str]:
    """「N号包房游戏结束，请等候的玩家回到包房」; a room the packs cannot name is "a room" (「有包房…」)."""
    named = ROOM_PROMPTS.get(room)
    if named is None:
        return [prompt("hall.a_room_game_over")]
    return phrase(named, prompt("hall.game_over"))


def game_over_text(room: str, lang: str) -> str:
    """The same words for the screen."""
    if lang == "en":
        return f"Room {room}: the game is over. Players waiting, please go back to the room."
    return f"{room}号包房游戏结束，请等候的玩家回到包房"


class Announcer:
    """Says an announcement in each language, one after the other (zh-CN first, then en, as configured)."""

    def __init__(self, voices: Sequence[Voice]) -> None:
        self.voices = list(voices)
        #: Rooms announced, in order (the demo and the tests count them).
        self.said: list[str] = []

    def game_over(self, room: str) -> None:
        self.said.append(room)
        parts = game_over(room)
        delay = 0.0
        for voice in self.voices:
            if delay <= 0:
                delay = voice.say(parts)
            else:
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:  # no loop (a test): say it now, the voice queues it
                    delay += voice.say(parts)
                    continue
                loop.call_later(delay, voice.say, parts)
                delay += voice.duration(parts)
