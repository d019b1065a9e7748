"""The docs' examples are what the commands print today.

docs/simulator.md's example game once showed times from an older version of the table. Every fenced block in
README.md and docs/ whose first line is ``$ tianhei ...`` is run here (in-process, in an empty folder, so no
``tianhei.toml`` of the checkout changes it) and its lines must appear in the output in the same order; a line
``...`` (however indented) stands for any number of lines left out. A failure prints what the command printed,
ready to be pasted into the doc.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from controller.cli import main

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```[a-z]*\n\$ (tianhei [^\n]*)\n(.*?)^```", re.M | re.S)


def examples() -> list[tuple[str, str, list[str]]]:
    """(doc, command line, the lines shown) of every example block."""
    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for match in _BLOCK.finditer(doc.read_text(encoding="utf-8")):
            command = match.group(1).split("  #")[0].strip()
            found.append((str(doc.relative_to(ROOT)), command, match.group(2).splitlines()))
    return found


def follows(shown: list[str], printed: list[str]) -> str | None:
    """None when ``printed`` matches ``shown`` line by line, ``...`` skipping any lines; else the first line shown
    that was not printed where it should be."""
    at = 0
    skipping = False
    for line in shown:
        if line.strip() == "...":
            skipping = True
            continue
        if skipping:
            while at < len(printed) and printed[at] != line:
                at += 1
        if at >= len(printed) or printed[at] != line:
            return line
        at += 1
        skipping = False
    return None if skipping or at == len(printed) else f"(more lines printed after: {printed[at]!r})"


def test_the_docs_have_examples_to_check():
    assert any(doc == "docs/simulator.md" for doc, _, _ in examples())


def test_a_line_left_out_or_changed_is_found():
    assert follows(["a", "...", "d"], ["a", "b", "c", "d"]) is None
    assert follows(["a", "c"], ["a", "b", "c"]) == "c"
    assert follows(["a", "...", "x"], ["a", "b"]) == "x"
    assert follows(["a"], ["a", "b"]) is not None


@pytest.mark.parametrize(("doc", "command", "shown"), examples(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_example_is_what_the_command_prints(doc, command, shown, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    assert main(shlex.split(command)[1:]) == 0
    printed = capsys.readouterr().out.splitlines()
    wrong = follows(shown, printed)
    assert wrong is None, (f"{doc}: `{command}` no longer prints {wrong!r}; it prints:\n" + "\n".join(printed))
