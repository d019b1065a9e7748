"""Role rules as data hooks: what a role's card does when its holder is voted out or dies, read from the
variant file (``on_voted_out = "reveal"``, ``on_death = "shoot"``, ``unless = ["poisoned"]``) instead of a
branch per role in the day's code.

- W9 ``on_voted_out = "reveal"``: voted out, the player shows the card (the one public :class:`CardShown`
  event, whatever the rule) and stays alive; from then on they speak but neither vote nor can be voted out.
- W8 ``on_death = ABILITY``: on dying, unless the cause is in ``unless``, the player uses the ability once, at
  once (by day, after any last words; for a night death when the deaths are announced, after the night's last
  words): one living player or nobody. A death that ends the game ends it first (C8): no shot then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.rules import win
from controller.rules.ability import REGISTRY
from controller.rules.actions import Rejected
from controller.rules.events import CardShown, Died
from controller.rules.state import SHERIFF, Act, GameState

if TYPE_CHECKING:
    from controller.rules.tx import Tx

#: The mark a shown card leaves on its seat (``shown:<seat>``).
SHOWN = "shown"


def holds_badge(s: GameState, seat: int) -> bool:
    """W10: is ``seat`` the sheriff (whose death passes the badge on)?"""
    return s.mark(SHERIFF) == seat


def shown(s: GameState, seat: int) -> bool:
    """W9: has ``seat`` shown its card (and lost its vote)?"""
    return s.mark(f"{SHOWN}:{seat}") > 0


def reveals(s: GameState, seat: int) -> bool:
    """W9: voted out, does ``seat`` show its card and stay, rather than leave? (Once: a second vote cannot fall on
    them, see :func:`voters`.)"""
    return s.roles[seat - 1] in s.config.variant.reveal_roles and not shown(s, seat)


def reveal(tx: Tx, seat: int, why: str) -> None:
    tx.emit(CardShown(seat, tx.s.roles[seat - 1], why))


def voters(s: GameState, living: tuple[int, ...]) -> tuple[int, ...]:
    """W9: the living who still vote (and may be voted for): not those who have shown their card."""
    if not s.config.variant.reveals:
        return living
    return tuple([x for x in living if not shown(s, x)])


def last_act_due(s: GameState, seat: int, cause: str) -> bool:
    """W8: does ``seat``'s death of ``cause`` call its role's ``on_death`` ability?"""
    spec = s.config.variant.roles[s.roles[seat - 1]]
    return bool(spec.on_death) and cause not in spec.unless


def last_acts(s: GameState, deaths: tuple[tuple[int, str], ...]) -> list[tuple[Any, ...]]:
    """The tasks for the ``on_death`` abilities of the night's dead (W8), in seat order."""
    if not s.config.variant.last_acts:
        return []
    return [("last_act", seat) for seat, cause in deaths if last_act_due(s, seat, cause)]


def _last_act(s: GameState, step: str, seat: int) -> Act | None:
    for a in s.acts:
        if a.step == step and seat in a.actors:
            return a
    return None


def task_last_act(tx: Tx, seat: int) -> None:
    """W8: ask the dead player for their one target (or nobody), then carry the ability's lethal effect out."""
    s = tx.s
    st = s.config.variant.death_steps[s.roles[seat - 1]]
    act = _last_act(s, st.id, seat)
    if act is None:
        tx.push(("last_act", seat))
        others = tuple([x for x in sorted(s.alive) if x != seat])
        tx.open("night", st.id, (seat,), (*others, None), role=s.roles[seat - 1], ability=st.ability)
        return
    target = act.target
    if target is None or target not in s.alive:
        return
    cause = REGISTRY[st.ability].cause
    tx.emit(Died(target, cause))
    result = win.check(tx.s)
    if result:
        tx.end(result[0], result[1])
        return
    if last_act_due(tx.s, target, cause):
        tx.push(("last_act", target))
    s = tx.s
    if holds_badge(s, target):
        tx.push(("badge", target))  # W10: after the last words
    if s.phase == "day" and s.config.talk and s.config.opt("lastwords") == "first_night":
        tx.open("last_words", "last_words.shot", (target,))  # W12: shot by day, the player leaves last words


def self_destruct(tx: Tx, seat: int) -> None:
    """W11: by day a player whose role may self-destruct reveals themself: out at once with no last words (the
    card shown with CardShown), the day ends with no vote and night falls. Decision: during a speech or a vote
    alike; a death that ends the game ends it (C8)."""
    s = tx.s
    if s.phase != "day" or s.waiting is None:
        raise Rejected("not_now", f"seat {seat}: a self-destruct is by day only (W11)")
    if not reveal_and_die(tx, seat):
        return
    # The CardShown of a self-destruct closed what the day waited for; a dead player's act still comes (W8 a
    # hunter's shot, W10 a dead sheriff's badge, the werewolf's own included), then night falls.
    kept = [task for task in tx.agenda if task[0] in _ACTS_AFTER_DEATH]
    if holds_badge(tx.s, seat):
        kept.append(("badge", seat))
    tx.agenda = [*kept, ("night",)]


#: The tasks of a dead player's own act (each re-queued until its choice is made): a self-destruct keeps them.
_ACTS_AFTER_DEATH = frozenset({"last_act", "badge"})


def reveal_and_die(tx: Tx, seat: int) -> bool:
    """W11: a role whose ``day_action`` is "self_destruct" shows the card and is out at once (by day, or during the
    sheriff election before day 1's dawn). False when that death ended the game (C8)."""
    s = tx.s
    if s.config.variant.roles[s.roles[seat - 1]].day_action != "self_destruct":
        raise Rejected("not_allowed", f"seat {seat}: this role cannot self-destruct (W11)")
    tx.emit(CardShown(seat, s.roles[seat - 1], "self_destruct"))
    tx.emit(Died(seat, "self_destruct"))
    result = win.check(tx.s)
    if result:
        tx.end(result[0], result[1])
        return False
    return True


def dead_may_act(s: GameState, seat: int) -> bool:
    """W8: the open step is ``seat``'s own last act, which it takes although dead."""
    w = s.waiting
    return w is not None and w.kind == "night" and seat in w.seats and w.step.startswith("on_death.")


TASKS: dict[str, Any] = {"last_act": task_last_act}
