"""A variant's own lines (its file's ``[words.calls]``, ``[words.endings]``) reach the voice: the W boards' judge
speaks in their words, said by espeak-ng where the pack has no recording, timed by their length where nothing is
played (the simulator, the tests: the same on every machine)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.director import announce
from controller.rules.events import CardShown
from controller.rules.variant import load_variant
from controller.voice import variant_lines
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack
from tests.rules.table import Game

W12 = "werewolf werewolf werewolf werewolf seer witch hunter idiot villager villager villager villager"


def said(pack: str, ids: list[str]) -> str:
    p = load_voice_pack(pack)
    return "".join(p.clip(i).text for i in ids)


def test_the_witch_is_woken_and_asked_in_the_boards_words() -> None:
    """W6: while she holds the antidote the witch is asked whether to save the night's victim (shown on her
    screen, never said)."""
    v = load_variant("werewolf-12")
    woken = announce.wake("witch", "antidote", True, v.night_call, variant=v, step="antidote")
    assert woken == ["role.witch.wake", "role.witch.antidote"]
    assert said("zh-CN", woken) == "女巫请睁眼。昨晚他被杀了，你要用解药救他吗？"
    assert said("en", announce.wake("witch", "poison", True, variant=v, step="poison")) == (
        "Witch, open your eyes.Will you use your poison?")
    assert said("zh-CN", announce.sleep("witch", variant=v)) == "女巫请闭眼。"


def test_the_hunters_shot_is_called_and_he_is_not_put_to_sleep() -> None:
    """W8: the dying hunter shows his card and shoots, or not; he was never woken, so no "close your eyes"."""
    v = load_variant("werewolf-12")
    step = v.death_steps["hunter"]
    assert announce.wake("hunter", step.ability, True, variant=v, step=step.id) == ["role.hunter.shoot"]
    assert announce.sleep("hunter", variant=v) == []


def test_the_idiots_reveal_is_said_with_his_seat() -> None:
    """W9: voted out, the idiot shows his card and stays."""
    g = Game("werewolf-12", W12)
    parts = announce.for_event(CardShown(8, "idiot", "voted_out"), g.state)
    assert parts == ["seat.8", "role.idiot.voted_out"]
    assert said("zh-CN", parts) == "八号翻牌，是白痴，留在场上，从此不能投票。"


def test_a_seed_version_is_woken_as_before() -> None:
    """The seeds' words stay the catalogue's: a variant file without [words.calls] changes nothing."""
    v = load_variant("standard-2.0")
    assert announce.wake("killer", "kill", False, variant=v, step="kill") == announce.wake("killer", "kill", False)
    assert announce.wake("killer", "kill", False) == ["role.killer.wake", "role.killer.act"]


#: A club's own copy of werewolf-9 that says some lines in its own words: the packs have recordings of the board's
#: words, none of these.
REWORDED = {
    'id = "werewolf-9"': 'id = "our-night"',
    "狼人请睁眼。": "狼人们，请睁眼。",
    "昨晚他被杀了，你要用解药救他吗？": "今晚他被杀了，你要用解药救他吗？",
    '"Witch, open your eyes."': '"Witch, please open your eyes."',
    "Will you use your antidote to save them?": "Will you use your antidote on them?",
}


@pytest.fixture
def our_night(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The club's reworded board, registered as a game of it would register it (forgotten after the test)."""
    monkeypatch.setattr(variant_lines, "_OWN", {})
    board = Path(load_variant("werewolf-9").source)
    root = Path(variant_lines.__file__).resolve().parents[2]
    text = (root / board).read_text(encoding="utf-8")
    for old, new in REWORDED.items():
        assert old in text, f"werewolf-9.toml no longer says {old}"
        text = text.replace(old, new)
    own = tmp_path / "our-night.toml"
    own.write_text(text, encoding="utf-8")
    variant_lines.register(load_variant(str(own)))


def test_a_voice_that_plays_nothing_times_a_line_by_its_length(our_night: None) -> None:
    """A line the pack has not recorded (the club reworded it) is timed by its length, the same on every machine."""
    voice = NullVoice(lambda: 0.0, load_voice_pack("zh-CN"))
    line = "今晚他被杀了，你要用解药救他吗？"
    assert voice.duration(["role.witch.antidote"]) == variant_lines.estimate(line, "zh-CN") == round(0.3 + 0.24 * 16, 2)
    assert NullVoice(lambda: 0.0, load_voice_pack("en")).duration(["role.witch.wake"]) == variant_lines.estimate(
        "Witch, please open your eyes.", "en")


def test_the_built_in_boards_lines_are_recorded_in_both_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The packs were rebuilt with the W boards' lines: the table says them in the pack's voice, never espeak's.
    Only the built-in boards': a club's own board played earlier in the same process (the hall's and the league's
    tests play one) registers lines no pack has recorded."""
    monkeypatch.setattr(variant_lines, "_OWN", {})
    for language in ("zh-CN", "en"):
        pack = load_voice_pack(language)
        for prompt_id in variant_lines.known():
            clip = pack.clip(prompt_id)
            assert clip.path.parent == pack.primary.root, f"{language} has no recording of {prompt_id}"


def test_the_table_says_a_line_without_a_recording_with_espeak_once(our_night: None, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The club reworded the witch's question: the pack's recording says other words, so the table's voice
    synthesises the club's once into the cache and times it as heard."""
    assert shutil.which("espeak-ng"), "espeak-ng is not installed (Debian: apt-get install espeak-ng)"
    monkeypatch.setenv("TIANHEI_CACHE", str(tmp_path))
    pack = load_voice_pack("en")
    pack.speak_lines = True
    clip = pack.clip("role.witch.antidote")
    assert clip.text == "This player was killed tonight. Will you use your antidote on them?"
    assert clip.path.is_file() and clip.path.is_relative_to(tmp_path)
    assert 2.0 < clip.duration < 8.0  # a sentence, not silence nor a runaway
    stamp = clip.path.stat().st_mtime_ns
    assert pack.clip("role.witch.antidote").path.stat().st_mtime_ns == stamp  # said from the cache next time


def test_a_clubs_own_file_wins_for_its_own_lines(our_night: None) -> None:
    """The club's words are said, not the pack's recording of the board's other words."""
    assert said("zh-CN", ["role.werewolf.wake"]) == "狼人们，请睁眼。"
    assert said("zh-CN", ["ending.our_night.good"]) == "好人胜利。"
    assert said("zh-CN", ["role.witch.sleep"]) == "女巫请闭眼。"  # not reworded: the recording
