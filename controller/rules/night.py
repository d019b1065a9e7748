"""The night (C2, C6, C8): who wakes, what they may point at, how a group decides, and how the dawn resolves.

Abilities are modules of controller/rules/abilities/ named in the variant files (``ability = "kill"``), each
an :class:`~controller.rules.ability.Ability` of data: its limits say when its holders wake (:func:`_available`),
its ``choose`` whom they may target (:func:`legal_targets`), its ``learns`` what they learn at once
(:func:`_result`), and its effect's kind what it does at dawn (:func:`resolve_dawn`). Nothing here asks for an
ability by name; the fast paths are derived from those fields (:class:`_StepPlan`), so a new ability is never
offered the wrong players by omission.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from controller.rules import cards, clash, hooks, sheriff, win
from controller.rules.ability import REGISTRY, Ability
from controller.rules.actions import Rejected
from controller.rules.agenda import day_agenda, day_rules
from controller.rules.draws import choice
from controller.rules.events import Acted, Dawn, Event, GameCreated, NightFell, Picked, Reasked
from controller.rules.hands import copy_of
from controller.rules.setup import GameConfig
from controller.rules.state import GameState
from controller.rules.variant import NightStep

if TYPE_CHECKING:
    from controller.rules.tx import Tx


def _available(s: GameState, sp: _StepPlan, actors: tuple[int, ...]) -> tuple[int, ...]:
    """The actors who may use the ability tonight (empty: the step is skipped and nobody wakes), by its limits:
    a capped team count (V2.10: limited checks), one use per game per actor (V3.3, V7.1's revival), and its
    waking condition (V7.1: the angel takes someone along only on the night it dies, the take step being the
    night's last; the devil kills only once no killer is left)."""
    ability = sp.ab
    if sp.count_limit and s.mark(ability.count_mark) >= sp.count_limit:
        return ()
    if ability.once_mark:
        actors = tuple(a for a in actors if not clash.used_once(s, ability, a))
    if ability.one_of:  # W6: at most one potion a night
        actors = tuple(a for a in actors if not _used_set_tonight(s, ability.one_of, a))
    when = ability.awake_when
    if when == "dying_tonight":
        actors = tuple(a for a in actors if clash.dies_tonight(s, a))
    elif when == "no_killers_left" and s.living_with(sp.killers):
        return ()
    return actors


def _used_set_tonight(s: GameState, one_of: str, seat: int) -> bool:
    """W6: has ``seat`` acted on a target tonight with an ability of the set ``one_of``?"""
    for a in s.acts:
        if a.target is not None and seat in a.actors and REGISTRY[a.ability].one_of == one_of:
            return True
    return False


def legal_targets(s: GameState, st: NightStep, actors: tuple[int, ...]) -> tuple[int | None, ...]:
    """Whom ``actors`` may point at in step ``st`` (C2: players with eyes closed, unless the rule allows more)."""
    g = _game(s)
    return _targets(s, g, g.step(st.id), actors, False)


def _targets(s: GameState, g: _GamePlan, gs: _GameStep, actors: tuple[int, ...],
             holders_awake: bool) -> tuple[int | None, ...]:
    """:func:`legal_targets`; ``holders_awake``: ``actors`` are exactly the living holders of the step's cards
    (then "not awake" is a look-up in the step's seat mask, not a search of ``actors``)."""
    sp = gs.plan
    st = sp.st
    living = g.living_of(s.alive)
    if sp.all_living:  # C2 "living"; V2.12: killers may kill themselves or each other, by majority only
        if sp.plain_living:  # most 4.0 steps: the living, or nobody
            return g.living_or_none(living) if st.optional else living
        out: tuple[int, ...] | list[int] = living
    elif holders_awake:  # others, eyes_closed: the living who are not awake in this step
        mask = gs.mask
        out = [x for x in living if not mask[x]]
    else:
        awake = set(actors)
        out = [x for x in living if x not in awake]
    if st.spare_when_last and sum(1 for x in actors if s.roles[x - 1] in st.roles) == 1:
        out = [x for x in out if s.roles[x - 1] not in st.spare_when_last]  # V5.4: only a day vote can
    if sp.bars_first_victim and s.night == g.plan.kill_night:
        barred = g.plan.barred
        if barred:
            out = [x for x in out if x != barred]
    if sp.reshaped:
        out = _reshaped(s, sp, actors, out)
    if st.optional:
        return (*out, None)
    return tuple(out)


def _reshaped(s: GameState, sp: _StepPlan, actors: tuple[int, ...],
              out: tuple[int, ...] | list[int]) -> tuple[int, ...] | list[int]:
    """The choices of an ability that chooses otherwise than its step's rule, or limits them further."""
    if sp.self_target:  # V7.1: the angel does not know the victim; pointing at oneself means "revive"
        out = actors
    elif sp.chooser is not None:  # the ability's own rule (a club's or a test's module; it may name the dead)
        out = [x for x in sp.chooser(s, actors) if 1 <= x <= s.players]
    if sp.last_key:  # W7: never the same player two nights running
        last = s.mark(sp.last_key)
        out = [x for x in out if x != last]
    rule = sp.self_rule
    if rule == "never" or (rule == "first_night" and s.night != 1):  # W6: the witch's self-save
        out = [x for x in out if x not in actors]
    return out


def recognition_first(config: GameConfig) -> bool:
    """V2.10: is the first night recognition only (no kill, a day-one blind push follows)?"""
    return "first_night" in config.options and config.opt("first_night") == "recognition"


def first_kill_night(config: GameConfig) -> int:
    """V2.11 decision: the "first-night victim" is the victim of the first night on which the killers kill:
    night 1, or night 2 when the first night is recognition only (V2.10)."""
    return 2 if recognition_first(config) else 1


def first_victim(events: Iterable[Event]) -> int | None:
    """V2.11: the seat the killers killed on a game's first kill night (for the next games' ``history``); None
    when that night killed nobody or the game never got there (the run of repeats is then broken)."""
    kill_night = 1
    for e in events:
        if isinstance(e, GameCreated):
            options = dict(e.options)
            kill_night = 2 if options.get("first_night") == "recognition" else 1
        elif isinstance(e, Dawn) and e.night == kill_night:
            return next((seat for seat, cause in e.deaths if cause == "killed"), None)
    return None


def _barred_first_victim(config: GameConfig) -> int | None:
    """V2.11: the seat that may not be tonight's first-night victim, since it was the first victim of each of the
    last ``first_victim.max_repeat`` games; None when there is no such run."""
    limit = int(config.options.get("first_victim.max_repeat", 0))
    if not limit or len(config.history) < limit:
        return None
    last = config.history[-limit:]
    return last[0] if all(v == last[0] for v in last) else None


def _result(s: GameState, g: _GamePlan, sp: _StepPlan,
            target: int | None) -> tuple[str, tuple[tuple[str, int], ...]]:
    """What the actors learn at once, and the ability's bookkeeping (its team count, V2.10)."""
    if target is None or not sp.learns_or_counts:
        return "", ()
    if sp.learns_nod:  # V2.2: a nod for a killer, a shake for anyone else; F2: the informant too
        result = "nod" if s.roles[target - 1] in g.plan.nod_roles else "shake"
    else:
        learn = sp.ab.learn
        result = "" if learn is None else learn(s, target)
    if g.plan.void and result != "" and target == clash.voided(s, g.plan.void_names):
        result = "none"  # V4.3: no signal at all on the player the butterfly hugs
    if not sp.counts:
        return result, ()
    key = sp.count_mark
    return result, ((key, s.mark(key) + 1),)


# ---- what every night asks, worked out once ----------------------------------------------------------------
# The simulator plays thousands of nights of one configuration, and within one single-card game the seats'
# cards never change: the option reads, the step flags and the seats holding each step's cards are worked out
# here once (per configuration, per deal) instead of at every step. Plain classes: compiled, their attributes
# are native fields rather than lookups by name.

class _StepPlan:
    """One night step of a configuration: its flags and the options it reads, looked up once."""

    def __init__(self, st: NightStep, config: GameConfig) -> None:
        options = config.options
        ability = REGISTRY[st.ability]
        self.st = st
        self.ab = ability
        self.ability = st.ability
        #: The name the judge calls (Opened.role).
        self.label = "+".join(st.call or st.roles)
        #: D3 copies, V5.4 guests and late steps: who wakes depends on more than the cards (see _wakers).
        self.conditional = bool(st.copy or st.guests or st.when_all_dead)
        #: V2.10: the cap on the ability's team count (0: none).
        self.count_limit = int(options.get(ability.count_option, 0)) if ability.count_option else 0
        self.limited = bool(ability.once_mark or ability.awake_when or self.count_limit or ability.one_of)
        #: V7.1 ``no_killers_left``: the roles whose living holders keep the step asleep (those of the
        #: unconditional steps dealing the same death).
        self.killers = frozenset(
            r for other in config.variant.night for r in other.roles
            if REGISTRY[other.ability].effect == "lethal" and REGISTRY[other.ability].cause == ability.cause
            and not REGISTRY[other.ability].awake_when and not REGISTRY[other.ability].nod_only)
        self.recognition = ability.recognition
        self.self_target = ability.choose == "self"
        self.chooser = ability.choices
        self.learns_nod = ability.learns == "nod"
        self.learns_or_counts = bool(ability.learns or ability.count_mark)
        #: V2.10: the team count the ability keeps (checks_used).
        self.counts = bool(ability.count_mark)
        self.count_mark = ability.count_mark
        #: V3.3, V7.1: one use per game per actor.
        self.once = bool(ability.once_mark)
        #: V2.12: the actors may point at their own team (then only by strict majority).
        self.selfkill = bool(ability.selfkill_option)
        #: Every living player may be chosen (C2 "living"; V2.12 killers who may kill themselves).
        self.all_living = st.targets == "living" or (
            st.targets == "eyes_closed" and self.selfkill and bool(options.get(ability.selfkill_option)))
        #: V2.11: the kill of the first kill night may not hit the seat of the last games' run of first victims.
        self.bars_first_victim = ability.night_kill and bool(options.get("first_victim.max_repeat"))
        #: The choices are every living player as they are (and None when optional): nothing is left out. Derived
        #: from everything that narrows or replaces the step's own rule, so a new ability cannot reach it by
        #: omission.
        self.plain_living = (self.all_living and not st.spare_when_last and not self.bars_first_victim
                             and ability.choose == "step" and not ability.not_twice_running
                             and not ability.self_option)
        #: W7: the mark that keeps the step's last target (empty: the step has no such limit).
        self.last_key = f"last:{st.id}" if ability.not_twice_running else ""
        #: The choices are not (only) the step's own rule: see _reshaped.
        #: W6: when the actors may choose themselves ("never", "first_night", "always"; empty: the step's rule).
        self.self_rule = str(config.opt(ability.self_option)) if ability.self_option else ""
        self.reshaped = ability.choose != "step" or ability.not_twice_running or bool(self.self_rule)


class _ConfigPlan:
    """The night script of one configuration as the engine asks for it at every night."""

    def __init__(self, config: GameConfig) -> None:
        variant = config.variant
        self.config = config
        self.steps: dict[str, _StepPlan] = {st.id: _StepPlan(st, config) for st in variant.night_steps.values()}
        self.recognition_first = recognition_first(config)
        self.kill_night = 2 if self.recognition_first else 1
        self.first_tasks = _night_tasks(variant.night_ids[0])
        self.later_tasks = _night_tasks(variant.night_ids[1])
        effects = [REGISTRY[name] for name in sorted(variant.abilities)]
        #: V4.3: a void (the hug) is in play, so a check may answer nothing.
        self.void_names = tuple([a.name for a in effects if a.effect == "void"])
        self.void = bool(self.void_names)
        self.quiet_next_night = config.opt("quiet_night") == "next_night"
        #: Does any dawn of this configuration go to cards.resolve_d2 or (possibly) clash.resolve?
        self.d2 = variant.live == "both"
        self.immune = bool(variant.immune_roles)
        #: The abilities whose acts send a night to clash.resolve (kinds the short dawn does not fold).
        self.long = frozenset(a.name for a in effects if not a.short)
        self.has_long = bool(self.long)
        #: The dual-card dawn's abilities (cards.py).
        self.cards = frozenset(a.name for a in effects if a.effect == "cards")
        self.protect = any(a.effect == "protect" for a in effects)
        #: The abilities of lethal effect (names and abilities, in step): the short dawn looks at no other act.
        lethal = [a for a in effects if a.lethal]
        self.lethal_names = tuple([a.name for a in lethal])
        self.lethal_abilities = tuple(lethal)
        #: cause -> the lowest rank of a lethal effect dealing it (two causes on one seat: the lower tells).
        self.cause_rank: dict[str, int] = {}
        for a in sorted(lethal, key=lambda a: -a.rank):
            self.cause_rank[a.cause] = a.rank
        self.secret = bool(variant.shields)
        self.secret_roles = variant.secret_roles
        #: W8: some role acts once on dying.
        self.last_acts = bool(variant.death_steps)
        #: The roles on which a check answers with a nod (V2.2; F2, V5.3: as the variant says).
        self.nod_roles = frozenset(name for name, spec in variant.roles.items() if spec.nod)
        barred = _barred_first_victim(config)
        self.barred = barred if barred is not None else 0


class _GameStep:
    """One night step of one deal: the step's plan and the seats dealt its cards."""

    def __init__(self, plan: _StepPlan, seats_of: dict[str, list[int]], players: int) -> None:
        self.plan = plan
        #: The seats dealt one of the step's cards, the dead too, in seat order.
        self.holders = win.seats_holding(seats_of, plan.st.roles)
        #: By seat (index 0 unused): is the seat one of ``holders``? (Who is awake, without a tuple search.)
        mask = [False] * (players + 1)
        for seat in self.holders:
            mask[seat] = True
        self.mask = mask


class _GamePlan:
    """One deal of one configuration (the roles never change in a single-card game; a D1 card that turns up
    is a new ``roles`` tuple, hence a new plan)."""

    def __init__(self, plan: _ConfigPlan, roles: tuple[str, ...], seats_of: dict[str, list[int]]) -> None:
        self.plan = plan
        self.config = plan.config
        self.roles = roles
        self.steps: dict[str, _GameStep] = {}
        #: role -> the seats dealt it (the win checks' pass over the same deal).
        self.seats_of = seats_of
        #: The last ``alive`` asked, its seats in order and those with None (a step that may be skipped): it
        #: changes only with a death, and a night asks at every step. Replaced whole, so a reader never sees
        #: one without the others.
        self.last_living: tuple[frozenset[int] | None, tuple[int, ...], tuple[int | None, ...] | None] = (
            None, (), None)

    def step(self, step_id: str) -> _GameStep:
        gs = self.steps.get(step_id)
        if gs is None:
            gs = self.steps[step_id] = _GameStep(self.plan.steps[step_id], self.seats_of, len(self.roles))
        return gs

    def living_of(self, alive: frozenset[int]) -> tuple[int, ...]:
        last = self.last_living
        if last[0] is alive:
            return last[1]
        living = tuple(sorted(alive))
        self.last_living = (alive, living, None)
        return living

    def living_or_none(self, living: tuple[int, ...]) -> tuple[int | None, ...]:
        """``living`` (just returned by :meth:`living_of`) and None: an optional step's choices."""
        last = self.last_living
        if last[1] is living and last[2] is not None:
            return last[2]
        choices = (*living, None)
        if last[1] is living:
            self.last_living = (last[0], living, choices)
        return choices


class _Cache:
    """The plans of the configurations seen lately, and the plan of the game played last."""

    def __init__(self) -> None:
        self.plans: dict[int, _ConfigPlan] = {}
        self.game: _GamePlan | None = None


_CACHE: Final = _Cache()


def _config_plan(config: GameConfig) -> _ConfigPlan:
    """Keyed by the configuration's identity (it holds maps, so it has no hash); the plan keeps it alive, so
    the id cannot be reused while the entry exists."""
    plans = _CACHE.plans
    key = id(config)
    if key in plans:
        plan = plans[key]
        if plan.config is config:
            return plan
    if len(plans) >= 64:
        plans.clear()
    plan = plans[key] = _ConfigPlan(config)
    return plan


def _game(s: GameState) -> _GamePlan:
    g = _CACHE.game
    if g is not None and g.roles is s.roles and g.config is s.config:
        return g
    g = _CACHE.game = _GamePlan(_config_plan(s.config), s.roles, win.seats_by_role(s))
    return g


# ---- tasks -----------------------------------------------------------------------------------------------

def task_night(tx: Tx) -> None:
    s = tx.s
    n = s.night + 1
    tx.emit(NightFell(n))
    plan = _game(s).plan
    if n == 1 and plan.recognition_first:
        # V2.10: the first night is recognition only; a day-one blind push follows.
        variant = s.config.variant
        groups = [r for r, spec in variant.roles.items() if spec.knows_partners and s.config.count(r) > 1]
        tx.push(*[("recognition", r) for r in groups], ("dawn",))
        return
    tasks = plan.first_tasks if n == 1 else plan.later_tasks
    agenda = tx.agenda
    if agenda:
        agenda[0:0] = tasks  # Tx.push without the argument tuple
    else:
        tx.agenda = list(tasks)


def _night_tasks(step_ids: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The night's steps as tasks, then the dawn (worked out once per configuration: every night asks)."""
    return (*[("night_step", i) for i in step_ids], ("dawn",))


def task_night_step(tx: Tx, step_id: str) -> None:
    s = tx.s
    g = _game(s)
    gs = g.step(step_id)
    sp = gs.plan
    st = sp.st
    alive = s.alive
    awake = tuple([seat for seat in gs.holders if seat in alive])
    actors = awake
    if sp.conditional:
        actors = _wakers(s, st, actors)
    if sp.limited:
        actors = _available(s, sp, actors)
    if not actors:
        return
    if sp.recognition:  # V5.2: a recognition step of the night script
        if len(actors) > 1:
            tx.open("recognition", st.id, actors, (), group=True, role=sp.label, ability="recognise")
        return
    # the step's seat mask tells who is awake, unless a condition changed who wakes (a new tuple)
    choices = _targets(s, g, gs, actors, actors is awake)
    if not choices:  # V5.4: the last killer facing only the spared undercover police: nobody to point at
        return
    tx.open("night", st.id, actors, choices, group=len(actors) > 1, role=sp.label, ability=sp.ability)


def _wakers(s: GameState, st: NightStep, owners: tuple[int, ...]) -> tuple[int, ...]:
    """Who wakes in a step with conditions: D3 one numbered card copy; V5.4 the late steps that run only once
    every role of ``when_all_dead`` is dead; V5.4 guests (the undercover) who wake with the owners while at least
    two owners live."""
    if st.copy:
        owners = tuple(x for x in owners if copy_of(s, x) == st.copy)
    if st.when_all_dead and s.living_with(st.when_all_dead):
        return ()
    if st.guests and len(owners) >= 2:
        return tuple(sorted(owners + s.living_with(st.guests)))
    return owners


def task_recognition(tx: Tx, role: str) -> None:
    members = tx.s.living_with((role,))
    if len(members) > 1:
        tx.open("recognition", f"recognise.{role}", members, (), group=True, role=role, ability="recognise")


def task_dawn(tx: Tx) -> None:
    s = tx.s
    if day_rules(s.config).sheriff and sheriff.election_due(s):  # W10: before the night's deaths are told
        sheriff.start(tx)
        return
    dawn(tx)


def task_dawn_cut(tx: Tx) -> None:
    """W11: the dawn after a self-destruct during the sheriff election: the deaths are told, the night's dead leave
    their last words (and last acts, the badge), and night falls with no speeches and no vote."""
    dawn(tx)
    if not tx.s.over:
        tx.agenda = [task for task in tx.agenda if task[0] in _AFTER_A_CUT_ELECTION]


#: What the day keeps after a self-destruct during the sheriff election (W11).
_AFTER_A_CUT_ELECTION: Final = frozenset({"last_words_night", "last_act", sheriff.BADGE, "night"})


def dawn(tx: Tx) -> None:
    """C8: the night's effects, all at once; then the day's script."""
    s = tx.s
    g = _game(s)
    deaths, marks = _resolve(s, g.plan)
    if s.cards:  # D1: a dying first identity turns the second card up
        deaths = cards.turn(tx, deaths)
    rules = day_rules(s.config)
    if rules.sheriff:  # W11: a werewolf who self-destructed during the election is already out
        deaths = tuple([d for d in deaths if d[0] in s.alive])
    tx.emit(Dawn(s.night, deaths, marks))
    result = win.check(tx.s)
    if result:
        tx.end(*result)
        return
    if not deaths and g.plan.quiet_next_night:
        tx.agenda = [("night",)]  # V3.4 next_night: 遊戲直接進入下一輪, the day is skipped
        return
    tx.agenda = day_agenda(tx.s)  # a new list of its own (the engine reads tx.agenda afresh after each task)
    if (g.plan.last_acts or rules.sheriff) and deaths:
        # W8: the dead's last acts once the deaths (and their last words) are told; W10: first the badge
        acts = [*sheriff.badge_tasks(tx.s, deaths), *hooks.last_acts(tx.s, deaths)]
        if acts:
            agenda = tx.agenda
            at = next((i + 1 for i, task in enumerate(agenda) if task[0] == "last_words_night"), 0)
            agenda[at:at] = acts


TASKS: dict[str, Any] = {
    "night": task_night,
    "night_step": task_night_step,
    "recognition": task_recognition,
    "dawn": task_dawn,
    "dawn_cut": task_dawn_cut,
}


# ---- inputs ----------------------------------------------------------------------------------------------

def reject_out_of_turn(s: GameState, seat: int) -> None:
    w = s.waiting
    role = s.role_of(seat)
    plan = _game(s).plan
    for st in s.config.variant.night:
        sp = plan.steps[st.id]
        if role in st.roles and sp.count_limit and not _available(s, sp, (seat,)):
            raise Rejected("no_checks_left", f"seat {seat}: the police have no checks left (V2.10)")
    step = w.step if w else s.phase
    raise Rejected("not_your_turn", f"seat {seat} is not awake in this step ({step})")


def _check_target(s: GameState, target: int | None) -> None:
    w = s.waiting
    assert w is not None
    if target in w.choices and (target is None or target in s.alive or _names_the_dead(s, w.step)):
        return
    if target is None:
        raise Rejected("must_choose", f"this step ({w.step}) cannot be skipped; point at a player")
    if not isinstance(target, int) or not 1 <= target <= s.players:
        raise Rejected("unknown_seat", f"there is no seat {target}")
    if target not in s.alive:
        raise Rejected("target_dead", f"seat {target} is already out of the game")
    raise Rejected("bad_target", f"seat {target} cannot be chosen in this step ({w.step})")


def _names_the_dead(s: GameState, step: str) -> bool:
    """May the open step offer dead players? Only an ability with its own choices may (a gravekeeper reads the
    dead); every other night target is a living player (C2)."""
    st = s.config.variant.night_steps.get(step)
    return st is not None and REGISTRY[st.ability].choices is not None


def pick(tx: Tx, seat: int, target: int | None) -> None:
    s = tx.s
    _check_target(s, target)
    w = s.waiting
    assert w is not None
    if not w.group:
        _settle(tx, target, "chosen" if target is not None else "skipped")
        return
    tx.emit(Picked(seat, target))
    group_check(tx, final=False)


def group_pick(tx: Tx, target: int | None) -> None:
    """The judge enters the group's choice at once (judge entry mode), or a bot speaks for the group."""
    s = tx.s
    w = s.waiting
    if w is None or not _offered(s, w.choices, target) or (target is not None and target not in s.alive):
        _check_target(s, target)
    _settle(tx, target, "judge" if target is not None else "skipped")


def _offered(s: GameState, choices: tuple[int | None, ...], target: int | None) -> bool:
    """``target in choices``. A step open to every living player offers the night's living seats themselves
    (:meth:`_GamePlan.living_of`): then a look-up in their set, not a search of the tuple."""
    if target is not None:
        alive, living, or_none = _game(s).last_living
        if alive is not None and (choices is living or choices is or_none):
            return target in alive
    return target in choices


def deadline(tx: Tx) -> None:
    """C5: the time is up. A group settles on what its members picked (C6); nobody picked: forfeited."""
    w = tx.s.waiting
    assert w is not None
    if w.group:
        group_check(tx, final=True)
    else:
        _settle(tx, None, "forfeited")


def group_check(tx: Tx, final: bool) -> None:
    """C6: majority decides; members who say nothing agree with the others. An even split is asked again;
    still split at the deadline, the action is forfeited (or ``group_tie = random``). V2.12: a self-kill needs a
    strict majority of the living killers."""
    s = tx.s
    w = s.waiting
    assert w is not None
    # D2: each card points on its own
    if s.cards == () and s.config.variant.live == "both" and s.config.variant.night_steps[w.step].each:
        cards.each_check(tx, final)
        return
    members = [m for m in w.seats if m in s.alive]
    picks = {m: t for m, t in s.picks.items() if m in members}
    if not picks:
        if final:
            _settle(tx, None, "forfeited")
        return
    everyone = len(picks) == len(members)
    counts = Counter(picks.values()).most_common()
    top = counts[0][1]
    tops = [t for t, c in counts if c == top]
    if len(tops) == 1:
        target = tops[0]
        if not (_self_kill(s, w.ability, w.role, target) and top * 2 <= len(members)):
            if everyone or final:
                _settle(tx, target, "chosen" if target is not None else "skipped")
            return
        # V2.12: a self-kill without a strict majority is not a decision
    if final:
        # V2.12: the random tie-break never turns a self-kill without a strict majority into the decision.
        fair = [t for t in tops if not _self_kill(s, w.ability, w.role, t)]
        if fair and s.config.opt("group_tie") == "random" and "group_tie" in s.config.options:
            _settle(tx, choice(tx.random(), sorted(fair, key=lambda t: -1 if t is None else t)), "random")
        else:
            _settle(tx, None, "forfeited")
    elif everyone and not s.reasked:
        tx.emit(Reasked(w.step))


def _self_kill(s: GameState, ability: str, roles: str, target: int | None) -> bool:
    """V2.12: would ``target`` be the killers killing one of their own (V5.4: or a guest awake with them)?"""
    if target is None or not REGISTRY[ability].selfkill_option:
        return False
    w = s.waiting
    team = s.config.variant.night_steps[w.step].team if w is not None else tuple(roles.split("+"))
    return s.roles[target - 1] in team


def _settle(tx: Tx, target: int | None, how: str) -> None:
    s = tx.s
    w = s.waiting
    assert w is not None
    g = _game(s)
    sp = g.plan.steps[w.step]
    result, marks = _result(s, g, sp, target)
    if sp.once and target is not None:  # V3.3, V7.1: once per game
        once = sp.ab.once_mark
        marks = (*marks, *[(clash.mark_key(once, a), 1) for a in w.seats])
    if sp.reshaped and sp.last_key:  # W7: the target to leave out tomorrow night (0: nobody)
        marks = (*marks, (sp.last_key, target or 0))
    tx.emit(Acted(w.step, sp.ability, w.seats, target, how, result, marks))


def acknowledge(tx: Tx, seat: int) -> None:
    tx.emit(Picked(seat, None))
    w = tx.s.waiting
    assert w is not None
    if all(m in tx.s.picks for m in w.seats if m in tx.s.alive):
        end_recognition(tx)


def end_recognition(tx: Tx) -> None:
    w = tx.s.waiting
    assert w is not None
    tx.emit(Acted(w.step, "recognise", w.seats, None, "recognised"))


# ---- dawn ------------------------------------------------------------------------------------------------

def resolve_dawn(s: GameState) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, int], ...]]:
    """C8: all of the night's effects at once. Returns the deaths (seat, cause) in seat order.

    - a lethal effect (the kill) kills, unless
      - V3.2: a protection from its cause is on the victim (the doctor's protects only against the kill);
      - V3.3: the victim holds an unspent secret-police power at the time of the kill. Decision: a secret
        police who uses the power the same night still survives (the kill came first in the night order).
    - a conditional lethal effect (V3.3's secret kill) kills only a role that nods; on anyone else, nothing.
    """
    return _resolve(s, _game(s).plan)


def _resolve(s: GameState, plan: _ConfigPlan) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, int], ...]]:
    acts = s.acts
    if s.cards:  # D3: two doctors, two snipers
        if any(a.ability in plan.cards for a in acts):
            return cards.resolve(s)
    elif plan.d2:  # D2: the butterfly and the secret police of seed 001
        return cards.resolve_d2(s)
    if plan.immune:
        return clash.resolve(s)  # V4.4-V4.6, V7.1
    if plan.has_long:
        for a in acts:
            if a.ability in plan.long:
                return clash.resolve(s)  # V4.4-V4.6, V7.1
    # The short dawn: lethal effects, protections of one target and V3.3's shield (the kinds clash.resolve
    # would fold the same way). (seat, cause, rank) in the order decided; a seat's lowest-ranked cause stands.
    # Every dawn of every game comes here: a list searched by hand, not a dict sorted afterwards, since a night
    # has one or two deaths.
    deaths: list[tuple[int, str]] = []
    protected: dict[int, tuple[str, ...]] | None = None
    if plan.protect:
        protected = {}
        sets: dict[int, list[Ability]] | None = None
        for a in acts:
            t = a.target
            if t is not None:
                guard = REGISTRY[a.ability]
                if guard.protects:
                    if guard.overprotect:  # W7: gathered first, since two of one set void each other
                        if sets is None:
                            sets = {}
                        sets.setdefault(t, []).append(guard)
                    else:
                        protected[t] = protected.get(t, ()) + guard.protects_from
        if sets is not None:
            for t, found in sets.items():
                protected[t] = protected.get(t, ()) + clash.protection(s, found)
    shields = plan.secret_roles if plan.secret else None
    names = plan.lethal_names
    for a in acts:
        t = a.target
        if t is None:
            continue
        name = a.ability
        ability = None
        for i in range(len(names)):  # by index, no dict: a night has two or three acts, a variant few killers
            if names[i] == name:
                ability = plan.lethal_abilities[i]
                break
        if ability is None:
            continue
        cause = ability.cause
        if ability.nod_only:
            if s.roles[t - 1] in plan.nod_roles:
                _add_death(deaths, t, ability, plan)
            continue
        if protected is not None and t in protected and cause in protected[t]:
            continue
        if shields is not None and s.roles[t - 1] in shields and cause in clash.shielded(s, t):
            continue
        _add_death(deaths, t, ability, plan)
    if len(deaths) > 1:
        deaths.sort()
    return tuple(deaths), ()


def _add_death(deaths: list[tuple[int, str]], seat: int, ability: Ability, plan: _ConfigPlan) -> None:
    """A seat dies once; of two causes the lower-ranked tells the death."""
    for d, known in deaths:
        if d == seat:
            if ability.rank < plan.cause_rank[known]:
                deaths[deaths.index((d, known))] = (seat, ability.cause)
            return
    deaths.append((seat, ability.cause))
