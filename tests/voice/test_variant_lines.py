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


def test_a_voice_that_plays_nothing_times_a_line_by_its_length() -> None:
    voice = NullVoice(lambda: 0.0, load_voice_pack("zh-CN"))
    line = "昨晚他被杀了，你要用解药救他吗？"
    assert voice.duration(["role.witch.antidote"]) == variant_lines.estimate(line, "zh-CN") == round(0.3 + 0.24 * 16, 2)
    assert NullVoice(lambda: 0.0, load_voice_pack("en")).duration(["role.witch.wake"]) == variant_lines.estimate(
        "Witch, open your eyes.", "en")


def test_the_table_says_a_line_without_a_recording_with_espeak_once(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The pack has no clip of the witch's question: the table's voice synthesises it once into the cache and
    times it as heard."""
    assert shutil.which("espeak-ng"), "espeak-ng is not installed (Debian: apt-get install espeak-ng)"
    monkeypatch.setenv("TIANHEI_CACHE", str(tmp_path))
    pack = load_voice_pack("en")
    pack.speak_lines = True
    clip = pack.clip("role.witch.antidote")
    assert clip.path.is_file() and clip.path.is_relative_to(tmp_path)
    assert 2.0 < clip.duration < 8.0  # a sentence, not silence nor a runaway
    stamp = clip.path.stat().st_mtime_ns
    assert pack.clip("role.witch.antidote").path.stat().st_mtime_ns == stamp  # said from the cache next time


def test_a_clubs_own_file_wins_for_its_own_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(variant_lines, "_OWN", {})  # what the game registers is forgotten after the test
    board = Path(load_variant("werewolf-9").source)
    root = Path(variant_lines.__file__).resolve().parents[2]
    text = (root / board).read_text(encoding="utf-8").replace('id = "werewolf-9"', 'id = "our-night"').replace(
        "狼人请睁眼。", "狼人们，请睁眼。")
    own = tmp_path / "our-night.toml"
    own.write_text(text, encoding="utf-8")
    variant_lines.register(load_variant(str(own)))
    assert said("zh-CN", ["role.werewolf.wake"]) == "狼人们，请睁眼。"
    assert said("zh-CN", ["ending.our_night.good"]) == "好人胜利。"
