"""The 4.0 day (V4.7, V4.8), where everything goes round the table from the judge, and the deaths with a last
act (V7.1: the angel takes someone along).

- Direction: forward (clockwise, up the seat numbers) on day 1, reverse on day 2, and so on (V4.7 decision).
  The judge sits between seat N and seat 1, so "from the judge" forward is 1, 2, ..., N and reverse N, ..., 1.
- V4.7 last words: every player who died in the night, killers included, in that order. Decision: a player the
  forest elder silenced, or one the angel took along (V7.1), gives none.
- V4.8 defence: from the seat after the last player who gave last words, in the day's direction (decision:
  with nobody who gave last words, from the judge), each living player gives a defence speech (not a silenced one) and at once
  votes; the vote is compulsory (any living player, self included). Decision: a voter who lets the deadline pass
  casts no vote (C5). Most votes is out; a tie means nobody is out that day. The judge announces "a killer was
  voted out" (no last words) or "a good player was voted out" (last words unless silenced): the death's cause
  says which (``executed.killer`` / ``executed.good``).

The hands of a defence round are carried in the round's agenda task (``("defence_turns", order, hands)``),
so the journal's ``Opened.agenda`` holds them and folding needs nothing new.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from controller.rules import clash, win
from controller.rules.events import Died, TieRound, VoteClosed
from controller.rules.seats import CLOCKWISE, COUNTER_CLOCKWISE, next_seat, order_from
from controller.rules.state import GameState

if TYPE_CHECKING:
    from controller.rules.engine import Tx

#: The step name of one player's vote right after their defence (V4.8).
TURN_VOTE: Final = "vote.defence"


def direction(s: GameState) -> int:
    """V4.7: forward (clockwise) on odd days, reverse on even days."""
    return CLOCKWISE if s.day % 2 == 1 else COUNTER_CLOCKWISE


def from_judge(s: GameState, seats: Any) -> tuple[int, ...]:
    """``seats`` in the day's order starting from the judge (between seat N and seat 1): forward is up the seat
    numbers from 1, reverse down them from N."""
    if len(seats) < 2:  # most nights leave one dead or none
        return tuple(seats)
    ordered = sorted(seats)
    if direction(s) != CLOCKWISE:
        ordered.reverse()
    return tuple(ordered)


def no_last_words(s: GameState, seat: int) -> bool:
    """V4.8 decision: silenced today; V7.1: taken along by the angel."""
    return clash.silenced(s, seat) or any(x == seat and c == "taken_along" for x, c in s.dead)


def last_words_order(s: GameState) -> tuple[int, ...]:
    """V4.7: the night's dead who give last words, in the day's order from the judge."""
    if not s.night_dead:  # a quiet night (and every V4.8 turn asks)
        return ()
    return tuple([x for x in from_judge(s, s.night_dead) if not no_last_words(s, x)])


def task_last_words_in_turn(tx: Tx) -> None:
    s = tx.s
    order = last_words_order(s)
    if order and s.config.talk:
        tx.open("last_words", "last_words", order)


def defence_order(s: GameState) -> tuple[int, ...]:
    """V4.8: from the seat after the last player who gave last words (从最后一个遗言死者同序下一人开始), in the
    day's direction: a dead player the elder silenced gave none, so the start moves back to the last who spoke.
    Decision: nobody gave last words (no death, or only silenced ones): from the judge."""
    d = direction(s)
    spoke = last_words_order(s)
    judge_side = 1 if d == CLOCKWISE else s.players
    start = next_seat(spoke[-1], d, s.players) if spoke else judge_side
    return order_from(start, d, s.players, s.alive)


def task_defence_votes(tx: Tx) -> None:
    tx.push(("defence_turns", defence_order(tx.s), ()))


def task_defence_turns(tx: Tx, order: tuple[int, ...], hands: tuple[tuple[int, int], ...]) -> None:
    """The next player's defence and vote, or (nobody left) the count."""
    s = tx.s
    living = [x for x in order if x in s.alive]
    if not living:
        _count(tx, order, hands)
        return
    seat, rest = living[0], tuple(living[1:])
    first: list[Any] = [] if clash.silenced(s, seat) else [("speak_among", (seat,), "defence")]
    tx.push(*first, ("turn_vote", seat), ("defence_turns", rest, hands))


def task_turn_vote(tx: Tx, seat: int) -> None:
    s = tx.s
    if seat in s.alive:
        tx.open("vote", TURN_VOTE, (seat,), defence_order(s))


def close_turn(tx: Tx, hands: tuple[tuple[int, int | None], ...]) -> None:
    """One player's vote is in (or their deadline passed): note the hand in the round's next task."""
    s = tx.s
    w = s.waiting
    assert w is not None
    hand = None
    for v, t in hands:  # the first living target of the voter's hands (a loop: no generator at every turn)
        if v in w.seats and t is not None and t in s.alive:
            hand = t
            break
    nxt = tx.agenda[0]
    assert nxt[0] == "defence_turns", f"a defence vote is followed by the round's next turn, not {nxt!r}"
    if hand is not None:
        tx.agenda[0] = ("defence_turns", nxt[1], (*nxt[2], (w.seats[0], hand)))
    tx.emit(VoteClosed(((hand, 1),) if hand is not None else (), None, ()))


def _count(tx: Tx, order: tuple[int, ...], hands: tuple[tuple[int, int], ...]) -> None:
    s = tx.s
    counts: dict[int, int] = {}
    for _, t in hands:
        if t in s.alive:
            counts[t] = counts.get(t, 0) + 1
    tally = tuple([(c, counts[c]) for c in defence_order(s) if c in counts])
    if not tally:
        tx.emit(VoteClosed((), None, ()))
        return
    top = max([n for _, n in tally])
    tops = tuple([c for c, n in tally if n == top])
    if len(tops) > 1:  # V4.8: a tie between two or more: nobody is voted out today
        tx.emit(VoteClosed(tally, None, tops))
        tx.emit(TieRound("v4.8", 1, tops, "nobody_out"))
        return
    tx.emit(VoteClosed(tally, tops[0], ()))
    tx.push(("verdict", tops[0]))


def task_verdict(tx: Tx, seat: int) -> None:
    """V4.8: the judge says which side the voted-out player was on; only a good player leaves last words."""
    if take_along_first(tx, seat, ("verdict", seat)):
        return
    s = tx.s
    killer = s.side_of(seat) == "killers"
    speaks = not killer and not clash.silenced(s, seat) and s.config.talk
    if die_with_take_along(tx, seat, "executed.killer" if killer else "executed.good"):
        return
    if speaks:
        tx.open("last_words", "last_words.executed", (seat,))


# ---- V7.1: the angel's take-along when it dies by day -----------------------------------------------------

def take_along_first(tx: Tx, seat: int, resume: tuple[Any, ...]) -> bool:
    """Before ``seat`` is executed: if its role takes someone along (V7.1) and has not chosen yet today, ask
    (while it is still alive) and run ``resume`` afterwards. True if the engine now waits for the choice."""
    s = tx.s
    takes = s.config.variant.take_steps
    st = takes.get(s.roles[seat - 1]) if takes else None
    if st is None or seat not in s.alive or any(a.step == st.id and seat in a.actors for a in s.acts):
        return False
    tx.push(resume)
    others = tuple(x for x in sorted(s.alive) if x != seat)
    tx.open("night", st.id, (seat,), (*others, None), role="+".join(st.roles), ability=st.ability)
    return True


def die_with_take_along(tx: Tx, seat: int, cause: str) -> bool:
    """``seat`` dies by day; the player it chose to take along (V7.1) dies with it, without last words. True
    if the game is over."""
    s = tx.s
    takes = s.config.variant.take_steps
    st = takes.get(s.roles[seat - 1]) if takes else None
    taken = None if st is None else next((a.target for a in s.acts if a.step == st.id and seat in a.actors), None)
    tx.emit(Died(seat, cause))
    if taken is not None and taken in tx.s.alive:
        tx.emit(Died(taken, "taken_along"))
    result = win.check(tx.s)
    if result:
        tx.end(*result)
        return True
    return False


TASKS: dict[str, Any] = {
    "last_words_in_turn": task_last_words_in_turn,
    "defence_votes": task_defence_votes,
    "defence_turns": task_defence_turns,
    "turn_vote": task_turn_vote,
    "verdict": task_verdict,
}
