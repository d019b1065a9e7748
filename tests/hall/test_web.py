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

#: The hall's own machine (its TV's browser), and a phone elsewhere on the club network.
HALL_PC = ("127.0.0.1", 50000)
PHONE = ("192.168.8.30", 51000)


def page_of(app, client=("127.0.0.1", 50000)) -> TestClient:
    """A browser with the hall's page open at one of the hall's own names."""
    return TestClient(app, base_url="http://localhost:8088", client=client)


def test_the_page_is_chinese_by_default_and_english_on_request_and_fetches_nothing_from_outside():
    with page_of(create_app(hall())) as web:
        zh, en = web.get("/"), web.get("/?lang=en")
    assert zh.status_code == 200 and '<html lang="zh">' in zh.text and '<html lang="en">' in en.text
    assert "http://" not in zh.text.replace("http://\" + ", "") and "https://" not in zh.text  # offline


def test_the_organiser_adds_a_member_who_then_waits_and_a_bad_name_gets_its_reason():
    h = hall()
    with page_of(create_app(h), client=HALL_PC) as web:
        assert web.post("/waiting", json={"name": "Ada"}).json() == {"ok": True}
        again = web.post("/waiting", json={"name": "Ada"})
        assert again.status_code == 400 and again.json()["error"] == "Ada is already waiting"
        assert web.post("/waiting", content=b"nonsense").json()["error"].startswith("send JSON")
        assert [w["name"] for w in web.get("/state").json()["waiting"]] == ["Ada"]
        assert web.request("DELETE", "/waiting/Ada", json={}).json() == {"ok": True}


def test_with_an_organisers_code_the_list_changes_only_with_it():
    h = hall()
    with page_of(create_app(h, organiser_code="4321"), client=PHONE) as web:
        refused = web.post("/waiting", json={"name": "Ada"})
        assert refused.status_code == 403 and refused.json()["why"] == "organiser_code_needed"
        assert web.post("/waiting", json={"name": "Ada", "code": "4321"}).status_code == 200
        assert web.get("/state").status_code == 200  # looking needs no code
    with page_of(create_app(h, organiser_code="4321"), client=HALL_PC) as web:  # the code binds the hall too
        assert web.request("DELETE", "/waiting/Ada", json={}).status_code == 403


def test_without_a_code_a_phone_on_the_club_network_cannot_touch_the_list_and_is_told_why():
    """The default is safe: the page is for everyone to look at; with no [hall] organiser_code, the organiser's
    buttons work on the hall's own machine only, and anyone else reads how to turn them on."""
    h = hall([RoomConfig("3", 12, "entry")])
    with page_of(create_app(h), client=HALL_PC) as hall_pc:
        for name in "ABCDEF":
            assert hall_pc.post("/waiting", json={"name": name}).status_code == 200
    with page_of(create_app(h), client=PHONE) as phone:
        (p,) = phone.get("/state").json()["proposals"]
        for call in (lambda: phone.post("/waiting", json={"name": "Mallory"}),
                     lambda: phone.request("DELETE", "/waiting/A", json={}),
                     lambda: phone.post("/send", json={"key": p["key"]})):
            r = call()
            assert r.status_code == 403 and r.json()["why"] == "organiser_code_unset"
            assert "organiser_code" in r.json()["error"] and "tianhei.toml" in r.json()["error"]
        assert [w["name"] for w in phone.get("/state").json()["waiting"]] == list("ABCDEF")  # nothing changed


def test_a_phone_guessing_the_code_is_locked_out_for_a_minute_then_may_try_again():
    now = [0.0]
    h = hall()
    with page_of(create_app(h, organiser_code="4321", clock=lambda: now[0]), client=PHONE) as web:
        for guess in ("0000", "1111", "2222", "3333", "4444"):
            assert web.post("/waiting", json={"name": "Ada", "code": guess}).json()["why"] == "organiser_code_needed"
        locked = web.post("/waiting", json={"name": "Ada", "code": "4321"})  # even the right one, while locked
        assert locked.status_code == 403 and locked.json()["why"] == "organiser_locked"
        now[0] = 61.0
        assert web.post("/waiting", json={"name": "Ada", "code": "4321"}).status_code == 200
        assert [w["name"] for w in web.get("/state").json()["waiting"]] == ["Ada"]


def test_a_code_in_any_script_or_type_is_an_answer_not_a_crash():
    with page_of(create_app(hall(), organiser_code="组织者"), client=PHONE) as web:
        for code in ("１２３", 1234, None, ["4321"]):  # four: a fifth wrong one would lock the phone out
            assert web.post("/waiting", json={"name": "Ada", "code": code}).status_code == 403
        assert web.post("/waiting", json={"name": "Ada", "code": "组织者"}).status_code == 200


def test_the_page_says_every_refusal_in_both_languages():
    from controller.hall.web import PAGE

    page = PAGE.read_text(encoding="utf-8")
    for why in ("organiser_code_unset", "organiser_code_needed", "organiser_locked"):
        assert page.count(f"{why}: ") == 2, why  # zh and en
    assert "T[data.why]" in page


def test_the_web_socket_sends_the_hall_at_once_and_again_when_a_room_changes():
    h = hall([RoomConfig("3")])
    with page_of(create_app(h)) as web, web.websocket_connect("ws://localhost:8088/ws") as ws:
        first = ws.receive_json()
        assert first["rooms"][0]["status"] == {}
        h.receive("tianhei/test/3/status", envelope("3", "status", 1, {"state": "playing", "game": "g", "day": 1}))
        assert ws.receive_json()["rooms"][0]["status"]["state"] == "playing"


def test_sending_a_proposal_from_the_page():
    h = hall([RoomConfig("3", 12, "entry")])
    with page_of(create_app(h), client=HALL_PC) as web:
        for name in "ABCDEF":
            web.post("/waiting", json={"name": name})
        (p,) = web.get("/state").json()["proposals"]
        assert web.post("/send", json={"key": p["key"]}).json() == {"ok": True, "room": "3", "members": list("ABCDEF")}
        assert web.post("/send", json={"key": p["key"]}).status_code == 400


def test_the_hall_pi_opening_its_page_at_its_club_network_address_is_its_own_machine():
    from controller.hall.web import on_this_machine

    assert on_this_machine("192.168.8.2", "192.168.8.2")  # the browser on the hall's Pi, page at its own address
    assert on_this_machine("::1") and on_this_machine("127.0.0.2") and on_this_machine("::ffff:127.0.0.1")
    assert not on_this_machine("192.168.8.30", "192.168.8.2") and not on_this_machine("testclient")


def test_the_page_names_a_werewolf_boards_winners_in_the_boards_words():
    """A result carries the side's ID (``killers``); the page shows it in the version's own words, 狼人胜 after a
    werewolf board (its [words.sides], W1), 杀手胜 after a version without its own words."""
    import json
    import re

    with page_of(create_app(hall())) as web:
        page = web.get("/").text
    words = json.loads(re.search(r"const SIDE_WORDS = (\{.*\});", page).group(1))
    assert words["werewolf-12"]["killers"] == ["狼人", "Werewolves"]
    assert "classic-1.0" not in words  # the generic 好人胜 / 杀手胜
    assert "won(w, s.variant, s.winner_words)" in page and "won(r.winner, r.variant, r.winner_words)" in page
    assert "won(room.last.winner, room.last.variant, room.last.winner_words)" in page
