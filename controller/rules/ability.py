"""What a night ability is, as data: whom it may point at, what its actors learn, what it does at dawn (its
effect's *kind*) and its limits. Every ability is one module in ``controller/rules/abilities/`` that registers
one :class:`Ability`; the engine reads these fields and never asks for an ability by name, so a new mechanic is
one module more (DESIGN.md "Roles, abilities and their words"; docs/architecture.md "Add a role").

The dawn fold (clash.py, night.py) knows only the kinds:

- ``lethal``: the target dies of ``cause`` (C8: at dawn), unless a protection from that cause covers it; when
  several meet on one player, the lowest ``rank`` names the cause.
  ``nod_only``: only when the target's role answers a check with a nod (V3.3's secret police). ``after``: decided
  once the rest of the night is folded, and only on a player not already dying (V7.1's take-along).
- ``protect``: the target (``scope = "target"``) or everyone (``"night"``: V7.1's revival) is safe from the
  lethal effects whose cause is in ``protects_from``.
- ``cure``: saves from exactly one lethal effect; on a player with none it is empty, counted in the mark
  ``mark``, and ``overdose`` empty ones kill with ``cause`` (V4.5, V4.6).
- ``void``: effects aimed at the target are void, effects aimed at an actor also reach the target, and a check
  on the target answers nothing (V4.3, V4.4).
- ``mark``: the target carries the mark ``mark`` (its value the coming day) into the day (V4.8's silence).
- ``cards``: decided by the dual-card dawn (cards.py, D2/D3), whose cards act apart.
- ``none``: no dawn effect (a check, a recognition).

A lethal ability with ``shields_holder`` also keeps its holders safe from the causes in ``protects_from`` while
its one use is unspent (V3.3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

#: The dawn effect kinds (see the module's docstring).
KINDS: Final = ("none", "lethal", "protect", "cure", "void", "mark", "cards")
#: Whom a step may offer: the step's own ``targets`` rule (C2), the actors themselves (V7.1: the angel points at
#: itself to revive, not knowing the victim), or the ability's own ``choices`` hook.
CHOOSE: Final = ("step", "self", "custom")
#: What the actors learn at once: nothing, the police's nod or shake (V2.2), or the ability's own ``learn`` hook.
LEARNS: Final = ("", "nod", "custom")
#: Conditions under which the holders wake at all (besides their own limits): V7.1 the angel takes someone along
#: only on the night it dies; the devil kills only once no other killer (a holder of an unconditional lethal
#: "killed" step) is alive.
AWAKE_WHEN: Final = ("", "dying_tonight", "no_killers_left")


class Ability:
    """One night ability. Built once per module at import; never changed afterwards."""

    def __init__(self, name: str, rules: tuple[str, ...], effect: str = "none", cause: str = "",
                 protects_from: tuple[str, ...] = (), scope: str = "target", nod_only: bool = False,
                 after: bool = False, mark: str = "", overdose: int = 0, cure_spares_option: str = "",
                 cure_spares: str = "", choose: str = "step",
                 choices: Callable[[Any, tuple[int, ...]], tuple[int, ...]] | None = None,
                 learns: str = "", learn: Callable[[Any, int], str] | None = None,
                 once_mark: str = "", count_mark: str = "", count_option: str = "", awake_when: str = "",
                 shields_holder: bool = False, rank: int = 1, selfkill_option: str = "", night_kill: bool = False,
                 not_twice_running: bool = False, one_of: str = "", self_option: str = "", overprotect: str = "",
                 recognition: bool = False, answers: tuple[str, ...] = ()) -> None:
        if effect not in KINDS:
            raise ValueError(f"ability {name!r}: unknown effect kind {effect!r} (one of {', '.join(KINDS)})")
        if choose not in CHOOSE or (choose == "custom") != (choices is not None):
            raise ValueError(f"ability {name!r}: choose={choose!r} needs choices exactly when 'custom'")
        if learns not in LEARNS or (learns == "custom") != (learn is not None):
            raise ValueError(f"ability {name!r}: learns={learns!r} needs learn exactly when 'custom'")
        if awake_when not in AWAKE_WHEN:
            raise ValueError(f"ability {name!r}: unknown awake_when {awake_when!r} (one of {AWAKE_WHEN})")
        if effect in ("lethal", "cure") and not cause:
            raise ValueError(f"ability {name!r}: a {effect} effect needs the cause of the death it deals")
        if effect == "mark" and not mark:
            raise ValueError(f"ability {name!r}: a mark effect needs the mark's name")
        self.name = name
        #: The RULES IDs the ability implements (cited in its module; tests check every ability has some).
        self.rules = rules
        self.effect = effect
        #: lethal: the death's cause; cure: the cause of death by too many empty cures.
        self.cause = cause
        #: protect: the causes it saves from.
        self.protects_from = protects_from
        #: protect: "target" or "night" (everyone, undoing the night's kills of those causes: V7.1).
        self.scope = scope
        self.nod_only = nod_only
        self.after = after
        #: mark / cure: the mark's key prefix (``f"{mark}:{seat}"``).
        self.mark = mark
        self.overdose = overdose
        #: cure: an option that, when set, keeps the cure from saving from the cause ``cure_spares`` (V4.5).
        self.cure_spares_option = cure_spares_option
        self.cure_spares = cure_spares
        self.choose = choose
        self.choices = choices
        self.learns = learns
        self.learn = learn
        #: Once per game per actor: the mark set on each actor once it has acted on a target (V3.3, V7.1).
        self.once_mark = once_mark
        #: A team count kept at each use (``count_mark``) and the option that caps it (V2.10's limited checks).
        self.count_mark = count_mark
        self.count_option = count_option
        self.awake_when = awake_when
        #: V3.3: the holders are safe from the killers' kill while the power is unspent (or spent tonight).
        self.shields_holder = shields_holder
        #: lethal: which cause a death is told by when several lethal effects meet on one player, lowest first
        #: (the killers' kill 0, a shot 1, too many empty cures 2, a conditional kill 3; C8 decisions of 4.0).
        self.rank = rank
        #: V2.12: the option that lets the actors point at their own team ("eyes_closed" becomes every living
        #: player); such a choice then needs a strict majority of the team.
        self.selfkill_option = selfkill_option
        #: The killers' kill of the night: V2.4's and V2.5's orders start from its victim, and V2.11 bars its
        #: first-night victim from repeating the last games' run.
        self.night_kill = night_kill
        #: W7: never the same target two nights running (the mark ``last:<step>`` keeps the last one, 0 for
        #: nobody).
        self.not_twice_running = not_twice_running
        #: W6: one ability of the set named here a night: holders who used another of the set tonight stay asleep.
        self.one_of = one_of
        #: W6: the option that says when an actor may choose themself ("never", "first_night", "always"); empty:
        #: the step's own rule decides.
        self.self_option = self_option
        #: W7 decision (同守同救): two protections of this set on one player void each other (option
        #: ``guard.same_save`` = "dies", the default; "lives": they do not).
        self.overprotect = overprotect
        #: V5.2: a recognition step (the actors see each other; nothing is chosen).
        self.recognition = recognition
        #: The words a ``learn`` answer may be (for screens and the voice), besides "".
        self.answers = answers if answers else (("nod", "shake", "none") if learns == "nod" else ())
        #: The kinds as flags (compiled, a native bool read; every dawn asks them of every act).
        self.lethal = effect == "lethal"
        self.protects = effect == "protect"
        #: Aimed at one player's fate at dawn (what the butterfly's hug voids or carries over, V4.4).
        self.aimed = (effect in ("lethal", "cure", "mark") and not after) or (effect == "protect" and scope == "target")
        #: Handled by the short dawn of the older versions (night.py): blockable or conditional kills and
        #: protection of one target. Any other kind (or an immunity) sends a night to clash.resolve.
        self.short = effect == "none" or (effect == "protect" and scope == "target") or (
            effect == "lethal" and not after)
        #: Whether the holders may be kept asleep (checked at every step only when True).


#: name -> ability, in registration order. Filled by the modules of ``controller/rules/abilities/`` (and by a
#: club's or a test's own module, which registers before its variant file is read).
REGISTRY: Final[dict[str, Ability]] = {}


def register(ability: Ability) -> Ability:
    """Add ``ability``; a second ability under a taken name is refused (two modules would fight over it)."""
    known = REGISTRY.get(ability.name)
    if known is not None and known is not ability:
        raise ValueError(f"ability {ability.name!r} is registered twice")
    REGISTRY[ability.name] = ability
    return ability


def unregister(name: str) -> None:
    """Remove a registered ability (a test's own module, once the test is over)."""
    REGISTRY.pop(name, None)


def get(name: str) -> Ability:
    return REGISTRY[name]


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)
