"""Keeping the judge out, tried from loopback as someone on the club's Wi-Fi would: connections that never finish
their request (plain and TLS, with and without a handshake), a body nested a thousand deep, a foreign ``Host``.
Each test runs the real table (checking in, so it waits for the judge) and the real server; every attack is a
bounded number of connections, and every wait a bounded poll on the sockets."""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import ssl
import time

import pytest

from controller.web import server
from tests.web.live import LiveTable
from tests.web.test_attacks import client, command, pair

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: Half a request: the line and one header, then nothing (slowloris).
HALF_A_REQUEST = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def silent(t: LiveTable, source: str, *, handshake: bool = True, send: bytes = HALF_A_REQUEST) -> socket.socket:
    """A connection from ``source`` that never finishes its request: over TLS it shakes hands (unless told not
    to) and sends ``send``; over plain HTTP it sends ``send``."""
    sock = socket.create_connection(("127.0.0.1", t.console.port), timeout=5, source_address=(source, 0))
    if t.console.certificate is not None:
        if not handshake:
            return sock
        context = t.trust()
        assert context is not None
        sock = context.wrap_socket(sock, server_hostname="127.0.0.1")
    if send:
        sock.sendall(send)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (read without waiting: the end of the stream, or a reset)."""
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except (ssl.SSLWantReadError, BlockingIOError):
        return False
    except OSError:  # a reset, or the TLS connection cut without a goodbye
        return True


def wait_closed(socks: list[socket.socket], within: float, leave: int = 0) -> list[socket.socket]:
    """Poll the sockets (select, no sleep) until the server closed all but ``leave`` of them or ``within`` s
    passed; the ones still open."""
    left = [s for s in socks if not closed_by_server(s)]
    end = time.monotonic() + within
    while len(left) > leave and time.monotonic() < end:
        readable, _, _ = select.select(left, [], [], 0.2)
        left = [s for s in left if s not in readable or not closed_by_server(s)]
    return left


def judge_reads_the_state(t: LiveTable, cookie: str) -> int:
    """The paired judge's phone asks for the state on a connection of its own; the status it got."""
    with client(t, "127.0.0.2") as phone:
        phone.cookies.set("tianhei_judge", cookie)
        return phone.get("/api/state").status_code


@pytest.mark.parametrize("tls", [True, False], ids=["https", "http"])
def test_140_connections_that_never_finish_their_headers_do_not_keep_the_judge_out_and_are_closed(
        tmp_path, monkeypatch, caplog, tls):
    monkeypatch.setattr(server, "HEAD_TIMEOUT_S", 4.0)
    caplog.set_level(logging.WARNING, logger="controller.web.console")
    with LiveTable(tmp_path, checkin=True, tls=tls) as t, client(t, "127.0.0.2") as judge, \
            contextlib.ExitStack() as held:
        pair(t, judge)
        cookie = judge.cookies["tianhei_judge"]
        bots = [f"127.0.5.{i + 1}" for i in range(12)]
        # over TLS one in seven does not even start its handshake
        crowd = [held.enter_context(silent(t, bots[n % len(bots)], handshake=n % 7 != 0)) for n in range(140)]
        assert judge_reads_the_state(t, cookie) == 200  # served while all of them hang on
        assert judge_reads_the_state(t, cookie) == 200
        assert wait_closed(crowd, within=server.HEAD_TIMEOUT_S + 10) == []  # then the deadline closes them
        assert judge_reads_the_state(t, cookie) == 200
        assert any("sent no whole request within 4 s" in r.getMessage() for r in caplog.records)


def test_one_address_holds_at_most_16_connections_even_in_the_tls_handshake(tmp_path, monkeypatch):
    monkeypatch.setattr(server, "HEAD_TIMEOUT_S", 60.0)  # nothing here waits for the deadline
    with LiveTable(tmp_path, checkin=True) as t, contextlib.ExitStack() as held:
        no_hello = [held.enter_context(silent(t, "127.0.6.1", handshake=False)) for _ in range(30)]
        left = wait_closed(no_hello, within=5, leave=server.PER_ADDRESS)
        assert len(left) == server.PER_ADDRESS  # the others were closed at once
        assert wait_closed(left, within=0.3, leave=0) == left  # and those 16 stay open (no deadline here)
        assert t.on_loop(lambda: t.console.doorman.open_from("127.0.6.1")) == server.PER_ADDRESS
        with client(t, "127.0.0.2") as judge:  # another address is not held up by it
            pair(t, judge)


def test_when_every_place_is_taken_a_waiting_connection_makes_room_for_the_judge(tmp_path, monkeypatch):
    monkeypatch.setattr(server, "TOTAL", 40)
    monkeypatch.setattr(server, "HEAD_TIMEOUT_S", 60.0)
    with LiveTable(tmp_path, checkin=True) as t, client(t, "127.0.0.2") as judge, \
            contextlib.ExitStack() as held:
        pair(t, judge)
        cookie = judge.cookies["tianhei_judge"]
        crowd = [held.enter_context(silent(t, f"127.0.7.{n % 4 + 1}")) for n in range(40)]
        for _ in range(3):
            assert judge_reads_the_state(t, cookie) == 200
        assert t.on_loop(lambda: len(t.console.doorman)) <= 40
        # room was made by closing silent ones (the judge's own kept-alive connection, quiet too, was not taken:
        # the address holding the most gives way first)
        assert len(wait_closed(crowd, within=1)) < 40 and t.console.doorman.refused["evicted"] >= 1


DEEP = b"[" * 1024 + b"]" * 1024  # 2 KB


def test_a_body_nested_1024_deep_is_a_bad_request_and_one_line_in_the_log(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    with LiveTable(tmp_path, checkin=True) as t, client(t, "127.0.0.2") as judge, client(t, "127.0.8.1") as stranger:
        headers = {"origin": t.base, "content-type": "application/json"}
        calls = [lambda: stranger.post("/api/pair", content=DEEP, headers=headers),
                 lambda: stranger.post("/api/command", content=DEEP, headers=headers)]  # no session
        csrf = pair(t, judge)
        calls.append(lambda: judge.post("/api/command", content=DEEP, headers={**headers, "x-tianhei-csrf": csrf}))
        for call in calls:
            caplog.clear()
            r = call()
            assert r.status_code == 400 and "nested" in r.json()["error"]["en"], r.text
            lines = [rec for rec in caplog.records if rec.levelno >= logging.WARNING]
            assert len(lines) == 1 and "refused (400)" in lines[0].getMessage(), [x.getMessage() for x in lines]
            assert not any(rec.exc_info for rec in caplog.records)
        # a body that is not JSON, or says it is not, is refused the same way
        assert stranger.post("/api/pair", content=b'{"code": "1"}', headers={"origin": t.base,
                             "content-type": "text/plain"}).status_code == 415
        assert judge.get("/api/state").status_code == 200  # the judge's phone is still served


def test_a_request_for_another_name_is_refused_and_the_configured_names_are_answered(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="controller.web.console")
    with LiveTable(tmp_path, checkin=True, console='names = ["tianhei.local"]\n') as t, client(t) as anyone:
        port = t.console.port
        for path in ("/", "/pair", "/api/state", "/static/public.js"):
            r = anyone.get(path, headers={"host": f"evil.example:{port}"})
            assert r.status_code == 421, (path, r.status_code)
        assert any("Host 'evil.example" in r.getMessage() for r in caplog.records)
        assert anyone.get("/", headers={"host": f"tianhei.local:{port}"}).status_code == 200
        assert anyone.get("/", headers={"host": f"localhost:{port}"}).status_code == 200
        assert anyone.get("/").status_code == 200  # the address the phone connected to


class Crowd:
    """``addresses`` machines each holding one connection that never finishes its request, opened again as soon
    as the server closes it, from a thread of its own until the end (every wait a poll on the sockets: the
    process holds more than select's 1,024 descriptors)."""

    def __init__(self, t: LiveTable, addresses: list[str]) -> None:
        import threading

        self.t, self.addresses = t, addresses
        self.done = threading.Event()
        self.opened = 0
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        held: dict[int, tuple[str, socket.socket]] = {}
        poller = select.poll()
        try:
            while not self.done.is_set():
                holding = {address for address, _ in held.values()}
                for address in self.addresses:
                    if address not in holding:
                        with contextlib.suppress(OSError):
                            sock = silent(self.t, address)
                            held[sock.fileno()] = (address, sock)
                            poller.register(sock, select.POLLIN)
                            self.opened += 1
                for fd, _ in poller.poll(50):
                    address, sock = held[fd]
                    if closed_by_server(sock):
                        poller.unregister(fd)
                        del held[fd]
                        sock.close()
        finally:
            for _, sock in held.values():
                sock.close()

    def __enter__(self) -> Crowd:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(10)


def test_250_addresses_each_holding_a_silent_connection_never_make_the_judges_commands_fail(tmp_path, monkeypatch):
    """Room is made by closing a waiting connection of the address holding the most, and the judge's phone
    (its socket and its kept-alive connection) held the most when 250 addresses held one each: 85 of 88 commands
    failed. A connection that carried a paired judge's request is never the one closed."""
    monkeypatch.setattr(server, "HEAD_TIMEOUT_S", 60.0)  # the crowd is pushed out by room-making, not the deadline
    crowd = [f"127.0.{8 + n // 250}.{n % 250 + 1}" for n in range(250)]
    with LiveTable(tmp_path, tls=False) as t, client(t, "127.0.0.2") as judge:
        csrf = pair(t, judge)
        cookie = judge.cookies["tianhei_judge"]
        with t.socket("/ws/judge", origin=t.base, additional_headers={"cookie": f"tianhei_judge={cookie}"},
                      open_timeout=5, source_address=("127.0.0.2", 0)), Crowd(t, crowd) as flood:
            end = time.monotonic() + 30
            while t.on_loop(lambda: t.console.doorman.refused["evicted"]) < 50:  # the house is full and churning
                assert time.monotonic() < end, "the crowd never filled the console"
                select.select([], [], [], 0.05)
            answers = [command(t, judge, csrf, seq, "pause" if seq % 2 else "resume").status_code
                       for seq in range(1, 13)]
            evicted = t.on_loop(lambda: t.console.doorman.refused["evicted"])
    assert answers == [200] * 12, answers
    assert flood.opened > len(crowd) and evicted > 50  # the crowd kept pushing while the judge played
