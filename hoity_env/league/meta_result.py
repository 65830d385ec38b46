"""What a meta-solver run found: each member's weights and check, the gaps, and their forms.

:class:`MetaResult` is what :func:`~hoity_env.league.meta_run.solve_population` returns and
writes: ``solution.json`` (:meth:`MetaResult.to_dict`) and the table ``hoity-eval meta``
prints (:meth:`MetaResult.to_markdown`).  Scores are the payoff table's (a win 1, a shared
win ``1/w``, a game nobody wins ``1/N`` each: :mod:`hoity_env.league.meta_table`), so the fair
share is exactly ``1/N`` and a member's gain over it is what it wins by deviating.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from hoity_env.evaluation.stats import Z95

__all__ = ["SOLUTION_FORMAT", "MetaMember", "MetaResult", "score_interval"]

SOLUTION_FORMAT = "hoity-meta-solution/1"
"""The ``format`` tag of ``solution.json``."""


@dataclasses.dataclass(frozen=True)
class MetaMember:
    """One member's line of the result: its weights, its score against the mixture and in the check.

    ``value`` is its score against the shipped mixture in the payoff table's model;
    ``check_score`` what it scored in the check's games, ``check_low``/``check_high`` the
    95% interval (Wilson's, on the score; a score in [0, 1] varies at most as a win rate does).
    """

    spec: str
    origin: str
    weight: float
    shipped_weight: float
    value: float
    check_games: int
    check_score: float
    check_low: float
    check_high: float


@dataclasses.dataclass(frozen=True)
class MetaResult:
    """A finished run: the payoff table, the solution, the shipped population and the check."""

    population: str
    num_players: int
    rules: str
    games: int
    seed: int
    threshold: float
    members: tuple[MetaMember, ...]
    payoffs: tuple[tuple[float, ...], ...]
    gap: float
    shipped_gap: float
    method: str
    iterations: int
    manifest: str
    """The shipped population's manifest (``population:`` it to play it)."""

    @property
    def fair_share(self) -> float:
        """The score of a member no better than the mixture: ``1/N``."""
        return 1.0 / self.num_players

    @property
    def largest_gain(self) -> MetaMember:
        """The member that scored the most in the check."""
        return max(self.members, key=lambda m: m.check_score)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (``solution.json``)."""
        best = self.largest_gain
        return {
            "format": SOLUTION_FORMAT,
            **{f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "members"},
            "members": [dataclasses.asdict(m) for m in self.members],
            "payoffs": [list(row) for row in self.payoffs],
            "check": {
                "fair_share": self.fair_share,
                "largest_gain": best.check_score - self.fair_share,
                "low": best.check_low - self.fair_share,
                "high": best.check_high - self.fair_share,
                "member": best.spec,
            },
        }

    def to_markdown(self) -> str:
        """The table ``hoity-eval meta`` prints: one row per member, then the gaps."""
        lines = [
            f"Meta-solver weights of {self.population} ({self.num_players} players, {self.rules} rules, "
            f"{self.games} games per cell, seed {self.seed})",
            "",
            "| member | weight | shipped | score vs mixture (table) | check score [95% CI] |",
            "|---|---:|---:|---:|---:|",
        ]
        for m in self.members:
            shipped = f"{m.shipped_weight:.3f}" if m.shipped_weight > 0 else "dropped"
            lines.append(
                f"| {m.spec} | {m.weight:.3f} | {shipped} | {m.value:.3f} | "
                f"{m.check_score:.3f} [{m.check_low:.3f}, {m.check_high:.3f}] |"
            )
        best = self.largest_gain
        fair = self.fair_share
        kept = sum(m.shipped_weight > 0 for m in self.members)
        lines += [
            "",
            f"Gap (the most a member gains by deviating, in the table): {self.gap:.4f} solved, "
            f"{self.shipped_gap:.4f} shipped ({kept} of {len(self.members)} members; {self.method}).",
            f"Check, each member against the shipped population in the other {self.num_players - 1} seat(s): "
            f"largest gain over the fair share {fair:.3f} is {best.check_score - fair:+.3f} "
            f"[{best.check_low - fair:+.3f}, {best.check_high - fair:+.3f}] ({best.spec}).",
            f"Shipped population: {self.manifest}",
        ]
        return "\n".join(lines)


def score_interval(score: float, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a mean score in [0, 1] over ``games`` games.

    A score in [0, 1] with mean ``p`` has a variance of at most ``p (1 - p)`` (a win rate's),
    so the binomial interval is at least as wide as the score needs.
    """
    n, z2 = float(games), Z95 * Z95
    centre = (score + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(max(score * (1 - score), 0.0) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
