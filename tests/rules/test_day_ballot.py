"""The judge's count of a whole vote (a ballot, V2.5) and the seat orders of the day (V2.4, V2.5).

The engine checks a ballot with quick checks on the usual case (voters called in seat order, each alive, hands for
one candidate after another) and falls back to the hand-by-hand checks only to say what is wrong. These tests pin
that every ballot is judged as the rules say: the first bad hand refused with the reason a single vote would get,
otherwise the living hands for living candidates counted, in the order the candidates were called.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import engine
from controller.rules.actions import Ballot, Eject, Rejected, Vote
from controller.rules.day import speech_order, vote_order
from controller.rules.events import TieRound, VoteClosed
from controller.rules.seats import CLOCKWISE, COUNTER_CLOCKWISE, order_from
from controller.rules.state import GameState, evolve
from tests.rules.table import Game

TWELVE = "K K K P P P C C C C C C"


def std(**options: object) -> Game:
    return Game("standard-2.0", TWELVE, {k.replace("__", "."): v for k, v in options.items()})


def at_the_vote(kill: int = 7) -> Game:
    g = std()
    g.night(kill=kill)
    g.talk()
    assert g.step == "vote"
    return g


def refusal(g: Game, votes: tuple[tuple[int, int | None], ...]) -> tuple[str, str]:
    before = g.state
    try:
        engine.step(g.state, Ballot(votes))
    except Rejected as exc:
        assert g.state is before
        return exc.code, exc.message
    raise AssertionError(f"the ballot {votes!r} was accepted")


# ---- the usual count ------------------------------------------------------------------------------------------

def test_v2_5_the_judges_count_closes_the_vote_as_the_same_hands_raised_one_by_one():
    by_ballot, by_hand = at_the_vote(), at_the_vote()
    by_ballot.do(Ballot(((1, 9), (2, 9), (3, 10), (4, 10), (5, 10), (6, None))))
    by_hand.hands({9: [1, 2], 10: [3, 4, 5]})
    assert by_ballot.of(VoteClosed)[-1] == by_hand.of(VoteClosed)[-1] == VoteClosed(((9, 2), (10, 3)), 10, ())


def test_v2_5_hands_out_of_seat_order_and_candidates_mixed_count_the_same():
    """A judge may read the hands in any order: the count is the same as in seat order."""
    g = at_the_vote()
    g.do(Ballot(((12, 9), (1, 10), (5, 9), (3, 10), (2, 9), (4, 11))))
    # the calls go from the last speaker backwards: 8, 9, ..., 12, 1, ..., 6 (seat 7 died)
    assert g.of(VoteClosed)[-1] == VoteClosed(((9, 3), (10, 2), (11, 1)), 9, ())


def test_v2_7_a_tie_in_the_judges_count_names_the_tied_in_the_order_they_were_called():
    g = at_the_vote()
    g.do(Ballot(((1, 2), (2, 2), (3, 10), (4, 10))))
    closed = g.of(VoteClosed)[-1]
    assert (closed.tally, closed.out, closed.tied) == (((10, 2), (2, 2)), None, (10, 2))
    assert g.of(TieRound)[-1].tied == (10, 2)


def test_v2_5_a_count_after_hands_raised_one_by_one_counts_them_all_together():
    g = at_the_vote()
    g.do(Vote(1, 9))
    g.do(Ballot(((2, 10), (3, 10))))
    assert g.of(VoteClosed)[-1].tally == ((9, 1), (10, 2))


def test_v2_5_an_empty_count_puts_nobody_out():
    g = at_the_vote()
    g.do(Ballot(()))
    assert g.of(VoteClosed)[-1] == VoteClosed((), None, ())


# ---- refusals: the first bad hand, with the reason a single vote gets ---------------------------------------

def test_v2_5_a_dead_seat_cannot_vote_in_the_judges_count():
    assert refusal(at_the_vote(), ((1, 9), (7, 9))) == ("dead", "seat 7 is out of the game and cannot vote")


def test_v2_5_a_seat_that_does_not_exist_cannot_vote():
    assert refusal(at_the_vote(), ((13, 9),)) == ("unknown_seat", "there is no seat 13")
    assert refusal(at_the_vote(), ((0, 9),)) == ("unknown_seat", "there is no seat 0")


def test_v2_5_one_vote_each_in_the_judges_count():
    assert refusal(at_the_vote(), ((1, 9), (2, 9), (1, 10))) == (
        "already_voted", "seat 1 votes twice; one vote each (V2.5)")
    g = at_the_vote()
    g.do(Vote(4, 9))
    assert refusal(g, ((1, 9), (4, 9))) == ("already_voted", "seat 4 votes twice; one vote each (V2.5)")


def test_v2_5_hands_only_for_candidates_in_the_judges_count():
    assert refusal(at_the_vote(), ((1, 9), (2, 7))) == (
        "target_dead", "seat 7 is out of the game and cannot be voted for")
    assert refusal(at_the_vote(), ((1, 13),)) == ("unknown_seat", "there is no seat 13")


def test_v2_7_in_a_revote_only_the_tied_are_candidates():
    g = std(tie="revote")
    g.night(kill=7)
    g.talk()
    g.hands({9: [1, 2], 10: [4, 5]})
    assert g.step == "revote"
    assert refusal(g, ((1, 9), (2, 3))) == ("not_candidate", "seat 3 is not a candidate in this vote")


def test_the_first_bad_hand_is_the_one_named():
    """Seat 8's hand for the dead seat 7 comes before seat 7's own hand: the target is named, not the voter."""
    assert refusal(at_the_vote(), ((3, 9), (8, 7), (7, 9)))[0] == "target_dead"
    assert refusal(at_the_vote(), ((3, 9), (7, 9), (8, 7)))[0] == "dead"


# ---- every ballot, against the rules as written -------------------------------------------------------------

def judged(state: GameState, votes: tuple[tuple[int, int | None], ...]) -> tuple[str, object]:
    """The rules as written: each hand checked in order like a single vote (V2.5), the first bad one refused;
    otherwise the hands of living voters for living candidates, counted in the order the candidates were called."""
    w = state.waiting
    assert w is not None
    seen: set[int] = set()
    for voter, target in votes:
        if voter not in state.alive:
            return "refused", "unknown_seat" if not 1 <= voter <= state.players else "dead"
        if voter in seen or voter in state.picks:
            return "refused", "already_voted"
        seen.add(voter)
        if target not in w.choices:
            if target is None or not 1 <= target <= state.players:
                return "refused", "unknown_seat"
            return "refused", "target_dead" if target not in state.alive else "not_candidate"
    hands = [*state.picks.items(), *votes]
    counts = {c: sum(1 for v, t in hands if t == c and v in state.alive) for c in w.choices
              if c is not None and c in state.alive}
    return "counted", tuple((c, n) for c, n in counts.items() if n)


seats_and_targets = st.sampled_from([-1, 0, *range(1, 14)])


@st.composite
def ballots(draw: st.DrawFn) -> tuple[int, int | None, tuple[tuple[int, int | None], ...]]:
    """A vote after seat 7 died in the night; perhaps seat ``ejected`` was ruled out during it and seat ``early``
    raised a hand before the count; then a ballot, mostly well formed (living voters, in seat order or not, in runs
    of hands for a candidate), sometimes with a bad hand anywhere."""
    ejected = draw(st.sampled_from([0, 0, 9, 12]))
    early = draw(st.sampled_from([0, 0, 3]))
    living = [x for x in range(1, 13) if x not in (7, ejected)]
    voters = draw(st.permutations(living) if draw(st.booleans()) else st.just(living))
    voters = voters[:draw(st.integers(0, len(voters)))]
    candidates = [*range(8, 13), *range(1, 7), None]  # in the order they are called
    targets = [draw(st.sampled_from(candidates)) for _ in voters]
    if draw(st.booleans()):  # counted candidate by candidate: runs of hands for one target
        targets.sort(key=candidates.index)
    hands = list(zip(voters, targets, strict=True))
    if draw(st.integers(0, 3)) == 0:  # a bad hand somewhere
        hands.insert(draw(st.integers(0, len(hands))), (draw(seats_and_targets), draw(seats_and_targets | st.none())))
    return ejected, early, tuple(hands)


@settings(max_examples=300, deadline=None)
@given(ballots())
def test_every_ballot_is_refused_or_counted_as_the_rules_say(case):
    ejected, early, votes = case
    g = at_the_vote()
    if ejected:
        g.do(Eject(ejected, "spoke out of turn"))
    if early:  # (if the ballot names seat 3 again, it is refused: one vote each)
        g.do(Vote(early, 10))
    expected = judged(g.state, votes)
    try:
        _, events = engine.step(g.state, Ballot(votes))
    except Rejected as exc:
        assert expected == ("refused", exc.code), (votes, exc.message)
        return
    closed = next(e for e in events if isinstance(e, VoteClosed))
    assert expected == ("counted", closed.tally), votes


# ---- the orders ---------------------------------------------------------------------------------------------

def walked(start: int, direction: int, players: int, among: frozenset[int]) -> tuple[int, ...]:
    """Every seat once, from ``start`` round the table in ``direction``, keeping those of ``among``."""
    return tuple(s for s in ((start - 1 + direction * i) % players + 1 for i in range(players)) if s in among)


@settings(max_examples=300, deadline=None)
@given(st.integers(3, 20).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(1, n), st.sampled_from([CLOCKWISE, COUNTER_CLOCKWISE]),
    st.frozensets(st.integers(1, n)), st.integers(1, n))))
def test_v2_4_an_order_goes_round_the_table_from_its_start_keeping_the_living(case):
    players, start, direction, among, other = case
    assert order_from(start, direction, players, among) == walked(start, direction, players, among)
    # asked again (the last order is remembered), with an equal set, and after another order: the same answer
    assert order_from(start, direction, players, among) == walked(start, direction, players, among)
    assert order_from(start, direction, players, frozenset(among)) == walked(start, direction, players, among)
    order_from(other, -direction, players, among)
    assert order_from(start, direction, players, among) == walked(start, direction, players, among)


@settings(max_examples=200, deadline=None)
@given(st.frozensets(st.integers(1, 12), min_size=1), st.sampled_from([(), (1,), (5,), (12,)]),
       st.sampled_from([0, CLOCKWISE, COUNTER_CLOCKWISE]))
def test_v2_5_reverse_calls_without_speeches_are_the_speeches_order_backwards(alive, night_dead, direction):
    """A bots' table never speaks: the calls go backwards through the order the speeches would have had."""
    state = std().state
    state = evolve(state, alive=alive - frozenset(night_dead), night_dead=night_dead, direction=direction)
    assert vote_order(state) == speech_order(state)[::-1]
    g = std(vote="from_victim")
    state = evolve(g.state, alive=alive - frozenset(night_dead), night_dead=night_dead, direction=direction)
    start = 12 if night_dead == (1,) else night_dead[0] - 1 if night_dead else 1
    assert vote_order(state) == walked(start, COUNTER_CLOCKWISE, 12, state.alive)
