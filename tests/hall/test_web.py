"""The hall's web page and its calls, through Starlette's test client (the browser test is test_hall_page.py)."""

from __future__ import annotations

import warnings

with warnings.catch_warnings():  # starlette's test client names a successor of httpx; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from controller.hall.service import RoomConfig
from controller.hall.web import create_app
from tests.hall.conftest import hall
from tests.hall.test_service import envelope


def test_the_page_is_chinese_by_default_and_english_on_request_and_fetches_nothing_from_outside():
    with TestClient(create_app(hall())) as web:
        zh, en = web.get("/"), web.get("/?lang=en")
    assert zh.status_code == 200 and '<html lang="zh">' in zh.text and '<html lang="en">' in en.text
    assert "http://" not in zh.text.replace("http://\" + ", "") and "https://" not in zh.text  # offline


def test_the_organiser_adds_a_member_who_then_waits_and_a_bad_name_gets_its_reason():
    h = hall()
    with TestClient(create_app(h)) as web:
        assert web.post("/waiting", json={"name": "Ada"}).json() == {"ok": True}
        again = web.post("/waiting", json={"name": "Ada"})
        assert again.status_code == 400 and again.json()["error"] == "Ada is already waiting"
        assert web.post("/waiting", content=b"nonsense").json()["error"].startswith("send JSON")
        assert [w["name"] for w in web.get("/state").json()["waiting"]] == ["Ada"]
        assert web.request("DELETE", "/waiting/Ada", json={}).json() == {"ok": True}


def test_with_an_organisers_code_the_list_changes_only_with_it():
    h = hall()
    with TestClient(create_app(h, organiser_code="4321")) as web:
        assert web.post("/waiting", json={"name": "Ada"}).status_code == 403
        assert web.post("/waiting", json={"name": "Ada", "code": "4321"}).status_code == 200
        assert web.get("/state").status_code == 200  # looking needs no code


def test_the_web_socket_sends_the_hall_at_once_and_again_when_a_room_changes():
    h = hall([RoomConfig("3")])
    with TestClient(create_app(h)) as web, web.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["rooms"][0]["status"] == {}
        h.receive("tianhei/test/3/status", envelope("3", "status", 1, {"state": "playing", "game": "g", "day": 1}))
        assert ws.receive_json()["rooms"][0]["status"]["state"] == "playing"


def test_sending_a_proposal_from_the_page():
    h = hall([RoomConfig("3", 12, "entry")])
    with TestClient(create_app(h)) as web:
        for name in "ABCDEF":
            web.post("/waiting", json={"name": name})
        (p,) = web.get("/state").json()["proposals"]
        assert web.post("/send", json={"key": p["key"]}).json() == {"ok": True, "room": "3", "members": list("ABCDEF")}
        assert web.post("/send", json={"key": p["key"]}).status_code == 400
