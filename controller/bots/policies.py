"""The three bot policies.

- ``uninformed``: the model of the published Mafia analyses, exactly: each night the killers kill a uniformly
  random living non-killer; each day every living player votes for one and the same uniformly random living
  player (among the candidates of the vote); checks and saves are uniformly random among the legal choices;
  nobody surrenders, claims a defence or speaks beyond "pass".
- ``random``: every player picks uniformly among its own legal inputs, independently (abstaining included).
- ``heuristic``: plausible play. Police check players they have not checked; a police nod becomes a public
  claim the next day, and the good side votes for the claimed killer; the claiming police is then known to
  everyone, so the killers go for the claimed police once (not again: the doctor protects them) and the
  doctor protects them. Killers never vote
  for a partner; they vote for a claimed police or a random non-killer. The secret police shoots a claimed
  killer. Without a claim, good players vote for a random player other than themselves and those the police
  cleared (a shake).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final, Protocol

from controller.rules.ability import REGISTRY
from controller.rules.actions import (
    Action,
    Ballot,
    ChooseDirection,
    GroupPick,
    Pass,
    Pick,
    SelfDestruct,
    Timeout,
    Vote,
    Withdraw,
)
from controller.rules.draws import choice
from controller.rules.engine import Pending
from controller.rules.events import Acted, Event
from controller.rules.sheriff import BADGE, SPEECH, VOTES
from controller.rules.state import GameState
from controller.rules.turns import TURN_VOTE

PASSIVE_KINDS: Final = frozenset({"speeches", "last_words"})


class Policy(Protocol):
    name: str
    #: False when :meth:`observe` does nothing (the policy remembers nothing): the simulator then skips the call.
    observes: bool

    def actions(self, state: GameState, p: Pending, rng: random.Random) -> Sequence[Action]:
        """The inputs to send now for the seats ``p`` waits for (all of them, or some)."""

    def observe(self, state: GameState, events: Sequence[Event]) -> None:
        """See what the engine answered (a policy remembers only what its seats may know)."""


def _targets(p: Pending) -> list[int]:
    return [c for c in p.choices if c is not None]


def _team(state: GameState, p: Pending) -> tuple[str, ...]:
    """The roles awake in a night step (V5.4: a boss and the undercover guest wake with the killers, though the
    judge calls only "killers")."""
    teams = state.config.variant.step_teams
    return teams[p.step] if p.step in teams else tuple(p.role.split("+"))


def _among(seats: tuple[int | None, ...], seat: int) -> bool:
    """``seat in seats``, as a loop over native ints (compiled, ``in`` on a tuple boxes the int and compares
    objects one by one)."""
    for x in seats:  # noqa: SIM110 (a generator expression builds an object per call)
        if x is not None and x == seat:
            return True
    return False


def _has_none(choices: tuple[int | None, ...]) -> bool:
    """``None in choices``, by identity (``in`` compares every int with None through the generic protocol)."""
    for c in choices:  # noqa: SIM110 (a generator expression builds an object per call)
        if c is None:
            return True
    return False


def _candidates(p: Pending) -> tuple[int | None, ...] | list[int]:
    """The vote's candidates without "abstain", in order: ``choices`` itself when it has no None, the tuple
    without its last item when that is the only None (a vote's abstention comes last), else a new list."""
    choices = p.choices
    n = len(choices)
    for i in range(n):
        if choices[i] is None:
            return choices[:-1] if i == n - 1 else _targets(p)
    return choices


class UninformedPolicy:
    name = "uninformed"
    observes = False

    def __init__(self) -> None:
        #: (day, seat): the day's target when the votes come one at a time (V4.8).
        self.day_target: tuple[int, int | None] = (0, None)
        #: The game's roles and a step's id, and for each seat whether it holds a role of the step's team: the
        #: same at every night of a game, so worked out once a game (see :meth:`_partners`).
        self.partner_of: tuple[tuple[str, ...], str, tuple[bool, ...]] = ((), "", ())

    def _partners(self, state: GameState, p: Pending) -> tuple[bool, ...]:
        """For each seat (index 0 unused), whether its role wakes with ``p``'s step (a partner, never a kill
        target): kept for the game's roles and the step, so a policy kept for another game works it out anew."""
        roles, step, partner = self.partner_of
        if roles is not state.roles or step != p.step:
            team = _team(state, p)
            roles, step = state.roles, p.step
            partner = (False, *[role in team for role in roles])
            self.partner_of = (roles, step, partner)
        return partner

    def actions(self, state: GameState, p: Pending, rng: random.Random) -> Sequence[Action]:
        kind = p.kind
        choices = p.choices
        if kind == "night":
            if p.ability == "kill":
                actors, partner = p.seats, self._partners(state, p)
                targets: list[int] = []
                for c in choices:
                    if c is not None and not _among(actors, c) and not partner[c]:
                        targets.append(c)
                if not targets and not _has_none(choices):  # V5.4: nobody but partners and the spared is left
                    targets = _targets(p)
                return (GroupPick(choice(rng, targets) if targets else None),)
            return (GroupPick(choice(rng, choices)),)
        if kind == "vote":
            # The candidates without "abstain" (a V4.8 turn has none to leave out: no list to build at every turn).
            target = choice(rng, _candidates(p))
            if p.step == TURN_VOTE:  # V4.8: one voter at a time; the day's one random target holds for all
                day, kept = self.day_target
                if day == state.day and kept is not None and _among(choices, kept):
                    target = kept
                self.day_target = (state.day, target)
            return (Ballot(tuple([(v, target) for v in p.seats])),)
        if kind in PASSIVE_KINDS:
            return (Pass(p.seats[0]),)
        if kind == "candidacy":  # W10: each runs for sheriff with one chance in four
            return _run_for_sheriff(p, rng, 0.25)
        if kind == BADGE:  # W10: to any living player, or torn
            return (Pick(p.seats[0], choice(rng, choices)),)
        return (Timeout(),)  # recognition, defence claims, the judge's direction: nothing to add

    def observe(self, state: GameState, events: Sequence[Event]) -> None:
        return None


class RandomPolicy:
    name = "random"
    observes = False

    def actions(self, state: GameState, p: Pending, rng: random.Random) -> Sequence[Action]:
        kind = p.kind
        if kind == "night":
            if p.group:
                todo = [m for m in p.seats if m not in p.picks]
                if not todo:
                    return (Timeout(),)  # everyone picked and the group is still split: the deadline decides
                return tuple(Pick(m, choice(rng, p.choices)) for m in todo)
            return (Pick(p.seats[0], choice(rng, p.choices)),)
        if kind == "vote":
            return tuple(Vote(v, choice(rng, p.choices)) for v in p.seats)
        if kind in PASSIVE_KINDS:
            if p.step == SPEECH and rng.random() < 0.2:  # W10: a candidate withdraws (退水)
                return (Withdraw(p.seats[0]),)
            return (Pass(p.seats[0]),)
        if kind == "candidacy":
            return _run_for_sheriff(p, rng, 0.5)
        if kind == BADGE:
            return (Pick(p.seats[0], choice(rng, p.choices)),)
        if kind == "recognition":
            return tuple(Pass(s) for s in p.seats) or (Timeout(),)
        if kind == "defence_claim":
            return tuple(Pick(s, s) if rng.random() < 0.5 else Pass(s) for s in p.seats) or (Timeout(),)
        if kind == "direction":
            return (ChooseDirection(rng.random() < 0.5),)
        if kind == "first_identity":  # D1: each player picks which card plays first
            return tuple(Pick(s, choice(rng, p.choices)) for s in p.seats) or (Timeout(),)
        return (Timeout(),)

    def observe(self, state: GameState, events: Sequence[Event]) -> None:
        return None


class HeuristicPolicy:
    name = "heuristic"
    observes = True

    def __init__(self) -> None:
        self.nods: set[int] = set()  # checked killers (the police's knowledge)
        self.cleared: set[int] = set()  # checked non-killers
        self.claimed_police: int | None = None  # public once the police claim a nod
        self.claimed_killers: set[int] = set()  # public claims
        #: Claimed police the killers already went for: once is enough, since the doctor protects them, and a
        #: killer who kept trying would meet the doctor's save every night in a game that never ends.
        self.kill_tried: set[int] = set()

    def observe(self, state: GameState, events: Sequence[Event]) -> None:
        """Memory comes only from events, so a bot rebuilt from a journal after a power cut remembers exactly
        what the uninterrupted one did."""
        for e in events:
            if isinstance(e, Acted) and e.ability == "kill" and e.target is not None \
                    and e.target == self.claimed_police:
                self.kill_tried.add(e.target)
            if (isinstance(e, Acted) and e.ability == "check" and e.target is not None and e.actors
                    and state.spec(e.actors[0]).side == "good"):
                (self.nods if e.result == "nod" else self.cleared).add(e.target)
                if e.result == "nod" and self.claimed_police is None:
                    self.claimed_police = e.actors[0]

    def _claims(self, state: GameState) -> None:
        # By day the police tell the table what they found (a claim is public from then on).
        if state.phase == "day":
            self.claimed_killers |= {k for k in self.nods if k in state.alive}

    def actions(self, state: GameState, p: Pending, rng: random.Random) -> Sequence[Action]:
        self._claims(state)
        kind = p.kind
        alive = state.alive
        if kind == "night":
            targets = _targets(p)
            roles = p.role.split("+")
            if p.ability == "kill":
                others = [t for t in targets if state.roles[t - 1] not in roles]
                if self.claimed_police in others and self.claimed_police not in self.kill_tried:
                    return (GroupPick(self.claimed_police),)
                return (GroupPick(choice(rng, others) if others else None),)
            if p.ability == "check":
                if state.spec(p.seats[0]).side == "good":
                    fresh = [t for t in targets if t not in self.nods and t not in self.cleared]
                else:
                    fresh = targets
                return (GroupPick(choice(rng, fresh or targets)),)
            if p.ability == "protect":
                if self.claimed_police in targets:
                    return (GroupPick(self.claimed_police),)
                return (GroupPick(choice(rng, targets)),)
            if p.ability == "secret_kill":
                shots = [t for t in targets if t in self.claimed_killers and t in alive]
                if not shots and len(alive) == 2:  # D2: alone with one other and no end: that one is a killer
                    shots = targets
                return (GroupPick(shots[0] if shots else None),)
            v4v7 = _v4_v7_night(self, state, p, targets, rng)
            if v4v7 is not None:
                return (v4v7,)
            by_kind = _by_kind(self, state, p, targets, rng)
            if by_kind is not None:
                return (by_kind,)
            return (GroupPick(choice(rng, p.choices)),)
        if kind == "vote":
            wolf = _self_destructs(self, state, p, rng)
            if wolf:
                return (SelfDestruct(wolf),)
            out: list[Action] = []
            candidates = _targets(p)
            claimed = [c for c in candidates if c in self.claimed_killers]
            for v in p.seats:
                mine = state.roles[v - 1]
                if state.side_of(v) == "killers":
                    partners = {c for c in candidates if state.roles[c - 1] == mine}
                    pool = [c for c in candidates if c not in partners]
                    if self.claimed_police in pool:
                        target: int | None = self.claimed_police
                    else:
                        target = choice(rng, pool) if pool else None
                elif claimed:
                    target = claimed[0]
                else:
                    pool = [c for c in candidates if c != v and c not in self.cleared]
                    target = choice(rng, pool or candidates)
                out.append(Vote(v, target))
            return out
        if kind in PASSIVE_KINDS:
            return (Pass(p.seats[0]),)
        if kind == "defence_claim":
            return tuple(Pick(s, s) if s in self.claimed_killers else Pass(s) for s in p.seats) or (Timeout(),)
        if kind == "candidacy":
            return _candidacy(self, state, p, rng)
        if kind == BADGE:
            return (Pick(p.seats[0], _heir(self, state, p, rng)),)
        return (Timeout(),)


def _run_for_sheriff(p: Pending, rng: random.Random, chance: float) -> tuple[Action, ...]:
    """W10: each seat called runs for sheriff with ``chance``."""
    return tuple([Pick(s, s) if rng.random() < chance else Pass(s) for s in p.seats]) or (Timeout(),)


def _candidacy(self: HeuristicPolicy, state: GameState, p: Pending, rng: random.Random) -> tuple[Action, ...]:
    """W10: the seer runs (to give the checks with the badge's weight), a werewolf now and then (to take the badge
    from the good side), anyone else seldom."""
    out: list[Action] = []
    for s in p.seats:
        if state.side_of(s) == "killers":
            chance = 0.3
        elif _ability_of(state, s) == "check":
            chance = 1.0
        else:
            chance = 0.15
        out.append(Pick(s, s) if rng.random() < chance else Pass(s))
    return tuple(out) or (Timeout(),)


def _ability_of(state: GameState, seat: int) -> str:
    """The night ability of ``seat``'s role ("" for none)."""
    role = state.roles[seat - 1]
    for st in state.config.variant.night:
        if role in st.roles:
            return st.ability
    return ""


def _heir(self: HeuristicPolicy, state: GameState, p: Pending, rng: random.Random) -> int | None:
    """W10: a good sheriff leaves the badge to a player the checks cleared, else to anyone not claimed a killer; a
    werewolf sheriff to a partner, else tears it."""
    seat = p.seats[0]
    heirs = _targets(p)
    if state.side_of(seat) == "killers":
        partners = [h for h in heirs if state.side_of(h) == "killers"]
        return choice(rng, partners) if partners else None
    cleared = [h for h in heirs if h in self.cleared]
    pool = cleared or [h for h in heirs if h not in self.claimed_killers]
    return choice(rng, pool) if pool else None


def _self_destructs(self: HeuristicPolicy, state: GameState, p: Pending, rng: random.Random) -> int:
    """W11: the werewolf who self-destructs now (0: none). In the sheriff election, now and then one, so that the
    badge waits a day; in a day's vote, a werewolf the seer's check exposed, one time in two, so that the day
    ends before the vote."""
    wolves = [s for s in sorted(state.alive) if state.spec(s).day_action == "self_destruct"]
    if not wolves:
        return 0
    if p.step in VOTES:
        return choice(rng, wolves) if rng.random() < 0.1 else 0
    if p.step == "vote":
        exposed = [w for w in wolves if w in self.claimed_killers]
        if exposed and rng.random() < 0.5:
            return exposed[0]
    return 0


def _v4_v7_night(self: HeuristicPolicy, state: GameState, p: Pending, targets: list[int],
                 rng: random.Random) -> Action | None:
    """Heuristic 4.0 and 7.0 night play (None: the generic choice). The sniper shoots only claimed killers; the
    doctor needles the claimed police (or nobody: a random needle risks two empty needles, V4.6); the forest
    elder keeps quiet (bots do not talk, so silence changes nothing); the butterfly hugs at random (the generic
    choice); the angel revives once a police has claimed (the killers go for them) and takes a claimed killer
    along; the devil goes for the claimed police, else anyone."""
    alive = state.alive
    claimed = [t for t in targets if t in self.claimed_killers and t in alive]
    if p.ability in ("shoot", "take"):
        return GroupPick(claimed[0] if claimed else None)
    if p.ability == "needle":
        return GroupPick(self.claimed_police if self.claimed_police in targets else None)
    if p.ability == "silence":
        return GroupPick(None)
    if p.ability == "revive":
        return GroupPick(p.seats[0] if self.claimed_police is not None and None in p.choices else None)
    if p.ability == "late_kill":
        if self.claimed_police in targets:
            return GroupPick(self.claimed_police)
        return GroupPick(choice(rng, targets) if targets else None)
    return None


def _by_kind(self: HeuristicPolicy, state: GameState, p: Pending, targets: list[int],
             rng: random.Random) -> Action | None:
    """Heuristic play of an ability the bots have no rule for, by its effect's kind (None: the generic choice):
    a lethal one goes for a claimed killer or nobody (W6: the witch's poison), a protection covers the claimed
    police (the seer) or else any one it may (W6: the antidote on the night's victim, W7: the guard)."""
    ability = REGISTRY.get(p.ability)
    if ability is None:
        return None
    if ability.lethal:
        claimed = [t for t in targets if t in self.claimed_killers and t in state.alive]
        return GroupPick(claimed[0] if claimed else None)
    if ability.protects:
        if self.claimed_police in targets:
            return GroupPick(self.claimed_police)
        return GroupPick(choice(rng, targets) if targets else None)
    return None


POLICIES: dict[str, Callable[[], Policy]] = {
    "uninformed": UninformedPolicy, "random": RandomPolicy, "heuristic": HeuristicPolicy}
