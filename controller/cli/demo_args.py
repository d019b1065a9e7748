"""What ``tianhei club-demo`` and ``tianhei league-demo`` share: their options (games, speed, seed, the page's
address, how long it stays up, where the files go) and how an evening is run: in the folder given or a temporary
one, every known failure said in one line, the exit code from the demo's own check."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from controller.cli.game_args import fail


class Checked(Protocol):
    @property
    def ok(self) -> bool: ...


def add_evening_options(p: argparse.ArgumentParser, *, games: int, speed: float, page: str, port: int,
                        seeds: str, files: str) -> None:
    """The options every demo evening has (``page``: whose page it serves; ``seeds``: what the seed also moves)."""
    p.add_argument("--games", type=int, default=games, help=f"games each table plays (default {games})")
    p.add_argument("--speed", type=float, default=speed, help=f"table seconds per real second (default {speed:g})")
    p.add_argument("--seed", type=int, default=1, help=f"seeds the games and {seeds}")
    p.add_argument("--host", default="127.0.0.1", help=f"the {page} page's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=port, help=f"the {page} page's port (default {port})")
    p.add_argument("--no-web", action="store_true", help=f"no {page} page")
    p.add_argument("--linger", type=float, default=0.0, help="keep the page up this many seconds after the evening")
    p.add_argument("--dir", type=Path, default=None, help=f"keep {files} here (default: a temporary folder, "
                   "removed after)")


def run_evening(name: str, args: argparse.Namespace, go: Callable[[Path], Checked],
                errors: tuple[type[Exception], ...]) -> int:
    """``go(root)`` in ``--dir`` or a temporary folder; 0 when its report is ok, 1 when not, 2 with one line for
    an ``errors`` exception or a wait that gave up."""
    import tempfile

    try:
        if args.dir is not None:
            args.dir.mkdir(parents=True, exist_ok=True)
            report = go(args.dir)
        else:
            with tempfile.TemporaryDirectory(prefix=f"tianhei-{name.split('-')[0]}-") as tmp:
                report = go(Path(tmp))
    except errors as exc:
        return fail(f"{name}: {exc}")
    except TimeoutError as exc:
        return fail(f"{name}: gave up waiting: {exc}")
    except KeyboardInterrupt:
        return 130
    return 0 if report.ok else 1
