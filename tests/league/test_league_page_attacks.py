"""The league's page attacked from loopback, as a page of another site open in a browser on the league's network
would try it: DNS rebinding (its own name made to point at the league, then ``/state`` read through the
browser), and calls that would change something. The real app on a real uvicorn server on 127.0.0.1, every
attack a handful of requests."""

from __future__ import annotations

import logging
import socket

import pytest

from controller.cli import main
from controller.config.errors import ConfigError
from controller.config.settings import load
from controller.league.service import LeagueService
from controller.league.store import LeagueStore
from controller.league.web import create_app
from controller.web.hosts import default_names
from tests.hall.served import Served
from tests.league.conftest import message, record

EVIL = "https://evil.example"
T = 1_764_000_000.0


def served_league(tmp_path, *names: str) -> tuple[LeagueService, Served]:
    league = LeagueService(LeagueStore(tmp_path / "league.sqlite"), clock=lambda: T)
    league.receive("league/red/record", message("red", record("g1", "good", [
        ("Ada", "police", "good", "04a1"), ("Bo", "killer", "killers", None)]), at=T - 60))
    return league, Served(create_app(league, names=default_names("127.0.0.1", *names)))


def test_a_rebinding_page_cannot_read_the_league_and_the_page_answers_its_own_names(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="controller.league.web")
    _league, served = served_league(tmp_path, "league.example.org")
    with served, served.browser() as browser:
        for path in ("/state", "/", "/?lang=en"):
            rebound = browser.get(path, headers={"host": f"evil.example:{served.port}"})
            assert rebound.status_code == 421 and "Ada" not in rebound.text, path
        assert any("Host 'evil.example" in r.getMessage() and "[league] http_names" in r.getMessage()
                   for r in caplog.records)
        for name in ("localhost", "league.example.org", "127.0.0.1", socket.gethostname()):
            answer = browser.get("/state", headers={"host": f"{name}:{served.port}"})
            assert answer.status_code == 200 and answer.json()["standings"], name


def test_another_sites_page_has_no_call_that_changes_the_league(tmp_path):
    league, served = served_league(tmp_path)
    before = league.snapshot()
    with served, served.browser() as browser:
        for method, path in (("POST", "/"), ("POST", "/state"), ("PUT", "/state"), ("DELETE", "/state")):
            sent = browser.request(method, path, headers={"origin": EVIL, "sec-fetch-site": "cross-site"},
                                   json={"merge": ["#1", "#2"]})
            assert sent.status_code == 405, (method, path)
    assert league.snapshot() == before


def test_the_leagues_names_come_from_league_http_names(tmp_path):
    toml = tmp_path / "tianhei.toml"
    toml.write_text('[league]\nhttp_names = ["league.example.org", "10.0.0.5"]\n', encoding="utf-8")
    assert load(toml, validate_game=None, find_pack=None).league.http_names == ("league.example.org", "10.0.0.5")
    toml.write_text('[league]\nhttp_names = "league.example.org"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"not a list of host names \(league\.http_names"):
        load(toml, validate_game=None, find_pack=None)


def test_a_bad_league_config_is_one_line_and_no_traceback(tmp_path, capsys):
    toml = tmp_path / "tianhei.toml"
    toml.write_text('[league]\nhttp_names = [3]\n', encoding="utf-8")
    assert main(["league", "--db", str(tmp_path / "l.sqlite"), "--config", str(toml)]) == 2
    err = capsys.readouterr().err
    assert "league.http_names" in err and "Traceback" not in err
