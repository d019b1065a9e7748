"""The rules engine compiled to C with mypyc, for the simulator only.

Why: clubs simulate a hundred thousand games to tune a role table, and the pure-Python engine plays about five
thousand games of standard 2.0 a second (about 1,600 of v4.0). mypyc (the compiler that ships with mypy, which
already type-checks ``controller/``) turns the same typed source into C extension modules that play the same games,
with the same random draws and the same counts, about four times as fast (``benchmarks/simulate_speed.py`` prints
both figures).

Why only the simulator: compiled functions check their arguments' types at the call, so a malformed input from a
person (a seat that is not a number) would raise TypeError instead of the engine's ``Rejected`` with its reason.
Bots send only what ``pending()`` offers; the table, the director and every other process keep the Python source.

The build lives in ``build/mypyc`` (never in the source tree, where a stale ``.so`` would silently shadow an edited
``.py``). It is used only while its fingerprint (every module of ``controller/rules`` and ``controller/bots``, the
Python and mypy versions) matches the source; otherwise the simulator plays the Python source and says so.

    python -m controller.compiled_rules build [--if-stale]     (./dev fast)
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

#: The modules every simulated game runs through, by package: the rules (with their events, inputs and records,
#: which compiled become native objects) and the bots that play them with their game loop. The rest of both
#: packages is reading files and an exception class (mypyc compiles no subclass of a built-in exception).
COMPILED: dict[str, tuple[str, ...]] = {
    "controller.rules": ("engine", "tx", "state", "night", "day", "agenda", "win", "turns", "clash", "ability", "sheriff",
                         "hooks", "seats", "cards", "hands", "setup", "variant", "draws", "record", "events",
                         "actions"),
    "controller.bots": ("policies", "play"),
}
MODULES = tuple(f"{package}.{name}" for package, names in COMPILED.items() for name in names)
GROUP = "tianhei_rules"
#: Set to play the Python source even when a current build exists (to compare, or to debug).
PURE_ENV = "TIANHEI_PURE_RULES"

_CONTROLLER = Path(__file__).resolve().parent
_ROOT = _CONTROLLER.parent
#: The source directories whose every module the fingerprint covers.
_SOURCES = tuple(_ROOT.joinpath(*package.split(".")) for package in COMPILED)
BUILD = _ROOT / "build" / "mypyc"
_STAMP = BUILD / "FINGERPRINT"


def fingerprint() -> str:
    """What a build was made from: any change to a module of the rules or the bots, Python or mypy makes the
    build stale."""
    import mypy.version

    h = hashlib.sha256()
    h.update(f"{sys.version}|{platform.machine()}|{mypy.version.__version__}|{MODULES}".encode())
    for directory in _SOURCES:
        for path in sorted(directory.glob("*.py")):
            h.update(f"{directory.name}/{path.name}".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def current() -> bool:
    """Whether ``build/mypyc`` holds a build of exactly this source."""
    try:
        stamp = _STAMP.read_text().strip()
    except OSError:
        return False
    try:
        return stamp == fingerprint()
    except ImportError:  # mypy is a development dependency; without it nothing here was built
        return False


def activate() -> str:
    """Make the following imports of the compiled modules load their build when it is current. Returns "mypyc"
    or "python". Call before anything imports the engine or the bots."""
    if os.environ.get(PURE_ENV):
        return "python"
    if any(name in sys.modules for name in MODULES):  # too late: the source is loaded already
        return mode()
    if not current():
        return "python"
    added: list[tuple[str, str, bool]] = []
    try:
        _load_group()
        for package in COMPILED:
            directory = str(BUILD.joinpath(*package.split(".")))
            added.append((package, directory, package not in sys.modules))
            _search_first(package, directory)
        return mode()
    except ImportError as exc:  # a damaged build, or one this interpreter cannot load: play the source
        for package, directory, created in added:
            module = sys.modules.get(package)
            if created:  # its __init__ may have stopped half-way: import it afresh from the source
                sys.modules.pop(package, None)
            elif module is not None and directory in module.__path__:
                module.__path__.remove(directory)
        for name in [n for n in sys.modules if n in MODULES or n.startswith(GROUP)]:
            del sys.modules[name]
        print(f"the compiled rules in {BUILD} do not load ({exc}); playing the Python source", file=sys.stderr)
        return "python"


def _load_group() -> None:
    """Load the shared library every compiled module imports by its own top-level name (GROUP) from the build,
    into ``sys.modules``. Not by putting the build on ``sys.path``: a worker process (``--jobs``' pool, a dask
    worker) starts with its parent's ``sys.path``, and there the build's ``controller/`` folder (no
    ``__init__``) became the namespace package ``controller`` itself: the workers found the compiled modules
    but not the rest of the package, and crashed on every chunk while the pool waited for ever."""
    from importlib.machinery import EXTENSION_SUFFIXES

    name = f"{GROUP}__mypyc"
    if name in sys.modules:
        return
    for suffix in EXTENSION_SUFFIXES:
        path = BUILD / f"{name}{suffix}"
        if path.exists():
            break
    else:
        raise ImportError(f"no {name} in the build")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a loadable module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise


def _search_first(package: str, directory: str) -> None:
    """Put ``directory`` first on ``package``'s module search path, before the package's ``__init__`` runs (the
    bots' ``__init__`` imports its policies at once)."""
    if package in sys.modules:
        sys.modules[package].__path__.insert(0, directory)
        return
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.loader is not None and spec.submodule_search_locations is not None
    spec.submodule_search_locations.insert(0, directory)
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)


def mode() -> str:
    """Which rules this process plays ("mypyc" or "python"), once they are imported."""
    import controller.bots.policies as policies
    import controller.rules.engine as engine

    compiled = [not (m.__file__ or "").endswith(".py") for m in (engine, policies)]
    return "mypyc" if all(compiled) else "python"


def start_pool_worker(reports: Any, compiled: bool) -> None:
    """A pool worker's first act (its initializer): load the rules its parent plays, then report (pid, which
    rules) on ``reports``, so that the parent names every worker before any game, whichever of them then gets
    work. It lives here, not beside the pool: unpickling an initializer imports its module, and the balance lab's
    module imports the engine, too early for the build to be activated. A worker whose rules do not import says
    so too (never silence, which would keep the parent waiting); its first chunk then raises the import's error."""
    try:
        if compiled:
            activate()
        played_with = mode()
    except Exception as exc:  # told to the parent through its first chunk
        played_with = f"not loaded ({type(exc).__name__})"
    reports.put((os.getpid(), played_with))


# mypycify runs in the project's folder (module names come from the paths), setup() in the build's own folder:
# setuptools reads the pyproject.toml of the folder it runs in, and the project's metadata is for pip's current
# setuptools, not for whichever one the venv holds for this C build.
_BUILD_SCRIPT = textwrap.dedent("""
    import os
    import sys
    from setuptools import setup
    from mypyc.build import mypycify

    paths = sys.argv[1:-3]
    target, lib, temp = sys.argv[-3:]
    extensions = mypycify(paths, group_name="{group}", target_dir=target)
    os.chdir(os.path.dirname(target))
    setup(name="tianhei-compiled-rules", ext_modules=extensions,
          script_args=["build_ext", "--build-lib", lib, "--build-temp", temp])
""").format(group=GROUP)


def build() -> None:
    """Compile the modules into ``build/mypyc`` (about a minute on two cores); raise on any
    failure. One build at a time (a lock), made aside and moved into place whole, so a simulator starting
    meanwhile finds either the old build or the new one, never half of one."""
    BUILD.parent.mkdir(parents=True, exist_ok=True)
    with open(BUILD.parent / "mypyc.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = fingerprint()
        work = BUILD.parent / "mypyc-work"
        shutil.rmtree(work, ignore_errors=True)
        paths = [name.replace(".", "/") + ".py" for name in MODULES]
        command = [sys.executable, "-c", _BUILD_SCRIPT, *paths, str(work / "c"), str(work / "lib"), str(work / "temp")]
        done = subprocess.run(command, cwd=_ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
            raise RuntimeError(f"mypyc could not compile the rules (a C compiler and the Python headers are "
                               f"needed):\n{tail}")
        (work / "lib" / _STAMP.name).write_text(stamp + "\n")
        old = BUILD.parent / "mypyc-old"
        shutil.rmtree(old, ignore_errors=True)
        if BUILD.exists():
            BUILD.rename(old)
        (work / "lib").rename(BUILD)
        shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.compiled_rules", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="compile the rules engine for the simulator into build/mypyc")
    b.add_argument("--if-stale", action="store_true", help="do nothing when the build is current")
    sub.add_parser("status", help="say whether the build is current")
    args = parser.parse_args(argv)
    if args.command == "status":
        print("current" if current() else "missing or stale")
        return 0 if current() else 1
    if args.if_stale and current():
        return 0
    print("compiling the rules engine with mypyc for the simulator (build/mypyc) ...", file=sys.stderr)
    try:
        build()
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    print("done: tianhei simulate now plays the compiled rules", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
