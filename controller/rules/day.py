"""The day (C3): last words (V2.3, V2.8), speeches in the rule's order (V2.4), the suspects' defence (C3), the
public vote with its order (V2.5), follow-votes (V2.6), ties (V2.7), executions and the club rules of V2.11.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.rules import cards, hooks, night, sheriff, turns, win
from controller.rules.ability import REGISTRY
from controller.rules.actions import Rejected
from controller.rules.agenda import day_rules
from controller.rules.events import DefenceClaimed, Died, Spoke, TieRound, VoteClosed, Voted
from controller.rules.seats import (
    COUNTER_CLOCKWISE,
    left_hand_neighbour,
    next_seat,
    order_from,
    right_hand_neighbour,
    start_index,
)
from controller.rules.state import GameState

if TYPE_CHECKING:
    from controller.rules.tx import Tx


# ---- orders ----------------------------------------------------------------------------------------------

def _victim(s: GameState) -> int | None:
    """The night's victim that the order rules start from. Decision (two deaths, V3.4): the killers' victim if
    they killed, else the lowest seat that died."""
    night_dead = s.night_dead
    if not night_dead:
        return None
    for a in s.acts:
        if a.target in night_dead and REGISTRY[a.ability].night_kill:
            return a.target
    return night_dead[0]


def _speech_start(s: GameState) -> tuple[int, int]:
    """Where the speeches begin and which way they go (V2.4, see speech_order)."""
    victim = _victim(s)
    direction = s.direction or COUNTER_CLOCKWISE
    if victim is None:
        return 1, direction
    if direction == COUNTER_CLOCKWISE:
        return right_hand_neighbour(victim, s.players), direction
    return left_hand_neighbour(victim, s.players), direction


def speech_order(s: GameState) -> tuple[int, ...]:
    """V2.4: from the right-hand neighbour of the night's victim, counter-clockwise; with
    ``speech.any_direction`` from either neighbour in the judge's direction. Decision: no victim -> seat 1."""
    start, direction = _speech_start(s)
    return order_from(start, direction, s.players, s.alive)


def _vote_start(s: GameState) -> tuple[int, int]:
    """Where the calls of a vote begin and which way they go, when they go round the living players (every case but
    ``vote.reverse`` after speeches, see vote_order); (0, 0) otherwise."""
    if day_rules(s.config).reverse:
        if s.speech_order:
            return 0, 0
        # Nobody spoke (a bots' table): the speeches' order backwards, which is the walk the other way round the
        # table from the seat before the speeches' start.
        start, direction = _speech_start(s)
        return next_seat(start, -direction, s.players), -direction
    victim = _victim(s)
    return (1 if victim is None else right_hand_neighbour(victim, s.players)), COUNTER_CLOCKWISE


def vote_order(s: GameState) -> tuple[int, ...]:
    """V2.5: ``vote.reverse`` calls from the last speaker backwards (when nobody spoke, the order the speeches would
    have had, backwards); ``vote.from_victim`` from the victim's right-hand neighbour (counter-clockwise)."""
    start, direction = _vote_start(s)
    if direction == 0:
        alive = s.alive
        return tuple([x for x in reversed(s.speech_order) if x in alive])
    return order_from(start, direction, s.players, s.alive)


# ---- last words ------------------------------------------------------------------------------------------

def lastwords_allowed(s: GameState, seat: int, cause: str) -> bool:
    """V2.3 / V2.8 / V1.3: may ``seat``, who died of ``cause`` (or is about to: an execution asks first), leave
    last words?

    V2.3 ``quota`` counts deaths, not words (003 §3.10: 前面三个死人（包括被杀者和被公决者）可留遗言): the
    first N players to die speak, and a death that gets no words by another rule (taken along, V7.1; ejected,
    V2.11) still uses its place. The night's dead take their places in seat order."""
    mode = s.config.opt("lastwords")
    if mode == "all":
        return True
    if mode == "first_night":  # W12: the first night's dead, and every death by day
        return cause != "night" or s.night == 1
    if mode == "killer_silent":
        return not (cause == "executed" and s.side_of(seat) == "killers")
    place = next((i for i, (x, _) in enumerate(s.dead) if x == seat), len(s.dead))
    return place < s.config.quota


def task_last_words_night(tx: Tx) -> None:
    s = tx.s
    if not s.config.talk:
        return
    seats = [seat for seat in s.night_dead
             if not turns.no_last_words(s, seat)  # V7.1: taken along by the angel
             and lastwords_allowed(s, seat, "night")]
    if seats:
        tx.open("last_words", "last_words", seats)


def task_speeches(tx: Tx) -> None:
    s = tx.s
    if not s.config.talk:
        return
    if s.config.opt("speech.any_direction") and "speech.any_direction" in s.config.options and not s.direction:
        tx.push(("speeches",))
        tx.open("direction", "speech.direction", (0,), (1, -1))
        return
    chief = sheriff.sheriff_of(s) if day_rules(s.config).sheriff else 0
    if chief and chief in s.alive:  # W10: the sheriff chooses the direction and speaks last
        if not s.direction:
            tx.push(("speeches",))
            tx.open("direction", sheriff.DIRECTION, (chief,), (1, -1))
            return
        order = order_from(next_seat(chief, s.direction, s.players), s.direction, s.players, s.alive)
    else:
        order = speech_order(s)
    if order:
        tx.open("speeches", "speeches", order)


def task_speak_among(tx: Tx, seats: tuple[int, ...], step: str) -> None:
    if not tx.s.config.talk:  # a table of bots that never talk waits for no speech
        return
    living = tuple([x for x in seats if x in tx.s.alive])
    if living:
        tx.open("speeches", step, living)


def task_defence(tx: Tx) -> None:
    """C3 ``defence.suspects``: everyone may claim a defence speech (OK = claim, or pass); claimants speak in
    the day's speech order."""
    if not tx.s.config.talk:
        return
    tx.push(("defence_speeches",))
    tx.open("defence_claim", "defence.claim", tuple(sorted(tx.s.alive)), ())


def task_defence_speeches(tx: Tx) -> None:
    s = tx.s
    order = [x for x in (s.speech_order or speech_order(s)) if x in s.defence and x in s.alive]
    if order:
        tx.open("speeches", "defence", order)


def task_vote(tx: Tx) -> None:
    s = tx.s
    living = sorted(s.alive)
    start, direction = _vote_start(s)
    if direction == 0:
        choices: list[int | None] = [*vote_order(s), None]
    else:  # the calls go round the living players: a rotation of the seats already sorted
        ordered = living if direction > 0 else living[::-1]
        i = start_index(ordered, start, direction)
        choices = [*ordered[i:], *ordered[:i], None]
    if s.config.variant.reveals:  # W9: a shown card neither votes nor can be voted out
        voting = hooks.voters(s, tuple(living))
        tx.open("vote", "vote", voting, [c for c in choices if c is None or c in voting])
        return
    tx.open("vote", "vote", tuple(living), choices)


def task_revote(tx: Tx, candidates: tuple[int, ...], others: bool = False) -> None:
    """V2.7: in every revote all living players vote; only the tied players are candidates. W13 (``others``): the
    tied do not vote; with nobody else left to vote, nobody is out."""
    s = tx.s
    order = [x for x in vote_order(s) if x in candidates]
    voters = hooks.voters(s, tuple(sorted(s.alive)))
    if others:
        voters = tuple([x for x in voters if x not in candidates])
        if not voters:
            tx.emit(VoteClosed((), None, ()))
            return
    tx.open("vote", "revote", voters, (*order, None))


def task_execute(tx: Tx, seat: int) -> None:
    # V7.1: the angel chooses before it goes (only variants with a take-along step ask: no resume task to build)
    if tx.s.config.variant.take_steps and turns.take_along_first(tx, seat, ("execute", seat)):
        return
    s = tx.s
    if s.cards and len(s.cards[seat - 1]) > 1:  # D3: shows the first identity and plays on with the second
        cards.lose_card(tx, seat, "executed")
        return
    if s.config.variant.reveals and hooks.reveals(s, seat):  # W9: shows the card and stays
        hooks.reveal(tx, seat, "voted_out")
        return
    allowed = s.config.talk and lastwords_allowed(s, seat, "executed")  # asked before the death takes its place
    if turns.die_with_take_along(tx, seat, "executed"):
        return
    if s.config.variant.last_acts and hooks.last_act_due(tx.s, seat, "executed"):
        tx.push(("last_act", seat))  # W8: after the last words
    if day_rules(s.config).sheriff and hooks.holds_badge(s, seat):
        tx.push((sheriff.BADGE, seat))  # W10: after the last words, before a last act
    if allowed and s.config.talk:
        tx.open("last_words", "last_words.executed", (seat,))


TASKS: dict[str, Any] = {
    "last_words_night": task_last_words_night,
    "speeches": task_speeches,
    "speak_among": task_speak_among,
    "defence": task_defence,
    "defence_speeches": task_defence_speeches,
    "vote": task_vote,
    "revote": task_revote,
    "execute": task_execute,
}
TASKS.update(turns.TASKS)  # V4.7, V4.8, V7.1
TASKS.update(hooks.TASKS)  # W8
TASKS.update(sheriff.TASKS)  # W10


def _check_win(tx: Tx) -> bool:
    result = win.check(tx.s)
    if result:
        tx.end(*result)
        return True
    return False


# ---- inputs ----------------------------------------------------------------------------------------------

def end_speech(tx: Tx, seat: int, how: str) -> None:
    s = tx.s
    if not s.queue or s.queue[0] != seat:
        current = s.queue[0] if s.queue else None
        raise Rejected("not_your_turn", f"seat {seat} is not speaking now (seat {current} is); nobody speaks "
                                        "out of turn (V2.4)")
    tx.emit(Spoke(seat, how))


def claim_defence(tx: Tx, seat: int, target: int | None) -> None:
    s = tx.s
    if seat in s.defence or seat in s.picks:
        raise Rejected("already_answered", f"seat {seat} has already answered")
    if target is not None and target != seat:
        raise Rejected("bad_target", "a defence is claimed for oneself")
    if target is None:
        from controller.rules.events import Picked

        tx.emit(Picked(seat, None))
    else:
        tx.emit(DefenceClaimed(seat))
    if all(x in tx.s.defence or x in tx.s.picks for x in tx.s.alive):
        close_defence_claims(tx)


def close_defence_claims(tx: Tx) -> None:
    from controller.rules.events import Acted

    w = tx.s.waiting
    assert w is not None
    tx.emit(Acted(w.step, "defence", tuple(tx.s.defence), None, "closed"))


def _check_vote_target(s: GameState, target: int | None) -> None:
    w = s.waiting
    assert w is not None
    if target in w.choices:
        return
    if not isinstance(target, int) or not 1 <= target <= s.players:
        raise Rejected("unknown_seat", f"there is no seat {target}")
    if target not in s.alive:
        raise Rejected("target_dead", f"seat {target} is out of the game and cannot be voted for")
    raise Rejected("not_candidate", f"seat {target} is not a candidate in this vote")


def vote(tx: Tx, seat: int, target: int | None, delay_s: float) -> None:
    s = tx.s
    w = s.waiting
    assert w is not None
    if seat not in w.seats:
        raise Rejected("not_voter", f"seat {seat} does not vote in this round")
    if seat in s.picks:
        raise Rejected("already_voted", f"seat {seat} has already voted; one vote each (V2.5)")
    _check_vote_target(s, target)
    window = float(s.config.opt("vote.window_s"))
    if delay_s > window:
        raise Rejected("follow_vote", f"seat {seat}'s hand came {delay_s:.1f}s after the call, later than the "
                                      f"{window:g}s window: a follow-vote does not count (V2.6)")
    tx.emit(Voted(seat, target))
    if _all_voted(tx.s):
        close_vote(tx)


def _all_voted(s: GameState) -> bool:
    """Whether every living voter of the open vote has a hand in."""
    w = s.waiting
    assert w is not None
    alive, picks = s.alive, s.picks
    return all(x in picks for x in w.seats if x in alive)


def ballot(tx: Tx, votes: tuple[tuple[int, int | None], ...]) -> None:
    """The judge's count of a whole vote (judge entry): checked like single votes, then closed at once."""
    s = tx.s
    w = s.waiting
    assert w is not None
    if s.picks:  # hands raised one by one before the judge's count: count them all together
        _check_hands(s, votes)
        _close(tx, (*sorted(s.picks.items()), *votes))
        return
    counts = _counted(votes, s.alive, w.choices, w.step != turns.TURN_VOTE)  # a V4.8 turn's one hand: no count
    if counts is None:  # a hand the quick checks do not vouch for: the detailed checks say what is wrong, if anything
        _check_hands(s, votes)
    _close(tx, votes, counts)


def _counted(votes: tuple[tuple[Any, ...], ...], alive: frozenset[int], choices: tuple[int | None, ...],
             count: bool) -> dict[Any, int] | None:
    """The hands of a ballot per living candidate, when cheap checks show every hand is valid (the voters in seat
    order, so each once, and alive; the target a candidate), else None.

    The judge counts candidate by candidate, so a ballot comes in runs of hands for one target: each run's target is
    checked and counted once. The seats and targets stay Python objects (``Any``): compiled, a typed ``int`` would
    be unboxed from the hand and boxed again for every set lookup."""
    counts: dict[Any, int] = {}
    previous = 0
    target: Any = None
    run = 0
    for hand in votes:
        voter = hand[0]
        if voter not in alive:
            return None
        seat: int = voter
        if seat <= previous:
            return None
        previous = seat
        t = hand[1]
        if run == 0 or t is not target:
            if not _is_candidate(t, choices):
                return None
            if count and run and target is not None and target in alive:  # an ejected candidate gets no hands
                counts[target] = counts.get(target, 0) + run
            target, run = t, 0
        run += 1
    if count and run and target is not None and target in alive:
        counts[target] = counts.get(target, 0) + run
    return counts


def _is_candidate(target: Any, choices: tuple[Any, ...]) -> bool:
    """``target in choices``, trying identity first: seat numbers are shared small int objects, so a comparison of
    pointers finds a candidate without a rich comparison of each one before it."""
    for c in choices:
        if c is target:
            return True
    return target in choices


def _check_hands(s: GameState, votes: tuple[tuple[int, int | None], ...]) -> None:
    """Each hand of a ballot checked like a single vote, in order: the first bad one is rejected with its reason."""
    w = s.waiting
    assert w is not None
    seen: set[int] = set()
    alive, picks = s.alive, s.picks
    for voter, target in votes:
        if voter not in alive:
            if not isinstance(voter, int) or not 1 <= voter <= s.players:
                raise Rejected("unknown_seat", f"there is no seat {voter}")
            raise Rejected("dead", f"seat {voter} is out of the game and cannot vote")
        if voter in seen or voter in picks:
            raise Rejected("already_voted", f"seat {voter} votes twice; one vote each (V2.5)")
        seen.add(voter)
        if target not in w.choices:
            _check_vote_target(s, target)


def close_vote(tx: Tx) -> None:
    """The deadline (or the last hand): count what was raised (V2.5: abstaining is allowed)."""
    _close(tx, tuple(sorted(tx.s.picks.items())))


def _close(tx: Tx, hands: tuple[tuple[int, int | None], ...], counts: dict[Any, int] | None = None) -> None:
    """Count the hands (``counts``: already counted by the caller, per living candidate) and settle the vote."""
    s = tx.s
    w = s.waiting
    assert w is not None
    if w.step == turns.TURN_VOTE:  # V4.8: one player's vote right after their defence
        turns.close_turn(tx, hands)
        return
    if w.step in sheriff.VOTES:  # W10: the sheriff election's vote
        sheriff.close_vote(tx, hands)
        return
    if counts is None:
        alive = s.alive
        counts = {}
        for v, t in hands:
            if t is not None and v in alive and t in alive:
                counts[t] = counts.get(t, 0) + 1
    if not counts:  # V2.5 decision: if nobody votes, nobody is out
        tx.emit(VoteClosed((), None, ()))
        return
    # The tally in the candidates' order, its top count and who has it, in one pass (no intermediate tuples). Every
    # hand counted was checked against the candidates, so the one candidate with hands needs no search.
    tally: tuple[tuple[int, int], ...] = ()
    tops: tuple[int, ...] = ()
    first: Any = None  # the first of the top candidates (an object: compiled, no unboxing and boxing again)
    if len(counts) == 1:
        for c, n in counts.items():
            tally, tops, first = ((c, n),), (c,), c
    else:
        tally_list: list[tuple[Any, int]] = []
        tops_list: list[Any] = []
        choices: tuple[Any, ...] = w.choices  # objects, as above
        top = 0
        for c in choices:
            if c in counts:
                n = counts[c]
                tally_list.append((c, n))
                if n > top:
                    top = n
                    tops_list = [c]
                elif n == top:
                    tops_list.append(c)
        if not tally_list:  # (hands for no candidate: none are counted, but keep the rule's answer)
            tx.emit(VoteClosed((), None, ()))
            return
        tally, tops, first = tuple(tally_list), tuple(tops_list), tops_list[0]
        if day_rules(s.config).sheriff:  # W10: the sheriff's hand counts 1.5
            tops = sheriff.weighted_tops(s, hands, tally, tops)
            first = tops[0]
    if w.step == "vote" and day_rules(s.config).top2:
        _top2_first_round(tx, tally, tops)
        return
    if len(tops) == 1:
        out = first
        tx.emit(VoteClosed(tally, out, ()))
        tx.agenda.insert(0, ("execute", out))  # Tx.push without its argument tuple
        return
    tx.emit(VoteClosed(tally, None, tops))
    _tie(tx, tops)


def _top2_first_round(tx: Tx, tally: tuple[tuple[int, int], ...], tops: tuple[int, ...]) -> None:
    """V2.7 ``tie.top2``: the top vote-getter and the next (two or more players) debate; a revote decides."""
    group = tops
    if len(tops) == 1:
        rest = [n for c, n in tally if c not in tops]
        if rest:
            second = max(rest)
            group = tops + tuple(c for c, n in tally if n == second)
    if len(group) == 1:  # only one player got any vote: there is nobody to debate with
        tx.emit(VoteClosed(tally, group[0], ()))
        tx.push(("execute", group[0]))
        return
    tx.emit(VoteClosed(tally, None, group))
    tx.emit(TieRound("top2", 1, group))
    tx.push(("speak_among", group, "tie.debate"), ("revote", group))


def _tie(tx: Tx, tied: tuple[int, ...]) -> None:
    """V2.7, the variant's tie procedure, one round at a time."""
    s = tx.s
    procedure = str(s.config.opt("tie")) if "tie" in s.config.options else "revote"
    previous = s.tie
    limit = int(s.config.opt("tie.limit"))
    if procedure == "club":
        # Any tie in a revote is the next stage, also among fewer players than before (004 §4.5: 若再次出现平票).
        # A revote's candidates are the last tie's players, so a third tie is among players tied all three times.
        stage = previous.stage + 1 if previous is not None else 1
        if stage == 1:  # the tied players speak again, then a revote among them
            tx.emit(TieRound("club", 1, tied))
            tx.push(("speak_among", tied, "tie.speak"), ("revote", tied))
        elif stage == 2:  # the other players speak one by one, then a revote
            tx.emit(TieRound("club", 2, tied))
            others = tuple(x for x in (s.speech_order or speech_order(s)) if x not in tied and x in s.alive)
            tx.push(("speak_among", others, "tie.others"), ("revote", tied))
        else:  # tied a third time (003 §4.3b: 相同的几位玩家三次平票): a draw
            tx.emit(TieRound("club", 3, tied, "draw"))
            tx.end("draw", "V2.7: the same players tied three times")
        return
    stage = (previous.stage + 1) if previous is not None else 1
    if stage > limit:  # Decision (tie.limit): nobody is voted out, so that the day ends
        tx.emit(TieRound(procedure, stage, tied, "nobody_out"))
        return
    tx.emit(TieRound(procedure, stage, tied))
    if procedure == "others_revote":  # W13: the tied speak again, the others vote among them
        tx.push(("speak_among", tied, "tie.speak"), ("revote", tied, True))
    elif procedure == "revote" and stage == 1:  # a second vote at once
        tx.push(("revote", tied))
    else:  # defence speeches (revote, top2) or the tied debate (debate_first), then a revote
        step = "tie.debate" if procedure == "debate_first" else "tie.defence"
        tx.push(("speak_among", tied, step), ("revote", tied))


def surrender(tx: Tx, seat: int) -> None:
    """V2.11: a side may surrender, except civilians, and never while both sides still have partners alive.
    Decision: a non-civilian may surrender only when they are the last living member of their role's team
    (a role whose members know each other: killers, police); the other side wins. A lone role with no team (the
    doctor, the informant, the secret police) never surrenders for its side."""
    s = tx.s
    if not (isinstance(seat, int) and 1 <= seat <= s.players):
        raise Rejected("unknown_seat", f"there is no seat {seat}")
    if seat not in s.alive:
        raise Rejected("dead", f"seat {seat} is out of the game")
    if "surrender" not in s.config.options or not s.config.opt("surrender"):
        raise Rejected("no_surrender", "this variant does not allow surrender")
    spec = s.spec(seat)
    if spec.civilian:
        raise Rejected("civilian_surrender", "civilians may not surrender (V2.11)")
    if not spec.knows_partners:  # a doctor or an informant alone is not "a side down to its last survivor"
        raise Rejected("no_team", f"seat {seat} has no team to surrender for; only killers or police may (V2.11)")
    team = s.living_with((s.role_of(seat),))
    if len(team) > 1:
        raise Rejected("partners_alive", f"seat {seat} still has living partners; no surrender (V2.11)")
    other = "good" if spec.side == "killers" else "killers"
    tx.emit(Died(seat, "surrendered"))
    tx.end(other, f"V2.11: seat {seat} surrendered")


def remove_player(tx: Tx, seat: int, cause: str) -> None:
    """V2.11 §5.14/§5.15: the judge rules a player out. The open step goes on without them."""
    s = tx.s
    speaking = bool(s.queue) and s.queue[0] == seat and s.waiting is not None
    tx.emit(Died(seat, cause))
    if _check_win(tx):
        return
    if day_rules(s.config).sheriff and hooks.holds_badge(s, seat):
        tx.push((sheriff.BADGE, seat))  # W10: once the open step is over
    s = tx.s
    if speaking or (s.waiting is not None and seat in s.queue):
        tx.emit(Spoke(seat, cause))
    w = tx.s.waiting
    if w is not None and w.kind == "vote" and _all_voted(tx.s):
        close_vote(tx)
    elif w is not None and w.kind == "night" and w.group:
        members = [m for m in w.seats if m in tx.s.alive]
        if not members:
            night.deadline(tx)
        elif all(m in tx.s.picks for m in members):
            night.group_check(tx, final=False)
