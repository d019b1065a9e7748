"""The game invariants of test_properties (every game ends, the dead never act, a tally never counts more hands
than the living, the events replay, also after a JSON round trip, refused inputs leave no trace, undo) on the
狼人杀 boards with the sheriff (W10) on, the self-destruct (W11) in play, and a random choice of the W options:
the tie (W13), last words (W12) and 屠城 (W14)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.bots import POLICIES
from controller.rules.options import OPTIONS
from controller.rules.setup import GameConfig, configure
from controller.rules.variant import load_variant
from tests.rules.test_properties import play_checked

BOARDS = {"werewolf-9": 9, "werewolf-12": 12, "werewolf-12-guard": 12}


@st.composite
def w_tables(draw: st.DrawFn) -> tuple[GameConfig, str, int]:
    board = draw(st.sampled_from(sorted(BOARDS)))
    variant = load_variant(board)  # a built-in variant (controller/variants/)
    options: dict[str, Any] = {"sheriff": True}  # W10, also on the 9-player board
    for key in ("tie", "lastwords", "win.all", "witch.self_save"):
        spec = OPTIONS[key]
        options[key] = draw(st.sampled_from(spec.choices) if spec.choices else st.booleans())
    options["tie.limit"] = draw(st.integers(1, 3))
    config = configure(variant, BOARDS[board], options, talk=draw(st.booleans()))
    return config, draw(st.sampled_from(sorted(POLICIES))), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w_tables())
def test_property_w_board_games_with_a_sheriff_end_the_dead_never_act_and_the_events_replay(table):
    config, policy, seed = table
    play_checked(config, policy, seed, None)
