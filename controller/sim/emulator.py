"""A pygame window showing the whole simulated table: every seat's screen (scaled by whole pixels), its LED and
its three buttons, and the judge's remote screen. Clicking a button calls back into the table.

The window fits the display: :func:`fit` picks the largest scale (x3, x2, x1) and the column count at which the
whole table fits the desktop (or ``max_size``), so 8 seats and the remote open on a 1280-px laptop screen too.

Decoupled from the director on purpose: the emulator only needs a *table model* —

- ``table.seats``: a sequence (or mapping) of objects with ``.number``, ``.image`` (a PIL image or None, e.g.
  a luma ``dummy`` device's last image) and ``.led`` (an (r, g, b) tuple);
- ``table.press(seat, button)``: called when a seat button is clicked (mouse down); ``table.release(seat,
  button)`` too on mouse up, if the table has it (holding OK peeks at a role);
- optionally ``table.remote`` with ``.image``, and ``table.remote_key(key)`` for the remote's keys.

It reads the images every frame and never writes to the table, so it can run beside any director, and it is
testable headless (``SDL_VIDEODRIVER=dummy``): :meth:`Emulator.draw` and :meth:`Emulator.handle` do all the work
:meth:`Emulator.run` loops over.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pygame
from PIL import Image

from controller.ports import LED_OFF, RGB, SCREEN_SIZE, Button, RemoteKey

log = logging.getLogger(__name__)

OLED_ON = (120, 200, 255)  # the common blue-white SSD1306 tint
OLED_OFF = (6, 8, 12)
BACKGROUND = (32, 30, 28)
PANEL = (54, 50, 46)
TEXT = (220, 220, 210)
BUTTON = (90, 86, 80)
BUTTON_DOWN = (150, 146, 140)
CARD_BACK = (70, 40, 90)

#: The same symbols as the README and the seat's own screen (◀ ▶ OK); the arrows are drawn as triangles, since
#: pygame's built-in font has no glyph for them.
BUTTON_LABELS = {Button.PREV: "◀", Button.OK: "OK", Button.NEXT: "▶"}
REMOTE_KEYS = (RemoteKey.MENU, RemoteKey.UP, RemoteKey.BACK, RemoteKey.LEFT, RemoteKey.CENTER, RemoteKey.RIGHT,
               RemoteKey.DOWN)
REMOTE_LABELS = {RemoteKey.MENU: "M", RemoteKey.UP: "▲", RemoteKey.BACK: "B", RemoteKey.LEFT: "◀",
                 RemoteKey.CENTER: "o", RemoteKey.RIGHT: "▶", RemoteKey.DOWN: "▼"}
#: Each arrow's triangle as corners on a unit square centred on 0 (x right, y down).
ARROWS = {"◀": ((0.5, -0.5), (0.5, 0.5), (-0.5, 0.0)), "▶": ((-0.5, -0.5), (-0.5, 0.5), (0.5, 0.0)),
          "▲": ((-0.5, 0.5), (0.5, 0.5), (0.0, -0.5)), "▼": ((-0.5, -0.5), (0.5, -0.5), (0.0, 0.5))}


class SeatModel(Protocol):
    @property
    def number(self) -> int: ...

    @property
    def image(self) -> Image.Image | None: ...

    @property
    def led(self) -> RGB: ...


@dataclass(frozen=True)
class Hit:
    """A clickable area: a seat button (``seat`` > 0) or a remote key (``seat`` == 0)."""

    rect: pygame.Rect
    seat: int
    button: Button | None = None
    key: RemoteKey | None = None


def to_surface(image: Image.Image | None, scale: int, size: tuple[int, int] = SCREEN_SIZE) -> pygame.Surface:
    """A one-colour screen image as a pygame surface in OLED colours, scaled by whole pixels."""
    if image is None:
        image = Image.new("1", size, 0)
    lit = image.convert("L").point(lambda v: 255 if v else 0)
    rgb = Image.merge("RGB", [lit.point(lambda v, c=c, o=o: c if v else o) for c, o in zip(OLED_ON, OLED_OFF,
                                                                                            strict=True)])
    rgb = rgb.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
    return pygame.image.frombytes(rgb.tobytes(), rgb.size, "RGB")


#: Room a desktop keeps for the window's title bar, borders and a panel or dock.
DESKTOP_MARGIN = (16, 72)
#: Whole-pixel scales of a seat screen tried, largest first (x3 is a 384x192 screen).
SCALES = (3, 2, 1)
#: Playing one seat, its screen is the whole table: up to x8 (a 1024x512 screen).
SEAT_SCALES = (8, 7, 6, 5, 4, 3, 2, 1)


def available_size() -> tuple[int, int]:
    """The largest window the desktop has room for (after :func:`pygame.display.init`, before a window is
    opened, ``Info`` gives the desktop's own size); 1280x720 when the driver does not say."""
    info = pygame.display.Info()
    w, h = info.current_w, info.current_h
    if w <= 0 or h <= 0:
        w, h = 1280, 720
    return max(1, w - DESKTOP_MARGIN[0]), max(1, h - DESKTOP_MARGIN[1])


def window_size(seats: int, remote: bool, scale: int, columns: int) -> tuple[int, int]:
    """The window's size for ``seats`` panels in ``columns`` at ``scale``, with the remote to their right."""
    n = max(1, seats)
    sw, sh = SCREEN_SIZE[0] * scale, SCREEN_SIZE[1] * scale
    pad = gap = 4 * scale
    pw, ph = sw + 2 * pad, sh + 2 * pad + 12 * scale + 16 * scale
    rows = math.ceil(n / columns)
    width, height = gap + columns * (pw + gap), gap + rows * (ph + gap)
    if remote:
        key = 14 * scale
        width += sw + 2 * gap
        height = max(height, gap + 12 * scale + sh + 4 * scale + 3 * key + gap)
    return width, height


def fit(seats: int, remote: bool, max_size: tuple[int, int], *, scale: int | None = None,
        columns: int | None = None, scales: tuple[int, ...] = SCALES) -> tuple[int, int]:
    """(scale, columns) for a window within ``max_size``: the largest whole scale at which some column count
    fits, and of those counts the one that fills the room most evenly (so 8 seats on a wide display go 4x2,
    on a tall one 2x4). ``scale`` or ``columns`` given are kept. When nothing fits, the smallest scale and the
    least overflowing count are used and a warning says so (the window is then larger than the display)."""
    mw, mh = max_size
    scales = (scale,) if scale else scales
    counts = (columns,) if columns else tuple(range(1, max(1, seats) + 1))

    def overflow(s: int, c: int) -> float:
        w, h = window_size(seats, remote, s, c)
        return max(w / mw, h / mh)

    for s in scales:
        fitting = [c for c in counts if overflow(s, c) <= 1.0]
        if fitting:
            return s, min(fitting, key=lambda c: (overflow(s, c), c))
    s = scales[-1]
    c = min(counts, key=lambda c: (overflow(s, c), c))
    log.warning("the table window (%d seats%s) is %dx%d at scale %d, larger than the %dx%d available",
                seats, " and the remote" if remote else "", *window_size(seats, remote, s, c), s, mw, mh)
    return s, c


#: Keys that are a seat's buttons (held like the button: the key's press and release are the button's).
KEY_BUTTONS = {"left": Button.PREV, "right": Button.NEXT, "space": Button.OK, "return": Button.OK,
               "enter": Button.OK, "down": Button.OK}
#: The transcript strip under the table: this many lines of the game as told (controller/director/transcript.py).
STRIP_LINES = 6
#: A face-down card in the tray, and the gap between two.
CARD_SIZE = (44, 60)
#: Said beside the tray (zh, en): how a card gets to a reader.
TRAY_HINT = ("← 把牌拖到读卡处（或点一下、按数字键）", "<- drag a card onto a reader (or click it, or press its number)")
#: The board panel is never narrower than this (its headline must stay readable).
BOARD_MIN_W = 360


class Emulator:
    """The table window. ``on_press(seat, button)`` defaults to ``table.press``. ``scale`` and ``columns`` fix
    the layout; left out, :func:`fit` chooses them for ``max_size`` (default: what the desktop has room for), and
    again whenever the window is resized.

    ``seat``: one person plays that seat (``tianhei table --seat 3``): only its screen, LED and buttons are drawn
    (the others' screens, LEDs and the judge's remote are secrets at a real table), and the keyboard is its
    buttons. ``keys``: letter keys (pygame's key names) with actions of their own. ``board``: an object whose ``last`` is the public board's facts (controller/board/sim.py), drawn in
    a panel by the HDMI board's own painter. ``told``: the transcript's lines so far (the last few are shown).
    ``cards``: (UID, label) of face-down cards in a tray: drag one onto a seat to tap it on that seat's reader,
    or click it to tap it on the seat being played (``on_tap`` defaults to ``table.tap``)."""

    def __init__(self, table: Any, *, scale: int | None = None, columns: int | None = None,
                 max_size: tuple[int, int] | None = None,
                 on_press: Callable[[int, Button], None] | None = None,
                 on_release: Callable[[int, Button], None] | None = None,
                 on_remote_key: Callable[[RemoteKey], None] | None = None,
                 title: str = "Tianhei table", seat: int | None = None, board: Any = None,
                 told: Callable[[], Sequence[str]] | None = None, cards: Sequence[tuple[str, str]] = (),
                 on_tap: Callable[[int, str], None] | None = None, lang: str = "zh",
                 keys: Mapping[str, Callable[[], None]] | None = None) -> None:
        self.table = table
        self.on_press = on_press or getattr(table, "press", None)
        self.on_release = on_release or getattr(table, "release", None)
        self.on_remote_key = on_remote_key or getattr(table, "remote_key", None)
        self.on_tap = on_tap or getattr(table, "tap", None)
        #: Letter keys with an action of their own (the saved game's question: R resumes, A closes it).
        self.keys = dict(keys or {})
        self.title = title
        self.seat = seat
        self.lang = lang
        self.board = board
        self.told = told
        self.cards = list(cards)
        self.tapped: set[str] = set()
        self.held: Hit | None = None
        self.hits: list[Hit] = []
        #: The seat the keyboard and a clicked card act on: the seat played, else the last seat clicked.
        self.focus = seat if seat is not None else (self.seats()[0].number if self.seats() else 0)
        self.keys_held: dict[int, tuple[int, Button]] = {}
        self.dragging: tuple[str, tuple[int, int]] | None = None
        self.drag_pos: tuple[int, int] = (0, 0)
        self._fixed = (scale, columns)
        pygame.display.init()
        pygame.font.init()
        self.max_size = max_size or available_size()
        self._painter: Any = None
        if board is not None:
            from controller.board.pygame_board import BoardPainter

            self._painter = BoardPainter(lang)
        self._text: dict[str, pygame.Surface] = {}
        size = self._fit()
        pygame.display.set_caption(title)
        self.surface = pygame.display.set_mode(size, pygame.RESIZABLE)
        pygame.display.set_caption(title)

    # -- model access ---------------------------------------------------------------------------------------
    def seats(self) -> list[SeatModel]:
        seats = self.table.seats
        items: Iterable[SeatModel] = seats.values() if isinstance(seats, Mapping) else seats
        shown = sorted(items, key=lambda s: s.number)
        return [s for s in shown if s.number == self.seat] if self.seat is not None else shown

    def remote_image(self) -> Image.Image | None:
        remote = getattr(self.table, "remote", None)
        return getattr(remote, "image", None) if remote is not None else None

    def has_remote(self) -> bool:
        return self.seat is None and getattr(self.table, "remote", None) is not None

    # -- layout ---------------------------------------------------------------------------------------------
    @property
    def screen_size(self) -> tuple[int, int]:
        return SCREEN_SIZE[0] * self.scale, SCREEN_SIZE[1] * self.scale

    @property
    def panel_size(self) -> tuple[int, int]:
        sw, sh = self.screen_size
        pad = 4 * self.scale
        return sw + 2 * pad, sh + 2 * pad + 12 * self.scale + 16 * self.scale

    def screen_rect(self, index: int) -> pygame.Rect:
        """Where seat number ``index`` (0-based, in seat order) has its screen."""
        x, y = self._panel_origin(index)
        pad = 4 * self.scale
        return pygame.Rect(x + pad, y + pad + 12 * self.scale, *self.screen_size)

    def panel_rect(self, index: int) -> pygame.Rect:
        return pygame.Rect(*self._panel_origin(index), *self.panel_size)

    def _panel_origin(self, index: int) -> tuple[int, int]:
        pw, ph = self.panel_size
        gap = 4 * self.scale
        col, row = index % self._cols, index // self._cols
        return gap + col * (pw + gap), gap + row * (ph + gap)

    def _bottom(self) -> tuple[int, int]:
        """Heights of the card tray and the transcript strip under the table (0 when there are none)."""
        tray = CARD_SIZE[1] + 16 if self.cards else 0
        strip = STRIP_LINES * 18 + 12 if self.told is not None else 0
        return tray, strip

    def _fit(self) -> tuple[int, int]:
        """Choose the scale for the room there is (``max_size``), place everything, and return the size of it all.

        The table takes what the board panel (at least :data:`BOARD_MIN_W`, at most 16:9 of the table's height)
        and the strips below leave; the board then takes the rest of the width."""
        mw, mh = self.max_size
        tray, strip = self._bottom()
        room = (max(1, mw - (BOARD_MIN_W if self.board is not None else 0)), max(1, mh - tray - strip))
        scale, columns = self._fixed
        scales = SEAT_SCALES if self.seat is not None else SCALES
        self.scale, self._cols = fit(len(self.seats()), self.has_remote(), room, scale=scale, columns=columns,
                                     scales=scales)
        self.font = pygame.font.Font(None, 12 * self.scale)
        self.card_font = pygame.font.Font(None, 22)
        gw, gh = self._layout()
        width, height = gw, gh
        self.board_rect: pygame.Rect | None = None
        if self.board is not None:
            bw = max(BOARD_MIN_W, min(mw - gw, gh * 16 // 9))
            bh = max(gh, min(bw * 9 // 16, mh - tray - strip))
            self.board_rect = pygame.Rect(gw, 4, bw - 4, max(1, bh - 8))
            width, height = gw + bw, max(gh, bh)
        self.tray_rect = pygame.Rect(4, height, max(1, width - 8), tray) if tray else None
        self.strip_rect = pygame.Rect(4, height + tray, max(1, width - 8), strip - 4) if strip else None
        return width, height + tray + strip

    def _layout(self) -> tuple[int, int]:
        width, height = window_size(len(self.seats()), self.has_remote(), self.scale, self._cols)
        gap = 4 * self.scale
        self.hits = []
        bw, bh = 24 * self.scale, 12 * self.scale
        for i, seat in enumerate(self.seats()):
            screen = self.screen_rect(i)
            y = screen.bottom + 2 * self.scale
            for j, button in enumerate((Button.PREV, Button.OK, Button.NEXT)):
                x = screen.centerx + (j - 1) * (bw + 4 * self.scale) - bw // 2
                self.hits.append(Hit(pygame.Rect(x, y, bw, bh), seat.number, button=button))
        if self.has_remote():
            self._remote_origin = (width - self.screen_size[0] - 2 * gap, gap)
            rx, ry = self._remote_origin
            key = 14 * self.scale
            grid = {RemoteKey.MENU: (0, 0), RemoteKey.UP: (1, 0), RemoteKey.BACK: (2, 0), RemoteKey.LEFT: (0, 1),
                    RemoteKey.CENTER: (1, 1), RemoteKey.RIGHT: (2, 1), RemoteKey.DOWN: (1, 2)}
            keys_y = ry + 12 * self.scale + self.screen_size[1] + 4 * self.scale
            keys_x = rx + (self.screen_size[0] - 3 * key) // 2
            for k, (cx, cy) in grid.items():
                self.hits.append(Hit(pygame.Rect(keys_x + cx * key, keys_y + cy * key, key - 2, key - 2), 0, key=k))
        return width, height

    def remote_screen_rect(self) -> pygame.Rect | None:
        if not self.has_remote():
            return None
        rx, ry = self._remote_origin
        return pygame.Rect(rx, ry + 12 * self.scale, *self.screen_size)

    def card_rect(self, index: int) -> pygame.Rect:
        """Where the ``index``-th card of the tray lies (0-based)."""
        assert self.tray_rect is not None
        w, h = CARD_SIZE
        return pygame.Rect(self.tray_rect.x + 8 + index * (w + 8), self.tray_rect.y + 8, w, h)

    def resize(self, size: tuple[int, int]) -> None:
        """The window was resized (or the display changed): fit everything into it again."""
        self.max_size = (max(1, size[0]), max(1, size[1]))
        self._fit()
        self.surface = pygame.display.set_mode(self.max_size, pygame.RESIZABLE)

    # -- drawing --------------------------------------------------------------------------------------------
    def _label(self, text: str, pos: tuple[int, int], center: bool = False) -> None:
        corners = ARROWS.get(text)
        if corners is not None:
            size = 6 * self.scale
            pygame.draw.polygon(self.surface, TEXT, [(pos[0] + x * size, pos[1] + y * size) for x, y in corners])
            return
        surf = self.font.render(text, True, TEXT)
        rect = surf.get_rect(center=pos) if center else surf.get_rect(topleft=pos)
        self.surface.blit(surf, rect)

    def _words(self, text: str) -> pygame.Surface:
        """A transcript line in the project's bitmap font (pygame's own has no hanzi), cached."""
        surface = self._text.get(text)
        if surface is None:
            from controller.board.layout import text_mask

            mask = text_mask(text, 1)
            rgb = Image.new("RGB", mask.size, BACKGROUND)
            rgb.paste(TEXT, (0, 0, *mask.size), mask)
            if len(self._text) > 256:
                self._text.clear()
            surface = self._text[text] = pygame.image.frombytes(rgb.tobytes(), rgb.size, "RGB")
        return surface

    def draw(self) -> pygame.Surface:
        """Draw one frame from the table's current state (no flip)."""
        self.surface.fill(BACKGROUND)
        for i, seat in enumerate(self.seats()):
            x, y = self._panel_origin(i)
            focused = seat.number == self.focus and self.seat is None and self.cards
            pygame.draw.rect(self.surface, BUTTON_DOWN if focused else PANEL, self.panel_rect(i),
                             border_radius=3 * self.scale)
            self._label(f"{seat.number}", (x + 4 * self.scale, y + 2 * self.scale))
            led = tuple(seat.led) if seat.led else LED_OFF
            led_centre = (x + self.panel_size[0] - 10 * self.scale, y + 8 * self.scale)
            pygame.draw.circle(self.surface, led, led_centre, 4 * self.scale)
            pygame.draw.circle(self.surface, BUTTON, led_centre, 4 * self.scale, width=1)
            self.surface.blit(to_surface(seat.image, self.scale), self.screen_rect(i))
        remote = self.remote_screen_rect()
        if remote is not None:
            self._label("judge", (remote.x, remote.y - 12 * self.scale))
            self.surface.blit(to_surface(self.remote_image(), self.scale), remote)
        for hit in self.hits:
            colour = BUTTON_DOWN if hit == self.held or hit in self._keyed() else BUTTON
            pygame.draw.rect(self.surface, colour, hit.rect, border_radius=2 * self.scale)
            label = BUTTON_LABELS[hit.button] if hit.button else REMOTE_LABELS[hit.key] if hit.key else "?"
            self._label(label, hit.rect.center, center=True)
        if self.board_rect is not None and self._painter is not None:
            facts = getattr(self.board, "last", None) or {"gesture": "deal"}
            self._painter.paint(self.surface.subsurface(self.board_rect.clip(self.surface.get_rect())), facts)
        if self.tray_rect is not None:
            hint = self.card_rect(len(self.cards)).move(8, 0)
            self.surface.blit(self._words(TRAY_HINT[self.lang == "en"]), (hint.x, hint.centery - 8))
            for i, (uid, label) in enumerate(self.cards):
                if self.dragging is None or self.dragging[0] != uid:
                    self._card(self.card_rect(i), label, uid in self.tapped)
            if self.dragging is not None:
                label = next(lab for uid, lab in self.cards if uid == self.dragging[0])
                self._card(pygame.Rect(0, 0, *CARD_SIZE).move(self.drag_pos[0] - CARD_SIZE[0] // 2,
                                                             self.drag_pos[1] - CARD_SIZE[1] // 2), label, False)
        if self.strip_rect is not None and self.told is not None:
            lines = list(self.told())[-STRIP_LINES:]
            for i, text in enumerate(lines):
                self.surface.blit(self._words(text), (self.strip_rect.x + 4, self.strip_rect.y + 6 + 18 * i))
        return self.surface

    def _card(self, rect: pygame.Rect, label: str, used: bool) -> None:
        """A card lying face down (its back; which role it is stays hidden until a reader reads it)."""
        pygame.draw.rect(self.surface, BUTTON if used else CARD_BACK, rect, border_radius=4)
        pygame.draw.rect(self.surface, TEXT, rect, width=1, border_radius=4)
        pygame.draw.circle(self.surface, TEXT, (rect.centerx, rect.y + rect.h // 3), min(rect.size) // 4, width=1)
        surf = self.card_font.render(label, True, TEXT)
        self.surface.blit(surf, surf.get_rect(center=(rect.centerx, rect.bottom - 12)))

    def _keyed(self) -> list[Hit]:
        held = set(self.keys_held.values())
        return [h for h in self.hits if h.button is not None and (h.seat, h.button) in held]

    # -- input ----------------------------------------------------------------------------------------------
    def hit_at(self, pos: tuple[int, int]) -> Hit | None:
        return next((h for h in self.hits if h.rect.collidepoint(pos)), None)

    def seat_at(self, pos: tuple[int, int]) -> int | None:
        """The seat whose panel (screen, buttons, reader) is under ``pos``."""
        return next((s.number for i, s in enumerate(self.seats()) if self.panel_rect(i).collidepoint(pos)), None)

    def card_at(self, pos: tuple[int, int]) -> str | None:
        if self.tray_rect is None:
            return None
        return next((uid for i, (uid, _) in enumerate(self.cards) if self.card_rect(i).collidepoint(pos)), None)

    def click(self, seat: int, button: Button) -> None:
        """Press and release a seat button as a mouse would (for scripts and tests)."""
        hit = next(h for h in self.hits if h.seat == seat and h.button is button)
        for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            self.handle(pygame.event.Event(kind, pos=hit.rect.center, button=1))

    def tap(self, seat: int, uid: str) -> None:
        self.tapped.add(uid)
        if self.on_tap is not None:
            self.on_tap(seat, uid)

    def handle(self, event: pygame.event.Event) -> bool:
        """Act on one pygame event; False when the window was closed."""
        if event.type == pygame.QUIT:
            return False
        if event.type == pygame.VIDEORESIZE:
            self.resize(event.size)
        elif event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1:
            self._mouse_down(event.pos)
        elif event.type == pygame.MOUSEMOTION and self.dragging is not None:
            self.drag_pos = event.pos
        elif event.type == pygame.MOUSEBUTTONUP and getattr(event, "button", 1) == 1:
            self._mouse_up(event.pos)
        elif event.type in (pygame.KEYDOWN, pygame.KEYUP):
            self._key(event.key, event.type == pygame.KEYDOWN)
        return True

    def _mouse_down(self, pos: tuple[int, int]) -> None:
        card = self.card_at(pos)
        if card is not None:
            self.dragging, self.drag_pos = (card, pos), pos
            return
        hit = self.hit_at(pos)
        if hit is None:
            seat = self.seat_at(pos)
            if seat is not None and self.seat is None:
                self.focus = seat
            return
        self.held = hit
        if hit.button is not None:
            if self.seat is None:
                self.focus = hit.seat
            if self.on_press is not None:
                self.on_press(hit.seat, hit.button)
        elif hit.key is not None and self.on_remote_key is not None:
            self.on_remote_key(hit.key)

    def _mouse_up(self, pos: tuple[int, int]) -> None:
        if self.dragging is not None:
            (uid, start), self.dragging = self.dragging, None
            seat = self.seat_at(pos)
            moved = abs(pos[0] - start[0]) + abs(pos[1] - start[1]) > 4
            if seat is not None:  # dropped on a seat: laid on its reader
                self.tap(seat, uid)
            elif not moved and self.focus:  # a click on a card: chosen for the seat played (or last clicked)
                self.tap(self.focus, uid)
            return
        held, self.held = self.held, None
        if held is not None and held.button is not None and self.on_release is not None:
            self.on_release(held.seat, held.button)

    def _key(self, key: int, down: bool) -> None:
        """The arrows and the space bar (or Enter) are the focused seat's ◀ ▶ OK; holding the key holds the
        button (holding OK shows one's role). Digits 1-9 choose that card from the tray."""
        if not down:
            held = self.keys_held.pop(key, None)
            if held is not None and self.on_release is not None:
                self.on_release(*held)
            return
        name = pygame.key.name(key)
        action = self.keys.get(name)
        if action is not None:
            action()
            return
        button = KEY_BUTTONS.get(name)
        if button is not None and self.focus and key not in self.keys_held:
            self.keys_held[key] = (self.focus, button)
            if self.on_press is not None:
                self.on_press(self.focus, button)
        elif name.isdigit() and 1 <= int(name) <= len(self.cards) and self.focus:
            self.tap(self.focus, self.cards[int(name) - 1][0])

    def step(self) -> bool:
        """Handle pending events and show one frame; False once the window is closed."""
        alive = all(self.handle(e) for e in pygame.event.get())
        self.draw()
        pygame.display.flip()
        return alive

    def run(self, fps: int = 20, until: Callable[[], bool] | None = None) -> None:
        """The window's loop (blocking; the director runs in its own thread or loop)."""
        clock = pygame.time.Clock()
        try:
            while self.step() and not (until and until()):
                clock.tick(fps)
        finally:
            self.close()

    def snapshot(self) -> Image.Image:
        """The current frame as a PIL image (tests, screenshots for the docs)."""
        self.draw()
        raw = pygame.image.tobytes(self.surface, "RGB")
        return Image.frombytes("RGB", self.surface.get_size(), raw)

    def close(self) -> None:
        pygame.display.quit()
