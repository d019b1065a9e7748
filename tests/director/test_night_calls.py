"""W3 at the table: every role is called every night, dead or without a potion, and a call the rules skipped
lasts as long as one a living player answered, so that silence tells nothing. Measured over whole games the bots
play through the director on a virtual clock."""

from __future__ import annotations

import math
from collections.abc import Iterator

from controller.director import announce
from controller.director.night_calls import CALL_S
from controller.rules.events import Acted, NightFell
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sessions.session import Session

GAMES = 5


def calls(variant_id: str, players: int, seed: int) -> Iterator[tuple[int, str, float, bool]]:
    """Each call of one game: (night, step, seconds from the end of its question to what is said next, its sleep
    line or the next question, and whether the rules opened it for a living player). The calls are read from what the voice said; the question is the same
    words dead or alive, so the wait after it is what could tell."""
    v = load_variant(variant_id)
    session = Session(configure(v, players), seed, "heuristic", lang="en", pack="en")
    session.start()
    session.run()
    assert session.director.stage == "over"
    # each step's question (the witch's second question follows her first without a second wake line)
    asked = {announce.wake("+".join(st.call or st.roles), st.ability, st.optional, variant=v, step=st.id)[-1]: st
             for st in v.night}
    opened: set[tuple[int, str]] = set()
    night = 0
    for e in session.director.events:
        night += isinstance(e, NightFell)
        if isinstance(e, Acted) and e.step in v.night_steps:
            opened.add((night, e.step))
    said = session.voice.said
    night = 0
    for i, u in enumerate(said[:-1]):
        night += u.prompts[:1] == ("night.falls",)
        st = asked.get(u.prompts[-1])
        if st is None:
            continue
        yield night, st.id, said[i + 1].start - u.end, (night, st.id) in opened  # to its sleep line or next question


def test_every_step_is_called_every_night_in_the_w3_order() -> None:
    """W3: guard, werewolves, witch (antidote, then poison), seer; each once a night, dead or without a potion."""
    order = [st.id for st in load_variant("werewolf-12-guard").night]
    by_night: dict[int, list[str]] = {}
    skipped = 0
    for night, step, _, opened in calls("werewolf-12-guard", 12, 5):
        by_night.setdefault(night, []).append(step)
        skipped += not opened
    assert skipped, "no step was skipped: the game proves nothing"
    last = max(by_night)
    for night, steps in by_night.items():
        assert steps == order or (night == last and steps == order[:len(steps)]), (night, steps)


def ks_statistic(a: list[float], b: list[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic: the largest gap between the two empirical distributions."""
    points = sorted(set(a) | set(b))
    return max(abs(sum(x <= p for x in a) / len(a) - sum(x <= p for x in b) / len(b)) for p in points)


def test_a_dead_roles_call_lasts_as_long_as_a_living_ones() -> None:
    """Over many games: the calls the rules skipped (a dead seer, a spent antidote) and the calls a living player
    answered last alike, from the question to "close your eyes" (two-sample Kolmogorov-Smirnov at 1%)."""
    living: list[float] = []
    skipped: list[float] = []
    for seed in range(GAMES):
        for _night, _step, seconds, opened in calls("werewolf-12", 12, 100 + seed):
            (living if opened else skipped).append(seconds)
    assert len(skipped) >= 20 and len(living) >= 40, (len(skipped), len(living))
    n, m = len(living), len(skipped)
    assert ks_statistic(living, skipped) < 1.63 * math.sqrt((n + m) / (n * m))  # alpha = 1%
    assert abs(sum(living) / n - sum(skipped) / m) < 1.0
    assert CALL_S[0] <= min(skipped) and max(living) <= CALL_S[1]  # a few seconds, not the whole window


def test_a_seed_version_calls_only_the_living() -> None:
    """Without W3 (the seeds' versions) a dead role's step is not called: their games stay as they were."""
    assert all(opened for *_, opened in calls("standard-2.0", 12, 3))


def test_the_witch_is_shown_the_victim_and_the_dying_hunter_aims_on_his_seat() -> None:
    """W6: while she holds the antidote, the witch's screen opens on the night's victim; W8: the hunter's seat,
    out of the game, still takes his shot."""
    from controller.screens import views as v

    seen: list[tuple[int, str, v.View]] = []
    session = Session(configure(load_variant("werewolf-12"), 12), 2, "heuristic", lang="en", pack="en")
    session.director.listeners.append(
        lambda d, w: seen.extend((d.state.night, w.step, d.ui[s].view) for s in w.seats) if w.kind == "night" else None)
    session.start()
    session.run()
    kills = {n: e.target for n, e in enumerate(
        (e for e in session.director.events if isinstance(e, Acted) and e.step == "kill"), start=1)}
    antidote = [(night, view) for night, step, view in seen if step == "antidote"]
    assert antidote and all(isinstance(view, v.NightChoice) and view.action == "antidote" and view.target == kills[night]
                            for night, view in antidote)
    shots = [view for _, step, view in seen if step.startswith("on_death.")]
    assert shots and all(isinstance(view, v.NightChoice) and view.action == "shoot" for view in shots)
    # W8: his screen says the board's own word for the shot (开枪), not the seeds' sniper's (狙击)
    assert all(isinstance(view, v.NightChoice) and view.words == ("开枪", "Shoot") for view in shots)
