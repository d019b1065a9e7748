"""A new role is one ability module plus a variant file (DESIGN.md "Roles, abilities and their words";
docs/architecture.md "Add a role"): the 守墓人 gravekeeper of ``roles/gravekeeper.py`` and
``roles/gravekeeper-2.0.toml``, neither known to the engine, the bots or the director, plays whole games."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.rules.events import Acted, Died, Event, NightFell, Opened
from controller.rules.variant import VariantError, load_variant
from tests.rules import roles as boards
from tests.rules.roles import gravekeeper

TOML = Path(__file__).parent / "roles" / "gravekeeper-2.0.toml"


@pytest.fixture
def registered() -> Iterator[None]:
    gravekeeper.install()
    yield
    gravekeeper.uninstall()


def games(policy: str, n: int) -> Iterator[tuple[tuple[str, ...], list[Event]]]:
    return boards.games("gravekeeper-2.0", 12, policy, n, 7)


def test_without_its_module_the_variant_names_the_unknown_ability() -> None:
    with pytest.raises(VariantError, match="unknown value 'read_grave'"):
        load_variant(str(TOML))


@pytest.mark.parametrize("policy", ["uninformed", "random", "heuristic"])
def test_the_gravekeeper_learns_the_side_of_the_player_voted_out_the_day_before(registered: None,
                                                                               policy: str) -> None:
    read = 0
    for roles, events in games(policy, 40):
        voted_out: int | None = None  # the last day's execution
        read_last: int | None = None
        for e in events:
            if isinstance(e, NightFell):
                yesterday, voted_out = voted_out, None
            elif isinstance(e, Died) and e.cause.startswith("executed"):
                voted_out = e.seat
            elif isinstance(e, Opened) and e.step == "read_grave":
                # woken only the night after a day that voted a player out, and offered that player alone
                assert yesterday is not None and yesterday != read_last
                assert e.choices == (yesterday,)
            elif isinstance(e, Acted) and e.step == "read_grave" and e.target is not None:
                side = "killers" if roles[e.target - 1] == "killer" else "good"
                assert e.result == side
                read_last = e.target
                read += 1
    assert read > 20  # the games did reach nights after a vote with the gravekeeper alive


def test_the_gravekeeper_sleeps_until_someone_is_voted_out(registered: None) -> None:
    for _, events in games("uninformed", 10):
        first = next(i for i, e in enumerate(events) if isinstance(e, Died) and e.cause.startswith("executed"))
        assert not any(isinstance(e, Opened) and e.step == "read_grave" for e in events[:first])


def test_the_table_refuses_the_new_role_before_the_game_while_its_voice_has_no_words(
        registered: None, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main

    assert main(["run", "--variant", str(TOML), "--players", "12", "--seed", "1", "--autoplay", "heuristic"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "roles.gravekeeper: the table's voice has no words for this role" in err and "tianhei simulate" in err
