"""The hall page in a real browser: headless Chromium (Debian's chromium and chromium-driver) driven by Selenium
loads the page while two simulated tables play on a loopback Mosquitto; the test reads what the page shows.
Screenshots go to the test's folder (and to $TIANHEI_SCREENSHOTS when set: docs/club.md's picture comes so)."""

from __future__ import annotations

import asyncio
import functools
import re
import threading
import time
from pathlib import Path

import pytest

from controller.club.record import GameRecord
from controller.club.standings import standings
from controller.hall.announce import Announcer
from controller.hall.app import serve
from controller.hall.broker import free_port
from controller.hall.mqtt import BrokerAddress, MqttPublisher
from controller.hall.outbox import Outbox
from controller.hall.service import HallService, RoomConfig
from controller.hall.simroom import SimulatedRoom
from controller.hall.store import HallStore
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack
from tests.chromium import headless_chromium, shot
from tests.hall.conftest import CLUB, club_variant, until

NAMES = {"1": [f"Zhao {i}" for i in range(1, 13)], "2": [f"Qian {i}" for i in range(1, 10)],
         "3": [f"Sun {i}" for i in range(1, 13)]}


class ClubInAThread:
    """The hall (service, page) and two simulated tables on one event loop in a thread of their own."""

    def __init__(self, broker, root: Path,
                 rooms: tuple[tuple[str, str, float], ...] = (("1", "standard-2.0", 25.0), ("2", "classic-1.0", 60.0)),
                 seed: int = 1) -> None:
        self.broker = broker
        self.go = asyncio.Event()  # the rooms' games begin when the test says so: after the page is there to see them
        self.root = root
        self.rooms = rooms  # (room, variant id or a club's variant file, the game's speed)
        self.seed = seed  # the simulated rooms' (which deal, which bots' choices)
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.stop = asyncio.Event()
        self.ready = threading.Event()
        self.service: HallService | None = None
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._main(),), daemon=True)

    async def _main(self) -> None:
        voices = [NullVoice(time.monotonic, load_voice_pack(p)) for p in ("zh-CN", "en")]
        self.service = HallService(HallStore(self.root / "hall.sqlite"), CLUB,
                                   [RoomConfig("1", 14), RoomConfig("2", 12, "entry"), RoomConfig("3", 12, "entry")],
                                   announcer=Announcer(voices))
        pw = self.broker.files.passwords
        hall = asyncio.create_task(serve(self.service, BrokerAddress("127.0.0.1", self.broker.port, "hall", pw["hall"]),
                                         self.stop, host="127.0.0.1", port=self.port))
        # The real hall on a real broker (what the page test is about): wait, bounded, for its connection.
        await until(lambda: self.service is not None and self.service.connected)
        self.ready.set()
        await self.go.wait()
        tasks = []
        for room, variant, speed in self.rooms:
            outbox = Outbox(self.root / f"{room}.sqlite")
            pub = MqttPublisher(outbox, BrokerAddress("127.0.0.1", self.broker.port, f"room-{room}",
                                                      pw[f"room-{room}"]), CLUB, room)
            sim = SimulatedRoom(room, pub, functools.partial(outbox.next_game, room), list(NAMES[room]), variant,
                                speed=speed, between_s=600.0, seed=self.seed)
            tasks += [asyncio.create_task(pub.run(self.stop)), asyncio.create_task(sim.evening(1, self.stop))]
        await self.stop.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(hall, *tasks, return_exceptions=True)

    def __enter__(self) -> ClubInAThread:
        self.thread.start()
        assert self.ready.wait(30), "the hall did not start"
        return self

    def play(self) -> None:
        """The rooms start their games."""
        self.loop.call_soon_threadsafe(self.go.set)

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.go.set)
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)


@pytest.fixture
def browser():
    with headless_chromium() as driver:
        yield driver


def text(driver, css: str) -> str:
    """What the page shows in the first element matching ``css`` (read in one go: the page redraws itself)."""
    return str(driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';", css))


def room_text(driver, room: str) -> str:
    return text(driver, f'.room[data-room="{room}"]')


# Every picture of every room card the page draws, kept by the page itself: a room's day at 60x speed lasts a
# second or two, a speaker's turn a fraction of one, and a test that only looks now and then can miss them all.
REMEMBER_ROOMS = """
window.seen = {};
const rooms = document.getElementById('rooms');
const note = () => rooms.querySelectorAll('.room').forEach(c => {
  const kept = (window.seen[c.dataset.room] ||= []);
  if (kept[kept.length - 1] !== c.innerText) kept.push(c.innerText);
});
new MutationObserver(note).observe(rooms, {childList: true, subtree: true, characterData: true});
note();
"""


def watch_rooms(driver) -> None:
    """From now on the page keeps every picture of every room card it draws (``seen``)."""
    driver.execute_script(REMEMBER_ROOMS)


def seen(driver, room: str, *words: str) -> str:
    """The first picture of ``room``'s card since ``watch_rooms`` that showed all ``words`` ('' if none did)."""
    cards = driver.execute_script("return (window.seen || {})[arguments[0]] || [];", room)
    return next((c for c in cards if all(w in c for w in words)), "")


def count(driver, css: str) -> int:
    return int(driver.execute_script("return document.querySelectorAll(arguments[0]).length;", css))


def wait_for(driver, what, timeout: float = 90.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda d: what(d))


def test_the_hall_page_shows_the_rooms_live_the_waiting_list_the_announcement_and_the_standings(
        mosquitto, tmp_path, browser):
    from selenium.webdriver.common.by import By

    with ClubInAThread(mosquitto, tmp_path, rooms=(("1", "standard-2.0", 10.0), ("2", "classic-1.0", 60.0))) as club:
        url = f"http://127.0.0.1:{club.port}/"
        browser.get(url)
        assert text(browser, "#title") == "大堂"
        wait_for(browser, lambda d: room_text(d, "1") and room_text(d, "2"), 10)
        watch_rooms(browser)
        club.play()
        # both rooms playing: the variant, the day or night, who speaks with the seconds left
        wait_for(browser, lambda d: seen(d, "1", "游戏中") and seen(d, "2", "游戏中"))
        wait_for(browser, lambda d: seen(d, "2", "白天"))
        card = wait_for(browser, lambda d: seen(d, "1", "发言"))
        assert "1号包房" in card and "标准版" in card and "12人" in card and "Zhao 3" in card
        assert "=>" not in card  # every word is a word, not a piece of the page's script
        assert re.search(r"\d+号发言\s+\d:\d\d", card), card  # who speaks, with the seconds left (1:47)
        # the picture: room 1 while someone speaks (a turn lasts half a second at 10x, and there are dozens)
        wait_for(browser, lambda d: ":" in text(d, '.room[data-room="1"] .countdown'))
        assert "空闲" in room_text(browser, "3")
        shot(browser, tmp_path, "hall-playing.png")
        # the organiser puts two members on the waiting list; the hall proposes room 2's free seats
        for name in ("Ada", "Bo"):
            browser.find_element(By.ID, "name").send_keys(name)
            browser.find_element(By.ID, "t-add").click()
            wait_for(browser, lambda d, n=name: n in text(d, "#waiting"), 10)
        wait_for(browser, lambda d: "2号包房" in text(d, "#proposals"), 10)
        assert "Ada、Bo" in text(browser, "#proposals")
        # room 2's entry game ends: the banner, the result, the standings
        wait_for(browser, lambda d: seen(d, "2", "本局结束"))
        assert text(browser, "#banner") == "2号包房游戏结束，请等候的玩家回到包房"  # shown: innerText is empty if not
        assert "好人胜" in room_text(browser, "2") or "杀手胜" in room_text(browser, "2")
        assert count(browser, "#standings tr") == 1 + 9  # the header and room 2's nine players
        # the club's ranking of the club's record of that game (entry scoring, time points), row by row
        snap = club.service.snapshot()
        ranked = standings([GameRecord.from_dict(r) for r in club.service.store.records(snap["evening"])],
                           club.service.scoring)
        assert snap["standings"] == ranked and len(ranked) == 9
        rows = browser.execute_script(  # in one go: the page redraws itself live
            "return [...document.querySelectorAll('#standings tr')].slice(1)"
            ".map(tr => [...tr.cells].map(c => c.textContent).join(' '))")
        assert rows == [f"{r['rank']} {r['member']} {r['games']} {r['wins']} {r['points']:g}" for r in ranked]
        shot(browser, tmp_path, "hall-result.png")
        assert club.service is not None and club.service.announcer.said == ["2"]
        # the same page in English
        browser.get(url + "?lang=en")
        wait_for(browser, lambda d: "Room 2" in room_text(d, "2"))
        assert text(browser, "#t-waiting") == "Waiting list"
        assert "game over" in room_text(browser, "2")
        shot(browser, tmp_path, "hall-en.png")


def test_a_room_playing_the_clubs_own_board_is_shown_in_the_boards_own_words(mosquitto, tmp_path, browser):
    """The hall has no copy of a club's own variant file and never opens one a message named: the table sends its
    name and its name for the winning side, and the page shows those, in both languages."""
    # seed 2: a game where the badge is given (seed 1's game ends its election with no sheriff)
    with ClubInAThread(mosquitto, tmp_path, rooms=(("3", str(club_variant(tmp_path)), 200.0),), seed=2) as club:
        url = f"http://127.0.0.1:{club.port}/"
        browser.get(url)
        wait_for(browser, lambda d: room_text(d, "3"), 10)
        watch_rooms(browser)
        club.play()
        card = wait_for(browser, lambda d: seen(d, "3", "游戏中"))
        assert "月夜狼人 12人" in card and "club-moon-12" not in card
        # the board's sheriff (W10), once the badge is given on the first day
        badge = wait_for(browser, lambda d: seen(d, "3", "警长："), 120)
        assert "号" in badge.split("警长：")[1]
        if "警长：" in room_text(browser, "3"):  # the picture, while the game (and so the badge) lasts
            shot(browser, tmp_path, "hall-club-variant-sheriff.png")
        wait_for(browser, lambda d: seen(d, "3", "本局结束"), 180)
        wait_for(browser, lambda d: "本局结束" in room_text(d, "3"), 10)
        ended = room_text(browser, "3")
        assert "月狼胜" in ended or "村民胜" in ended, ended
        assert "月夜狼人 12人" in text(browser, "#results")
        shot(browser, tmp_path, "hall-club-variant.png")
        browser.get(url + "?lang=en")
        wait_for(browser, lambda d: "Room 3" in room_text(d, "3"))
        assert "Moon wolves 12" in text(browser, "#results")
        assert "Moon wolves" in room_text(browser, "3") or "Villagers" in room_text(browser, "3")
