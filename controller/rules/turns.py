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
from controller.rules.setup import GameConfig
from controller.rules.state import Act, GameState
from controller.rules.variant import NightStep

if TYPE_CHECKING:
    from controller.rules.tx import Tx

#: The step name of one player's vote right after their defence (V4.8).
TURN_VOTE: Final = "vote.defence"

#: The seats a table can have (the largest role table is far below this); a seat beyond it still works, slower.
_SEATS: Final = 64
#: Each seat's tasks of a defence turn and the tally of its one hand, made once rather than at every turn (they
#: are values: a task tuple or an event may share them). Typed loosely on purpose: compiled, an item typed as a
#: fixed-length tuple would be unpacked when read and packed again into a new tuple when stored.
_ALONE: Final[tuple[tuple[int, ...], ...]] = tuple([(seat,) for seat in range(_SEATS + 1)])
_SPEAK_TASKS: Final[tuple[Any, ...]] = tuple([("speak_among", _ALONE[seat], "defence") for seat in range(_SEATS + 1)])
_VOTE_TASKS: Final[tuple[Any, ...]] = tuple([("turn_vote", seat) for seat in range(_SEATS + 1)])
_ONE_HAND: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple([((seat, 1),) for seat in range(_SEATS + 1)])


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
    if clash.silenced(s, seat):
        return True
    for x, cause in s.dead:  # noqa: SIM110 (a loop, not any(...): no generator object for each of the night's dead)
        if x == seat and cause == "taken_along":
            return True
    return False


def last_words_order(s: GameState) -> tuple[int, ...]:
    """V4.7: the night's dead who give last words, in the day's order from the judge."""
    if not s.night_dead:  # a quiet night
        return ()
    return tuple([x for x in from_judge(s, s.night_dead) if not no_last_words(s, x)])


def task_last_words_in_turn(tx: Tx) -> None:
    s = tx.s
    if not s.config.talk:  # a table of bots that never talk waits for no last words (nor works out who gives them)
        return
    order = last_words_order(s)
    if order:
        tx.open("last_words", "last_words", order)


class _DefenceOrder:
    """A day's V4.8 defence order, kept with the very state values it was worked out from.

    Why: every turn of a defence round (its vote offers the whole order) and the count ask again, and the order
    changes only with a death, a new day or a new game. A state's fields are never changed in place (a draft
    replaces them), so while a state holds these same objects the order is the same; any other state (a fold
    rebuilds equal values in new objects) just works it out again."""

    __slots__ = ("alive", "config", "day", "dead", "marks", "night_dead", "order")

    def __init__(self, s: GameState, order: tuple[int, ...]) -> None:
        self.config: GameConfig = s.config
        self.day: int = s.day
        self.night_dead: tuple[int, ...] = s.night_dead
        self.marks: Any = s.marks
        self.dead: tuple[tuple[int, str], ...] = s.dead
        self.alive: frozenset[int] = s.alive
        self.order: tuple[int, ...] = order


#: The last defence order worked out (one entry, replaced whole: a reader never sees half of one).
_LAST_ORDER: Final[list[_DefenceOrder | None]] = [None]


def defence_order(s: GameState) -> tuple[int, ...]:
    """V4.8: from the seat after the last player who gave last words (从最后一个遗言死者同序下一人开始), in the
    day's direction: a dead player the elder silenced gave none, so the start moves back to the last who spoke.
    Decision: nobody gave last words (no death, or only silenced ones): from the judge."""
    last = _LAST_ORDER[0]
    if (last is not None and last.alive is s.alive and last.dead is s.dead and last.night_dead is s.night_dead
            and last.marks is s.marks and last.day == s.day and last.config is s.config):
        return last.order
    d = direction(s)
    spoke = last_words_order(s)
    judge_side = 1 if d == CLOCKWISE else s.players
    start = next_seat(spoke[-1], d, s.players) if spoke else judge_side
    order = order_from(start, d, s.players, s.alive)
    _LAST_ORDER[0] = _DefenceOrder(s, order)
    return order


def task_defence_votes(tx: Tx) -> None:
    tx.agenda.insert(0, ("defence_turns", defence_order(tx.s), ()))  # Tx.push without its *args call


#: The ``rest`` of the last defence turn pushed and the living players it was taken from (replaced whole).
_LAST_TURN: Final[list[tuple[tuple[int, ...], frozenset[int]]]] = [((), frozenset())]


def _living(order: tuple[int, ...], alive: frozenset[int]) -> tuple[int, ...]:
    """``order`` without the players who died since it was made (the judge may eject one mid-round)."""
    last_rest, last_alive = _LAST_TURN[0]
    if alive is last_alive and order is last_rest:  # made from these very living players: nobody to drop
        return order
    last = _LAST_ORDER[0]
    if last is not None and alive is last.alive and order is last.order:  # the round's first turn
        return order
    return tuple([x for x in order if x in alive])


def task_defence_turns(tx: Tx, order: tuple[int, ...], hands: tuple[tuple[int, int], ...]) -> None:
    """The next player's defence and vote, or (nobody left) the count."""
    s = tx.s
    alive = s.alive
    living = _living(order, alive)
    if not living:
        _count(tx, order, hands)
        return
    seat, rest = living[0], living[1:]
    _LAST_TURN[0] = (rest, alive)
    agenda = tx.agenda  # Tx.push without its *args call: the tasks go first, in this order
    agenda.insert(0, ("defence_turns", rest, hands))
    agenda.insert(0, _VOTE_TASKS[seat] if seat <= _SEATS else ("turn_vote", seat))
    if not clash.silenced(s, seat):
        agenda.insert(0, _SPEAK_TASKS[seat] if seat <= _SEATS else ("speak_among", (seat,), "defence"))


def task_turn_vote(tx: Tx, seat: int) -> None:
    s = tx.s
    if seat in s.alive:
        tx.open("vote", TURN_VOTE, _ALONE[seat] if seat <= _SEATS else (seat,), defence_order(s))


def close_turn(tx: Tx, hands: tuple[tuple[int, int | None], ...]) -> None:
    """One player's vote is in (or their deadline passed): note the hand in the round's next task."""
    s = tx.s
    w = s.waiting
    assert w is not None
    voter = w.seats[0]
    alive = s.alive
    hand = None
    for v, t in hands:  # the first living target of the voter's hands (a loop: no generator at every turn)
        if t is not None and v == voter and t in alive:
            hand = t
            break
    agenda = tx.agenda
    nxt: tuple[str, tuple[int, ...], tuple[tuple[int, int], ...]] = agenda[0]  # typed: its items read natively
    assert nxt[0] == "defence_turns", f"a defence vote is followed by the round's next turn, not {nxt!r}"
    if hand is not None:
        agenda[0] = ("defence_turns", nxt[1], nxt[2] + ((voter, hand),))
        tx.emit(VoteClosed(_ONE_HAND[hand] if 0 <= hand <= _SEATS else ((hand, 1),), None, ()))
    else:
        tx.emit(VoteClosed((), None, ()))


def _count(tx: Tx, order: tuple[int, ...], hands: tuple[tuple[int, int], ...]) -> None:
    s = tx.s
    # Hands per seat in a list indexed by seat (no dict, no boxed keys); only the living are read back: the
    # order holds every living player and nobody else.
    counts = [0] * (s.players + 1)
    for _, t in hands:
        if 0 < t < len(counts):
            counts[t] += 1
    tally = tuple([(c, counts[c]) for c in defence_order(s) if counts[c]])
    if not tally:
        tx.emit(VoteClosed((), None, ()))
        return
    top = 0
    for _, n in tally:
        if n > top:
            top = n
    tops = tuple([c for c, n in tally if n == top])
    if len(tops) > 1:  # V4.8: a tie between two or more: nobody is voted out today
        tx.emit(VoteClosed(tally, None, tops))
        tx.emit(TieRound("v4.8", 1, tops, "nobody_out"))
        return
    tx.emit(VoteClosed(tally, tops[0], ()))
    tx.agenda.insert(0, ("verdict", tops[0]))


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

def _take_step(s: GameState, seat: int) -> NightStep | None:
    """The night step with which ``seat``'s role takes someone along (V7.1), if it has one."""
    takes = s.config.variant.take_steps
    if not takes:  # most versions: nobody takes anyone along
        return None
    role = s.roles[seat - 1]
    return takes[role] if role in takes else None  # noqa: SIM401 (a test and an index: Mapping.get is a method call)


def _take_act(s: GameState, step: str, seat: int) -> Act | None:
    """``seat``'s settled take-along choice in ``step`` (V7.1), if it made one."""
    for a in s.acts:  # a loop, not any(...)/next(...): no generator object
        if a.step == step and seat in a.actors:
            return a
    return None


def take_along_first(tx: Tx, seat: int, resume: tuple[Any, ...]) -> bool:
    """Before ``seat`` is executed: if its role takes someone along (V7.1) and has not chosen yet today, ask
    (while it is still alive) and run ``resume`` afterwards. True if the engine now waits for the choice."""
    s = tx.s
    st = _take_step(s, seat)
    if st is None or seat not in s.alive or _take_act(s, st.id, seat) is not None:
        return False
    tx.push(resume)
    others = tuple([x for x in sorted(s.alive) if x != seat])
    tx.open("night", st.id, (seat,), (*others, None), role="+".join(st.roles), ability=st.ability)
    return True


def die_with_take_along(tx: Tx, seat: int, cause: str) -> bool:
    """``seat`` dies by day; the player it chose to take along (V7.1) dies with it, without last words. True
    if the game is over."""
    s = tx.s
    st = _take_step(s, seat)
    act = None if st is None else _take_act(s, st.id, seat)
    taken = None if act is None else act.target
    tx.emit(Died(seat, cause))
    if taken is not None and taken in tx.s.alive:
        tx.emit(Died(taken, "taken_along"))
    result = win.check(tx.s)
    if result:
        tx.end(result[0], result[1])  # not *result: a generic call with an argument tuple
        return True
    return False


TASKS: dict[str, Any] = {
    "last_words_in_turn": task_last_words_in_turn,
    "defence_votes": task_defence_votes,
    "defence_turns": task_defence_turns,
    "turn_vote": task_turn_vote,
    "verdict": task_verdict,
}
