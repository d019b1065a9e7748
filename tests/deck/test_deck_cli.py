"""``tianhei deck`` from the command line, the shipped example deck, bad deck files, and NDEF text on a live gpio
table."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.config.decks import load_deck
from controller.config.errors import ConfigError
from controller.config.settings import rules_variant_roles
from controller.diag.cards import card_texts
from controller.diag.deck import Enrollment
from controller.diag.host import Host, _NotYet
from controller.director.clock import VirtualScheduler
from controller.nfc.ndef import text_tlv
from controller.nfc.reader import NfcError
from controller.screens.strings import Lang
from controller.sim.table import SimTable
from tests.gpio.rig import make_rig

DECKS = Path(__file__).resolve().parents[2] / "decks"


def test_the_example_deck_loads_with_its_variants_roles() -> None:
    deck = load_deck("example-12", roles=rules_variant_roles("standard-2.0"), decks_dir=DECKS)
    assert (deck.count("killer"), deck.count("police"), deck.count("civilian")) == (3, 3, 6)


def test_a_deck_with_an_unknown_role_names_the_key_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('name = "bad"\n[[card]]\nuid = "04AABBCC"\nrole = "kiler"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_deck("bad", roles={"killer", "police", "civilian"}, decks_dir=tmp_path)
    text = str(info.value)
    assert "card[0].role" in text and "'kiler'" in text and "killer" in text
    assert "bad.toml" in text


def test_enroll_show_and_check_on_the_simulated_table(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["deck", "enroll", "club", "--hardware", "sim", "--auto", "--players", "4", "--lang", "en"]) == 0
    assert (tmp_path / "decks" / "club.toml").is_file()
    assert main(["deck", "enroll", "club", "--hardware", "sim", "--auto"]) == 2, "never overwritten silently"
    assert main(["deck", "show", "club"]) == 0
    assert main(["deck", "check", "club", "--hardware", "sim", "--auto", "--players", "4"]) == 0
    out = capsys.readouterr()
    assert "saved 4 cards to decks/club.toml" in out.out
    assert "deck club: all 4 cards present" in out.out
    assert "already exists" in out.err


def test_show_names_a_missing_deck_and_the_ones_there_are(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "show", "nope", "--decks", str(DECKS)]) == 2
    assert "no deck 'nope'" in capsys.readouterr().err


def test_diag_on_the_simulated_table_prints_the_table(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["diag", "--hardware", "sim", "--auto", "--players", "2", "--lang", "en"]) == 0
    assert "all parts pass" in capsys.readouterr().out
    assert main(["diag", "--hardware", "sim", "--players", "2", "--deadline", "3"]) == 1
    assert main(["diag", "--hardware", "sim", "--seats", "9", "--players", "2"]) == 2
    assert "no seat 9" in capsys.readouterr().err


def test_enrolling_on_a_live_gpio_table_reads_the_role_written_on_the_card() -> None:
    """The real path: the asyncio loop runs the enrollment, the I/O thread polls the PN532s and, between polls,
    reads the text of the card seat 4 taps; the answer reaches the loop and no role has to be chosen."""
    rig = make_rig(poll_period=0.0)
    memory = text_tlv("杀手", "zh")
    rig.readers[4].ndef_pages = {4 + i: memory[4 * i: 4 * i + 4].ljust(4, b"\0") for i in range(8)}
    lines: list[str] = []

    def note(line: str) -> None:
        lines.append(line)
        if line.startswith("0 cards enrolled"):  # the seat is asked to tap: lay the card on seat 4
            rig.readers[4].card = bytes.fromhex("04D1A600000009")

    host = Host(rig.table, _NotYet())
    try:
        texts = card_texts(rig.table)
        assert texts is not None
        deck = host.run(lambda scheduler: Enrollment(rig.table, "tagged", ("killer", "police", "civilian"),
                                                     Lang.EN, card_texts=texts, count=1, idle_s=5,
                                                     note=note).script())
    finally:
        rig.factory.close()
    assert [(c.uid, c.role) for c in deck.cards] == [("04D1A600000009", "killer")]
    assert "seat 4: card 04D1A600000009 is killer" in lines
    assert not any("choose its role" in line for line in lines)
    assert rig.readers[4].overlapped == 0


def test_a_card_taken_away_before_its_text_is_read_is_said_and_its_role_asked() -> None:
    rig = make_rig()
    rig.table.start(rig.events.append, thread=False)
    try:
        texts = card_texts(rig.table)
        assert texts is not None
        future = texts(4, "04D1A600000009")  # no card on seat 4's reader
        rig.table.step()
        with pytest.raises(NfcError, match="seat 4: card 04D1A600000009 is no longer on the reader"):
            future.result(timeout=0)
    finally:
        rig.table.stop()
        rig.factory.close()


def test_tables_whose_readers_cannot_read_card_memory_ask_every_role() -> None:
    clock = VirtualScheduler()
    assert card_texts(SimTable(2, clock.now, remote=False)) is None
