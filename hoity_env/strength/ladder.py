"""The ladder: every agent against copies of every other, two ratings, and approximate exploitability.

:func:`ladder` measures a list of agents three ways at one seed, in one report.  Best responses cost
minutes each, so the ladder **resumes**: a finished one for the same agent content hash and settings
is read back (:mod:`hoity_env.strength.jobs`), and a new agent trains only its own.
See docs/evaluation.md (the ladder).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.ratings import mean_ranks
from hoity_env.evaluation.reports.markdown import interval, rate, table
from hoity_env.evaluation.reports.plots import plot_matrix
from hoity_env.evaluation.reports.results import PairLookup
from hoity_env.evaluation.reports.rows import PairStats
from hoity_env.evaluation.reports.serialize import TableResult
from hoity_env.evaluation.settings import MatchSettings, refuse_unknown, settings_from
from hoity_env.evaluation.tournament import head_to_head, rate_games
from hoity_env.strength.exploit import EXPLOIT_GAMES
from hoity_env.strength.jobs import Job, find_exploit, run_jobs
from hoity_env.strength.response import BestResponse, caveat, check_targets, run_folder_name
from hoity_env.strength.results import ExploitEntry, SweepEntry, SweepResult, trained_by
from hoity_env.strength.sweep import Sweep

__all__ = ["LADDER_GAMES", "LadderResult", "LadderRow", "find_exploit", "ladder", "openskill_ratings"]

logger = logging.getLogger(__name__)

LADDER_GAMES = 400
"""Head-to-head games per ordered pair when ``games`` is not given."""


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


_OPENSKILL_HINT = (
    "the ladder's OpenSkill rating needs the openskill package, part of the train extra: "
    "pip install openskill"
)


def _openskill_model() -> Any:
    """OpenSkill's Plackett-Luce model; a :class:`ConfigError` naming the extra without the package."""
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:  # pragma: no cover - in the train extra, which the ladder needs anyway
        raise ConfigError(_OPENSKILL_HINT) from exc
    return PlackettLuce()


def openskill_ratings(pool: Sequence[str], records: Sequence[GameRecord]) -> dict[str, tuple[float, float]]:
    """``{agent: (mu, sigma)}``: OpenSkill Plackett-Luce ratings from ``records`` in their order.

    Each game is one rating update among the distinct agents at its table, each with its
    mean rank over the seats it held (:func:`~hoity_env.evaluation.ratings.mean_ranks`, as
    the Plackett-Luce fit enters a game).
    """
    model = _openskill_model()
    ratings = {agent: model.rating(name=agent) for agent in pool}
    for record in records:
        rank = mean_ranks(record, pool)
        if len(rank) < 2:
            continue
        names = list(rank)
        teams = model.rate([[ratings[a]] for a in names], ranks=[rank[a] for a in names])
        for a, team in zip(names, teams, strict=True):
            ratings[a] = team[0]
    return {a: (float(r.mu), float(r.sigma)) for a, r in ratings.items()}


def ladder(
    agents: Sequence[str],
    settings: MatchSettings | None = None,
    response: BestResponse | None = None,
    *,
    exploit_games: int = EXPLOIT_GAMES,
    sweep: Sweep | None = None,
    **options: Any,
) -> LadderResult:
    """Head to head, ratings and exploitability of ``agents``, all at one seed.

    Head to head is each agent in one seat against ``num_players - 1`` copies of each other (duplicate
    format); the ratings are a Plackett-Luce fit and OpenSkill over those games (OpenSkill, an online
    rating, sees them in an order shuffled by the seed).

    Args:
        agents: distinct agent specs (at least 2).
        settings: the head-to-head games (``games`` per ordered pair, default 400).
        response: each best response's training (one ``budget`` for all; ``runs_dir``,
            default ``runs/ladder``: finished ones with the same settings are reused).
        exploit_games: games of each best response's final evaluation.
        sweep: best responses at several budgets, seeds and learners instead of ``response``'s
            one (with the sweep's own runs folder and settings); the column is their maximum.
        options: the fields of ``settings`` and ``response`` as keywords, e.g.
            ``ladder(agents, budget=200_000, games=100)``.

    Bad arguments raise :class:`ConfigError` before anything is played or trained.
    """
    match = settings_from(MatchSettings, settings, options, games=LADDER_GAMES)
    if sweep is not None and not isinstance(sweep, Sweep):
        raise ConfigError(f"sweep must be a Sweep, got {type(sweep).__name__}: {sweep!r}")
    defaults: dict[str, Any] = {"runs_dir": Path("runs/ladder")}
    if sweep is not None:  # the sweep's responses are trained; this one only has to be valid
        defaults = {"runs_dir": sweep.runs_dir, "budget": max(sweep.budgets)}
    training = settings_from(BestResponse, response, options, **defaults)
    refuse_unknown(options, "ladder")
    members = list(agents)
    if len(members) < 2 or len(set(members)) != len(members):
        raise ConfigError(f"a ladder needs at least 2 distinct agents, got {members}")
    on_exploit = match.replace(games=exploit_games)
    check_targets(members, on_exploit)
    _openskill_model()  # a missing openskill fails here, before any best response is trained
    entries, swept = _exploits(members, on_exploit, training, sweep)
    matrix = head_to_head(members, match.replace(records=True))
    records = [r for t in matrix.tables for r in t.records]
    fitted = rate_games(members, records)
    # The harness plays pair by pair; an online rating fed long runs of one match-up drifts
    # toward the last runs, so OpenSkill sees the games in an order shuffled by the seed.
    order = np.random.default_rng(match.seed).permutation(len(records))
    skill = openskill_ratings(members, [records[i] for i in order])
    rows = []
    for spec, entry in zip(members, entries, strict=True):
        others = [matrix.pair(spec, b).win_rate for b in members if b != spec]
        mu, sigma = skill[spec]
        rows.append(
            LadderRow(
                agent=spec,
                mean_win_rate=sum(others) / len(others),
                rating=fitted[spec].rating,
                rating_low=fitted[spec].low,
                rating_high=fitted[spec].high,
                openskill_mu=mu,
                openskill_sigma=sigma,
                exploit_win_rate=entry.win_rate,
                exploit_low=entry.ci_low,
                exploit_high=entry.ci_high,
                exploit_run_dir=entry.run_dir,
            )
        )
    return LadderResult(
        agents=tuple(members),
        num_players=match.num_players,
        rules=match.rules_name,
        seed=match.seed,
        games_per_pair=matrix.pairs[0].games,
        budget=training.budget if sweep is None else max(sweep.budgets),
        fair_share=1.0 / match.num_players,
        rows=tuple(rows),
        pairs=matrix.pairs,
        exploit=tuple(entries),
        learner=training.learner if sweep is None else ",".join(sweep.learners),
        sweep=tuple(swept),
        start=training.start_label if sweep is None else ",".join(dict.fromkeys(e.start for e in swept)),
    )


def _exploits(
    members: Sequence[str], on_exploit: MatchSettings, training: BestResponse, sweep: Sweep | None
) -> tuple[list[ExploitEntry], list[SweepEntry]]:
    """Each agent's exploitability (the maximum with a sweep), and every best response of the sweep.

    Finished best responses in the runs folder are read back, stopped ones continued
    (:func:`~hoity_env.strength.jobs.run_jobs` with ``reuse``); the others train, several at
    once on ``on_exploit.workers`` processes.
    """
    if sweep is None:
        jobs = [
            Job(spec, on_exploit, training, training.runs_dir / run_folder_name(spec)) for spec in members
        ]
        return run_jobs(jobs, reuse=True, workers=on_exploit.workers), []
    planned = sweep.jobs(members, on_exploit, nested=False)
    done = run_jobs(planned, reuse=True, workers=on_exploit.workers)
    swept = [SweepEntry.of(e, job.response, job.match.seed) for e, job in zip(done, planned, strict=True)]
    entries = [
        max((e for e, job in zip(done, planned, strict=True) if job.target == spec), key=lambda e: e.win_rate)
        for spec in members
    ]
    return entries, swept
