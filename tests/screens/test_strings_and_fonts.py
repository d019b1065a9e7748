"""Every word the screens show has glyphs, and the shipped font subsets are what the build script makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.screens import strings
from controller.screens.fonts import BIG, MEDIUM, SMALL
from controller.screens.fonts import build as font_build
from controller.screens.strings import Lang


@pytest.mark.parametrize("face", [SMALL, MEDIUM, BIG], ids=lambda f: f.name)
def test_every_screen_word_has_a_glyph(face) -> None:
    missing = {t: face.missing(t) for t in strings.all_texts() if face.missing(t)}
    assert not missing, f"{face.name} lacks glyphs: {missing}"


def test_every_hanzi_of_gb2312_is_shipped() -> None:
    """Free text (a deck file's names, a message) renders whatever common hanzi it uses."""
    wanted = "".join(chr(c) for c in font_build.wanted_characters() if c > 0x4E00)
    assert not SMALL.missing(wanted)
    assert not MEDIUM.missing(wanted)


def test_roles_actions_and_sides_have_words_in_both_languages() -> None:
    for table in (strings.ROLES, strings.ACTIONS, strings.SIDES):
        for key, (zh, en) in table.items():
            assert zh and en, key
    assert strings.role_name("killer", Lang.ZH) == "杀手"
    assert strings.role_name("forest-elder", Lang.EN) == "Forest elder"  # aliases and dashes
    assert strings.role_name("mystery_role", Lang.EN) == "mystery_role"  # shown as itself, never hidden
    assert not strings.known("role", "mystery_role")


def test_an_unknown_ui_key_names_the_table() -> None:
    with pytest.raises(KeyError, match=r"strings\.py UI"):
        strings.ui("no_such_phrase", Lang.ZH)


@pytest.mark.skipif(not all(Path(src).exists() for _o, src, *_ in font_build.FACES.values()),
                    reason="the full fonts (Debian xfonts-unifont, xfonts-wqy) are not installed")
def test_the_subsets_rebuild_identically(tmp_path: Path) -> None:
    assert font_build.main(["--out", str(tmp_path)]) == 0
    for out_name, *_ in font_build.FACES.values():
        shipped = Path(font_build.HERE / out_name).read_bytes()
        assert (tmp_path / out_name).read_bytes() == shipped, f"{out_name}: rebuild the subset and commit it"


def test_the_licences_ship_beside_the_fonts() -> None:
    for name in ("unifont.LICENSE.txt", "wqy.LICENSE.txt"):
        assert (font_build.HERE / name).stat().st_size > 1000


def test_the_w_boards_hunter_says_the_boards_own_word_the_seeds_sniper_keeps_his() -> None:
    """W8: the hunter's shot and the seeds' sniper share the ability "shoot"; the board's own [words.actions]
    wins for its own games (开枪), and a seed version's screen still says 狙击."""
    from controller.screens import views as v
    from controller.screens.render import render

    for board in ("werewolf-12", "werewolf-12-guard", "werewolf-9"):
        assert strings.action_name("shoot", Lang.ZH, board) == "开枪"
    assert strings.action_name("shoot", Lang.ZH, "v4.0") == strings.action_name("shoot", Lang.ZH) == "狙击"
    cd = v.Countdown(20, 30)
    hunter = render(v.NightChoice("shoot", 3, cd, words=("开枪", "Shoot")), Lang.ZH, strict=True)
    sniper = render(v.NightChoice("shoot", 3, cd), Lang.ZH, strict=True)
    spelled = render(v.NightChoice("unspoken", 3, cd, words=("开枪", "Shoot")), Lang.ZH, strict=True)
    assert hunter.tobytes() != sniper.tobytes() and hunter.tobytes() == spelled.tobytes()
