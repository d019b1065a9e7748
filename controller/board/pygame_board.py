"""The big screen through pygame: a window on a desktop, fullscreen on the Pi's HDMI output.

It draws only the mapping it is given (controller/board/public.py decides what the room may see): the day, the
dead seats, whose speech with its seconds, the candidate being called, the last tally, the judge's gesture.
"""

from __future__ import annotations

from collections.abc import Mapping

import pygame

BACKGROUND = (12, 12, 16)
TEXT = (235, 235, 225)
DIM = (140, 140, 150)
ACCENT = (230, 190, 60)

#: Words for the gestures (004 §3.10, §3.13), Chinese first.
GESTURES = {
    "deal": ("发牌", "Deal"), "eyes_closed": ("天黑请闭眼", "Night: eyes closed"), "day": ("天亮了", "Day"),
    "speech": ("发言", "Speech"), "last_words": ("遗言", "Last words"), "vote": ("投票", "Vote"),
    "paused": ("暂停", "Paused"), "over": ("游戏结束", "Game over"),
}


class PygameBoard:
    def __init__(self, size: tuple[int, int] = (1280, 720), *, fullscreen: bool = False, lang: str = "zh") -> None:
        pygame.display.init()
        pygame.font.init()
        flags = pygame.FULLSCREEN if fullscreen else 0
        self.screen = pygame.display.set_mode((0, 0) if fullscreen else size, flags)
        pygame.display.set_caption("Tianhei")
        h = self.screen.get_height()
        self.big = pygame.font.Font(None, h // 6)
        self.small = pygame.font.Font(None, h // 14)
        self.zh = lang.startswith("zh")
        self.frames = 0

    def show(self, public: Mapping[str, object]) -> None:
        pygame.event.pump()  # keep the window responsive; the board takes no input
        s = self.screen
        s.fill(BACKGROUND)
        w = s.get_width()
        gesture = GESTURES.get(str(public.get("gesture", "")), ("", str(public.get("gesture", ""))))
        head = gesture[1]  # pygame's default font has no hanzi; a club font can be added later
        if "day" in public and public.get("gesture") not in ("deal",):
            head = f"Day {public['day']} · {head}" if public.get("gesture") != "eyes_closed" else \
                f"Night {public.get('night')} · {head}"
        lines: list[tuple[str, pygame.font.Font, tuple[int, int, int]]] = [(head, self.big, ACCENT)]
        if "speaker" in public:
            lines.append((f"Seat {public['speaker']}  {public.get('seconds', '')}s", self.big, TEXT))
        if "candidate" in public:
            lines.append((f"Vote for seat {public['candidate']}?", self.big, TEXT))
        dead = public.get("dead")
        if isinstance(dead, list) and dead:
            lines.append(("Out: " + " ".join(map(str, dead)), self.small, DIM))
        tally = public.get("tally")
        if isinstance(tally, list) and tally:
            lines.append(("Votes: " + "  ".join(f"{s}:{n}" for s, n in tally), self.small, DIM))
        if "winner" in public:
            lines.append((f"Winner: {public['winner']}", self.big, ACCENT))
            roles = public.get("roles")
            if isinstance(roles, dict):
                lines.append(("  ".join(f"{k}:{r}" for k, r in roles.items()), self.small, TEXT))
        y = s.get_height() // 12
        for text, font, colour in lines:
            surface = font.render(text, True, colour)
            s.blit(surface, ((w - surface.get_width()) // 2, y))
            y += surface.get_height() + font.get_height() // 3
        pygame.display.flip()
        self.frames += 1

    def close(self) -> None:
        pygame.display.quit()
