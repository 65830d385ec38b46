"""The results of approximate exploitability: curve points, one entry per target, the table.

Frozen dataclasses with exact JSON and CSV forms, as the harness's results
(:mod:`hoity_env.evaluation.reports.serialize`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import IO

from hoity_env.evaluation.reports.plots import plot_curves
from hoity_env.evaluation.reports.serialize import TableResult
from hoity_env.strength.response import caveat

__all__ = ["CurvePoint", "ExploitEntry", "ExploitResult", "trained_by"]


def trained_by(learner: str) -> str:
    """ "a MaskablePPO best response" or "a fast-learner best response", for the reports."""
    return "a MaskablePPO best response" if learner == "sb3" else "a best response by the fast learner"


@dataclasses.dataclass(frozen=True)
class CurvePoint:
    """The learner at ``timesteps`` against copies of the target (curve seed)."""

    timesteps: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float


@dataclasses.dataclass(frozen=True)
class ExploitEntry:
    """One target's best response: the final evaluation, its curve and where its files are."""

    target: str
    timesteps: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float
    train_seconds: float
    run_dir: str
    curve: tuple[CurvePoint, ...]


@dataclasses.dataclass(frozen=True)
class ExploitResult(TableResult):
    """Best-response win rates against one or more targets at one budget (JSON round trip)."""

    ROWS = "entries"
    ROW = ExploitEntry
    SKIP = ("curve",)
    """The curve is in the JSON and each run folder's ``curve.csv``."""

    num_players: int
    rules: str
    budget: int
    seed: int
    fair_share: float
    entries: tuple[ExploitEntry, ...]
    learner: str = "sb3"
    """Who trained the best responses: ``fast`` or ``sb3`` (results from before the fast learner: sb3)."""

    @property
    def games(self) -> int:
        """Evaluation games played, all targets together."""
        return sum(e.games for e in self.entries)

    def entry(self, target: str) -> ExploitEntry:
        """The entry of ``target`` (``KeyError`` if it was not measured)."""
        for e in self.entries:
            if e.target == target:
                return e
        raise KeyError(target)

    def to_markdown(self) -> str:
        """The table, the caveat with the budget, and each learning curve."""
        n = self.num_players
        lines = [
            f"**Approximate exploitability**: {trained_by(self.learner)} trained for {self.budget:,} "
            f"learner steps against {n - 1} copies of each target, then scored against them in "
            f"duplicate format ({n} players, rules `{self.rules}`, seed {self.seed}). "
            f"Fair share {self.fair_share:.3f}; 95% Wilson intervals. {caveat(self.budget)}",
            "",
            "| target | steps trained | games | best-response win rate | 95% CI | fair share | run folder |",
            "| :--- | ---: | ---: | ---: | ---: | ---: | :--- |",
        ]
        for e in self.entries:
            lines.append(
                f"| `{e.target}` | {e.timesteps:,} | {e.games} | {e.win_rate:.3f} | "
                f"[{e.ci_low:.3f}, {e.ci_high:.3f}] | {self.fair_share:.3f} | `{e.run_dir}` |"
            )
        for e in self.entries:
            if not e.curve:
                continue
            lines += [
                "",
                f"Learning curve against `{e.target}` (seed {self.seed + 1}):",
                "",
                "| steps | games | win rate | 95% CI |",
                "| ---: | ---: | ---: | ---: |",
            ]
            lines += [
                f"| {p.timesteps:,} | {p.games} | {p.win_rate:.3f} | [{p.ci_low:.3f}, {p.ci_high:.3f}] |"
                for p in e.curve
            ]
        return "\n".join(lines) + "\n"

    def plot_png(self, path: str | Path | IO[bytes]) -> None:
        """Each target's learning curve with its interval band, and the fair share."""
        curves = [(f"vs {self.num_players - 1}× {e.target}", e.curve) for e in self.entries]
        title = f"estimate from below at {self.budget:,} steps"
        plot_curves(path, curves, self.fair_share, title)
