"""``tianhei variants`` shows everything a club may set: every rule option (``--option`` / ``[game] options``)
and every setting of the variant file a club's own copy may change (the night call, the first phase, the cards a
player holds). Found at a club: 4.0's ``night_call`` (「出动」 … 「回去」) was nowhere in the listing."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.rules.options import OPTIONS
from controller.rules.variant import _TOP_KEYS, builtin_ids, load_variant


@pytest.mark.parametrize("vid", builtin_ids())
def test_the_listing_names_the_night_call_and_every_setting_of_the_variant_file(vid: str, capsys) -> None:
    v = load_variant(vid)
    assert main(["variants", vid]) == 0
    text = capsys.readouterr().out
    assert f"night_call={v.night_call} [eyes|out_back|come_back]" in text
    assert f"first={v.first}" in text
    if v.hand > 1:
        assert f"hand={v.hand}" in text and f"live={v.live}" in text
    for role in v.numbered:
        assert role in text.split("numbered=")[1].splitlines()[0]
    for key in v.options:  # every rule option a club may set, with its RULES ID
        assert f"    {key}=" in text and f"({OPTIONS[key].rule})" in text


def test_the_4_0_and_6_0_calls_are_said_as_the_seeds_say_them(capsys) -> None:
    assert main(["variants", "v4.0"]) == 0
    assert "night_call=out_back" in capsys.readouterr().out  # V4.2: 「花蝴蝶出动」 … 「花蝴蝶回去」
    assert main(["variants", "dual-card-6.0"]) == 0
    out = capsys.readouterr().out
    assert "night_call=come_back" in out and "「杀手出来」" in out  # 000 6.0


def test_the_json_listing_carries_every_key_a_variant_file_may_hold(capsys) -> None:
    """A key added to the variant file's schema and left out of the listing fails here."""
    assert main(["variants", "--json"]) == 0
    for entry in json.loads(capsys.readouterr().out):
        v = load_variant(entry["id"])
        missing = [k for k in _TOP_KEYS if k not in entry]
        assert not missing, f"{v.id}: the listing leaves out {missing}"
        assert entry["night_call"] == v.night_call and entry["first"] == v.first and entry["hand"] == v.hand
        assert set(entry["options"]) == set(v.options)
