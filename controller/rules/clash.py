"""The dawn fold (C8): when the night's effects meet on one player, decided by their kinds (controller/rules/
ability.py), never by an ability's name: void (V4.4's hug), lethal with a cause and a rank, protection from causes
(V3.2, V7.1's revival), cure (V4.5, V4.6's needles), mark (V4.8's silence), and the take-along decided after the
rest (V7.1).

Kept apart from night.py so the older versions keep their short dawn (night.resolve_dawn hands a night over to
:func:`resolve` only when an effect of another kind than those the short dawn folds acted, or when a role is
immune to something). Every clash is decided here, in one pass, at dawn (C8); tests/rules/test_night_matrix.py
lists the whole matrix.
"""

from __future__ import annotations

from typing import Final

from controller.rules.ability import REGISTRY, Ability
from controller.rules.state import Act, GameState


def void_of(s: GameState) -> tuple[tuple[int, ...], int | None]:
    """Tonight's voiding actors (V4.4: the butterfly) and the player their effect covers, if one was settled."""
    acts = s.acts
    return _void(acts, [REGISTRY[a.ability] for a in acts])


def _void(acts: tuple[Act, ...], found: list[Ability]) -> tuple[tuple[int, ...], int | None]:
    """:func:`void_of` over the night's acts and their abilities (``found``, in step)."""
    for i in range(len(acts)):
        a = acts[i]
        if a.target is not None and found[i].effect == "void":
            return a.actors, a.target
    return (), None


def voided(s: GameState, names: tuple[str, ...]) -> int | None:
    """V4.3/V4.4: the player whom tonight's void covers (a check on them answers nothing); ``names``: the
    variant's abilities of void effect."""
    for a in s.acts:
        if a.target is not None:
            for name in names:
                if a.ability == name:
                    return a.target
    return None


#: The seats a table can have (the largest role table is far below this); a seat beyond it still works, slower.
_SEATS: Final = 64
#: Each seat's mark keys per mark name, made once a name: the 4.0 day asks about a player's silence at every
#: turn, and every dawn of a cure or a mark writes one.
_KEYS: Final[dict[str, tuple[str, ...]]] = {}


def mark_key(name: str, seat: int) -> str:
    """The mark ``name`` of ``seat`` (``"silenced:3"``)."""
    keys = _KEYS.get(name)
    if keys is None:
        keys = _KEYS[name] = tuple([f"{name}:{n}" for n in range(_SEATS + 1)])
    return keys[seat] if 0 <= seat <= _SEATS else f"{name}:{seat}"


_SILENCE_KEYS: Final = tuple([f"silenced:{seat}" for seat in range(_SEATS + 1)])


def silenced(s: GameState, seat: int) -> bool:
    """V4.8 decision: a player the forest elder silenced last night gives no defence and no last words today,
    but votes (the mark ``silenced``, which the silence ability leaves)."""
    key = _SILENCE_KEYS[seat] if 0 <= seat <= _SEATS else f"silenced:{seat}"
    marks = s.marks  # GameState.mark inlined: a membership test and an index (see there)
    return key in marks and marks[key] == s.day > 0


def used_once(s: GameState, ability: Ability, seat: int) -> bool:
    """Has ``seat`` used ``ability``'s one use per game (V3.3 spent, V7.1 revived)?"""
    return s.mark(mark_key(ability.once_mark, seat)) > 0


def learners(s: GameState, act: Act) -> tuple[int, ...]:
    """Who learns ``act``'s result: its actors and the living holders of a role that ``sees`` that ability
    (V7.1: the angel and the devil see the police's answer). In seat order."""
    roles = s.config.variant.roles
    seeing = {seat for seat in s.alive if act.ability in roles[s.roles[seat - 1]].sees}
    return tuple(sorted(seeing.union(act.actors)))


def _hits(s: GameState, acts: tuple[Act, ...],
          found: list[Ability]) -> tuple[dict[int, list[Ability]], list[int]]:
    """V4.4: every effect aimed directly at the voided player is void; every effect on a voiding actor also hits
    the voided. V7.1: a role ``immune`` to an ability is untouched by it (nobody is told). Returns what hit
    each player and the players hit, in the order first hit."""
    butterfly, held = _void(acts, found)
    immune = s.config.variant.immune_roles
    hits: dict[int, list[Ability]] = {}
    seats: list[int] = []
    for i in range(len(acts)):
        a = acts[i]
        t = a.target
        if t is None or t == held:
            continue
        ability = found[i]
        if not ability.aimed:
            continue
        _hit(s, hits, seats, t, ability, immune)
        if held is not None and t in butterfly:
            _hit(s, hits, seats, held, ability, immune)
    return hits, seats


def _hit(s: GameState, hits: dict[int, list[Ability]], seats: list[int], seat: int, ability: Ability,
         immune: frozenset[str]) -> None:
    """``ability`` reaches ``seat`` unless its role is immune to it (V7.1; ``immune``: the roles immune to
    anything, none in most versions)."""
    role = s.roles[seat - 1]
    if role in immune and ability.name in s.config.variant.roles[role].immune:
        return
    got = hits.get(seat)
    if got is None:
        hits[seat] = [ability]
        seats.append(seat)
    else:
        got.append(ability)


def shielded(s: GameState, seat: int) -> tuple[str, ...]:
    """V3.3: the causes ``seat`` is safe from because it holds a one-time power that shields its holder while
    unspent (decision: or spent this very night, since the kill came first in the night order)."""
    name = s.config.variant.shields.get(s.roles[seat - 1])
    if name is None:
        return ()
    ability = REGISTRY[name]
    if not used_once(s, ability, seat):
        return ability.protects_from
    for a in s.acts:
        if a.ability == name and a.target is not None and seat in a.actors:
            return ability.protects_from
    return ()


def protection(s: GameState, found: list[Ability]) -> tuple[str, ...]:
    """The causes the protections ``found`` on one player save from. W7 decision (同守同救, option
    ``guard.same_save`` = "dies"): two different protections of one ``overprotect`` set void each other."""
    cancel = s.config.opt("guard.same_save") == "dies"
    causes: tuple[str, ...] = ()
    for p in found:
        if cancel and any(q.overprotect == p.overprotect and q is not p for q in found):
            continue
        causes = causes + p.protects_from
    return causes


def _add_cause(causes: list[Ability], ability: Ability) -> None:
    """Keep ``causes`` one per cause, lowest rank first (a death is told by its first cause)."""
    for i, known in enumerate(causes):
        if known.cause == ability.cause:
            return
        if ability.rank < known.rank:
            causes.insert(i, ability)
            return
    causes.append(ability)


def resolve(s: GameState) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, int], ...]]:
    """The dawn of a night in which an effect beyond the short dawn's acted. Returns the deaths (seat, cause) in
    seat order and the marks to keep (empty cures, marks).

    Per player, after the void (V4.4) and immunities (V7.1) have decided what reaches whom:
    - lethal effects stand unless a protection from their cause covers the player (V3.2 on the target, V7.1's
      revival on everyone tonight, V3.3 the holder of an unspent one-time power); conditional ones (V3.3: only on
      a role that nods) are decided after the cure;
    - a cure (V4.5) saves from one lethal effect, never from two (decision: killed *and* shot dies despite the
      needle), nor from ``cure_spares`` while ``cure_spares_option`` is set; a cure on a player with no lethal
      effect is empty (V4.6), counted, and ``overdose`` empty ones kill;
    - a mark is kept with the coming day's number (V4.8);
    - the effects decided after the rest (V7.1's take-along) reach a player not already dying.
    A death is told by its lowest-ranked cause.
    """
    acts = s.acts
    found = [REGISTRY[a.ability] for a in acts]
    hits, seats = _hits(s, acts, found)
    night_safe: tuple[str, ...] = ()
    late: list[tuple[int, str]] | None = None
    for i in range(len(acts)):
        target = acts[i].target
        if target is None:
            continue
        ability = found[i]
        if ability.protects and ability.scope == "night":
            night_safe = night_safe + ability.protects_from
        elif ability.lethal and ability.after:
            if late is None:
                late = []
            late.append((target, ability.cause))
    shields = s.config.variant.shields
    deaths: list[tuple[int, str]] = []  # in seat order, as the loop below goes
    marks: list[tuple[str, int]] = []
    if len(seats) > 1:
        seats.sort()
    for seat in seats:
        causes: list[Ability] = []
        conditional: list[Ability] | None = None  # (the rarer kinds' lists made only when needed)
        cures = 0
        cure: Ability | None = None
        marked: list[Ability] | None = None
        sets: list[Ability] | None = None
        safe = night_safe
        for ability in hits[seat]:
            if ability.lethal:
                if ability.nod_only:
                    if s.spec(seat).nod:
                        if conditional is None:
                            conditional = []
                        if ability not in conditional:
                            conditional.append(ability)
                else:
                    _add_cause(causes, ability)
            elif ability.protects:
                if ability.overprotect:
                    if sets is None:
                        sets = []
                    sets.append(ability)
                else:
                    safe = safe + ability.protects_from
            else:
                kind = ability.effect
                if kind == "cure":
                    cures += 1
                    if cure is None:
                        cure = ability
                elif kind == "mark":
                    if marked is None:
                        marked = []
                    if ability not in marked:
                        marked.append(ability)
        if sets is not None:
            safe = safe + protection(s, sets)
        if causes and s.roles[seat - 1] in shields:
            safe = safe + shielded(s, seat)
        if causes and safe:
            causes = [c for c in causes if c.cause not in safe]
        lethal = [c.cause for c in causes]
        if cure is not None:
            if lethal:
                if len(lethal) == 1 and not (lethal[0] == cure.cure_spares and _option(s, cure.cure_spares_option)):
                    lethal = []  # V4.5: the cure saves from the one attack
            else:
                key = mark_key(cure.mark, seat)
                total = s.mark(key) + cures
                marks.append((key, total))
                if cure.overdose and total >= cure.overdose:  # V4.6
                    lethal = [cure.cause]
        if conditional is not None:
            for c in conditional:
                lethal.append(c.cause)
        if lethal:
            deaths.append((seat, lethal[0]))
        if marked is not None:
            for m in marked:
                marks.append((mark_key(m.mark, seat), s.day + 1))
    taken = False
    if late is not None:
        for target, cause in late:
            if not _among(deaths, target):
                deaths.append((target, cause))
                taken = True
    if taken:  # the one death that may come out of seat order
        deaths.sort()
    return tuple(deaths), tuple(marks)


def _among(deaths: list[tuple[int, str]], seat: int) -> bool:
    for dead, _ in deaths:  # noqa: SIM110 (a loop: no generator object; the night's deaths are a few)
        if dead == seat:
            return True
    return False


def _option(s: GameState, key: str) -> bool:
    """A yes/no option of the configuration (V4.5 ``needle.no_save_from_shot``); an empty key is never set."""
    options = s.config.options
    return bool(key) and key in options and bool(options[key])


def dies_tonight(s: GameState, seat: int) -> bool:
    """Would ``seat`` die at dawn, given what has been settled so far tonight? (The take-along step comes last
    in the night, so for it the answer is final.)"""
    return any(d == seat for d, _ in resolve(s)[0])
