"""The balance lab's pictures (matplotlib, drawn off-screen): a person looks at these before reading numbers."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from controller.club.balance_result import SIDES, Z95, BalanceResult

#: By side ID; the legend names each side as the variant does (BalanceResult.side).
COLOURS = {"good": "#1f77b4", "killers": "#d62728", "draw": "#7f7f7f"}


def missing() -> str:
    """Why no plots can be drawn here ('' when they can): matplotlib is the [lab] extra, not on a table's Pi."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        return "no plots: matplotlib is not installed here (pip install 'tianhei[lab]'); the tables are written"
    return ""


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_winrate(result: BalanceResult, path: Path) -> Path:
    """Win rate against players, one line per side with its 95% band; the exact model as dashed lines."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    xs = [r.players for r in result.rows]
    for side in SIDES:
        if not any(r.wins.get(side, 0) for r in result.rows) and not any(
                (r.exact or {}).get(side, 0) for r in result.rows):
            continue
        ys = [r.share(side) for r in result.rows]
        lo = [r.interval(side)[0] for r in result.rows]
        hi = [r.interval(side)[1] for r in result.rows]
        c = COLOURS[side]
        ax.fill_between(xs, lo, hi, color=c, alpha=0.18, linewidth=0)
        ax.plot(xs, ys, "o-", color=c, label=f"{result.side(side)} (simulated, 95% band)")
        if any(r.exact is not None for r in result.rows):
            ex = [(r.exact or {}).get(side, math.nan) for r in result.rows]
            ax.plot(xs, ex, "--", color=c, marker="x", alpha=0.9, label=f"{result.side(side)} (exact model)")
    ax.axhline(0.5, color="black", linewidth=0.6, alpha=0.4)
    ax.set_xlabel("players (the judge not counted)")
    ax.set_ylabel("share of games won")
    ax.set_ylim(0, 1)
    ax.set_xticks(xs)
    ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:.0%}")
    ax.set_title(f"{result.variant}: win rate by player count, {result.policy} bots, {result.games} games each")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_vs_exact(result: BalanceResult, path: Path) -> Path:
    """Simulated minus exact share per count and side, with the 95% range the simulation's noise allows."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.6), dpi=110)
    width = 0.25
    for k, side in enumerate(SIDES):
        rows = [r for r in result.rows if r.exact is not None]
        if not any((r.exact or {}).get(side, 0) for r in rows):
            continue
        xs = [r.players + (k - 1) * width for r in rows]
        diff = [r.share(side) - (r.exact or {})[side] for r in rows]
        err = [Z95 * math.sqrt((r.exact or {})[side] * (1 - (r.exact or {})[side]) / r.games) for r in rows]
        ax.errorbar(xs, diff, yerr=err, fmt="o", color=COLOURS[side], capsize=3,
                    label=f"{result.side(side)}: simulated − exact (bar: 95% noise)")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("players")
    ax.set_ylabel("simulated − exact share")
    ax.set_xticks([r.players for r in result.rows])
    ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:+.1%}")
    ax.set_title(f"{result.variant}, {result.policy}: the simulation against the exact model")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
