"""Options for the whole suite (registered here so they work from the repository root).

Hypothesis runs with fixed examples and no deadline: a property test's examples come from the test itself, not from
the run, so the suite passes or fails the same way on a quiet machine and on a loaded one (a per-example deadline
and the too-slow health check made it fail when the machine was busy, not when the code was wrong). To hunt for new
counterexamples, run ``HYPOTHESIS_PROFILE=explore ./dev test tests/...``: random examples, remembered in
``.hypothesis/``, and still no timing.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading

import pytest
from hypothesis import HealthCheck, settings

_NO_TIMING = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("tianhei", derandomize=True, database=None, print_blob=True, **_NO_TIMING)
settings.register_profile("explore", print_blob=True, **_NO_TIMING)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "tianhei"))
# The hints commands print name the command as the person ran it (./dev sets this): the tests read them as
# `tianhei ...` whether or not they were started through ./dev.
os.environ.pop("TIANHEI_COMMAND", None)


def _need(tool: str, package: str) -> None:
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is missing: ./dev test installs it (Debian: apt-get install {package})")


@pytest.fixture
def sox() -> None:
    """sox, which ./dev test installs: a test that needs it fails where it is missing, never skips."""
    _need("sox", "sox libsox-fmt-all")


@pytest.fixture
def espeak() -> None:
    """espeak-ng, which ./dev test installs: likewise fails, never skips."""
    _need("espeak-ng", "espeak-ng")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/screens/golden/*.png from the current renderer (look before committing)")


_EXIT: dict[str, int] = {}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _EXIT["status"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave without the interpreter's finalization when threads are still alive: a loaded run once passed every
    test and then died with a segmentation fault in a leftover thread while Python tore itself down, turning a
    green run red by chance. Everything is reported and flushed by now; the status is pytest's own."""
    alive = [t.name for t in threading.enumerate() if t is not threading.main_thread() and t.is_alive()]
    if alive and "status" in _EXIT:
        # An xdist worker always has execnet's own threads: its line would only break the progress dots.
        if "PYTEST_XDIST_WORKER" not in os.environ:
            print(f"(tests left {len(alive)} thread(s) running: {', '.join(sorted(set(alive))[:6])}; exiting "
                  "without the interpreter's finalization)", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT["status"])
