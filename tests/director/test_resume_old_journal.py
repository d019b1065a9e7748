"""Journals written before the variant files said which roles nod (V2.2, W5) still resume and replay as they were
played. ``journals/`` holds two games cut off 150 s in, each with the events of the same game played through, all
written by the engine when it still gave a role named ``killer`` the nod by default: standard-2.0 (whose file
then had no ``nod``; the police nod at a killer on night 1, before the cut, and twice after it) and
v5.0-infernal (whose file already wrote its killers' ``nod = true``). The recorded form keeps that default for
them (controller/rules/variant_record.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from controller.cli import main
from controller.director.journal import SqliteJournal
from controller.rules.events import to_json
from controller.rules.setup import configure
from controller.rules.variant import load_variant

JOURNALS = Path(__file__).with_name("journals")
GAMES = [("standard-2.0", 12, 1), ("v5.0-infernal", 13, 2)]


@pytest.mark.parametrize(("variant", "players", "seed"), GAMES)
def test_a_game_cut_off_before_the_upgrade_goes_on_as_the_same_game_and_ends_as_it_did(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], variant: str, players: int, seed: int) -> None:
    name = f"{variant}-{players}p-seed{seed}"
    path = tmp_path / "evening.sqlite"
    shutil.copy(JOURNALS / f"{name}-cut.sqlite", path)
    # asked for the same game: it is recognised as itself (no "variant file changed" for the judge to decide)
    assert main(["run", "--journal", str(path), "--variant", variant, "--players", str(players),
                 "--seed", str(seed), "--lang", "en", "--json"]) == 0
    err = capsys.readouterr().err
    assert "changed since the game began" not in err and "--resume-saved" not in err
    resumed = SqliteJournal(path).replay()
    assert resumed is not None and resumed.finished
    before = json.loads((JOURNALS / f"{name}-whole.json").read_text("utf-8"))
    assert [to_json(e) for e in resumed.events] == before


def test_the_police_nod_at_a_killer_after_the_cut_as_they_did_before() -> None:
    before = json.loads((JOURNALS / "standard-2.0-12p-seed1-whole.json").read_text("utf-8"))
    checks = [e["result"] for e in before if e["type"] == "acted" and e["step"] == "check"]
    assert checks == ["nod", "shake", "nod", "shake", "nod"]  # what the fixture proves: nods on both sides of the cut


@pytest.mark.parametrize(("variant", "players", "seed"), GAMES)
def test_a_new_game_records_its_variant_as_the_journals_before_the_upgrade_did(
        variant: str, players: int, seed: int) -> None:
    old = SqliteJournal(JOURNALS / f"{variant}-{players}p-seed{seed}-cut.sqlite").replay()
    assert old is not None
    created = to_json(old.events[0])
    assert created["type"] == "game_created"
    now = configure(load_variant(variant), players).variant_data
    if variant == "v5.0-infernal":  # its file wrote the killers' nod already; the record now leaves it to the default
        assert created["variant"]["roles"]["killer"].pop("nod") is True
    assert json.loads(json.dumps(now)) == created["variant"]
