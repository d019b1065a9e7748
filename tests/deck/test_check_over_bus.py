"""``tianhei deck check`` over the seat bus: the shipped example deck's 7-byte NTAG cards laid on real firmware
nodes (under ``micropython``) on a simulated RS-485 bus, read by their MFRC522s through cascade level 2 (issue 5)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import controller.cli.deck as deck_cli
from controller.cli import main
from controller.config.profile import Profile
from controller.diag.host import Host, bus_sim_host

DECKS = Path(__file__).resolve().parents[2] / "decks"


@pytest.fixture
def over_the_bus(monkeypatch: pytest.MonkeyPatch) -> list[Host]:
    """The deck tool's table, whatever ``--hardware`` says, is three seat nodes on the simulated bus."""
    hosts: list[Host] = []

    @contextmanager
    def bus_host(profile: Profile, *, auto: bool = False, players: int = 8,
                 pile: list[tuple[str, str]] | None = None) -> Iterator[Host]:
        with bus_sim_host(3, auto=auto, pile=pile) as host:
            hosts.append(host)
            yield host

    monkeypatch.setattr(deck_cli, "open_host", bus_host)
    return hosts


def test_deck_check_of_the_example_deck_over_the_bus_finds_all_twelve(
        over_the_bus: list[Host], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["deck", "check", "example-12", "--decks", str(DECKS), "--hardware", "sim", "--auto",
                 "--lang", "en"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "deck example-12: all 12 cards present" in out
    for seat in (1, 2, 3):  # the pile went round the table: every node's reader read long UIDs
        assert f"seat {seat}: card 04E7C2" in out
    assert over_the_bus and over_the_bus[0].simulated
