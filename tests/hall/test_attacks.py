"""The hall's page attacked from loopback, as a page of another site open in the hall TV's own browser would try
it (the organiser's buttons take requests from the hall's machine when no organiser code is set, the default):
cross-site calls, DNS rebinding, a body nested a thousand deep. The real app on a real uvicorn server on
127.0.0.1, every attack a handful of requests."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from controller.hall.service import HallService, RoomConfig
from controller.hall.web import create_app
from controller.web.hosts import default_names
from tests.hall.conftest import hall
from tests.hall.served import Served
from tests.hall.test_service import envelope

EVIL = "https://evil.example"
DEEP = b"[" * 1024 + b"]" * 1024  # 2 KB


class RealHall(Served):
    """The hall's page served by uvicorn on 127.0.0.1 in a thread of its own, as ``tianhei hall`` serves it."""

    def __init__(self, service: HallService, names: tuple[str, ...] = ()) -> None:
        self.service = service
        super().__init__(create_app(service, names=default_names("127.0.0.1", *names)))

    def __enter__(self) -> RealHall:
        super().__enter__()
        return self

    def waiting(self) -> list[str]:
        return [w["name"] for w in self.service.snapshot()["waiting"]]


@pytest.fixture
def real_hall() -> Iterator[RealHall]:
    h = hall([RoomConfig("3", 12, "entry")])
    for name in "ABCDEF":
        h.add_waiting(name)
    with RealHall(h) as server:
        yield server


def test_another_sites_page_in_the_hall_tvs_browser_cannot_touch_the_list_or_send_a_proposal(real_hall, caplog):
    caplog.set_level(logging.WARNING, logger="controller.hall.web")
    (p,) = real_hall.service.snapshot()["proposals"]
    with real_hall.browser() as tv:
        forged = [  # what a page on evil.example can make the browser send without asking it first
            ("POST", "/waiting", b'{"name": "Mallory"}', {"origin": EVIL, "content-type": "text/plain"}),
            ("POST", "/send", b'{"key": "%s"}' % p["key"].encode(), {"origin": EVIL, "content-type": "text/plain"}),
            ("DELETE", "/waiting/A", b"{}", {"origin": EVIL, "content-type": "text/plain"}),
            # and what it could only send after a CORS preflight the hall never answers, refused all the same
            ("POST", "/waiting", b'{"name": "Mallory"}', {"origin": EVIL, "content-type": "application/json"}),
            ("POST", "/waiting", b'{"name": "Mallory"}', {"sec-fetch-site": "cross-site",
                                                           "content-type": "application/json"}),
            # no Origin at all (an old browser's form post): still not JSON
            ("POST", "/waiting", b'{"name": "Mallory"}', {"content-type": "text/plain"}),
        ]
        for method, path, body, headers in forged:
            r = tv.request(method, path, content=body, headers=headers)
            assert r.status_code in (403, 415), (method, path, headers, r.status_code, r.text)
        assert real_hall.waiting() == list("ABCDEF")
        assert real_hall.service.snapshot()["proposals"] == [p]  # nothing was sent
        assert any("another site's page" in r.getMessage() and "evil.example" in r.getMessage()
                   for r in caplog.records)
        # the hall's own page (its own Origin, JSON) still works from the hall's machine
        own = tv.post("/waiting", json={"name": "Grace"}, headers={"origin": real_hall.base})
        assert own.status_code == 200 and "Grace" in real_hall.waiting()


def test_a_rebinding_page_cannot_read_the_hall_and_the_hall_answers_its_own_names(caplog):
    caplog.set_level(logging.WARNING, logger="controller.hall.web")
    with RealHall(hall(), names=("hall.myclub.lan",)) as server, server.browser() as tv:
        rebound = tv.get("/state", headers={"host": f"evil.example:{server.port}"})
        assert rebound.status_code == 421 and "rooms" not in rebound.text
        assert tv.get("/", headers={"host": f"evil.example:{server.port}"}).status_code == 421
        assert any("Host 'evil.example" in r.getMessage() and "[hall] http_names" in r.getMessage()
                   for r in caplog.records)
        with pytest.raises(InvalidStatus):
            connect(f"ws://127.0.0.1:{server.port}/ws", proxy=None, open_timeout=5,
                    additional_headers={"host": f"evil.example:{server.port}"})
        with pytest.raises(InvalidStatus):  # a socket opened by another site's page
            connect(f"ws://127.0.0.1:{server.port}/ws", proxy=None, open_timeout=5, origin=EVIL)  # type: ignore[arg-type]
        for name in ("localhost", "hall.myclub.lan", "127.0.0.1", socket.gethostname()):
            assert tv.get("/state", headers={"host": f"{name}:{server.port}"}).status_code == 200, name
        with connect(f"ws://127.0.0.1:{server.port}/ws", proxy=None, open_timeout=5,
                     origin=server.base) as ws:  # type: ignore[arg-type]
            assert "rooms" in ws.recv(5)


def test_a_body_nested_1024_deep_is_a_bad_request_and_one_line_in_the_log(real_hall, caplog):
    caplog.set_level(logging.INFO)
    with real_hall.browser() as tv:
        for method, path in (("POST", "/waiting"), ("DELETE", "/waiting/A"), ("POST", "/send")):
            caplog.clear()
            r = tv.request(method, path, content=DEEP, headers={"content-type": "application/json"})
            assert r.status_code == 400 and "nested" in r.json()["error"], (path, r.text)
            lines = [rec for rec in caplog.records if rec.levelno >= logging.WARNING]
            assert len(lines) == 1 and path in lines[0].getMessage(), [x.getMessage() for x in lines]
            assert not any(rec.exc_info for rec in caplog.records)
        assert real_hall.waiting() == list("ABCDEF")


def test_a_message_from_a_room_nested_1024_deep_is_dropped_with_a_line(caplog):
    h = hall([RoomConfig("3")])
    caplog.set_level(logging.WARNING)
    assert h.receive("tianhei/test/3/status", DEEP) == "rejected"
    assert any("nested deeper" in r.getMessage() for r in caplog.records)
    assert h.receive("tianhei/test/3/status", envelope("3", "status", 1, {"state": "playing", "game": "g",
                                                                         "day": 1})) == "taken"
