"""The seer's answer and the winner line in the words of the board played (issue 35, item 4): a W board says
狼人 / 好人 (W1, W5: the seer learns "werewolf" or "good"), the seed versions still say 杀手 (V2.2, 004 §4).
Nothing in the renderer or the CLI names a killer: the words come from the variant file's ``[words]``."""

from __future__ import annotations

import pytest

from controller.cli import main
from controller.rules.variant import load_variant
from controller.screens import render
from controller.screens import strings as s
from controller.screens import views as v
from controller.screens.own_views import game_over, police_answer
from controller.screens.strings import Lang, winner_name

WEREWOLF_12 = "werewolf-12"


def drawn_as(view: v.View, lang: Lang, monkeypatch: pytest.MonkeyPatch, key: str, words: tuple[str, str]) -> bool:
    """Whether ``view`` is drawn exactly as the seeds' screen would be if its ``key`` text said ``words``."""
    with monkeypatch.context() as m:
        m.setitem(s.UI, key, words)
        seeds_screen_saying_words = render(v.PoliceAnswer(view.target, view.answer), lang)  # type: ignore[attr-defined]
    return render(view, lang).tobytes() == seeds_screen_saying_words.tobytes()


@pytest.mark.parametrize("lang", list(Lang))
def test_the_seer_on_werewolf_12_checks_a_werewolf_and_reads_werewolf(lang, monkeypatch):
    seen = police_answer(load_variant(WEREWOLF_12), 7, v.Answer.NOD)  # W5: seat 7 is a werewolf
    assert seen.words == ("狼人", "Werewolf")
    assert drawn_as(seen, lang, monkeypatch, "nod", ("狼人", "Werewolf"))
    assert render(seen, lang).tobytes() != render(v.PoliceAnswer(7, v.Answer.NOD), lang).tobytes()  # not 是杀手


@pytest.mark.parametrize("lang", list(Lang))
def test_the_seer_on_werewolf_12_checks_a_villager_and_reads_good(lang, monkeypatch):
    seen = police_answer(load_variant(WEREWOLF_12), 2, v.Answer.SHAKE)
    assert seen.words == ("好人", "Good")
    assert drawn_as(seen, lang, monkeypatch, "shake", ("好人", "Good"))


def test_the_police_on_standard_2_0_still_read_killer_on_the_seeds_own_screen():
    standard = load_variant("standard-2.0")
    for answer in (v.Answer.NOD, v.Answer.SHAKE, v.Answer.NONE):
        assert police_answer(standard, 6, answer) == v.PoliceAnswer(6, answer)  # the golden images' views
    assert s.ui("nod", Lang.ZH) == "是杀手"


def test_the_werewolves_win_werewolf_12_and_every_seat_says_so_in_the_boards_words():
    w12 = load_variant(WEREWOLF_12)
    over = game_over("killers", "villager", False, w12)
    assert winner_name("killers", Lang.ZH, w12) == "狼人" and winner_name("good", Lang.ZH, w12) == "好人"
    assert winner_name("killers", Lang.EN, w12) == "Werewolves"
    assert render(over, Lang.ZH).tobytes() != render(game_over("killers", "villager", False,
                                                                  load_variant("standard-2.0")), Lang.ZH).tobytes()
    assert over.words == ("狼人", "Werewolves")


def test_standard_2_0_still_names_the_killers_side_as_the_seed_does():
    standard = load_variant("standard-2.0")
    assert winner_name("killers", Lang.ZH, standard) == "杀手一方"  # 004 §4
    assert winner_name("killers", Lang.ZH, "standard-2.0") == "杀手一方"
    assert render(game_over("killers", "civilian", False, standard), Lang.ZH).tobytes() == render(
        v.GameOver("killers", "civilian", False, "standard-2.0"), Lang.ZH).tobytes()  # the golden image's view


def test_simulate_on_werewolf_12_prints_the_werewolves_and_standard_2_0_the_killers(capsys):
    assert main(["simulate", "--variant", WEREWOLF_12, "--players", "12", "--games", "20", "--seed", "3"]) == 0
    werewolf = " ".join(capsys.readouterr().out.split())
    assert "Werewolves (killers) wins" in werewolf and "Good side (good) wins" in werewolf, werewolf
    assert "Killer" not in werewolf
    assert main(["simulate", "--variant", "standard-2.0", "--players", "12", "--games", "20", "--seed", "3"]) == 0
    standard = " ".join(capsys.readouterr().out.split())
    assert "Killers' side (killers) wins" in standard, standard
