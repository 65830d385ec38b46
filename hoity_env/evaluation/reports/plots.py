"""PNG charts of results with matplotlib's Agg backend (no display needed, safe in workers and CI).

matplotlib is imported only when a chart is drawn, so the harness itself stays
quick to import; ``pyplot`` is avoided in favour of explicit ``Figure`` objects,
which need no global backend state and are freed as soon as they go out of scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO, Protocol

from hoity_env.evaluation.reports.rows import PairStats

__all__ = ["Curve", "plot_curves", "plot_matrix", "plot_win_rates"]


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
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = [r.agent for r in rows]
    rates = [r.win_rate for r in rows]
    errors = [[r.win_rate - r.ci_low for r in rows], [r.ci_high - r.win_rate for r in rows]]
    fig = Figure(figsize=(max(4.0, 1.1 * len(rows) + 2.0), 4.0), dpi=100)
    FigureCanvasAgg(fig)
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
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure

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
    size = 1.3 * n + 2.0
    fig = Figure(figsize=(size, size * 0.85), dpi=100)
    FigureCanvasAgg(fig)
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
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), dpi=100)
    FigureCanvasAgg(fig)
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
