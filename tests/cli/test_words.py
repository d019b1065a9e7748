"""Every message catalogue has every key in both of the table's languages.

``无法开始：nobody has checked in`` reached the judge's phone half translated, and ``tianhei run --lang zh``
printed English around a Chinese transcript. This walks every catalogue in the tree, found by its shape rather
than by a list kept by hand (so a new one is checked the day it is written):

- Python: a module-level dict whose values are all (zh, en) pairs of strings; a dict with "zh" and "en" keys
  whose values are dicts (the league's page);
- JavaScript: the console's ``WORDS = {key: [zh, en]}`` and the hall page's ``T = {zh: {...}, en: {...}}``.

A pair is whole when both sides are non-empty, the English side holds no Chinese, and both name the same
``{fields}``; a zh/en dict when both have the same keys.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTROLLER = ROOT / "controller"
_HAN = re.compile(r"[\u4e00-\u9fff]")
#: Pairs whose sides may name other fields, and why.
_OWN_FIELDS = {"deal_void": "{why} is the engine's English reason; the Chinese side says the two reasons there are "
                            "in its own words (controller/director/card_deal.py)"}
_FIELD = re.compile(r"(?<!\{)\{(\w*)[^{}]*\}(?!\})")


def _pairs(node: ast.Dict) -> list[tuple[str, str, str]] | None:
    """(key, zh, en) of a dict literal whose every value is a pair of string literals (None: not a catalogue)."""
    out = []
    for key, value in zip(node.keys, node.values, strict=True):
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)):
            return None
        name = key.value if isinstance(key, ast.Constant) else ast.unparse(key) if key is not None else "**"
        zh, en = (e.value for e in value.elts)  # type: ignore[attr-defined]
        out.append((str(name), zh, en))
    return out or None


@functools.cache
def python_catalogues() -> list[tuple[str, list[tuple[str, str, str]]]]:
    found = []
    for path in sorted(CONTROLLER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                pairs = _pairs(node)
                if pairs is not None and any(_HAN.search(zh) for _, zh, _ in pairs):
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", pairs))
    return found


@functools.cache
def python_language_dicts() -> list[tuple[str, dict[str, set[str]]]]:
    found = []
    for path in sorted(CONTROLLER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Dict):
                continue
            langs = {k.value: v for k, v in zip(node.keys, node.values, strict=True)
                     if isinstance(k, ast.Constant) and k.value in ("zh", "en")}
            if set(langs) == {"zh", "en"} and all(isinstance(v, ast.Dict) for v in langs.values()):
                found.append((f"{path.relative_to(ROOT)}:{node.lineno}",
                              {lang: {ast.unparse(k) for k in v.keys if k is not None}  # type: ignore[attr-defined]
                               for lang, v in langs.items()}))
    return found


def _code(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, bracket depth before it) of the JavaScript ``text`` outside its string literals."""
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        else:
            yield i, c, depth
            depth += (c in "([{") - (c in ")]}")
        i += 1


def _top_keys(body: str) -> set[str]:
    """The keys at the outer level of a JavaScript object's body (strings, brackets and ternaries skipped)."""
    keys, ternaries, skip_to = set(), 0, 0
    for i, c, depth in _code(body):
        if i < skip_to or depth != 0 or c in "([{":
            continue
        if c == "?" and body[i + 1:i + 2] not in (".", "?"):
            ternaries += 1  # its ':' is not a key's
        elif c == ",":
            ternaries = 0
        elif c == ":" and ternaries:
            ternaries -= 1
        else:
            m = re.match(r"(\w+)\s*:", body[i:])
            if m and (i == 0 or not (body[i - 1].isalnum() or body[i - 1] == "_")):
                if ternaries:
                    ternaries -= 1
                else:
                    keys.add(m.group(1))
                skip_to = i + m.end()
    return keys


def _object_body(text: str, start: int) -> str:
    """The text between the brace at ``start`` and its match."""
    for i, c, depth in _code(text, start):
        if c == "}" and depth == 1:
            return text[start + 1:i]
    raise AssertionError("unbalanced braces")


def test_the_catalogues_are_found():
    names = [where for where, _ in python_catalogues()]
    assert any(w.startswith("controller/screens/strings.py") for w in names)
    assert any(w.startswith("controller/cli/words.py") for w in names)
    assert python_language_dicts(), "the league page's words"


@pytest.mark.parametrize(("where", "pairs"), python_catalogues(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_python_pair_has_both_languages(where, pairs):
    for key, zh, en in pairs:
        assert bool(zh.strip()) == bool(en.strip()), f"{where} {key}: one side is empty ({zh!r}, {en!r})"
        assert not _HAN.search(en), f"{where} {key}: Chinese in the English side: {en!r}"
        assert key in _OWN_FIELDS or set(_FIELD.findall(zh)) == set(_FIELD.findall(en)), \
            f"{where} {key}: the two sides name other fields: {zh!r} / {en!r}"


@pytest.mark.parametrize(("where", "keys"), python_language_dicts(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_zh_en_dict_has_the_same_keys(where, keys):
    assert keys["zh"] == keys["en"], f"{where}: only in zh {keys['zh'] - keys['en']}, only in en " \
                                     f"{keys['en'] - keys['zh']}"


def test_the_consoles_words_are_pairs():
    text = (CONTROLLER / "web" / "static" / "i18n.js").read_text(encoding="utf-8")
    body = _object_body(text, text.index("{", text.index("const WORDS")))
    entries = re.findall(r"(\w+):\s*\[\s*\"((?:[^\"\\]|\\.)*)\"\s*,\s*\"((?:[^\"\\]|\\.)*)\"\s*\]", body)
    assert len(entries) == len(_top_keys(body)), "a WORDS entry that is not a [zh, en] pair of strings"
    for key, zh, en in entries:
        assert zh.strip() and en.strip() and not _HAN.search(en), f"i18n.js {key}: {zh!r} / {en!r}"


@pytest.mark.parametrize("page", sorted(str(p.relative_to(ROOT)) for p in CONTROLLER.rglob("*.html")))
def test_a_pages_zh_and_en_words_have_the_same_keys(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    for m in re.finditer(r"\bconst (\w+) = \{\s*zh:\s*\{", text):
        outer = _object_body(text, text.index("{", m.start()))
        zh = _top_keys(_object_body(outer, outer.index("{", outer.index("zh:"))))
        en = _top_keys(_object_body(outer, outer.index("{", re.search(r"\ben:\s*\{", outer).start())))  # type: ignore[union-attr]
        assert zh == en, f"{page} {m.group(1)}: only in zh {zh - en}, only in en {en - zh}"
