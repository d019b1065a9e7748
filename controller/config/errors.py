"""Configuration problems that name the file, the key and the fix.

A person standing at the table reads these, so each problem says where it happened (file and dotted key), what is
wrong, and what to do about it. Loaders collect every problem they find before raising, so one run of
``tianhei config check`` lists them all instead of making people fix one typo per run.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a configuration file."""

    file: str
    key: str
    message: str
    fix: str = ""

    def __str__(self) -> str:
        where = f"{self.key} in {self.file}" if self.key else self.file
        text = f"{self.message} ({where})"
        return f"{text}: {self.fix}" if self.fix else text


class ConfigError(ValueError):
    """Raised when a configuration, profile or deck file is invalid; ``problems`` lists every finding."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "invalid configuration")

    @property
    def key(self) -> str:
        return self.problems[0].key if self.problems else ""

    @property
    def file(self) -> str:
        return self.problems[0].file if self.problems else ""

    @property
    def fix(self) -> str:
        return self.problems[0].fix if self.problems else ""


def display_name(path: Path | str) -> str:
    """How a file is named in messages: as the user gave it (no absolute machine paths forced on them)."""
    return str(path)


def suggest(word: str, choices: Iterable[str]) -> str:
    """``did you mean 'x'?`` when a close match exists, else a list of what is allowed."""
    options = sorted(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    return "allowed: " + ", ".join(repr(o) for o in options) if options else "remove it"


def unknown_keys(table: Mapping[str, object], allowed: Iterable[str], where: str, file: str) -> list[Problem]:
    """Problems for every key of ``table`` not in ``allowed``; ``where`` is the table's dotted name ("" = top)."""
    allowed_set = set(allowed)
    problems = []
    for key in table:
        if key not in allowed_set:
            inside = f" in [{where}]" if where else " at the top level"
            problems.append(
                Problem(file, f"{where}.{key}" if where else key, f"unknown key {key!r}{inside}",
                        suggest(key, allowed_set))
            )
    return problems


#: Byte-order marks an editor may put at the start of a text file, and what they mean.
_BOMS = ((b"\xef\xbb\xbf", "UTF-8 with a byte-order mark (BOM)"), (b"\xff\xfe", "UTF-16"),
         (b"\xfe\xff", "UTF-16"))
_SAVE_AS = "save it as UTF-8 without a BOM (in Notepad: Save as, Encoding: UTF-8)"


def read_toml(path: Path, shown: str | None = None) -> dict[str, object]:
    """A TOML file's tables, or :class:`ConfigError` naming the file, what is wrong and the fix.

    TOML files are UTF-8. Editors on Windows often save "UTF-8 with BOM" or "Unicode" (UTF-16); both are
    refused with the way to save the file right, rather than read half-way or guessed at."""
    file = shown if shown is not None else str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError([Problem(file, "", f"cannot be read ({exc.strerror})",
                                   "check that it exists and that this user may read it")]) from exc
    for bom, what in _BOMS:
        if raw.startswith(bom):
            raise ConfigError([Problem(file, "", f"the file is saved as {what}", _SAVE_AS)])
    if len(raw) >= 2 and (raw[0] == 0) != (raw[1] == 0):
        raise ConfigError([Problem(file, "", "the file is saved as UTF-16 (no byte-order mark)", _SAVE_AS)])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError([Problem(file, "", f"byte {exc.start} (line {line}) is not UTF-8", _SAVE_AS)]) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([Problem(file, "", f"not valid TOML: {exc}", "fix the syntax at that line")]) from exc
