"""The sheriff (RULES.md W10, W11) on the werewolf-12 board, played seat by seat: the election before day 1's dawn,
withdrawing, the tie and the revote among the tied, the 1.5 vote, the sheriff's direction and last speech, the
badge passed or torn, and a werewolf's self-destruct that puts the election off a day."""

from __future__ import annotations

from controller.rules import engine
from controller.rules.actions import ChooseDirection, Pass, Pick, SelfDestruct, Timeout, Vote, Withdraw
from controller.rules.events import (
    BadgeChanged,
    Candidacy,
    Dawn,
    Died,
    ElectionClosed,
    NightFell,
    Opened,
    TieRound,
    VoteClosed,
)
from controller.screens.story import story
from tests.rules.table import Game

BOARD = "werewolf-12"  # a built-in variant (controller/variants/)
#: Seats 1-4 werewolves, 5 the seer, 6 the witch, 7 the hunter, 8 the idiot, 9-12 villagers.
CARDS = "werewolf werewolf werewolf werewolf seer witch hunter idiot villager villager villager villager"


def called_to_run() -> Game:
    """Night 1: the werewolves kill seat 9, the witch keeps her potions, the seer checks seat 1. Nobody knows yet
    who died: the table calls for candidates."""
    g = Game(BOARD, CARDS)
    g.night(kill=9, check=1)
    assert g.step == "sheriff.run"
    assert not g.of(Dawn)  # W10: before the night's deaths are told
    return g


def run(g: Game, *seats: int) -> None:
    """``seats`` raise their hands to run; everyone else declines."""
    for seat in sorted(g.state.alive):
        if g.step == "sheriff.run":
            g.do(Pick(seat, seat) if seat in seats else Pass(seat))


def elect_seat_5() -> Game:
    g = called_to_run()
    run(g, 5)
    g.talk()
    return g


def test_the_night_s_victim_runs_candidates_speak_the_others_vote_and_the_dawn_follows() -> None:
    g = called_to_run()
    run(g, 1, 5, 9)  # seat 9, the night's victim, is alive until the dawn and runs
    assert g.of(ElectionClosed) == [ElectionClosed((1, 5, 9), "run")]
    assert g.step == "sheriff.speech" and g.speakers() == [1, 5, 9]
    g.talk()
    assert g.step == "sheriff.vote" and g.waiting is not None
    assert g.waiting.seats == (2, 3, 4, 6, 7, 8, 10, 11, 12)  # W10: the others vote
    assert g.waiting.choices == (1, 5, 9, None)
    assert g.rejects(Vote(5, 1)) == "not_voter"  # a candidate does not vote
    g.hands({5: [6, 7, 8, 10], 9: [11], 1: [2, 3, 4]})
    assert g.of(BadgeChanged) == [BadgeChanged(5, "elected")]
    assert g.of(Dawn)[0].deaths == ((9, "killed"),)  # then the deaths are told
    assert g.step == "last_words" and g.speakers() == [9]
    assert engine.fold(g.events) == g.state


def test_a_tie_the_tied_speak_again_the_others_vote_among_them_a_second_tie_no_sheriff_this_game() -> None:
    g = called_to_run()
    run(g, 1, 5, 9)
    g.talk()
    g.hands({5: [6, 7], 1: [2, 3], 9: [4]})
    assert g.of(TieRound) == [TieRound("sheriff", 1, (1, 5))]
    assert g.step == "sheriff.tie" and g.speakers() == [1, 5]
    g.talk()
    assert g.step == "sheriff.revote" and g.waiting is not None
    assert 9 in g.waiting.seats and 1 not in g.waiting.seats and 5 not in g.waiting.seats
    assert g.waiting.choices == (1, 5, None)
    g.hands({5: [6, 7], 1: [2, 3]})
    assert g.of(TieRound)[-1] == TieRound("sheriff", 2, (1, 5), "no_sheriff")
    assert g.of(ElectionClosed)[-1].outcome == "no_sheriff"
    assert not g.of(BadgeChanged)
    g.talk()  # seat 9's last words, the speeches
    g.hands({10: [1, 2, 3, 4]})
    g.talk()
    g.night(kill=11, check=2)
    assert g.step != "sheriff.run" and len(g.of(Dawn)) == 2  # no election ever again


def test_a_revote_that_decides_elects() -> None:
    g = called_to_run()
    run(g, 1, 5)
    g.talk()
    g.hands({5: [6, 7], 1: [2, 3]})
    g.talk()
    g.hands({5: [6, 7, 8], 1: [2, 3]})
    assert g.of(BadgeChanged) == [BadgeChanged(5, "elected")]


def test_a_candidate_withdraws_during_the_speeches_and_then_votes() -> None:
    g = called_to_run()
    run(g, 1, 5, 9)
    assert g.speakers()[0] == 1
    g.do(Withdraw(1))  # W10 退水, mid-speech
    assert g.of(Candidacy)[-1] == Candidacy(1, False)
    assert g.speakers() == [5, 9]
    assert g.rejects(Withdraw(1)) == "not_candidate"
    assert g.rejects(Withdraw(2)) == "not_candidate"
    g.talk()
    assert g.waiting is not None and 1 in g.waiting.seats and g.waiting.choices == (5, 9, None)
    assert g.rejects(Withdraw(5)) == "not_now"  # only until the speeches are over


def test_a_lone_candidate_is_sheriff_without_a_vote_and_nobody_running_is_no_sheriff() -> None:
    g = elect_seat_5()
    assert g.of(BadgeChanged) == [BadgeChanged(5, "elected")]
    nobody = called_to_run()
    run(nobody)
    assert nobody.of(ElectionClosed) == [ElectionClosed((), "no_sheriff")]
    assert nobody.step == "last_words"


def test_the_deadline_counts_the_hands_raised_so_far() -> None:
    g = called_to_run()
    g.do(Pick(7, 7))
    g.do(Timeout())
    assert g.step == "sheriff.speech" and g.speakers() == [7]
    g.do(Pass(7))
    assert g.of(BadgeChanged) == [BadgeChanged(7, "elected")]


def test_the_sheriff_chooses_the_direction_speaks_last_and_the_badge_counts_one_and_a_half() -> None:
    g = elect_seat_5()
    g.talk()  # seat 9's last words
    assert g.step == "speech.sheriff" and g.waiting is not None and g.waiting.seats == (5,)
    g.do(ChooseDirection(True))
    assert g.speakers() == [6, 7, 8, 10, 11, 12, 1, 2, 3, 4, 5]  # W10: from the sheriff's neighbour, sheriff last
    g.talk()
    g.hands({1: [5, 6], 10: [2, 3]})  # two hands each: the sheriff's side has 1.5 + 1
    closed = g.of(VoteClosed)[-1]
    assert sorted(closed.tally) == [(1, 2), (10, 2)] and closed.out == 1
    assert g.of(Died)[-1] == Died(1, "executed")


def test_without_the_sheriff_s_hand_a_tie_stays_a_tie() -> None:
    g = elect_seat_5()
    g.talk()
    g.do(ChooseDirection(False))
    g.talk()
    g.hands({1: [6, 7], 10: [2, 3]})
    assert g.of(VoteClosed)[-1].out is None and g.of(TieRound)[-1].procedure == "others_revote"


def test_a_dying_sheriff_passes_the_badge_after_the_last_words_or_tears_it() -> None:
    g = elect_seat_5()
    g.talk()
    g.do(ChooseDirection(True))
    g.talk()
    g.hands({5: [1, 2, 3, 4]})  # the sheriff voted out
    assert g.step == "last_words.executed"
    g.talk()
    assert g.step == "badge" and g.waiting is not None and g.waiting.seats == (5,)
    assert 5 not in g.waiting.choices and None in g.waiting.choices
    assert g.rejects(Pick(5, 9)) == "target_dead"
    assert g.rejects(Pick(6, 7)) == "not_your_turn"
    g.do(Pick(5, 6))  # the dead sheriff acts once more
    assert g.of(BadgeChanged)[-1] == BadgeChanged(6, "passed")
    g.night(kill=6, check=2)  # the new sheriff dies at night: no words after night 1 (W12), the badge still passes
    assert g.step == "badge"
    g.do(Timeout())
    assert g.of(BadgeChanged)[-1] == BadgeChanged(0, "torn")
    assert g.step == "speeches" and g.speakers()[-1] != 6  # no sheriff: no direction to choose
    assert engine.fold(g.events) == g.state


def test_a_self_destruct_during_the_election_puts_it_off_a_day_and_the_day_has_no_vote() -> None:
    g = called_to_run()
    run(g, 2, 5)
    g.do(SelfDestruct(2))  # W11, during seat 2's speech
    assert g.of(ElectionClosed)[-1] == ElectionClosed((), "postponed")
    assert g.of(Died) == [Died(2, "self_destruct")]
    assert g.of(Dawn)[0].deaths == ((9, "killed"),)
    assert g.step == "last_words" and g.speakers() == [9]  # the first night's dead still speak
    g.talk()
    assert g.of(NightFell)[-1].night == 2  # no speeches, no vote
    assert not [e for e in g.events if isinstance(e, Opened) and e.kind == "vote" and e.step == "vote"]
    g.night(kill=10, check=3)
    assert g.step == "sheriff.run"  # held again the next day, before the dawn
    run(g, 5)
    assert g.step == "sheriff.speech"
    g.do(SelfDestruct(3))  # a second self-destruct: no sheriff this game
    assert g.of(ElectionClosed)[-1] == ElectionClosed((), "no_sheriff")
    assert not g.of(BadgeChanged)
    assert engine.fold(g.events) == g.state


def test_only_the_living_run_once_each_for_themselves() -> None:
    g = called_to_run()
    assert g.rejects(Pick(1, 2)) == "bad_target"
    g.do(Pick(1, 1))
    assert g.rejects(Pick(1, 1)) == "already_answered"
    assert g.rejects(SelfDestruct(5)) == "not_allowed"


def test_the_story_after_the_game_tells_the_election_the_withdrawal_and_the_badge() -> None:
    g = called_to_run()
    run(g, 1, 5, 9)
    g.do(Withdraw(1))
    g.talk()
    g.hands({5: [6, 7, 8], 9: [10]})
    lines = story(g.events, "en")
    assert "Candidates: 1 5 9" in lines
    assert "1 withdrew" in lines
    sheriff = lines.index("5 is sheriff")
    assert lines[sheriff - 1] == "#9 <- 10" and lines.index("Dawn: 9 died") > sheriff  # no "is out" line
    assert not any(line.startswith("Vote: 5") for line in lines)
    assert "5号当选警长" in story(g.events, "zh")


def test_a_self_destruct_while_the_dead_sheriff_chooses_keeps_the_badge_s_choice_before_the_night() -> None:
    g = elect_seat_5()
    g.talk()
    g.do(ChooseDirection(True))
    g.talk()
    g.hands({5: [1, 2, 3, 4]})
    g.talk()
    assert g.step == "badge"
    g.do(SelfDestruct(2))  # W11 by day
    assert g.step == "badge"  # W10: the dead sheriff still gives the badge
    g.do(Pick(5, 6))
    assert g.of(BadgeChanged)[-1] == BadgeChanged(6, "passed")
    assert g.state.phase == "night"
