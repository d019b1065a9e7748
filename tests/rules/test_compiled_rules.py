"""The simulator's mypyc build of the rules (controller/compiled_rules.py) plays exactly the games the Python
source plays, and a build that no longer matches the source is never used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from controller import compiled_rules

#: Plays each (variant, players) with every policy in one process and prints the counts, after activate().
_PLAY = textwrap.dedent("""
    import json, sys
    from controller import compiled_rules
    mode = compiled_rules.activate()
    from controller.rules.setup import configure
    from controller.rules.variant import load_variant
    from controller.simulate import simulate
    out = {"mode": mode, "counts": {}}
    for variant, players in (("classic-1.0", 12), ("standard-2.0", 12), ("five-identities", 12), ("v3.0", 13),
                             ("v4.0", 12), ("v5.0-infernal", 13), ("v7.0", 14), ("dual-card-6.0", 9),
                             ("dual-card-5.0", 8)):
        for policy in ("uninformed", "random", "heuristic"):
            for talk in (False, True):
                config = configure(load_variant(variant), players, talk=talk)
                s = simulate(config, policy, 60, seed=3)
                out["counts"][f"{variant}/{policy}/talk={talk}"] = [dict(s.wins), s.draws, s.days_total]
    print(json.dumps(out))
""")


def _play(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != compiled_rules.PURE_ENV}
    if pure:
        env[compiled_rules.PURE_ENV] = "1"
    done = subprocess.run([sys.executable, "-c", _PLAY], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _can_compile() -> bool:
    """A C compiler and this Python's headers (Debian: python3-dev), which mypyc's build needs."""
    has_cc = shutil.which("cc") is not None or shutil.which("gcc") is not None
    return has_cc and (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


@pytest.mark.skipif(not _can_compile(),
                    reason="mypyc needs a C compiler and the Python headers (the Python source is played instead)")
def test_the_compiled_rules_play_every_version_exactly_like_the_source():
    if not compiled_rules.current():
        compiled_rules.build()  # about half a minute; kept in build/mypyc for the next run
    assert compiled_rules.current()
    compiled = _play(pure=False)
    source = _play(pure=True)
    assert compiled["mode"] == "mypyc"
    assert source["mode"] == "python"
    assert compiled["counts"] == source["counts"]


def test_a_build_of_other_source_is_stale_and_never_loaded(tmp_path, monkeypatch):
    stamp = tmp_path / "FINGERPRINT"
    monkeypatch.setattr(compiled_rules, "_STAMP", stamp)
    assert not compiled_rules.current()  # no build at all
    stamp.write_text("a fingerprint of yesterday's engine\n")
    assert not compiled_rules.current()
    stamp.write_text(compiled_rules.fingerprint() + "\n")
    assert compiled_rules.current()


def test_the_fingerprint_changes_when_a_module_of_the_rules_or_the_bots_changes(tmp_path, monkeypatch):
    rules, bots = tmp_path / "rules", tmp_path / "bots"
    for package in (rules, bots):
        package.mkdir()
    (rules / "engine.py").write_text("def step(): ...\n")
    (bots / "policies.py").write_text("POLICIES = {}\n")
    monkeypatch.setattr(compiled_rules, "_SOURCES", (rules, bots))
    before = compiled_rules.fingerprint()
    (rules / "engine.py").write_text("def step(): return None\n")
    after_rules = compiled_rules.fingerprint()
    (bots / "policies.py").write_text("POLICIES = {'uninformed': None}\n")
    assert len({before, after_rules, compiled_rules.fingerprint()}) == 3


def test_the_environment_switch_keeps_the_python_source(monkeypatch):
    monkeypatch.setenv(compiled_rules.PURE_ENV, "1")
    assert compiled_rules.activate() == "python"


def test_a_damaged_build_is_set_aside_for_the_source_with_a_message(tmp_path):
    """A build whose fingerprint matches but whose files do not load (a truncated copy, another machine's
    build): the simulator plays the Python source and says why, instead of failing."""
    from importlib.machinery import EXTENSION_SUFFIXES

    rules = tmp_path / "controller" / "rules"
    rules.mkdir(parents=True)
    (rules / f"engine{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a shared library")
    (tmp_path / "FINGERPRINT").write_text(compiled_rules.fingerprint() + "\n")
    script = textwrap.dedent(f"""
        from pathlib import Path
        from controller import compiled_rules
        compiled_rules.BUILD = Path({str(tmp_path)!r})
        compiled_rules._STAMP = compiled_rules.BUILD / "FINGERPRINT"
        mode = compiled_rules.activate()
        from controller.rules.engine import step
        print(mode, compiled_rules.mode())
    """)
    env = {k: v for k, v in os.environ.items() if k != compiled_rules.PURE_ENV}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["python", "python"]
    assert "do not load" in done.stderr


def _balance(*extra: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``tianhei balance`` as a club runs it: its own process, which activates the compiled rules first."""
    env = {k: v for k, v in os.environ.items() if k != compiled_rules.PURE_ENV}
    command = [sys.executable, "-c", "import sys; from controller.cli import main; sys.argv[0] = 'tianhei'; "
               "raise SystemExit(main())", "balance", "--variant", "standard-2.0", "--players", "9",
               "--games", "400", "--no-progress", "--out", str(tmp_path / "report"), *extra]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.skipif(not _can_compile(), reason="mypyc needs a C compiler and the Python headers")
def test_the_labs_two_worker_processes_play_the_compiled_rules_and_finish(tmp_path):
    """With the build on sys.path, --jobs 2's workers started with the build's controller/ folder as the package
    ``controller``: every chunk failed to import, and the pool waited for ever."""
    if not compiled_rules.current():
        compiled_rules.build()
    done = _balance("--jobs", "2", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 job(s)" in done.stdout
    assert "rules: compiled with mypyc on every worker" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not _can_compile(), reason="mypyc needs a C compiler and the Python headers")
def test_a_local_clusters_workers_play_the_compiled_rules(tmp_path):
    pytest.importorskip("distributed")
    if not compiled_rules.current():
        compiled_rules.build()
    done = _balance("--jobs", "2", "--cluster", "local", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "cluster local" in done.stdout
    assert "rules: compiled with mypyc on every worker" in done.stdout
