"""W3 at the table: every role is called every night, dead or without a potion, and a call the rules skipped
lasts as long as one a living player answered, so that silence tells nothing. Measured over whole games the bots
play through the director on a virtual clock."""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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


# ---- W3 across a power cut ----------------------------------------------------------------------------------

def questions(variant_id: str) -> dict[str, str]:
    """Each night step's question (the last line of its call), by what the voice says: question -> step."""
    v = load_variant(variant_id)
    return {announce.wake("+".join(st.call or st.roles), st.ability, st.optional, variant=v, step=st.id)[-1]: st.id
            for st in v.night}


def acted_steps(events: list[Any]) -> set[tuple[int, str]]:
    """(night, step) of every night step a living player answered."""
    out, night = set(), 0
    for e in events:
        night += isinstance(e, NightFell)
        if isinstance(e, Acted):
            out.add((night, e.step))
    return out


def cut_mid_call(tmp_path: Path, seed: int, living: bool, after_s: float,
                 only: str = "") -> tuple[str, list[tuple[str, float]], list[str]]:
    """werewolf-12 played once whole on a journal, to find the first call after night 1 of a dead (or living)
    role; played again on a journal cut by the power ``after_s`` seconds after that call's question; resumed by
    a new table on that journal to the end, which must end as the whole game did (``only``: a call of that
step). Returns the cut call's step
    and the resumed table's calls as (step, seconds from its question to what is said next), and every prompt it
    said."""
    from tests.director.helpers import session

    def table(name: str) -> Session:
        return session("werewolf-12", 12, seed, "heuristic", lang="en", pack="en", journal_path=tmp_path / name)

    asked = questions("werewolf-12")
    tmp_path.mkdir(parents=True, exist_ok=True)
    whole = table("whole.sqlite")
    whole.start()
    whole.run()
    acted = acted_steps(whole.director.events)
    last = max(n for n, _ in acted)  # a call of the game's last night may be cut after the game is over
    night, cut_at, step = 0, 0.0, ""
    for u in whole.voice.said:
        night += u.prompts[:1] == ("night.falls",)
        step = asked.get(u.prompts[-1], "")
        if step and 2 <= night < last and ((night, step) in acted) == living and step == (only or step):
            cut_at = u.end + after_s
            break
    assert cut_at, "no such call in this game"
    first = table("cut.sqlite")
    first.start()
    first.run(max_time=cut_at)  # the power goes: nothing is closed
    for suffix in ("", "-wal"):  # the journal as the cut left it, to resume a second time
        if Path(f"{tmp_path / 'cut.sqlite'}{suffix}").exists():
            shutil.copyfile(f"{tmp_path / 'cut.sqlite'}{suffix}", f"{tmp_path / 'cut-copy.sqlite'}{suffix}")
    if living:  # the role answered before the cut: only the wait of its call was left
        assert (night, step) in acted_steps(first.director.events)
    resumed = table("cut.sqlite")
    resumed.start()
    resumed.run()
    end, whole_end = resumed.director.state, whole.director.state
    assert end is not None and whole_end is not None and (end.winner, end.alive) == (whole_end.winner, whole_end.alive)
    return step, resumed_calls(resumed, asked), resumed.voice.prompts_said()


def resumed_calls(resumed: Session, asked: dict[str, str]) -> list[tuple[str, float]]:
    """A table's calls as (step, seconds from its question to what is said next)."""
    out = resumed.voice.said
    return [(asked[u.prompts[-1]], out[i + 1].start - u.end) for i, u in enumerate(out[:-1]) if u.prompts[-1] in asked]


def test_a_dead_roles_call_cut_by_the_power_is_called_again_whole(tmp_path: Path) -> None:
    """W3: the power goes 3 s into the call of a role that is dead or has nothing left (the table says its
    question and waits as if it answered): the resumed table calls it again from its question and waits a whole
    call again, as long as any call, before its sleep line; the game ends as it would have. The new draw comes
    from the game's seed and the journal: a second table resumed on the same cut journal waits alike."""
    from tests.director.helpers import session

    step, calls_after, _ = cut_mid_call(tmp_path, 101, living=False, after_s=3.0)
    assert calls_after and calls_after[0][0] == step, (step, calls_after[:2])
    assert CALL_S[0] <= calls_after[0][1] <= CALL_S[1]
    again = session("werewolf-12", 12, 101, "heuristic", lang="en", pack="en",
                    journal_path=tmp_path / "cut-copy.sqlite")
    again.start()
    again.run()
    assert resumed_calls(again, questions("werewolf-12")) == calls_after


@pytest.mark.parametrize("seed", [102])
def test_a_dead_seers_call_cut_after_the_rules_reached_dawn_is_called_again_before_the_dawn(tmp_path: Path,
                                                                                             seed: int) -> None:
    """W3: the dead seer's call is the night's last; the rules have reached the dawn before the table calls it,
    so the power cut in its middle leaves a journal already at day: the resumed table calls the seer again whole,
    then says the dawn (its deaths) as it would have."""
    step, calls_after, said = cut_mid_call(tmp_path, seed, living=False, after_s=3.0, only="check")
    assert calls_after and calls_after[0][0] == step == "check", (step, calls_after[:2])
    assert CALL_S[0] <= calls_after[0][1] <= CALL_S[1]
    assert said.index("dawn.breaks") < said.index("night.falls")  # the cut night's dawn, before the next night


@pytest.mark.parametrize("seed", [104])
def test_a_living_roles_call_cut_by_the_power_after_it_answered_is_called_again_whole(tmp_path: Path,
                                                                                      seed: int) -> None:
    """W3: the power goes 5 s into a living role's call, after it answered, while the table waits out its
    call: the resumed table calls it again from its question and waits a whole call again, exactly as for a dead
    role (else a call said again would tell the role was dead); the game ends as it would have."""
    step, calls_after, _ = cut_mid_call(tmp_path, seed, living=True, after_s=5.0)
    assert calls_after and calls_after[0][0] == step, (step, calls_after[:2])
    assert CALL_S[0] <= calls_after[0][1] <= CALL_S[1]

