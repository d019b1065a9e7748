"""A club's own ability modules: Python files the table's settings file names (``[game] abilities``), each
registering its abilities (controller/rules/ability.py) before a variant file that uses them is read.

This is the club's own code on its own Pi, run with the table's rights, exactly as the settings file itself is
trusted: only the settings file (or a command's ``--config``) names these files. A game's journal, a variant
file, the hall, the console and the seat bus never do, and nothing received from the network is loaded.

Every failure is one line naming the file: a file that is not there, a module that raises while it is imported
(its own message), or one that registers an ability name another module already registered.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

#: Where the loaded modules live in ``sys.modules`` (so a traceback and pickling name them).
PACKAGE = "tianhei_club_abilities"
#: The key of ``[game]`` that names the files.
KEY = "abilities"

#: Resolved path -> its module: each file runs once a process, however many commands or games ask for it.
_LOADED: dict[Path, ModuleType] = {}


class AbilityModuleError(ValueError):
    """A club's ability module that cannot be used: one line naming the file, what is wrong and the fix."""

    def __init__(self, file: str | Path, problem: str, fix: str = "") -> None:
        self.file, self.problem, self.fix = str(file), problem, fix
        super().__init__(f"{file}: {problem}" + (f". Fix: {fix}" if fix else ""))


def paths_of(game: Mapping[str, Any], base: Path, where: str) -> tuple[Path, ...]:
    """``[game] abilities`` of a settings file read from ``where``: the files, relative to ``base`` (the settings
    file's folder) unless absolute. Raises AbilityModuleError on a value that is not a list of file names."""
    raw = game.get(KEY, [])
    if not isinstance(raw, list) or not all(isinstance(p, str) and p.strip() for p in raw):
        raise AbilityModuleError(where, f"game.{KEY}: {raw!r} is not a list of Python files",
                                 f'write {KEY} = ["my_abilities.py"] (paths beside the settings file, or absolute)')
    return tuple(p if p.is_absolute() else base / p for p in (Path(s).expanduser() for s in raw))


def load(paths: Iterable[str | Path]) -> None:
    """Import each club module once (in order); raises AbilityModuleError naming the first file that fails."""
    for given in paths:
        path = Path(given).resolve()
        if path in _LOADED:
            continue
        _LOADED[path] = _import(path)


def _import(path: Path) -> ModuleType:
    if not path.is_file():
        raise AbilityModuleError(path, "no such ability module",
                                 f"check [game] {KEY} in the settings file (paths are relative to its folder)")
    if path.suffix != ".py":
        raise AbilityModuleError(path, "an ability module is a Python file ending in .py")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    name = f"{PACKAGE}.{path.stem.replace('-', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AbilityModuleError(path, "cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the club's own code: any failure, said in one line with the file's name
        del sys.modules[name]
        text = " ".join(str(exc).split()) or type(exc).__name__
        if isinstance(exc, ValueError) and "registered twice" in text:
            raise AbilityModuleError(path, f"{text}: another module (built in, or another file of [game] {KEY}) "
                                     "already registers that name", "give the ability a name of its own") from None
        raise AbilityModuleError(path, f"raised {type(exc).__name__} while being imported: {text}",
                                 "run it with python3 to see the whole error, and fix the module") from None
    return module


def loaded() -> tuple[Path, ...]:
    """The club modules this process has imported, in order (for a pool worker to import the same)."""
    return tuple(_LOADED)


def load_named_by(settings: str | Path, *, required: bool = True) -> None:
    """Import the modules the settings file names, for the commands that set up games without the table's whole
    configuration (``tianhei simulate``, ``balance``, ``run``): only ``[game] abilities`` is read. ``required``:
    False for the default file, which need not exist. Raises AbilityModuleError (a settings file that cannot be
    read is a ConfigError)."""
    from controller.config.errors import read_toml

    path = Path(settings)
    if not required and not path.is_file():
        return
    game = read_toml(path).get("game", {})
    if isinstance(game, Mapping):
        load(paths_of(game, path.parent, str(path)))
