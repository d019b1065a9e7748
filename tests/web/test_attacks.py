"""The console attacked from loopback, as someone on the club's Wi-Fi would try it: wrong codes in a loop, a
stolen cookie after the judge took the console back, a recorded command sent again, a page on another site
calling the table. Each test runs the real table (simulated seats, real clock) and the real server."""

from __future__ import annotations

import contextlib
import json
import re
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from controller.ports import RemoteKey, RemoteKeyEvent
from tests.web.live import LiveTable

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def client(t: LiveTable, source: str = "127.0.0.1") -> httpx.Client:
    """A phone on the network (``source``: its address; loopback has a whole /8 of them), over HTTPS."""
    return t.client(source)


def pair(t: LiveTable, phone: httpx.Client) -> str:
    """The judge types the board's code; returns the page's CSRF token."""
    r = phone.post("/api/pair", json={"code": t.code()}, headers={"origin": t.base})
    assert r.status_code == 200, r.text
    page = phone.get("/judge")
    assert page.status_code == 200
    return re.search(r'name="tianhei-csrf" content="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]


def command(t: LiveTable, phone: httpx.Client, csrf: str | None, seq: object, name: str, *,
            origin: str | None = "same", **extra: str) -> httpx.Response:
    headers = {**extra}
    if origin is not None:
        headers["origin"] = t.base if origin == "same" else origin
    if csrf is not None:
        headers["x-tianhei-csrf"] = csrf
    return phone.post("/api/command", json={"seq": seq, "command": name}, headers=headers)


def judge_socket(t: LiveTable, cookie: str | None, origin: str | None = None):
    headers = {"cookie": f"tianhei_judge={cookie}"} if cookie else {}
    return t.socket("/ws/judge", origin=origin or t.base, additional_headers=headers, open_timeout=5)


def test_without_a_session_every_judge_page_call_and_socket_is_refused(tmp_path):
    with LiveTable(tmp_path) as t, client(t) as stranger:
        assert stranger.get("/judge").headers["location"] == "/pair"
        assert stranger.get("/api/state").status_code == 401
        stranger.cookies.set("tianhei_judge", "made-up-token")
        assert stranger.get("/judge").status_code == 303
        assert command(t, stranger, "made-up-csrf", 1, "pause").status_code == 401
        assert command(t, stranger, None, 1, "abort").status_code == 401
        with pytest.raises(InvalidStatus):
            judge_socket(t, None)
        with pytest.raises(InvalidStatus):
            judge_socket(t, "made-up-token")
        assert not t.on_loop(lambda: t.director.paused) and t.director.stage != "over"


def test_wrong_codes_in_a_loop_never_pair_and_the_guesser_waits(tmp_path):
    with LiveTable(tmp_path) as t, client(t, "127.0.0.9") as guesser, client(t, "127.0.0.2") as judge:
        answers = [guesser.post("/api/pair", json={"code": f"{n:06d}"}, headers={"origin": t.base})
                   for n in range(40) if f"{n:06d}" != t.code()]
        codes = [r.status_code for r in answers]
        assert 200 not in codes
        assert codes[:4] == [403] * 4 and set(codes[4:]) == {429}  # five wrong codes, then it waits
        assert int(answers[-1].headers["retry-after"]) >= 30
        # even the right code is refused while the guesser waits ...
        assert guesser.post("/api/pair", json={"code": t.code()}, headers={"origin": t.base}).status_code == 429
        # ... and the judge's phone, at another address, pairs at once
        pair(t, judge)


def guess_from(t: LiveTable, addresses: list[str], tries: int) -> list[int]:
    """Each address sends ``tries`` wrong codes, one after the other (the guessers); the statuses they got."""
    statuses = []
    for ip in addresses:
        with client(t, ip) as bot:
            for n in range(tries):
                wrong = f"{n:06d}" if f"{n:06d}" != t.code() else "999999"
                statuses.append(bot.post("/api/pair", json={"code": wrong}, headers={"origin": t.base}).status_code)
    return statuses


def hold_back(t: LiveTable) -> None:
    """The judge holds BACK on the handheld remote (the table's own way to take the console back)."""
    table = t.director.table if t.director is not None else t.console.lobby.table
    old = t.code()
    t.on_loop(lambda: table.inner._send(RemoteKeyEvent(RemoteKey.BACK, True, time.monotonic())))
    t.wait_for(lambda: t.console.access.code(t.loop.time()) != old, why="a new code on the board")
    t.on_loop(lambda: table.inner._send(RemoteKeyEvent(RemoteKey.BACK, False, time.monotonic())))


def test_a_dozen_addresses_guessing_cannot_keep_the_judge_from_pairing(tmp_path):
    """Wrong codes from twelve addresses close pairing to them, and close it again as soon as it reopens; the
    judge's phone, which sent no wrong code, pairs with the code on the board all the same."""
    with LiveTable(tmp_path) as t:
        bots = [f"127.0.1.{i + 1}" for i in range(12)]
        code = t.code()
        statuses = guess_from(t, bots, 6)
        assert 200 not in statuses and 429 in statuses  # the guessers were held up ...
        assert t.code() == code  # ... and the code on the board never changed under the judge's fingers
        with client(t, bots[0]) as bot:  # a guesser sending the right code is not even looked at
            r = bot.post("/api/pair", json={"code": code}, headers={"origin": t.base})
            assert r.status_code == 429, r.text
        assert 200 not in guess_from(t, bots[:4], 1)  # pairing closes again as soon as it reopens
        with client(t, "127.0.0.2") as judge:
            pair(t, judge)


def test_a_judge_who_mistyped_while_guessers_shut_pairing_renews_the_code_at_the_table_and_pairs(tmp_path):
    with LiveTable(tmp_path) as t, client(t, "127.0.0.2") as judge:
        r = judge.post("/api/pair", json={"code": "999999" if t.code() != "999999" else "999998"},
                       headers={"origin": t.base})
        assert r.status_code == 403  # the judge's thumb slipped
        bots = [f"127.0.1.{i + 1}" for i in range(12)]
        guess_from(t, bots, 2)
        refused = judge.post("/api/pair", json={"code": t.code()}, headers={"origin": t.base})
        assert refused.status_code == 429  # it counts among the guessers now ...
        hold_back(t)  # ... so the judge holds BACK: a new code, and every limit starts again with it
        guess_from(t, bots, 2)  # the guessers shut pairing again at once
        pair(t, judge)


def test_a_stolen_cookie_is_refused_once_the_judge_takes_the_console_back_at_the_table(tmp_path):
    with LiveTable(tmp_path) as t, client(t) as judge:
        csrf = pair(t, judge)
        cookie = judge.cookies["tianhei_judge"]
        old_code = t.console.access._code
        with client(t, "127.0.0.66") as thief:
            thief.cookies.set("tianhei_judge", cookie)
            assert command(t, thief, csrf, 100, "pause").status_code == 200  # a thief with the cookie can act ...
            socket = judge_socket(t, cookie)
            assert json.loads(socket.recv(5))["kind"] == "judge"
            # ... until the judge holds BACK on the handheld remote
            table = t.director.table
            t.on_loop(lambda: table.inner._send(RemoteKeyEvent(RemoteKey.BACK, True, time.monotonic())))
            t.wait_for(lambda: not t.console.access.sessions(t.loop.time()), why="the phones are signed out")
            t.on_loop(lambda: table.inner._send(RemoteKeyEvent(RemoteKey.BACK, False, time.monotonic())))
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    socket.recv(5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            assert command(t, thief, csrf, 101, "resume").status_code == 401
            assert thief.get("/judge").status_code == 303 and thief.get("/api/state").status_code == 401
            with pytest.raises(InvalidStatus):
                judge_socket(t, cookie)
        assert command(t, judge, csrf, 102, "resume").status_code == 401  # the judge pairs again, with ...
        assert t.code() != old_code  # ... the new code on the board and the remote
        assert t.on_loop(lambda: t.console.remote.hardware.image) is not None


def test_a_recorded_command_sent_again_is_refused(tmp_path):
    with LiveTable(tmp_path) as t, client(t) as judge:
        csrf = pair(t, judge)
        t.wait_for(lambda: t.director is not None and t.director.stage in ("deal", "play"), why="the deal")
        assert command(t, judge, csrf, 1, "pause").status_code == 200
        assert command(t, judge, csrf, 2, "resume").status_code == 200
        replayed = command(t, judge, csrf, 1, "pause")  # the recorded "pause" again
        assert replayed.status_code == 409 and "already sent" in replayed.json()["error"]["en"]
        assert not t.on_loop(lambda: t.director.paused)
        # after the phone signs out, its old requests are refused as not paired
        assert judge.post("/api/logout", headers={"origin": t.base, "x-tianhei-csrf": csrf}).status_code == 200
        judge.cookies.clear()
        assert command(t, judge, csrf, 3, "pause").status_code == 401


def test_cross_site_requests_are_refused(tmp_path):
    with LiveTable(tmp_path) as t, client(t) as judge:
        evil = "http://evil.example"
        # pairing from another site's page: refused, and the code is not used up
        code = t.code()
        r = judge.post("/api/pair", json={"code": code}, headers={"origin": evil})
        assert r.status_code == 403 and t.code() == code
        csrf = pair(t, judge)
        set_cookie = judge.get("/judge").request.headers.get("cookie", "")
        assert "tianhei_judge=" in set_cookie
        for origin, extra in ((evil, {}), (None, {}), ("same", {"sec-fetch-site": "cross-site"}),
                              (f"http://127.0.0.1:{t.console.port + 1}", {})):
            r = command(t, judge, csrf, 10, "pause", origin=origin, **extra)
            assert r.status_code == 403, (origin, r.text)
        assert command(t, judge, None, 11, "pause").status_code == 403  # no CSRF token: not our page
        assert not t.on_loop(lambda: t.director is not None and t.director.paused)
        with pytest.raises(InvalidStatus):
            judge_socket(t, judge.cookies["tianhei_judge"], origin=evil)
        r = judge.get("/judge")
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert r.headers["x-frame-options"] == "DENY" and r.headers["cache-control"] == "no-store"


def test_the_session_cookie_is_httponly_and_samesite_strict(tmp_path):
    with LiveTable(tmp_path) as t, client(t) as judge:
        r = judge.post("/api/pair", json={"code": t.code()}, headers={"origin": t.base})
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie


def test_the_public_page_shows_the_board_and_never_the_code(tmp_path):
    """(The public socket over a whole game is watched in test_browser.py, beside the judge.)"""
    with LiveTable(tmp_path) as t, client(t) as anyone:
        page = anyone.get("/")
        assert page.status_code == 200 and t.code() not in page.text
        with t.socket("/ws/public?lang=en") as socket:
            first = json.loads(socket.recv(5))
        assert first["kind"] == "public" and "pairing" not in json.dumps(first) and first["lines"]


def test_a_crowd_of_public_sockets_never_takes_the_judges_socket(tmp_path):
    """Sixteen addresses open four public sockets each: the public limit (64) is full, a fifth socket from one
    address and a 65th from anywhere are turned away, and the paired judge's own socket opens and gets its view."""
    from controller.web import app

    with LiveTable(tmp_path, checkin=True) as t, client(t, "127.0.0.2") as judge, contextlib.ExitStack() as crowd:
        pair(t, judge)
        for i in range(app.MAX_PUBLIC_SOCKETS // app.PUBLIC_PER_ADDRESS):
            for _ in range(app.PUBLIC_PER_ADDRESS):
                crowd.enter_context(t.socket("/ws/public", source_address=(f"127.0.3.{i + 1}", 0)))
        with pytest.raises(InvalidStatus):
            t.socket("/ws/public", source_address=("127.0.4.1", 0), open_timeout=5)  # the 65th
        with pytest.raises(InvalidStatus):
            t.socket("/ws/public", source_address=("127.0.3.1", 0), open_timeout=5)  # a fifth from one address
        with judge_socket(t, judge.cookies["tianhei_judge"]) as socket:
            assert json.loads(socket.recv(5))["kind"] == "judge"
        t.wait_for(lambda: len(t.console.wakers) == app.MAX_PUBLIC_SOCKETS, why="the crowd is still there")


def test_a_paired_phone_stays_paired_for_the_next_game_and_is_still_refused_after_a_revoke(tmp_path):
    """``tianhei serve`` plays game after game, each with its own console on the same address: the judge does
    not pair again for every game, and a revoke holds for the next game too."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    with LiveTable(tmp_path / "1", port=port) as t, client(t) as judge:
        csrf = pair(t, judge)
        cookie = judge.cookies["tianhei_judge"]
    with LiveTable(tmp_path / "2", port=port) as t, client(t) as judge:
        judge.cookies.set("tianhei_judge", cookie)
        assert judge.get("/api/state").status_code == 200
        assert command(t, judge, csrf, 1, "repeat").status_code in (200, 409)  # not refused as unpaired
        assert t.on_loop(t.console.code) is None  # the one phone place is taken: no code on the board
        t.on_loop(t.console.revoke_at_table)
        assert judge.get("/api/state").status_code == 401
