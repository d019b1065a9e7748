"""When the night's effects meet on one player (versions 4.0 and 7.0): the butterfly's hug (V4.4), the sniper's
shot, the doctor's needle and empty needles (V4.5, V4.6), the forest elder's silence, the angel's revival and
take-along and the devil's late kill (V7.1).

Kept apart from night.py so the older versions keep their short dawn (night.resolve_dawn hands a night over to
:func:`resolve` only when one of these abilities acted). Every clash is decided here, in one pass, at dawn (C8);
tests/rules/test_night_matrix.py lists the whole matrix.
"""

from __future__ import annotations

from typing import Final

from controller.rules.state import Act, GameState

#: The abilities whose nights this module resolves.
ABILITIES: Final = frozenset({"hug", "shoot", "needle", "silence", "revive", "take", "late_kill"})
#: Effects that change a player at dawn (the hug, the check, the revival and the take-along are not aimed at a
#: player's fate the same way: see :func:`resolve`).
_EFFECTS: Final = frozenset({"kill", "late_kill", "shoot", "needle", "silence", "protect", "secret_kill"})
#: The killers' victims, whom the angel's revival brings back (V7.1 "the night's victim").
_KILLS: Final = frozenset({"kill", "late_kill"})


def hug(s: GameState) -> tuple[tuple[int, ...], int | None]:
    """Tonight's butterfly (the hug's actors) and the hugged player, if a hug was settled."""
    for a in s.acts:
        if a.ability == "hug" and a.target is not None:
            return a.actors, a.target
    return (), None


def hugged(s: GameState) -> int | None:
    return hug(s)[1]


#: The seats a table can have (the largest role table is far below this); a seat beyond it still works, slower.
_SEATS: Final = 64
#: Each seat's mark keys, made once: the 4.0 day asks about a player's silence at every turn, every dawn of a
#: needle or a silence writes one, and every 7.0 night asks whether the angel has revived.
_SILENCE_KEYS: Final = tuple([f"silenced:{seat}" for seat in range(_SEATS + 1)])
_NEEDLE_KEYS: Final = tuple([f"empty_needles:{seat}" for seat in range(_SEATS + 1)])
_REVIVED_KEYS: Final = tuple([f"revived:{seat}" for seat in range(_SEATS + 1)])


def _silence_key(seat: int) -> str:
    return _SILENCE_KEYS[seat] if 0 <= seat <= _SEATS else f"silenced:{seat}"


def _needle_key(seat: int) -> str:
    return _NEEDLE_KEYS[seat] if 0 <= seat <= _SEATS else f"empty_needles:{seat}"


def empty_needles(s: GameState, seat: int) -> int:
    """V4.6: the empty needles ``seat`` has collected so far."""
    return s.mark(_needle_key(seat))


def silenced(s: GameState, seat: int) -> bool:
    """V4.8 decision: a player the forest elder silenced last night gives no defence and no last words today,
    but votes."""
    key = _silence_key(seat)
    marks = s.marks  # GameState.mark inlined: a membership test and an index (see there)
    return key in marks and marks[key] == s.day > 0


def revived(s: GameState, seat: int) -> bool:
    """V7.1: has ``seat`` used the angel's one revival?"""
    return s.mark(_REVIVED_KEYS[seat] if 0 <= seat <= _SEATS else f"revived:{seat}") > 0


def learners(s: GameState, act: Act) -> tuple[int, ...]:
    """Who learns ``act``'s result: its actors and the living holders of a role that ``sees`` that ability
    (V7.1: the angel and the devil see the police's answer). In seat order."""
    roles = s.config.variant.roles
    seeing = {seat for seat in s.alive if act.ability in roles[s.roles[seat - 1]].sees}
    return tuple(sorted(seeing.union(act.actors)))


def _hits(s: GameState) -> tuple[dict[int, list[str]], list[int]]:
    """V4.4: every effect aimed directly at the hugged player is void; every effect on the butterfly also hits
    the hugged. V7.1: a role ``immune`` to an ability is untouched by it (nobody is told). Returns what hit
    each player and the players hit, in the order first hit."""
    butterfly, held = hug(s)
    immune = s.config.variant.immune_roles
    hits: dict[int, list[str]] = {}
    seats: list[int] = []
    for a in s.acts:
        t = a.target
        ability = a.ability
        if t is None or t == held or ability not in _EFFECTS:
            continue
        _hit(s, hits, seats, t, ability, immune)
        if held is not None and t in butterfly:
            _hit(s, hits, seats, held, ability, immune)
    return hits, seats


def _hit(s: GameState, hits: dict[int, list[str]], seats: list[int], seat: int, ability: str,
         immune: frozenset[str]) -> None:
    """``ability`` reaches ``seat`` unless its role is immune to it (V7.1; ``immune``: the roles immune to
    anything, none in most versions)."""
    role = s.roles[seat - 1]
    if role in immune and ability in s.config.variant.roles[role].immune:
        return
    got = hits.get(seat)
    if got is None:
        hits[seat] = [ability]
        seats.append(seat)
    else:
        got.append(ability)


def _spent_tonight(s: GameState, seat: int) -> bool:
    """V3.3: has ``seat`` used its one-time power tonight? (Asked only when a holder of it is killed.)"""
    return any(a.ability == "secret_kill" and a.target is not None and seat in a.actors for a in s.acts)


def resolve(s: GameState) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, int], ...]]:
    """The dawn of a night in which a 4.0 or 7.0 ability acted. Returns the deaths (seat, cause) in seat order
    and the marks to keep (empty needles, silences).

    Per player, after V4.4 has decided who is hit:
    - kill / late kill: lethal, unless the doctor's protection (V3.2), an unspent secret-police power (V3.3)
      or the angel's revival (V7.1: every kill of the night is undone) stops it;
    - shot (V4.2): lethal;
    - needle (V4.5): saves from one lethal attack. Decision: killed *and* shot dies despite the needle; with
      ``needle.no_save_from_shot`` a needle never saves from a shot;
    - a needle on a player with no lethal attack is empty (V4.6); the second empty needle kills;
    - silence: the player is silenced the coming day (V4.8);
    - take (V7.1): the angel, dying tonight, takes its target along.

    (Loops rather than any(...) and comprehensions, and what hit a player sorted out in one pass: every dawn of
    these versions runs this, and the take-along step asks it again.)
    """
    hits, seats = _hits(s)
    revival = False
    for a in s.acts:
        if a.ability == "revive" and a.target is not None:
            revival = True
            break
    secret_holders = s.config.variant.secret_roles
    deaths: list[tuple[int, str]] = []  # in seat order, as the loop below goes
    marks: list[tuple[str, int]] = []
    if len(seats) > 1:
        seats.sort()
    for seat in seats:
        attacked = shot = protected = secret_kill = silence = False
        needles = 0
        for g in hits[seat]:
            if g in _KILLS:
                attacked = True
            elif g == "shoot":
                shot = True
            elif g == "needle":
                needles += 1
            elif g == "protect":
                protected = True
            elif g == "secret_kill":
                secret_kill = True
            elif g == "silence":
                silence = True
        killed = attacked and not protected and not revival
        if killed and s.roles[seat - 1] in secret_holders and (
                s.mark(f"spent:{seat}") == 0 or _spent_tonight(s, seat)):
            killed = False
        lethal: list[str] = []
        if killed:
            lethal.append("killed")
        if shot:
            lethal.append("shot")
        if lethal and needles:
            if len(lethal) == 1 and not (shot and _no_save_from_shot(s)):
                lethal = []  # V4.5: the needle saves from the one attack
        elif needles:
            total = empty_needles(s, seat) + needles
            marks.append((_needle_key(seat), total))
            if total >= 2:  # V4.6
                lethal = ["needles"]
        if secret_kill and s.spec(seat).nod:
            lethal.append("secret_police")
        if lethal:
            deaths.append((seat, lethal[0]))
        if silence:
            marks.append((_silence_key(seat), s.day + 1))
    taken = False
    for a in s.acts:
        if a.ability == "take" and a.target is not None and not _among(deaths, a.target):
            deaths.append((a.target, "taken_along"))
            taken = True
    if taken:  # the one death that may come out of seat order
        deaths.sort()
    return tuple(deaths), tuple(marks)


def _among(deaths: list[tuple[int, str]], seat: int) -> bool:
    for dead, _ in deaths:  # noqa: SIM110 (a loop: no generator object; the night's deaths are a few)
        if dead == seat:
            return True
    return False


def _no_save_from_shot(s: GameState) -> bool:
    """The ``needle.no_save_from_shot`` option (V4.5)."""
    options = s.config.options
    return "needle.no_save_from_shot" in options and bool(options["needle.no_save_from_shot"])


def dies_tonight(s: GameState, seat: int) -> bool:
    """Would ``seat`` die at dawn, given what has been settled so far tonight? (The take-along step comes last
    in the night, so for it the answer is final.)"""
    return any(d == seat for d, _ in resolve(s)[0])
