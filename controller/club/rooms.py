"""Room kinds (V2.13, seed 000 「遊戲方式」 and 「積分」) and who a room admits at check-in.

- ``standard``: the standard game, open to every member and guest;
- ``entry``: the entry game (1.0, blind push), scored on its own table (scoring.py);
- ``training``: newcomers and players new to the club train first; games earn time points only;
- ``recruit``: the recruit camp, 「新兵營（僅限2級以下會員進入）」 (seed 000).

The seed's 「2級以下」 is read as Chinese rules read 以下, the number included: members of level 2 and below;
RULES.md V2.13 says "below level 2". Where they differ the seed wins, and a club that reads it the other way sets
``[club] recruit_max_level = 1``.
"""

from __future__ import annotations

ROOM_KINDS = ("standard", "entry", "training", "recruit")
#: The highest level the recruit camp admits (seed 000: 2級以下, level 2 included).
RECRUIT_MAX_LEVEL = 2


def refusal(room: str, name: str, level: int, max_level: int = RECRUIT_MAX_LEVEL) -> str | None:
    """Why ``name`` (at ``level``) may not check in to a ``room``; None if they may."""
    if room == "recruit" and level > max_level:
        return f"{name} is level {level}: the recruit camp is for members of level {max_level} and below (V2.13)"
    return None


def refusal_words(room: str, level: int, max_level: int = RECRUIT_MAX_LEVEL) -> tuple[str, str] | None:
    """The same refusal as a seat screen says it (Chinese, English), short enough for 128x64."""
    if room == "recruit" and level > max_level:
        return (f"新兵营限{max_level}级以下", f"Level {level}: recruits up to level {max_level}")
    return None
