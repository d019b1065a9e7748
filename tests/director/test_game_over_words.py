"""At the end the seats and the board name the winning side in the words of the version played, as the voice's
ending does (standard-2.0, 004 §4: 「警察一方获胜」), not the generic 「好人胜」."""

from __future__ import annotations

from controller.board.public import public_facts
from controller.board.words import board_lines
from controller.screens import views as v
from controller.screens.strings import Lang
from tests.director.helpers import session


def test_a_standard_2_0_game_ends_with_the_seeds_words_for_the_winning_side_on_every_seat_and_the_board():
    s = session("standard-2.0", 10, 4, "heuristic")
    s.start()
    s.run(max_time=100_000)
    d = s.director
    assert d.stage == "over" and d.state is not None
    ends = {seat: ui.drawn for seat, ui in d.ui.items()}
    assert all(isinstance(view, v.GameOver) and view.variant == "standard-2.0" for view in ends.values()), ends
    said = {"good": "警察一方胜", "killers": "杀手一方胜", "draw": "平局"}[d.state.winner or "draw"]
    texts = [line.text for line in board_lines(public_facts(d.state, d.events), Lang.ZH)]
    assert said in texts, texts
