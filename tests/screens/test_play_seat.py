"""One person plays seat 3 in the simulator's window (``tianhei table --seat 3``): the window shows that seat alone,
takes the mouse and the keyboard as its buttons (held down as long as they are held), deals cards from a tray by
drag or by click, and shows the public board drawn by the big screen's own painter. Every input goes in as an SDL
event under the dummy video driver, as the window gets it from a desktop."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"  # before pygame opens a display
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from PIL import ImageChops

from controller.board.pygame_board import BoardPainter
from controller.board.sim import SimBoard
from controller.director.bots import TableBots
from controller.ports import Button
from controller.screens import views as v
from controller.sim.emulator import Emulator
from controller.sim.play import OtherHands, card_labels
from tests.director.helpers import ScriptedTable, card_uid


def post(*events: pygame.event.Event) -> None:
    for e in events:
        pygame.event.post(e)


def mouse(kind: int, pos: tuple[int, int]) -> pygame.event.Event:
    return pygame.event.Event(kind, pos=pos, button=1)


@pytest.fixture
def game():
    """Eight seats dealt with cards, seat 3 a killer; seat 3's player has the window, bots the other seats."""
    t = ScriptedTable("standard-2.0", "K C K P P C C C", lang="zh")
    seat3_cards = card_labels([card_uid(3)])
    board = SimBoard()
    t.director.board = board
    emu = Emulator(t.table, seat=3, board=board, told=lambda: ["  0:00  「天黑请闭眼。」"], cards=seat3_cards,
                   max_size=(1264, 648))
    yield t, emu
    emu.close()


def frame_of(emu: Emulator, rect: pygame.Rect):
    return emu.snapshot().crop((rect.x, rect.y, rect.right, rect.bottom))


def test_the_window_shows_seat_3_alone_big_and_no_remote(game) -> None:
    _, emu = game
    assert [s.number for s in emu.seats()] == [3]
    assert {h.seat for h in emu.hits} == {3}  # seat 3's three buttons, no other seat's, no remote keys
    assert emu.remote_screen_rect() is None
    assert emu.scale >= 3  # one seat: its screen larger than the full table's x2
    w, h = emu.surface.get_size()
    assert w <= 1264 and h <= 648


def test_dragging_the_card_onto_the_reader_taps_it_and_the_screen_shows_the_role(game) -> None:
    t, emu = game
    card = emu.card_rect(0)
    seat = emu.screen_rect(0).center
    post(mouse(pygame.MOUSEBUTTONDOWN, card.center),
         pygame.event.Event(pygame.MOUSEMOTION, pos=(card.centerx + 50, card.centery - 80), rel=(50, -80),
                            buttons=(1, 0, 0)),
         mouse(pygame.MOUSEBUTTONUP, seat))
    assert emu.step()
    assert [e.uid for e in t.table.inputs if getattr(e, "present", False)] == [card_uid(3)]
    t.run_for(0.1)
    assert isinstance(t.screen(3), v.RoleReveal) and t.screen(3).role == "killer"


def test_a_card_dropped_on_nothing_is_not_tapped_and_a_click_chooses_it_for_seat_3(game) -> None:
    t, emu = game
    card = emu.card_rect(0)
    post(mouse(pygame.MOUSEBUTTONDOWN, card.center),
         pygame.event.Event(pygame.MOUSEMOTION, pos=(card.x + 300, card.y), rel=(300, 0), buttons=(1, 0, 0)),
         mouse(pygame.MOUSEBUTTONUP, (card.x + 300, card.y)))
    emu.step()
    assert t.table.inputs == []
    post(mouse(pygame.MOUSEBUTTONDOWN, card.center), mouse(pygame.MOUSEBUTTONUP, card.center))
    emu.step()
    assert [(e.seat, e.uid) for e in t.table.inputs if getattr(e, "present", False)] == [(3, card_uid(3))]


def test_holding_the_mouse_on_ok_holds_the_button_until_it_is_let_go(game) -> None:
    t, emu = game
    ok = next(h for h in emu.hits if h.button is Button.OK)
    post(mouse(pygame.MOUSEBUTTONDOWN, ok.rect.center))
    emu.step()
    assert (3, Button.OK) in t.table.held
    post(pygame.event.Event(pygame.MOUSEMOTION, pos=(5, 5), rel=(0, 0), buttons=(1, 0, 0)))
    emu.step()
    assert (3, Button.OK) in t.table.held  # still held, wherever the pointer wanders
    post(mouse(pygame.MOUSEBUTTONUP, (5, 5)))
    emu.step()
    assert (3, Button.OK) not in t.table.held


def test_the_keyboard_is_seat_3s_buttons_held_as_long_as_the_key(game) -> None:
    t, emu = game
    post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE))
    emu.step()
    assert t.table.held == {(3, Button.OK)}
    post(pygame.event.Event(pygame.KEYUP, key=pygame.K_SPACE),
         pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT), pygame.event.Event(pygame.KEYUP, key=pygame.K_RIGHT),
         pygame.event.Event(pygame.KEYDOWN, key=pygame.K_LEFT), pygame.event.Event(pygame.KEYUP, key=pygame.K_LEFT))
    emu.step()
    pressed = [(e.seat, e.button, e.pressed) for e in t.table.inputs]
    assert pressed == [(3, Button.OK, True), (3, Button.OK, False), (3, Button.NEXT, True), (3, Button.NEXT, False),
                       (3, Button.PREV, True), (3, Button.PREV, False)]


def test_the_digit_1_chooses_the_first_card_of_the_tray(game) -> None:
    t, emu = game
    post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_1), pygame.event.Event(pygame.KEYUP, key=pygame.K_1))
    emu.step()
    assert [(e.seat, e.uid) for e in t.table.inputs if getattr(e, "present", False)] == [(3, card_uid(3))]


def test_the_board_panel_is_what_the_big_screen_would_draw(game) -> None:
    t, emu = game
    t.deal()
    t.until_window("night", "kill")
    facts = t.director.board.last
    assert facts["gesture"] == "eyes_closed"
    rect = emu.board_rect
    assert rect is not None and rect.width >= 360
    drawn = frame_of(emu, rect)
    reference = pygame.Surface(rect.size)
    BoardPainter("zh").paint(reference, facts)
    from PIL import Image

    expected = Image.frombytes("RGB", rect.size, pygame.image.tobytes(reference, "RGB"))
    assert ImageChops.difference(drawn, expected).getbbox() is None
    assert drawn.getcolors(1 << 20) and len(drawn.getcolors(1 << 20)) > 1  # not a blank panel


def test_resizing_the_window_fits_the_table_again(game) -> None:
    _, emu = game
    small = emu.scale
    post(pygame.event.Event(pygame.VIDEORESIZE, size=(2400, 1300), w=2400, h=1300))
    emu.step()
    assert emu.scale > small and emu.surface.get_size() == (2400, 1300)
    post(pygame.event.Event(pygame.VIDEORESIZE, size=(700, 500), w=700, h=500))
    emu.step()
    w, h = emu.surface.get_size()
    for rect in [emu.screen_rect(0), *(h.rect for h in emu.hits), emu.card_rect(0)]:
        assert pygame.Rect(0, 0, w, h).contains(rect), rect


def test_bots_play_every_seat_but_3_which_waits_for_its_person() -> None:
    """Seat 3 (a killer) is played from the window; the other killer is a bot. The kill waits for seat 3."""
    t = ScriptedTable("standard-2.0", "K C K P P C C C", lang="zh")
    TableBots(t.director, OtherHands(t.table, {3}), "heuristic", seed=1)
    emu = Emulator(t.table, seat=3, cards=card_labels([card_uid(3)]), max_size=(1264, 648))
    try:
        for seat in (1, 2, 4, 5, 6, 7, 8):
            t.table.tap(seat, card_uid(seat))
        post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_1), pygame.event.Event(pygame.KEYUP, key=pygame.K_1))
        emu.step()
        t.run_until(lambda: t.director.stage == "play")
        w = t.until_window("night", "kill")
        t.run_for(20)  # the bot killer has long chosen; seat 3 has not
        assert t.director.window is w and 1 in t.director.state.picks and 3 not in t.director.state.picks
        while t.director.ui[3].cursor != t.director.state.picks[1]:  # seat 3 follows its partner with ▶
            post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT),
                 pygame.event.Event(pygame.KEYUP, key=pygame.K_RIGHT))
            emu.step()
        post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN), pygame.event.Event(pygame.KEYUP, key=pygame.K_RETURN))
        emu.step()
        t.run_for(0.5)
        assert t.director.window is not w  # the kill is settled: the night goes on
    finally:
        emu.close()



def test_the_big_screen_is_drawn_at_once_and_stops_when_told_to() -> None:
    """The HDMI board shows the deal before the first fact arrives (never a blank screen); a quit (its window
    closed, or SIGTERM, which SDL turns into one) ends its redraw loop so the table can stop."""
    from controller.board.pygame_board import BACKGROUND, PygameBoard

    board = PygameBoard((640, 360), lang="zh")
    try:
        first = board.snapshot()
        assert len(first.getcolors(1 << 20)) > 1 and first.getpixel((0, 0)) == BACKGROUND
        assert board.refresh()
        post(pygame.event.Event(pygame.QUIT))
        assert not board.refresh()
    finally:
        board.close()
