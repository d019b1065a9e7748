"""``render(view, lang) -> Image``: one function per view, each laying out a 128x64 one-colour screen.

Layout conventions, so every screen reads the same from across the table:
- the top 13 px line says what is going on (small font), a countdown number at its right when there is one;
- the middle is the one thing to read from ~60 cm: a seat number, a role, a countdown (HUGE or BIG face);
- the bottom line is the hint or the detail; a 3 px countdown bar sits on the very last rows;
- problems are title-bar screens (inverted title), so an error never looks like a normal step.
The judge's remote uses the same 128x64 panel (the handheld carries the same SSD1306 as a seat), so one
renderer serves both; its lists scroll with a visible scrollbar instead of growing the screen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from PIL import Image, ImageChops

from controller.screens import views as v
from controller.screens.canvas import Canvas, H, ScreenOverflow, W, wrap
from controller.screens.fonts import BIG, HUGE, MEDIUM, SMALL
from controller.screens.numbering import Label, labels, plain
from controller.screens.strings import Lang, action_name, card_name, own_word, role_name, ui, winner_name

log = logging.getLogger(__name__)

V = TypeVar("V", bound=v.View)
Drawer = Callable[[Canvas, Any, Lang, Label], None]
_DRAWERS: dict[type, Drawer] = {}

TOP = 13  # height of the top line
BAR = (0, H - 3, W, H)  # the countdown bar


def draws(kind: type[V]) -> Callable[[Callable[[Canvas, V, Lang, Label], None]],
                                     Callable[[Canvas, V, Lang, Label], None]]:
    def register(fn: Callable[[Canvas, V, Lang, Label], None]) -> Callable[[Canvas, V, Lang, Label], None]:
        _DRAWERS[kind] = fn
        return fn
    return register


def render(view: v.View, lang: Lang | str = Lang.ZH, *, strict: bool = False,
           label: Label = plain) -> Image.Image:
    """Draw ``view`` in ``lang`` as a 128x64 mode "1" image, writing every seat number through ``label``
    (chosen once per game, :func:`controller.screens.numbering.label_for`: D2's card places as seat and card).

    Text that does not fit, or has no glyph, is a recorded problem: with ``strict`` it raises
    :class:`ScreenOverflow` naming the view and the text; otherwise it is logged and drawn truncated with "…".
    """
    lang = Lang.parse(lang)
    try:
        drawer = _DRAWERS[type(view)]
    except KeyError:
        raise TypeError(f"no screen layout for {type(view).__name__}; known: "
                        f"{', '.join(sorted(k.__name__ for k in _DRAWERS))}") from None
    canvas = Canvas.new(f"{type(view).__name__}[{lang.value}]")
    drawer(canvas, view, lang, label)
    if canvas.problems:
        if strict:
            raise ScreenOverflow("; ".join(canvas.problems))
        for p in canvas.problems:
            log.warning("screen: %s", p)
    return canvas.finished()


def views_known() -> tuple[type, ...]:
    """Every view class :func:`render` can draw (the golden tests check they are all covered)."""
    return tuple(_DRAWERS)


def text(t: v.Text, lang: Lang) -> str:
    if isinstance(t, v.L10n):
        return t.zh if lang is Lang.ZH else t.en
    return t


def seconds(cd: v.Countdown, lang: Lang) -> str:
    return f"{cd.seconds}秒" if lang is Lang.ZH else f"{cd.seconds}s"


def clock(cd: v.Countdown) -> str:
    s = cd.seconds
    return f"{s // 60}:{s % 60:02d}" if s >= 60 else str(s)


def seat_list(seats: tuple[int, ...] | list[int], label: Label = plain) -> str:
    return labels(seats, label)


def seat_word(n: int, lang: Lang, label: Label, key: str = "seat_short") -> str:
    """A seat as the middle of a screen shows it: "7号" in zh (also "7-1号"), the bare label in en."""
    return ui(key, lang, n=label(n)) if lang is Lang.ZH else label(n)


# --- setup and deal ------------------------------------------------------------------------------------------
def _seat_badge(c: Canvas, seat: int, lang: Lang, label: Label) -> None:
    """The seat number, huge, on the left; its label ("3号" / "Seat 3") above it."""
    c.centered(0, ui("seat", lang, n=label(seat)), SMALL, box=(0, 0, 56, H))
    c.ink(label(seat), (0, TOP + 2, 56, H - 2), (HUGE, BIG, MEDIUM))


@draws(v.CheckIn)
def _check_in(c: Canvas, view: v.CheckIn, lang: Lang, label: Label) -> None:
    _seat_badge(c, view.seat, lang, label)
    if view.joined:
        c.check((70, 4, 118, 40), width=6)
        c.fit(ui("joined", lang), (58, 42, W, H), (MEDIUM, SMALL))
    else:
        c.fit(ui("checkin", lang), (60, 0, W, H), (MEDIUM, SMALL))


@draws(v.TapCard)
def _tap_card(c: Canvas, view: v.TapCard, lang: Lang, label: Label) -> None:
    # The seat at the top right, where the role screen that follows the tap (and the dead screen) shows it: the
    # number does not jump when the card is read, and it keeps off the left edge, where "3号" drawn at x=0
    # looked cut off behind the panel's bezel.
    c.row(0, "", ui("seat", lang, n=label(view.seat)))
    if view.digital:
        c.fit(ui("peek", lang), (0, TOP, W, H), (MEDIUM, SMALL))
        return
    ask = ui("tap_card_n", lang, n=view.card) if view.card else ui("tap_card", lang)
    c.fit(ask, (0, TOP, W, H - 2 * SMALL.line), (MEDIUM, SMALL))
    c.fit(ui("tap_card_hint", lang), (0, H - 2 * SMALL.line, W, H), (SMALL,), valign="bottom")


@draws(v.RoleReveal)
def _role_reveal(c: Canvas, view: v.RoleReveal, lang: Lang, label: Label) -> None:
    top = ui("hold_ok", lang) if view.hint and view.partners else ui("you_are", lang)
    if view.card:  # a dual-card deal: which of the two cards this is
        top = ui("card_n", lang, n=view.card)
    seat = ui("seat", lang, n=label(view.seat))
    if SMALL.width(top) + SMALL.width(seat) + 4 <= W:
        c.row(0, top, seat)
    else:  # the player knows their seat; the hint matters more
        c.centered(0, top, SMALL)
    partners = f"{ui('partners', lang)}: {seat_list(view.partners, label)}" if view.partners else ""
    # D2's partners are card places ("1-1 1-2 2-1 2-2"): a list too long for one line takes two from the role
    rows = 2 if SMALL.width(partners) > W else 1
    bottom = H - rows * TOP if (view.partners or view.hint) else H
    if len(view.hand) > 1:  # D1: the card playing now, big; the card that takes over on the line below it
        c.ink(card_name(view.hand[0], lang), (0, TOP + 1, W, bottom - TOP - 1), (BIG, MEDIUM, SMALL))
        c.fit(ui("then_card", lang, card=card_name(view.hand[1], lang)), (0, bottom - TOP, W, bottom),
              (SMALL,))
    else:
        c.ink(role_name(view.role, lang), (0, TOP + 1, W, bottom - 1), (BIG, MEDIUM, SMALL))
    if rows == 2:
        c.fit(partners, (0, bottom, W, H), (SMALL,))
    elif view.partners:
        c.centered(H - TOP, partners, SMALL)
    elif view.hint:
        c.centered(H - TOP, ui("hold_ok", lang), SMALL)


@draws(v.HandChoice)
def _hand_choice(c: Canvas, view: v.HandChoice, lang: Lang, label: Label) -> None:
    """D1: two halves, one card each ("card 1" / "card 2" above its name); the chosen half inverted."""
    name = action_name("first_identity", lang)
    done = ui("confirmed", lang)
    _countdown_top(c, (f"{name} · {done}", done) if view.confirmed else name, view.countdown, lang)
    half = W // 2
    for i, card in enumerate(view.cards[:2]):
        box = (i * half, TOP + 1, (i + 1) * half, H - 4)
        c.centered(TOP + 2, ui("card_n", lang, n=i + 1), SMALL, box=box)
        name = card_name(card, lang)
        inner = (box[0] + 1, TOP + 2 + SMALL.line, box[2] - 1, box[3])
        # one line in MEDIUM if the name fits whole, else wrapped small (never a word cut in two)
        c.fit(name, inner, (MEDIUM, SMALL) if MEDIUM.width(name) <= inner[2] - inner[0] else (SMALL,))
        if view.chosen == i + 1:
            c.invert(box)


def _deck_line(items: tuple[tuple[str, int], ...], lang: Lang) -> str:
    sep = "、" if lang is Lang.ZH else ", "
    return sep.join(f"{role_name(r, lang)}×{n}" for r, n in items)


def _notice(c: Canvas, title: str, *bodies: str) -> None:
    """A problem or message: an inverted title bar, the body wrapped below it. ``bodies`` go from the fullest
    to the shortest wording; the first that fits is shown (with a slimmer title bar if that makes it fit)."""
    bodies = tuple(b for b in bodies if b) or ("",)
    for body in bodies:
        for bar in (16, 11):
            if not body or c.fits(body, (0, bar + 1, W, H), (MEDIUM, SMALL)):
                break
        else:
            continue
        break
    face = MEDIUM if bar == 16 else SMALL
    c.fill((0, 0, W, bar))
    c.fit(title, (0, 0 if bar == 16 else -1, W, bar + (0 if bar == 16 else 1)), (face, SMALL), fill=0)
    if body:
        c.fit(body, (0, bar + 1, W, H), (MEDIUM, SMALL))


@draws(v.CardProblem)
def _card_problem(c: Canvas, view: v.CardProblem, lang: Lang, label: Label) -> None:
    k = v.CardProblemKind
    if view.kind is k.UNKNOWN:
        _notice(c, ui("card_unknown", lang), ui("card_unknown_body", lang))
    elif view.kind is k.DUPLICATE:
        where = label(view.other_seat) if view.other_seat else "?"
        _notice(c, ui("card_duplicate", lang), ui("card_duplicate_body", lang, n=where))
    elif view.kind is k.TAPPED_TWICE:
        _notice(c, ui("card_twice", lang), ui("card_third_body" if view.hand > 1 else "card_twice_body", lang))
    elif view.kind is k.VOID_HAND:
        _notice(c, ui("card_void", lang), ui("card_void_body", lang))
    else:
        parts = []
        if view.missing:
            parts.append(f"{ui('deck_missing', lang)}: {_deck_line(view.missing, lang)}")
        if view.extra:
            parts.append(f"{ui('deck_extra', lang)}: {_deck_line(view.extra, lang)}")
        details = "\n".join(parts)
        _notice(c, ui("deck_mismatch", lang), details + "\n" + ui("deck_wait", lang), details)


# --- night ---------------------------------------------------------------------------------------------------
@draws(v.Dark)
def _dark(c: Canvas, view: v.Dark, lang: Lang, label: Label) -> None:
    """Nothing lit at all."""


@draws(v.EyesClosed)
def _eyes_closed(c: Canvas, view: v.EyesClosed, lang: Lang, label: Label) -> None:
    c.centered(H - TOP - 2, ui("eyes_closed", lang), SMALL)


def _countdown_top(c: Canvas, title: str | tuple[str, ...], cd: v.Countdown | None, lang: Lang) -> None:
    """The top line: the first of ``title``'s wordings that fits beside the seconds left; the bar below."""
    right = seconds(cd, lang) if cd is not None else ""
    titles = (title,) if isinstance(title, str) else title
    room = W - SMALL.width(right) - 4
    chosen = next((t for t in titles if SMALL.width(t) <= room), titles[-1])
    c.row(0, chosen, right)
    if cd is not None:
        c.bar(BAR, cd.fraction)


@draws(v.NightChoice)
def _night_choice(c: Canvas, view: v.NightChoice, lang: Lang, label: Label) -> None:
    """Drawn in layers, each cached on only what it depends on, because ◀/▶ redraws this screen on every
    press and the press-to-screen latency matters (issue target p99 < 5 ms on a Pi): the frame (title, countdown,
    arrows) changes once a second, the pointed-at seat at each press, the partners' line when a partner picks.
    The result is pixel for pixel what drawing it in one go gives: ((frame | target) ^ confirmed box) | mates."""
    mates = bool(view.partner_picks)
    picked_by = sum(1 for _s, t in view.partner_picks if t == view.target) if view.target is not None else 0
    frame = _night_frame(view.action, view.countdown, view.confirmed, mates, lang, view.words)
    none_word = "tear_badge" if view.action == "badge" else "skip"  # W10: the dying sheriff's "no one" tears it
    target = _night_target(view.target, picked_by, view.confirmed, mates, lang, label, none_word)
    image = ImageChops.logical_or(frame.image, target.image)
    if target.invert is not None:
        image = ImageChops.logical_xor(image, target.invert)
    if mates:
        image = ImageChops.logical_or(image, _night_mates(view.partner_picks, lang, label).image)
        c.problems.extend(_night_mates(view.partner_picks, lang, label).problems)
    c.problems.extend(frame.problems + target.problems)
    c.image = image


@dataclass(frozen=True)
class _Layer:
    image: Image.Image
    problems: tuple[str, ...] = ()
    invert: Image.Image | None = None


def _mid(mates: bool) -> tuple[int, int, int, int]:
    return (0, TOP + 1, W, H - 3 - (TOP if mates else 1))


@lru_cache(maxsize=64)
def _night_frame(action: str, cd: v.Countdown, confirmed: bool, mates: bool, lang: Lang,
                 words: tuple[str, ...] = ()) -> _Layer:
    c = Canvas.new(f"NightChoice[{lang.value}]")
    title = own_word(words, lang) or action_name(action, lang)
    if confirmed and SMALL.width(f"{title} · {ui('confirmed', lang)} {seconds(cd, lang)}") < W:
        title += " · " + ui("confirmed", lang)  # else the inverted number alone says it
    _countdown_top(c, title, cd, lang)
    mid = _mid(mates)
    c.arrow((1, mid[1] + 8, 11, mid[3] - 8), "left")
    c.arrow((W - 11, mid[1] + 8, W - 1, mid[3] - 8), "right")
    return _Layer(c.image, tuple(c.problems))


@lru_cache(maxsize=256)
def _night_target(target: int | None, picked_by: int, confirmed: bool, mates: bool, lang: Lang,
                  label: Label, none_word: str = "skip") -> _Layer:
    c = Canvas.new(f"NightChoice[{lang.value}]")
    mid = _mid(mates)
    target_box = (14, mid[1], W - 14, mid[3])
    if target is None:
        c.ink(ui(none_word, lang), target_box, (BIG, MEDIUM, SMALL))
        return _Layer(c.image, tuple(c.problems))
    inked = c.ink(seat_word(target, lang, label), (14, mid[1], W - 14 - (22 if picked_by else 0), mid[3]), (HUGE, BIG, MEDIUM))
    if picked_by:
        # C6: a small badge says how many partners point at the same seat
        bx = min(inked[2] + 3, W - 36)
        c.text((bx, mid[1] + 2), f"★{picked_by}", SMALL)
    invert = None
    if confirmed:
        mask = Canvas.new("NightChoice.confirmed")
        mask.fill((inked[0] - 3, inked[1] - 2, inked[2] + 3, inked[3] + 2))
        invert = mask.image
    return _Layer(c.image, tuple(c.problems), invert)


@lru_cache(maxsize=64)
def _night_mates(partner_picks: tuple[tuple[int, int | None], ...], lang: Lang, label: Label) -> _Layer:
    """Who picked what if it fits, else just the picks: the group needs to see where the others point."""
    c = Canvas.new(f"NightChoice[{lang.value}]")
    full = " ".join(f"{label(s)}→{'-' if t is None else label(t)}" for s, t in partner_picks)
    bare = " ".join("-" if t is None else label(t) for _s, t in partner_picks)
    mates = ui("mates", lang)
    for line in (f"{mates} {full}", full, f"{mates} {bare}", bare):
        if SMALL.width(line) <= W:
            break
    c.text((0, H - 3 - TOP), line, SMALL)
    return _Layer(c.image, tuple(c.problems))


@draws(v.PoliceAnswer)
def _police_answer(c: Canvas, view: v.PoliceAnswer, lang: Lang, label: Label) -> None:
    mark = (4, 6, 58, 58)
    if view.answer is v.Answer.NOD:
        c.fill(mark)
        c.check((10, 12, 52, 52), width=7, fill=0)
        word = own_word(view.words, lang) or ui("nod", lang)
    elif view.answer is v.Answer.SHAKE:
        c.draw.rectangle((mark[0], mark[1], mark[2] - 1, mark[3] - 1), outline=1, width=2)
        c.cross((14, 16, 48, 48), width=6)
        word = own_word(view.words, lang) or ui("shake", lang)
    else:
        c.draw.rectangle((mark[0], mark[1], mark[2] - 1, mark[3] - 1), outline=1, width=2)
        c.ink("?", (10, 12, 52, 52), (HUGE,))
        word = ui("no_signal", lang)
    c.ink(ui("check_of", lang, n=label(view.target)), (62, 2, W, 32), (BIG, MEDIUM, SMALL))
    c.fit(word, (62, 34, W, H), (MEDIUM, SMALL))


# --- day -----------------------------------------------------------------------------------------------------
@draws(v.Dead)
def _dead(c: Canvas, view: v.Dead, lang: Lang, label: Label) -> None:
    c.row(0, "", ui("seat", lang, n=label(view.seat)))
    c.ink(ui("dead_ejected" if view.cause == "ejected" else "dead", lang), (0, TOP, W, H - TOP - 1),
          (BIG, MEDIUM, SMALL))
    c.centered(H - TOP, ui("dead_body", lang), SMALL)


@draws(v.Speaking)
def _speaking(c: Canvas, view: v.Speaking, lang: Lang, label: Label) -> None:
    key = "last_words_of" if view.last_words else "speaking"
    who = label(view.speaker)
    titles = (ui(key, lang, n=who), ui(key + "_short", lang, n=who))
    _countdown_top(c, titles, view.countdown, lang)
    c.ink(seat_word(view.speaker, lang, label), (0, TOP + 1, W, H - 4), (HUGE, BIG, MEDIUM))


@draws(v.YourSpeech)
def _your_speech(c: Canvas, view: v.YourSpeech, lang: Lang, label: Label) -> None:
    title = ui("your_last_words" if view.last_words else "your_speech", lang)
    c.row(0, title, ui("ok_pass", lang))
    c.ink(clock(view.countdown), (0, TOP + 1, W, H - 4), (HUGE, BIG))
    c.bar(BAR, view.countdown.fraction)
    if view.warning:
        c.invert((0, 0, W, H))


@draws(v.VoteCall)
def _vote_call(c: Canvas, view: v.VoteCall, lang: Lang, label: Label) -> None:
    if view.voted and view.voted_for != view.candidate:
        _vote_call_other(c, view, lang, label)
        return
    _countdown_top(c, ui("vote_call", lang, n=label(view.candidate)), view.countdown, lang)
    right = W - 40 if view.voted else W
    c.ink(seat_word(view.candidate, lang, label), (0, TOP + 1, right, H - 4 - TOP), (BIG, MEDIUM))
    if view.voted:
        c.check((W - 36, TOP + 2, W - 4, H - 6 - TOP), width=5)
        c.centered(H - 3 - TOP, ui("vote_counted", lang), SMALL)
    else:
        c.centered(H - 3 - TOP, ui("vote_hint", lang), SMALL)


def _vote_call_other(c: Canvas, view: v.VoteCall, lang: Lang, label: Label) -> None:
    """The call for one candidate, seen by a seat whose one vote already went elsewhere (V2.5): the top line
    says whom the room is calling now, the middle whom this seat's hand counted for, never the candidate
    called big in the middle with a tick (which read as "your hand counted for this one")."""
    who = label(view.candidate)
    _countdown_top(c, (ui("vote_call_other", lang, n=who), ui("vote_call_other_short", lang, n=who)),
                   view.countdown, lang)
    middle = (0, TOP + 1, W, H - 4 - TOP)
    if view.voted_for is None:  # a vote for nobody (V2.5 allows abstaining)
        c.ink(ui("vote_yours_none", lang), middle, (MEDIUM, SMALL))
    else:
        said, mine = ui("vote_yours", lang), seat_word(view.voted_for, lang, label)
        face = next((f for f in (BIG, MEDIUM) if SMALL.width(said) + 4 + f.width(mine) <= W), SMALL)
        left = (W - SMALL.width(said) - 4 - face.width(mine)) // 2
        c.text((max(0, left), (middle[1] + middle[3] - SMALL.line) // 2), said, SMALL)
        start = max(0, left) + SMALL.width(said) + 4
        c.ink(mine, (start, middle[1], min(W, start + face.width(mine)), middle[3]), (face, SMALL))
    c.centered(H - 3 - TOP, ui("vote_yours_in", lang), SMALL)


@draws(v.VoteFeedback)
def _vote_feedback(c: Canvas, view: v.VoteFeedback, lang: Lang, label: Label) -> None:
    r = v.VoteResult
    mark = (2, 10, 46, 54)
    if view.result is r.COUNTED:
        c.check(mark, width=6)
        title, body = ui("vote_counted", lang), ui("vote_counted_body", lang, n=label(view.candidate))
    elif view.result is r.LATE:
        c.cross((6, 14, 42, 50), width=6)
        title, body = ui("vote_late", lang), ui("vote_late_body", lang)
    else:
        c.ink("!", mark, (HUGE,))
        title, body = ui("vote_already", lang), ui("vote_already_body", lang)
    c.fit(title, (50, 0, W, 34), (MEDIUM, SMALL))
    c.fit(body, (50, 36, W, H), (SMALL,))


@draws(v.Tally)
def _tally(c: Canvas, view: v.Tally, lang: Lang, label: Label) -> None:
    if view.out is not None:
        head = ui("tally_out", lang, n=label(view.out))
    elif view.tie:
        head = f"{ui('tally_tie', lang)}: {seat_list(view.tie, label)}"
        if SMALL.width(head) > W:  # the tied seats are in the counts below anyway
            head = ui("tally_tie_n", lang, k=len(view.tie))
    else:
        head = ui("tally_none", lang)
    c.fill((0, 0, W, 16))
    c.fit(head, (0, 0, W, 16), (MEDIUM, SMALL), fill=0)
    counts = sorted(view.counts, key=lambda sv: (-sv[1], sv[0]))
    # From the most readable cell format to the most compact, take the first where every count fits.
    styles: list[Callable[[int, int], str]] = [
        lambda s, n: f"{ui('seat_short', lang, n=label(s))} {ui('votes', lang, v=n)}",
        lambda s, n: f"{label(s)}:{n}",
    ]
    area_top, rows = 18, (H - 18) // SMALL.line
    for style in styles:
        cells = [style(s, n) for s, n in counts]
        cell_w = max((SMALL.width(x) for x in cells), default=0) + 6
        cols = max(1, W // max(1, cell_w))
        if len(cells) <= cols * rows:
            break
    if len(cells) > cols * rows:  # the smallest counts give way to a visible "+N more"
        keep = cols * rows - 1
        cells = [*cells[:keep], f"+{len(cells) - keep}"]
    col_w = W // cols
    for i, cell in enumerate(cells):
        col, row = divmod(i, rows)
        c.text((col * col_w, area_top + row * SMALL.line), cell, SMALL, max_width=col_w)


# --- any time ------------------------------------------------------------------------------------------------
@draws(v.Paused)
def _paused(c: Canvas, view: v.Paused, lang: Lang, label: Label) -> None:
    c.fill((8, 10, 18, 42))
    c.fill((24, 10, 34, 42))
    c.fit(ui("paused", lang), (40, 4, W, 46), (BIG, MEDIUM, SMALL))
    c.centered(H - TOP, ui("paused_body", lang), SMALL)


@draws(v.Message)
def _message(c: Canvas, view: v.Message, lang: Lang, label: Label) -> None:
    _notice(c, text(view.title, lang), text(view.body, lang))


@draws(v.GameOver)
def _game_over(c: Canvas, view: v.GameOver, lang: Lang, label: Label) -> None:
    if view.winner == "draw":
        head = ui("draw", lang)
    else:
        head = ui("winner", lang, side=own_word(view.words, lang) or winner_name(view.winner, lang, view.variant))
    mine = f"{ui('your_role_was', lang)} {role_name(view.role, lang)}"
    if view.won is not None:
        mine += "\n" + ui("you_won" if view.won else "you_lost", lang)
    below = min(3, len(wrap(mine, SMALL, W))) * SMALL.line  # the winner line gives way to a long role name
    c.ink(head, (0, 0, W, H - below - 2), (BIG, MEDIUM, SMALL))
    c.fit(mine, (0, H - below, W, H), (SMALL,))


# --- the judge's remote --------------------------------------------------------------------------------------
LIST_ROWS = (H - TOP - 1) // SMALL.line  # rows under the title


def _scrolled(count: int, cursor: int | None) -> int:
    """First visible row: the cursor stays visible with one row of context where there is room."""
    if cursor is None or count <= LIST_ROWS:
        return 0
    return max(0, min(cursor - 1, count - LIST_ROWS))


def _list(c: Canvas, title: str, rows: list[str], cursor: int | None) -> None:
    c.fill((0, 0, W, TOP))
    pos = f"{(cursor or 0) + 1}/{len(rows)}" if rows and cursor is not None else ""
    c.row(0, title, pos, SMALL, fill=0)
    if not rows:
        c.text((0, TOP + 1), "—", SMALL)
        return
    first = _scrolled(len(rows), cursor)
    for i, row in enumerate(rows[first:first + LIST_ROWS]):
        y = TOP + 1 + i * SMALL.line
        c.text((0, y), row, SMALL, max_width=W - 4)
        if cursor is not None and first + i == cursor:
            c.invert((0, y, W - 4, y + SMALL.line))
    c.scrollbar((W - 3, TOP + 1, W, H), first, LIST_ROWS, len(rows))


@draws(v.JudgeSeats)
def _judge_seats(c: Canvas, view: v.JudgeSeats, lang: Lang, label: Label) -> None:
    rows = []
    width = max((len(label(s.seat)) for s in view.seats), default=2)
    for s in view.seats:
        state = "" if s.alive else ui("judge_dead", lang)
        note = text(s.note, lang)
        rows.append(f"{label(s.seat):>{max(2, width)}} {role_name(s.role, lang)} {state} {note}".rstrip())
    title = text(view.title, lang) or ui("judge_seats", lang)
    _list(c, title, rows, view.cursor if view.seats else None)


@draws(v.JudgeList)
def _judge_list(c: Canvas, view: v.JudgeList, lang: Lang, label: Label) -> None:
    rows = [text(i, lang) for i in view.items]
    if view.cursor is None:  # a list only read (what the remote was told): a long line wraps, nothing is cut
        rows = [line for row in rows for line in wrap(row, SMALL, W - 4)]
    _list(c, text(view.title, lang), rows, view.cursor)


@draws(v.JudgeStatus)
def _judge_status(c: Canvas, view: v.JudgeStatus, lang: Lang, label: Label) -> None:
    c.fill((0, 0, W, TOP))
    c.row(0, text(view.phase, lang), seconds(view.countdown, lang) if view.countdown else "", SMALL, fill=0)
    turn = text(view.turn, lang)
    if c.fits(turn, (0, TOP + 1, W, TOP + 17), (MEDIUM, SMALL)):
        c.fit(turn, (0, TOP + 1, W, TOP + 17), (MEDIUM, SMALL))
        lines, y = view.lines, TOP + 18
    else:  # a long turn ("last_words.executed: 8-1", D2's labels) wraps; the newest status line stays
        c.fit(turn, (0, TOP + 1, W, TOP + 1 + 2 * SMALL.line), (SMALL,))
        y = TOP + 2 + 2 * SMALL.line
        lines = view.lines[len(view.lines) - (H - 4 - y) // SMALL.line:]
    room = (H - 4 - y) // SMALL.line
    if len(lines) > room:
        c.problem(f"{len(lines)} status lines, room for {room}")
    # A long line (a refusal with its rule) wraps rather than being cut; the newest rows are the ones kept.
    rows = [row for line in lines[:room] for row in wrap(text(line, lang), SMALL, W)]
    for row in rows[-room:]:
        c.text((0, y), row, SMALL)
        y += SMALL.line
    if view.countdown:
        c.bar(BAR, view.countdown.fraction)


@draws(v.JudgeAsk)
def _judge_ask(c: Canvas, view: v.JudgeAsk, lang: Lang, label: Label) -> None:
    c.fill((0, 0, W, TOP))
    c.row(0, text(view.title, lang), "", SMALL, fill=0)
    if view.done is not None:  # the outcome: a tick or a cross in the title bar, the words below
        (c.check if view.done else c.cross)((W - 13, 1, W - 2, TOP - 1), width=2, fill=0)
        c.fit(text(view.value, lang), (0, TOP + 1, W, H), (MEDIUM, SMALL))
        return
    hint = text(view.hint, lang)
    below = min(2, len(wrap(hint, SMALL, W))) * SMALL.line if hint else 0
    c.fit(text(view.value, lang), (0, TOP + 1, W, H - below), (BIG, MEDIUM, SMALL))
    if hint:
        c.fit(hint, (0, H - below, W, H), (SMALL,))
