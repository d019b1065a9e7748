"""The console seen from the table: the pairing code on the handheld's screen and the board (with the QR code
of the address), the check-in page, and the ``[console]`` section of tianhei.toml."""

from __future__ import annotations

import asyncio

import pytest
from PIL import Image

from controller.board.sim import SimBoard
from controller.board.words import board_lines
from controller.config import ConfigError, load
from controller.config.settings import ConsoleSection
from controller.director.clock import VirtualScheduler
from controller.director.director import Director
from controller.director.lobby import Lobby
from controller.ports import Button
from controller.rules.variant import load_variant
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from controller.web import commands
from controller.web.console import Console
from controller.web.qr import qr_image
from controller.web.views import judge_view
from tests.director.helpers import game_config


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()  # the console's clock; never run (the virtual scheduler runs the game)
    yield loop
    loop.close()


def band(image: Image.Image) -> float:
    """How much of the remote's bottom 13 rows is lit (the pairing banner is white)."""
    img = image.convert("1")
    lit = sum(1 for y in range(img.height - 13, img.height) for x in range(img.width) if img.getpixel((x, y)))
    return lit / (13 * img.width)


def test_the_handheld_shows_the_pairing_code_until_a_phone_pairs(loop):
    clock = VirtualScheduler()
    sim = SimTable(8, clock.now)
    console = Console(ConsoleSection(enabled=True, url="http://192.168.1.20:8080/"), loop)
    table = console.wrap(sim)
    hdmi = SimBoard()
    director = Director(table, NullVoice(clock.now), clock, game_config("standard-2.0", 8),
                        board=console.board_for(hdmi), seed=2)
    console.watch(director)
    director.start()
    clock.run(max_time=30)
    assert sim.remote is not None and band(sim.remote.image) > 0.5  # the banner: white with the code in black
    code = console.code()
    assert hdmi.last["pairing"] == {"code": code, "url": "http://192.168.1.20:8080/"}
    assert "pairing" not in console.message("public", "zh")  # the board in the room only
    console.access.pair(code or "", "10.0.0.5", "judge's phone", loop.time())
    assert console.banner() == "手机已配对" and "pairing" not in hdmi.last  # paired: the code is gone ...
    assert band(sim.remote.image) > 0.5  # ... and the handheld says a phone paired, for a moment
    console._paired_until = 0.0
    console.remote.banner_changed()  # type: ignore[union-attr]
    assert band(sim.remote.image) < 0.5


def test_the_board_writes_the_code_and_the_address_and_draws_the_qr_code():
    facts = {"gesture": "deal", "pairing": {"code": "482913", "url": "http://192.168.1.20:8080/"}}
    assert board_lines(facts, "zh")[-1].text == "法官手机配对码 482913  http://192.168.1.20:8080/"
    assert board_lines(facts, "en")[-1].text == "Judge's phone: code 482913 at http://192.168.1.20:8080/"
    qr = qr_image("http://192.168.1.20:8080/", 180)
    assert qr.width == qr.height and 100 <= qr.width <= 180
    assert qr.getpixel((0, 0)) == 255 and min(qr.getdata()) == 0  # a quiet zone, then modules


def test_the_chinese_check_in_page_says_why_a_count_cannot_play_in_chinese():
    """Nobody has checked in, then three players (too few for 2.0): the phone's page says so in the table's
    language, with no deck line for nobody and no English reason on a Chinese page."""
    clock = VirtualScheduler()
    sim = SimTable(10, clock.now)
    variant = load_variant("standard-2.0")
    lobby = Lobby(sim, clock, variant, {}, lambda n: None, variants=[variant])
    lobby.start()
    empty = judge_view(None, "zh", lobby=lobby)
    assert (empty["deck"], empty["problem"]) == ("", "还没有人签到")
    for seat in (1, 2, 3):
        sim.click(seat, Button.OK)
    few = judge_view(None, "zh", lobby=lobby)
    assert few["deck"] == "3人不能玩这个版本" and few["problem"] == "3人不能玩这个版本"
    assert not few["commands"]["start"]
    assert "players" in judge_view(None, "en", lobby=lobby)["problem"]  # English keeps the variant's reason


def test_the_check_in_from_the_phone_counts_and_starts_the_game(loop):
    clock = VirtualScheduler()
    sim = SimTable(10, clock.now)
    started: list[int] = []
    variant = load_variant("standard-2.0")
    lobby = Lobby(sim, clock, variant, {}, started.append, variants=[variant])
    lobby.start()
    for seat in range(1, 9):
        sim.click(seat, Button.OK)
    view = judge_view(None, "en", lobby=lobby)
    assert view["stage"] == "checkin" and view["joined"] == list(range(1, 9)) and view["commands"]["start"]
    assert view["deck"] == "2 Killer, 2 Police, 4 Civilian"
    assert judge_view(None, "zh", lobby=lobby)["deck"] == "2 杀手, 2 警察, 4 平民"
    assert commands.run(None, lobby, "players", {"step": 1}, False).ok and lobby.players() == 9
    assert commands.run(None, lobby, "players", {"step": -1}, False).ok and lobby.players() == 8
    assert commands.run(None, lobby, "start", {}, False).ok and started == [8]
    late = commands.run(None, lobby, "start", {}, False)
    assert not late.ok and late.status == 409


def test_the_console_section_of_the_config(tmp_path):
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text('[console]\nenabled = true\nport = 9000\nphones = 2\nurl = "https://tianhei.local:9000/"\n')
    c = load(cfg).console
    assert (c.enabled, c.port, c.phones, c.url, c.host) == (True, 9000, 2, "https://tianhei.local:9000/", "0.0.0.0")
    assert load(None).console == ConsoleSection()  # off unless asked for
    cfg.write_text('[console]\nenabled = "yes"\nport = 99999\ncode_ttl_s = 0\nphone = 2\n')
    with pytest.raises(ConfigError) as problems:
        load(cfg)
    text = str(problems.value)
    for key in ("console.enabled", "console.port", "console.code_ttl_s", "console.phone"):
        assert key in text, key


def test_a_port_in_use_is_one_clear_line():
    import socket

    from controller.web.guarded import listen

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=rf"cannot listen on 127.0.0.1:{port}: .*change \[console\] port"):
            listen("127.0.0.1", port)
        with pytest.raises(OSError, match=rf"the hall's page cannot listen on 127.0.0.1:{port}: .*\[hall\] http_port"):
            listen("127.0.0.1", port, "[hall] http_host", "hall's page")


def test_tianhei_serve_with_the_consoles_port_taken_says_so_in_one_line(tmp_path):
    """The installed table (systemd runs ``tianhei serve``): a console port another program holds is the one line
    a failed start with the guard's status for a problem of the setup (systemd logs that line), not a crash log."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cfg = tmp_path / "tianhei.toml"
        cfg.write_text(f'[journal]\npath = "{tmp_path / "journal.sqlite"}"\n'
                       f'[console]\nenabled = true\nhost = "127.0.0.1"\nport = {port}\ntls = false\n')
        done = subprocess.run([sys.executable, "-m", "controller.cli", "serve", "--config", str(cfg)],
                              capture_output=True, text=True, timeout=120,
                              env={k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "crash" not in done.stderr
    assert f"tianhei: the judge's console cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "change [console] port" in done.stderr
