"""W10 and W11: the sheriff (警长) election, the badge's 1.5 vote and its passing, as tasks of the day's script,
marks and three public events (:class:`Candidacy`, :class:`ElectionClosed`, :class:`BadgeChanged`), so that the
journal replays an election like any vote.

Why the election runs before the dawn: W10 holds it on day 1 *before* the night's deaths are told, so the night's
victims still run, speak and vote (they are alive until the dawn); once it is over the dawn resolves the night
(C8) as ever. The steps, in order:

1. ``candidacy`` (step ``sheriff.run``): every living player runs (``Pick(seat, seat)``) or declines (``Pass``);
   the deadline counts the hands up so far.
2. The candidates speak (``sheriff.speech``); one may withdraw (``Withdraw``, 退水) until the vote.
3. The vote (``sheriff.vote``): the others (every living player with a vote who is not a candidate) vote for one
   candidate or abstain; most votes wins. A tie: the tied speak again (``sheriff.tie``) and everyone but them
   votes among them (``sheriff.revote``); a second tie: no sheriff this game. Decisions: a lone candidate is
   sheriff without a vote; nobody running, nobody left to vote, or no hand at all: no sheriff this game.
4. W11: a werewolf's self-destruct during any of these ends the election: the dawn comes, the night's first dead
   leave their last words, and night falls with no speeches and no vote; the election is held again the next day
   before the dawn, and a second self-destruct then means no sheriff this game.

The sheriff's vote counts 1.5 in the day's votes (:func:`weighted_tops`: the tally stays in hands, the decision
weighs them), the sheriff chooses the direction of the speeches and speaks last (day.task_speeches), and a
sheriff who dies passes the badge to a living player or tears it (``badge``, after any last words).

Marks (state.py): ``sheriff`` the sheriff's seat, 0 for none; ``sheriff.election`` 0 while due, the night
it was postponed on (W11), or -1 once over; ``candidate:<seat>`` 1 while that seat runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from controller.rules import hooks
from controller.rules.actions import Rejected
from controller.rules.events import (
    BadgeChanged,
    Candidacy,
    ElectionClosed,
    TieRound,
    VoteClosed,
)
from controller.rules.state import CANDIDATE, ELECTION, SHERIFF, GameState

if TYPE_CHECKING:
    from controller.rules.tx import Tx

#: The election's steps.
RUN: Final = "sheriff.run"
SPEECH: Final = "sheriff.speech"
TIE_SPEECH: Final = "sheriff.tie"
VOTE: Final = "sheriff.vote"
REVOTE: Final = "sheriff.revote"
#: The election's votes (day._close hands them over here).
VOTES: Final = frozenset({VOTE, REVOTE})
#: The kind and step of a dying sheriff's choice.
BADGE: Final = "badge"
#: The step in which the sheriff chooses the speeches' direction.
DIRECTION: Final = "speech.sheriff"


def sheriff_of(s: GameState) -> int:
    """The sheriff's seat, 0 when there is none."""
    return s.mark(SHERIFF)


def election_due(s: GameState) -> bool:
    """Is an election held before this dawn? Day 1's, or the one a self-destruct put off to the next day (W11)."""
    e = s.mark(ELECTION)
    return e == 0 or 0 < e < s.night


def in_election(s: GameState) -> bool:
    w = s.waiting
    return w is not None and s.phase == "night" and w.step.startswith("sheriff.")


def candidates(s: GameState) -> tuple[int, ...]:
    """Who still runs, in seat order."""
    return tuple([x for x in sorted(s.alive) if s.mark(f"{CANDIDATE}{x}") == 1])


# ---- the steps ---------------------------------------------------------------------------------------------

def start(tx: Tx) -> None:
    """W10: the call to run for sheriff, then the dawn."""
    tx.push(("dawn",))
    tx.open("candidacy", RUN, tuple(sorted(tx.s.alive)), ())


def candidacy(tx: Tx, seat: int, target: int | None) -> None:
    """``seat`` runs (``target`` = own seat) or declines (None) at the call."""
    s = tx.s
    if seat in s.picks:
        raise Rejected("already_answered", f"seat {seat} has already answered the call to run for sheriff")
    if target is not None and target != seat:
        raise Rejected("bad_target", f"seat {seat}: one runs for sheriff for oneself (W10)")
    tx.emit(Candidacy(seat, target is not None))
    s = tx.s
    if all(x in s.picks for x in s.alive):
        close_candidacy(tx)


def close_candidacy(tx: Tx) -> None:
    """The call is over (every answer in, or the deadline): the candidates speak, then the others vote."""
    s = tx.s
    running = tuple([x for x, t in sorted(s.picks.items()) if t is not None and x in s.alive])
    if not running:
        tx.emit(ElectionClosed((), "no_sheriff"))
        return
    tx.emit(ElectionClosed(running, "run"))
    tx.push(("speak_among", running, SPEECH), ("sheriff_vote", ()))


def withdraw(tx: Tx, seat: int) -> None:
    """W10 退水: a candidate leaves the race during the candidates' speeches (a speaker's speech ends there)."""
    s = tx.s
    w = s.waiting
    if w is None or w.step != SPEECH:
        raise Rejected("not_now", f"seat {seat}: a candidate withdraws during the candidates' speeches (W10)")
    if s.mark(f"{CANDIDATE}{seat}") != 1:
        raise Rejected("not_candidate", f"seat {seat} does not run for sheriff")
    tx.emit(Candidacy(seat, False))


def task_vote(tx: Tx, tied: tuple[int, ...]) -> None:
    """The vote among the candidates (``tied`` empty), or among the tied after a tie."""
    s = tx.s
    if tied:
        running = tuple([x for x in tied if x in s.alive])
        step = REVOTE
    else:
        running, step = candidates(s), VOTE
    if len(running) == 1 and not tied:  # Decision: a lone candidate needs no vote
        tx.emit(BadgeChanged(running[0], "elected"))
        return
    voters = tuple([x for x in hooks.voters(s, tuple(sorted(s.alive))) if x not in running])
    if not running or not voters:
        tx.emit(ElectionClosed(running, "no_sheriff"))
        return
    tx.open("vote", step, voters, (*running, None))


def close_vote(tx: Tx, hands: tuple[tuple[int, int | None], ...]) -> None:
    """Most votes is sheriff; a first tie goes to the tied players' speeches and a revote, a second ends the
    election with no sheriff. Nobody voting is no sheriff too (Decision)."""
    s = tx.s
    w = s.waiting
    assert w is not None
    counts: dict[int, int] = {}
    for v, t in hands:
        if t is not None and v in s.alive and t in w.choices:
            counts[t] = counts.get(t, 0) + 1
    tally = tuple([(c, counts[c]) for c in w.choices if c is not None and c in counts])
    if not tally:
        tx.emit(VoteClosed((), None, ()))
        tx.emit(ElectionClosed((), "no_sheriff"))
        return
    top = max(n for _, n in tally)
    tops = tuple([c for c, n in tally if n == top])
    if len(tops) == 1:
        tx.emit(VoteClosed(tally, tops[0], ()))
        tx.emit(BadgeChanged(tops[0], "elected"))
        return
    tx.emit(VoteClosed(tally, None, tops))
    if w.step == VOTE:
        tx.emit(TieRound("sheriff", 1, tops))
        tx.push(("speak_among", tops, TIE_SPEECH), ("sheriff_vote", tops))
        return
    tx.emit(TieRound("sheriff", 2, tops, "no_sheriff"))
    tx.emit(ElectionClosed(tops, "no_sheriff"))


def self_destruct(tx: Tx, seat: int) -> None:
    """W11 during the election: the werewolf is out at once with no last words; the election ends (held again the
    next day, or, the second time, never); the dawn comes and night falls with no speeches and no vote."""
    if not hooks.reveal_and_die(tx, seat):
        return
    tx.emit(ElectionClosed((), "postponed" if tx.s.mark(ELECTION) == 0 else "no_sheriff"))
    tx.agenda = [("dawn_cut",)]


def task_badge(tx: Tx, seat: int) -> None:
    """W10: the dead sheriff gives the badge to a living player or tears it (None)."""
    s = tx.s
    if sheriff_of(s) != seat or s.over:
        return
    others = tuple(sorted(s.alive))
    if not others:
        return
    tx.push((BADGE, seat))  # again once chosen (then a no-op): a self-destruct meanwhile keeps it (hooks)
    tx.open(BADGE, BADGE, (seat,), (*others, None))


def pass_badge(tx: Tx, seat: int, target: int | None) -> None:
    s = tx.s
    w = s.waiting
    assert w is not None
    if seat not in w.seats:
        raise Rejected("not_your_turn", f"seat {seat} does not hold the badge")
    if target is not None and target not in s.alive:
        if not isinstance(target, int) or not 1 <= target <= s.players:
            raise Rejected("unknown_seat", f"there is no seat {target}")
        raise Rejected("target_dead", f"seat {target} is out of the game; the badge goes to a living player (W10)")
    if target is None:
        tx.emit(BadgeChanged(0, "torn"))
    else:
        tx.emit(BadgeChanged(target, "passed"))


def tear_badge(tx: Tx) -> None:
    """The deadline of the badge's choice: Decision, the badge is torn."""
    tx.emit(BadgeChanged(0, "torn"))


# ---- the sheriff by day --------------------------------------------------------------------------------------

def weighted_tops(s: GameState, hands: tuple[tuple[int, int | None], ...], tally: tuple[tuple[int, int], ...],
                  tops: tuple[int, ...]) -> tuple[int, ...]:
    """W10: the top of a day's vote where the sheriff's hand counts 1.5 (the tally stays in hands; every count
    doubled and the sheriff's candidate one more, so the weights stay whole numbers)."""
    seat = sheriff_of(s)
    if not seat or seat not in s.alive:
        return tops
    target: int | None = None
    for v, t in hands:
        if v == seat:
            target = t
    if target is None:
        return tops
    weights = [(c, 2 * n + (1 if c == target else 0)) for c, n in tally]
    best = max(w for _, w in weights)
    return tuple([c for c, w in weights if w == best])


def badge_tasks(s: GameState, deaths: tuple[tuple[int, str], ...]) -> list[tuple[Any, ...]]:
    """The badge's task when the sheriff is among ``deaths``."""
    seat = sheriff_of(s)
    return [(BADGE, seat) for x, _ in deaths if seat and x == seat]


TASKS: dict[str, Any] = {"sheriff_vote": task_vote, BADGE: task_badge}
