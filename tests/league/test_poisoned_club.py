"""A poisoned club: one club's certificate (its hall, or any table's login passed on through it) publishes what no
hall of ours writes, through the real league Mosquitto's TLS listener on loopback. The league refuses each
message with one line naming the club and the field, keeps it in its quarantine, lists a refused game in the club's
receipt (so its hall stops offering it), and takes the next club's game; its link never stops for good, and
``connected`` says whether it is linked. Rows stored before the league checked its input never turn its page into
an error."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time

from controller.cli import main
from controller.hall.mqtt import BrokerAddress
from controller.league.bridge import LEAGUE_USER
from controller.league.service import LeagueService
from controller.league.store import LeagueStore
from controller.league.web import create_app
from tests.hall.conftest import until
from tests.hall.served import Served
from tests.league.conftest import club_tls_client, collect, message, record

AT = 1_764_000_000.0


def game(uid: str, card: str | None = "04a1") -> dict:
    return record(uid, "good", [("Ada", "police", "good", card), ("Bo", "killer", "killers", None),
                                ("Cai", "civilian", "good", None)])


def poisons() -> list[tuple[str, str, str, bytes]]:
    """(what, the field the league names, the topic's kind, the payload) of each poison from club red."""
    numbered, listed = game("p-card"), game("p-member")
    numbered["seats"][0]["card"] = 4  # normalise_card(4): AttributeError killed the league's link
    listed["seats"][1]["member"] = ["Bo"]
    huge = message("red", dict(game("p-players"), players="@@")).replace(b'"@@"', b"1e999")  # OverflowError
    deep = b'{"room": "1", "record": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"  # RecursionError
    no_points = {"member": "Ada", "wins": 1, "games": 1, "rank": 1}
    return [
        ("a seat's card that is a number", "record.seats[0].card", "record", message("red", numbered)),
        ("a seat's member that is a list", "record.seats[1].member", "record", message("red", listed)),
        ("players: 1e999", "record.players", "record", huge),
        ("a record nested 100,000 deep", "message", "record", deep),
        ("a record written at 1e300", "at", "record", message("red", game("p-1e300"), at=1e300)),
        ("a record written at 1e400", "at", "record",
         message("red", game("p-1e400"), at=1.5).replace(b'"at": 1.5', b'"at": 1e400')),
        ("standings dated 9999-12-31", "evening", "standings",
         json.dumps({"evening": "9999-12-31", "standings": [dict(no_points, points=3)]}).encode()),
        ("a standings row without points", "standings[0].points", "standings",
         json.dumps({"evening": "2025-11-24", "standings": [no_points]}).encode()),
    ]


def test_a_poisoned_club_is_refused_quarantined_and_answered_and_the_next_clubs_game_is_taken(
        tmp_path, league_broker, certs, caplog):
    caplog.set_level(logging.WARNING, logger="controller.league")
    root, made = certs
    sent = poisons()

    async def go() -> LeagueService:
        stop = asyncio.Event()
        league = LeagueService(LeagueStore(tmp_path / "league.sqlite"))
        task = asyncio.create_task(league.run_mqtt(BrokerAddress(
            "127.0.0.1", league_broker.port, LEAGUE_USER, league_broker.files.passwords[LEAGUE_USER]), stop))
        await until(lambda: league.connected)
        receipts: list = []
        async with club_tls_client(league_broker, root / "ca.crt", made["red"].cert, made["red"].key) as red, \
                club_tls_client(league_broker, root / "ca.crt", made["blue"].cert, made["blue"].key) as blue:
            await red.subscribe("league/red/receipt", qos=1)
            reader = asyncio.create_task(collect(red, receipts))
            for _, _, kind, payload in sent:
                await red.publish(f"league/red/{kind}", payload, qos=1)
            await blue.publish("league/blue/record", message("blue", game("b1")), qos=1)
            await until(lambda: league.store.count_games() == 1)
            # the refused games are answered: red's hall stops offering them
            answered = {"p-card", "p-member", "p-players", "p-1e300", "p-1e400"}
            await until(lambda: any(answered <= set(json.loads(p)["uids"]) for _, p in receipts))
            reader.cancel()
        assert league.connected
        stop.set()
        await task
        assert not league.connected  # stopped: /state says so
        return league

    league = asyncio.run(go())
    assert [g["uid"] for g in league.store.games()] == ["b1"] and league.counts.rejected == len(sent)
    kept = league.store.quarantined()
    assert sorted(q.field for q in kept) == sorted(field for _, field, _, _ in sent)
    assert {q.sender for q in kept} == {"club red"}
    lines = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(lines) == len(sent)
    for (what, field, _, _), line in zip(sent, lines, strict=True):
        assert "from club red" in line and f": {field}: " in line, what


def test_the_leagues_link_starts_again_after_a_fault_or_a_killed_broker_and_connected_says_so(tmp_path, league_broker, certs, caplog):
    caplog.set_level(logging.WARNING, logger="controller")
    root, made = certs

    async def go() -> tuple[LeagueService, list[bool]]:
        stop = asyncio.Event()
        league = LeagueService(LeagueStore(tmp_path / "league.sqlite"))
        real, faults = league.store.clubs, [1]

        def clubs():  # a fault of ours on the first connection (a disk error, a bug)
            if faults:
                faults.pop()
                raise RuntimeError("disk I/O error")
            return real()
        league.store.clubs = clubs  # type: ignore[method-assign]
        seen: list[bool] = []

        def linked() -> None:
            if not seen or seen[-1] != league.connected:
                seen.append(league.connected)
        league.listeners.append(linked)
        task = asyncio.create_task(league.run_mqtt(BrokerAddress(
            "127.0.0.1", league_broker.port, LEAGUE_USER, league_broker.files.passwords[LEAGUE_USER]), stop))
        await until(lambda: not faults and league.connected)
        league_broker.kill()  # and the broker killed under it: /state says so until it is back
        await until(lambda: not league.connected)
        league_broker.start()
        await until(lambda: league.connected)
        async with club_tls_client(league_broker, root / "ca.crt", made["blue"].cert, made["blue"].key) as blue:
            await blue.publish("league/blue/record", message("blue", game("b1")), qos=1)
            await until(lambda: league.store.count_games() == 1)
        stop.set()
        await task
        return league, seen

    league, seen = asyncio.run(go())
    assert [g["uid"] for g in league.store.games()] == ["b1"]
    # /state's connected: up, down on the fault, up again, down with the broker, up again, stopped
    assert seen == [True, False, True, False, True, False]
    (line,) = [r.getMessage() for r in caplog.records if "fault" in r.getMessage()]
    assert "league" in line and "RuntimeError: disk I/O error" in line and "starts again" in line


def test_the_league_page_answers_for_rows_stored_before_the_league_checked_them(tmp_path):
    store = LeagueStore(tmp_path / "league.sqlite")
    league = LeagueService(store, clock=lambda: AT)
    assert league.receive("league/red/record", message("red", game("good"), at=AT - 60)) == "taken"
    league.receive("league/red/standings", json.dumps({"evening": "2025-11-24", "standings": [
        {"member": "Ada", "points": 3, "wins": 1, "games": 1, "rank": 1}]}).encode())
    league.receive("league/blue/bridge", b"1")
    with store.transaction():  # what an older league kept, or a hand edit
        for uid, at, body in (("far", 1e300, game("far")), ("inf", math.inf, game("inf")),
                              ("card", AT, dict(game("card"), seats=[dict(game("card")["seats"][0], card=4)])),
                              ("broken", AT, "not a record")):
            store.db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
                             ("red", uid, "1", at, "2025-11-24", json.dumps(body), AT))
        store.db.execute("INSERT INTO games VALUES ('red', 'text', '1', ?, '2025-11-24', '{not json', ?)", (AT, AT))
        store.db.execute("INSERT INTO club_standings VALUES ('red', '9999-12-31', ?, ?)",
                         (json.dumps([{"member": "Mallory", "wins": 1}]), AT))
        store.db.execute("INSERT INTO club_standings VALUES ('blue', '2025-11-24', ?, ?)",
                         (json.dumps([{"member": "Cai", "wins": 1}, {"member": "Dan", "points": 2, "wins": 1,
                                                                        "games": 1, "rank": 1}]), AT))
    with Served(create_app(league)) as served, served.browser() as browser:
        for path in ("/", "/state", "/?lang=en"):
            assert browser.get(path).status_code == 200, path
        snap = browser.get("/state").json()
        page = browser.get("/?lang=en").text
    assert [g["uid"] for g in snap["week"]] == ["good"]
    clubs = {c["club"]: c for c in snap["clubs"]}
    assert clubs["red"]["evening"] == "2025-11-24" and [s["member"] for s in clubs["red"]["standings"]] == ["Ada"]
    assert [s["member"] for s in clubs["blue"]["standings"]] == ["Dan"]
    assert "Mallory" not in page and "Ada" in page


def test_tianhei_league_quarantine_prints_what_was_refused(tmp_path, capsys):
    db = tmp_path / "league.sqlite"
    assert main(["league", "quarantine", "--db", str(db)]) == 0
    assert "nothing refused" in capsys.readouterr().out
    league = LeagueService(LeagueStore(db), clock=time.time)
    league.receive("league/red/record", poisons()[0][3])
    league.store.close()
    assert main(["league", "quarantine", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "club red" in out and "record.seats[0].card" in out and "league/red/record" in out
