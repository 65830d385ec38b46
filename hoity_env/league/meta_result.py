"""What a meta-solver run found: each member's weights and check, the gaps, and their forms.

:class:`MetaResult` is what :func:`~hoity_env.league.meta_run.solve_population` returns and
writes: ``solution.json`` (:meth:`MetaResult.to_dict`) and the table ``hoity-eval meta``
prints (:meth:`MetaResult.to_markdown`).  Scores are the payoff table's (a win 1, a shared
win ``1/w``, a game nobody wins ``1/N`` each: :mod:`hoity_env.league.meta_table`), so the fair
share is exactly ``1/N`` and a member's gain over it is what it wins by deviating.
A run with PSRO iterations (:mod:`hoity_env.league.psro`) records each one as a
:class:`PsroIteration`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from hoity_env.evaluation.stats import Z95

__all__ = ["SOLUTION_FORMAT", "MetaMember", "MetaResult", "PsroIteration", "score_interval"]

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
class PsroIteration:
    """One PSRO iteration: the best response to the mixture of the members so far, and the new solution.

    ``win_rate`` (``ci_low``/``ci_high``: its 95% Wilson interval over ``games`` games) is what
    the best response, played greedily as its estimate is, won against ``N - 1`` copies of the
    mixture it was trained against (``mixture``, the manifest): an estimate from below of that
    mixture's exploitability.  ``member_gain`` is what the new member (``member``: the best
    response's policy, which plays by sampling as every member does) gains over that mixture in
    the grown payoff table, ``u(new | mixture) - u(mixture | mixture)``; ``gap``, ``weights`` and
    ``shipped`` are the solution of the grown table, over every member so far in order.
    """

    iteration: int
    mixture: str
    member: str
    run_dir: str
    steps: int
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    train_cpu_seconds: float
    member_gain: float
    gap: float
    weights: tuple[float, ...]
    shipped: tuple[float, ...]


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
    psro: tuple[PsroIteration, ...] = ()
    """The PSRO iterations, in order (none: the population's own members only)."""

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
            "psro": [dataclasses.asdict(it) for it in self.psro],
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
        if self.psro:
            lines += ["", *self._psro_lines()]
        return "\n".join(lines)

    def _psro_lines(self) -> list[str]:
        """The PSRO iterations' table: each best response's win against its mixture, then the new solution."""
        fair = self.fair_share
        lines = [
            f"PSRO: {len(self.psro)} iteration(s), each a best response to the mixture so far "
            f"(its win rate against {self.num_players - 1} copies of it: an estimate from below of "
            f"that mixture's exploitability; fair share {fair:.3f}), added as a member, then solved again.",
            "",
            "| iteration | new member | steps | wins vs the mixture [95% CI] | its gain in the table | "
            "gap after | members kept | heaviest member |",
            "|---:|---|---:|---:|---:|---:|---:|---|",
        ]
        for it in self.psro:
            heaviest = max(range(len(it.shipped)), key=lambda i: it.shipped[i])
            lines.append(
                f"| {it.iteration} | {it.member} | {it.steps:,} | "
                f"{it.win_rate:.3f} [{it.ci_low:.3f}, {it.ci_high:.3f}] | {it.member_gain:+.3f} | "
                f"{it.gap:.4f} | {sum(w > 0 for w in it.shipped)} of {len(it.shipped)} | "
                f"{self.members[heaviest].spec} ({it.shipped[heaviest]:.3f}) |"
            )
        return lines


def score_interval(score: float, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a mean score in [0, 1] over ``games`` games.

    A score in [0, 1] with mean ``p`` has a variance of at most ``p (1 - p)`` (a win rate's),
    so the binomial interval is at least as wide as the score needs.
    """
    n, z2 = float(games), Z95 * Z95
    centre = (score + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(max(score * (1 - score), 0.0) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
