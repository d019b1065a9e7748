"""Reading a seat's screen as a player does: what the panel shows, recognised by drawing what it could show.

The bots of ``tianhei seat-nodes`` play on the far side of a real serial line: the director runs in another
process (or another machine), so they cannot ask it what a seat is being asked. They look at the node's panel
(the fake SSD1306's RAM, exactly the bytes the table sent) and compare it with the table's own renderer
(``controller/screens``) drawing each view the seat could be shown, in the language of the table, the parts
that change by themselves (a countdown's seconds and bar) left out of the comparison. A screen that matches
nothing is ``Seen("other")``: the bots do nothing on it.

Only the screens a player answers (check-in, tap your card, a night choice, your speech, a vote call) and the
few that end or reset a decision (dark, dead, game over) are known; everything is drawn once, at start.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from controller.rules.setup import GameConfig
from controller.rules.variant import SIDES
from controller.screens import views as v
from controller.screens.canvas import H, W
from controller.screens.fonts import SMALL
from controller.screens.numbering import label_for
from controller.screens.own_views import game_over
from controller.screens.render import TOP, render, seconds
from controller.screens.strings import Lang, night_action, own_words

from .display import ssd1306_bytes

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Seen:
    """What a screen was recognised as. ``kind``: checkin, tap, night, speech, vote, over, dead, dark, other."""

    kind: str
    done: bool = False  # checked in / choice confirmed / vote counted
    action: str = ""
    target: int | None = None
    candidate: int = 0
    digital: bool = False
    winner: str = ""


def _bits(image: Image.Image) -> int:
    return int.from_bytes(ssd1306_bytes(image.convert("1")), "big")


def _mask(*boxes: Box) -> int:
    img = Image.new("1", (W, H), 0)
    draw = ImageDraw.Draw(img)
    for x0, y0, x1, y1 in boxes:
        if x1 > x0 and y1 > y0:
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=1)
    return _bits(img)


FULL = _mask((0, 0, W, H))


class ScreenBook:
    """Every known screen of a game of ``config`` at ``seats`` seats, drawn in ``lang``, as (mask, bits, seen)."""

    def __init__(self, config: GameConfig, seats: int, lang: str = "zh") -> None:
        self.lang = Lang.parse(lang)
        self.label = label_for(config.variant)
        self.seats = seats
        self.config = config
        self._per_seat: dict[int, list[tuple[int, int, Seen]]] = {s: self._seat_screens(s) for s in range(1, seats + 1)}
        self._shared = self._shared_screens()
        right = max(SMALL.width(seconds(v.Countdown(n, n), self.lang)) for n in (9, 99, 999)) + 4
        self._title_mask = _mask((0, 0, W - right, TOP))
        self._titles = self._night_titles()
        self._targets = self._night_targets()

    def _draw(self, view: v.View) -> int:
        return _bits(render(view, self.lang, label=self.label))

    def _seat_screens(self, seat: int) -> list[tuple[int, int, Seen]]:
        out = [
            (FULL, self._draw(v.CheckIn(seat, False)), Seen("checkin")),
            (FULL, self._draw(v.CheckIn(seat, True)), Seen("checkin", done=True)),
            (FULL, self._draw(v.TapCard(seat, digital=False)), Seen("tap")),
            (FULL, self._draw(v.TapCard(seat, digital=True)), Seen("tap", digital=True)),
            (FULL, self._draw(v.Dead(seat)), Seen("dead")),
            (FULL, self._draw(v.Dead(seat, "ejected")), Seen("dead")),
        ]
        return out

    def _shared_screens(self) -> list[tuple[int, int, Seen]]:
        out: list[tuple[int, int, Seen]] = [(FULL, 0, Seen("dark"))]
        top = _mask((0, 0, W, TOP))
        for last_words in (False, True):
            for warning in (False, True):
                bits = self._draw(v.YourSpeech(v.Countdown(50, 120), warning, last_words))
                out.append((top, bits & top, Seen("speech")))
        # a vote call: the seconds at the top right and the bar change by themselves
        right = max(SMALL.width(seconds(v.Countdown(n, n), self.lang)) for n in (9, 99)) + 4
        call = _mask((0, 0, W - right, TOP), (0, TOP, W, H - 3))
        for c in range(1, self.seats + 1):
            for secs in (5, 30):
                cd = v.Countdown(secs, secs)
                out.append((call, self._draw(v.VoteCall(c, cd)) & call, Seen("vote", candidate=c)))
                for mine in [c, None, *range(1, self.seats + 1)]:
                    bits = self._draw(v.VoteCall(c, cd, True, mine)) & call
                    out.append((call, bits, Seen("vote", done=True, candidate=c)))
        roles = sorted({role for role, _ in self.config.composition})
        for winner in (*SIDES, "draw"):
            for role in roles:
                for won in (True, False, None):
                    bits = self._draw(game_over(winner, role, won, self.config.variant))
                    out.append((FULL, bits, Seen("over", winner=winner)))
        return out

    def _actions(self) -> list[str]:
        steps = self.config.variant.night_steps
        return sorted({night_action(self.config.variant, step) for step in steps} | {"vote"})  # and V4.8's vote

    def _night_titles(self) -> list[tuple[int, str, bool]]:
        """The NightChoice top line (the seconds left out) of every action, confirmed or not."""
        out = []
        for action in self._actions():
            said = own_words(self.config.variant, "actions", action)  # as the director draws it (windows.py)
            for confirmed in (False, True):
                for secs in (5, 30, 120):
                    bits = self._draw(v.NightChoice(action, None, v.Countdown(secs, secs), (), confirmed, said))
                    out.append((bits & self._title_mask, action, confirmed))
        return out

    def _night_targets(self) -> list[tuple[int, int, int | None, bool]]:
        """The NightChoice middle (the seat pointed at, its partners' badge, the confirmed box), as (mask, bits,
        target, confirmed); the arrows and the partners' line below are left out."""
        out = []
        cd = v.Countdown(30, 30)
        for mates in (False, True):
            box = (14, TOP + 1, W - 14, H - 3 - (TOP if mates else 1))
            mask = _mask(box)
            for target in [None, *range(1, self.seats + 1)]:
                for picked_by in range(0, 4 if mates else 1):
                    if target is None and picked_by:
                        continue
                    partners = tuple((90 + i, target) for i in range(picked_by)) or ((90, None),)
                    for confirmed in (False, True):
                        view = v.NightChoice("kill", target, cd, partners if mates else (), confirmed)
                        out.append((mask, self._draw(view) & mask, target, confirmed))
        return out

    def read(self, seat: int, ram: bytes) -> Seen:
        """What ``ram`` (the panel's 1,024 bytes) shows to the player at ``seat``."""
        if len(ram) != W * H // 8:
            return Seen("other")
        bits = int.from_bytes(ram, "big")
        for mask, want, seen in self._per_seat.get(seat, []):
            if bits & mask == want:
                return seen
        for mask, want, seen in self._shared:
            if bits & mask == want:
                return seen
        title = bits & self._title_mask
        # (a confirmed choice's title says so only where it fits beside the seconds: both may match)
        titles = [(action, confirmed) for want, action, confirmed in self._titles if title == want]
        for action in dict.fromkeys(a for a, _ in titles):
            states = {c for a, c in titles if a == action}
            for mask, tbits, target, done in self._targets:
                if done in states and bits & mask == tbits:
                    return Seen("night", done=done, action=action, target=target)
        return Seen("other")
