"""The ladder's result: one row per agent, the head-to-head pairs and every best response.

Kept apart from :mod:`hoity_env.strength.ladder` (which plays and trains) so that reading
a saved ladder needs no training code.  With a sweep (several budgets, seeds or learners)
an agent's exploitability is the **maximum** of its best responses, all of which are kept
in :attr:`LadderResult.sweep` and shown under the ladder.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hoity_env.evaluation.reports.markdown import interval, rate, table
from hoity_env.evaluation.reports.plots import plot_matrix
from hoity_env.evaluation.reports.results import PairLookup
from hoity_env.evaluation.reports.rows import PairStats
from hoity_env.evaluation.reports.serialize import TableResult
from hoity_env.strength.response import caveat
from hoity_env.strength.results import ExploitEntry, SweepEntry, SweepResult, trained_by

__all__ = ["LadderResult", "LadderRow"]


@dataclasses.dataclass(frozen=True)
class LadderRow:
    """One agent's line of the ladder."""

    agent: str
    mean_win_rate: float
    """Mean over the other agents of this agent's win rate against copies of each."""
    rating: float
    rating_low: float
    rating_high: float
    openskill_mu: float
    openskill_sigma: float
    exploit_win_rate: float
    exploit_low: float
    exploit_high: float
    exploit_run_dir: str


@dataclasses.dataclass(frozen=True)
class LadderResult(PairLookup, TableResult):
    """The ladder of :func:`ladder` (JSON round trip; the games themselves are not kept)."""

    ROWS = "rows"
    ROW = LadderRow

    agents: tuple[str, ...]
    num_players: int
    rules: str
    seed: int
    games_per_pair: int
    """Games per ordered pair of the head-to-head matrix (after rounding to whole deals)."""
    budget: int
    fair_share: float
    rows: tuple[LadderRow, ...]
    pairs: tuple[PairStats, ...]
    exploit: tuple[ExploitEntry, ...]
    learner: str = "sb3"
    """Who trained the best responses: ``fast`` or ``sb3`` (ladders from before the fast learner: sb3);
    with a sweep, its learners joined by commas."""
    sweep: tuple[SweepEntry, ...] = ()
    """With a sweep, every best response of every agent (a row's exploitability is its agents'
    maximum, :attr:`budget` the largest budget); empty for a ladder at one budget."""
    start: str = "fresh"
    """How the best responses started (:attr:`ExploitResult.start`); with a sweep, its starts joined
    by commas (``fresh`` in ladders written before there were others)."""

    def sweep_result(self) -> SweepResult:
        """The sweep's best responses as a :class:`SweepResult` (``ValueError`` without a sweep)."""
        if not self.sweep:
            raise ValueError("this ladder measured exploitability at one budget, not a sweep")
        return SweepResult(
            num_players=self.num_players,
            rules=self.rules,
            fair_share=self.fair_share,
            budgets=tuple(sorted({e.budget for e in self.sweep})),
            seeds=tuple(dict.fromkeys(e.seed for e in self.sweep)),
            learners=tuple(dict.fromkeys(e.learner for e in self.sweep)),
            entries=self.sweep,
        )

    @property
    def games(self) -> int:
        """Head-to-head games over all pairs (the best responses' games are in :attr:`exploit`)."""
        return sum(p.games for p in self.pairs)

    def to_markdown(self) -> str:
        """The ladder (best Plackett-Luce rating first), then the head-to-head matrix."""
        n = self.num_players
        ordered = sorted(self.rows, key=lambda r: -r.rating)
        ladder_rows = [
            [
                f"`{r.agent}`",
                rate(r.mean_win_rate),
                f"{r.rating:+.0f} [{r.rating_low:+.0f}, {r.rating_high:+.0f}]",
                f"{r.openskill_mu:.1f} ± {r.openskill_sigma:.1f}",
                f"{rate(r.exploit_win_rate)} {interval(r.exploit_low, r.exploit_high)}",
            ]
            for r in ordered
        ]
        names = [r.agent for r in ordered]
        if self.sweep:
            per_agent = len(self.sweep) // len(self.rows)
            exploit_header = f"exploitability, max of {per_agent} best responses [95%]"
            exploit_text = (
                f"Exploitability is the highest win rate of {per_agent} best responses per agent "
                f"(below) against {n - 1} copies of it."
            )
        else:
            trained = max((e.timesteps for e in self.exploit), default=self.budget)
            exploit_header = f"exploitability @ {trained:,} steps trained [95%]"
            exploit_text = (
                f"Exploitability is the win rate of {trained_by(self.learner, start=self.start)} against "
                f"{n - 1} copies of "
                f"the agent. {caveat(self.budget, trained)}"
            )
        matrix_rows = [
            [f"`{a}`", *("—" if a == b else rate(self.pair(a, b).win_rate) for b in names)] for a in names
        ]
        return "\n".join(
            [
                f"**Ladder**: {n} players, rules {self.rules}, seed {self.seed}; head to head "
                f"{self.games_per_pair} games per ordered pair (one agent against {n - 1} copies of "
                f"the other, duplicate format). Fair share {self.fair_share:.3f}.",
                "",
                table(
                    [
                        "agent",
                        "mean h2h win rate",
                        "Plackett-Luce rating [95%]",
                        "OpenSkill μ ± σ",
                        exploit_header,
                    ],
                    ladder_rows,
                    "lrrrr",
                ),
                "",
                exploit_text,
                "",
                f"**Head to head**: row agent's win rate against {n - 1} copies of the column agent.",
                "",
                table(["agent", *(f"`{b}`" for b in names)], matrix_rows, "l" + "r" * len(names)),
                "",
                *([self.sweep_result().to_markdown()] if self.sweep else []),
            ]
        )

    def plot_png(self, path: str | Path) -> None:
        """Heat map of the head-to-head matrix."""
        plot_matrix(path, self.agents, self.pairs, self.num_players, self.seed)
