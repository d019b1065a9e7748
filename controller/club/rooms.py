"""Room kinds (V2.13, seed 000 「遊戲方式」) and who a room admits at check-in.

- ``standard``: the standard game, open to every member and guest;
- ``entry``: the entry game (1.0, blind push), scored on its own table (scoring.py);
- ``training``: newcomers and players new to the club train first; games earn time points only;
- ``recruit``: the recruit camp (新兵營), only for members below level 2.
"""

from __future__ import annotations

ROOM_KINDS = ("standard", "entry", "training", "recruit")
#: The recruit camp takes members below this level.
RECRUIT_BELOW = 2


def refusal(room: str, name: str, level: int) -> str | None:
    """Why ``name`` (at ``level``) may not check in to a ``room``; None if they may."""
    if room == "recruit" and level >= RECRUIT_BELOW:
        return f"{name} is level {level}: the recruit camp is for members below level {RECRUIT_BELOW} (V2.13)"
    return None


def refusal_words(room: str, level: int) -> tuple[str, str] | None:
    """The same refusal as a seat screen says it (Chinese, English), short enough for 128x64."""
    if room == "recruit" and level >= RECRUIT_BELOW:
        return (f"新兵营只收{RECRUIT_BELOW - 1}级", f"Level {level}: recruits below {RECRUIT_BELOW} only")
    return None
