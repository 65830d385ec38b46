"""PNG charts of results with matplotlib's Agg backend (no display needed, safe in workers and CI).

matplotlib is an extra (``pip install 'hoity_env[plots]'``), so an RL pipeline that wants only the
environment installs no charting library: callers ask :func:`can_plot` first, and a chart drawn without
it raises one ``ModuleNotFoundError`` naming the extra.  matplotlib is imported only when a chart is
drawn, and explicit ``Figure`` objects (no ``pyplot``) keep no global backend state.
See docs/evaluation.md.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

from hoity_env.evaluation.reports.rows import PairStats

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PLOTS_INSTALL", "Curve", "can_plot", "plot_curves", "plot_matrix", "plot_win_rates"]

PLOTS_INSTALL = "pip install 'hoity_env[plots]'"
"""The command that brings matplotlib, which every chart needs."""


def can_plot() -> bool:
    """Whether charts can be drawn here: matplotlib (the ``plots`` extra) is installed."""
    return importlib.util.find_spec("matplotlib") is not None


def _figure(width: float, height: float) -> Figure:
    """An empty figure on matplotlib's Agg canvas, or a clear error naming the extra to install."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "matplotlib":
            raise  # matplotlib is there and lacks something else: its own error says what
        raise ModuleNotFoundError(
            f"PNG charts need matplotlib, which the core install leaves out: {PLOTS_INSTALL}",
            name="matplotlib",
        ) from None
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


class _Rated(Protocol):
    """A win rate with its 95% interval."""

    @property
    def win_rate(self) -> float: ...
    @property
    def ci_low(self) -> float: ...
    @property
    def ci_high(self) -> float: ...


class _RateRow(_Rated, Protocol):
    @property
    def agent(self) -> str: ...


def plot_win_rates(path: str | Path, rows: Sequence[_RateRow], baseline: float, title: str) -> None:
    """Bars of win rates, the 95% interval as error bars, a dashed line at ``baseline`` (1/n)."""
    names = [r.agent for r in rows]
    rates = [r.win_rate for r in rows]
    errors = [[r.win_rate - r.ci_low for r in rows], [r.ci_high - r.win_rate for r in rows]]
    fig = _figure(max(4.0, 1.1 * len(rows) + 2.0), 4.0)
    ax = fig.add_subplot()
    xs = list(range(len(rows)))
    ax.bar(xs, rates, yerr=errors, capsize=6, color="#4c72b0", edgecolor="black", linewidth=0.6)
    ax.axhline(baseline, color="black", linestyle="--", linewidth=1.0, label=f"1/n = {baseline:.3f}")
    for x, r in zip(xs, rows, strict=True):
        ax.text(x, r.ci_high + 0.01, f"{r.win_rate:.3f}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs, names, rotation=20 if max((len(n) for n in names), default=0) > 10 else 0)
    ax.set_ylim(0.0, min(1.05, max([baseline, *(r.ci_high for r in rows)]) + 0.1))
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(str(path), format="png")


def plot_matrix(
    path: str | Path, pool: Sequence[str], pairs: Sequence[PairStats], num_players: int, seed: int
) -> None:
    """Heat map: row agent's win rate against copies of the column agent, centred on 1/n."""
    size = 1.3 * len(pool) + 2.0
    fig = _figure(size, size * 0.85)
    from matplotlib.colors import TwoSlopeNorm  # importable: _figure found matplotlib

    pool = list(pool)
    by = {(p.agent, p.opponent): p for p in pairs}
    n = len(pool)
    even = 1.0 / num_players
    grid = [[float("nan")] * n for _ in range(n)]
    labels = [[""] * n for _ in range(n)]
    for i, a in enumerate(pool):
        for j, b in enumerate(pool):
            if a != b:
                p = by[a, b]
                grid[i][j] = p.win_rate
                labels[i][j] = f"{p.win_rate:.2f}\n[{p.ci_low:.2f}, {p.ci_high:.2f}]"
    ax = fig.add_subplot()
    norm = TwoSlopeNorm(vcenter=even, vmin=0.0, vmax=1.0)
    image = ax.imshow(grid, cmap="RdBu", norm=norm)
    for i in range(n):
        for j in range(n):
            shade = float(norm(grid[i][j])) if labels[i][j] else 0.5
            colour = "white" if shade < 0.2 or shade > 0.8 else "black"  # legible on the dark ends
            ax.text(j, i, labels[i][j] or "—", ha="center", va="center", fontsize=7, color=colour)
    ax.set_xticks(range(n), pool, rotation=30)
    ax.set_yticks(range(n), pool)
    ax.set_xlabel(f"opponent ({num_players - 1} copies)")
    ax.set_ylabel("agent")
    ax.set_title(f"head to head win rate (even = {even:.3f}), seed {seed}", fontsize=10)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    fig.savefig(str(path), format="png")


class _CurveRow(_Rated, Protocol):
    @property
    def timesteps(self) -> int: ...


Curve = tuple[str, Sequence[_CurveRow]]
"""A learning curve to draw: its legend label and its points."""


def plot_curves(path: str | Path | IO[bytes], curves: Sequence[Curve], baseline: float, title: str) -> None:
    """Win rate against learner steps, one line per curve with its 95% band, dashed ``baseline``."""
    fig = _figure(7, 4)
    ax = fig.add_subplot()
    for label, points in curves:
        xs = [p.timesteps for p in points]
        ax.plot(xs, [p.win_rate for p in points], marker="o", label=label)
        ax.fill_between(xs, [p.ci_low for p in points], [p.ci_high for p in points], alpha=0.15)
    ax.axhline(baseline, linestyle="--", color="grey", label="fair share")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("best-response win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
