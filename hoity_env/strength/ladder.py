"""The ladder: every agent against copies of every other, two ratings, and approximate exploitability.

:func:`ladder` measures a list of agents three ways, all at one seed:

* **Head to head**: each agent in one seat against ``num_players - 1`` copies of each
  other agent (:func:`~hoity_env.evaluation.tournament.head_to_head`, duplicate format).
* **Ratings** over those same games: our order-free Plackett-Luce fit
  (:mod:`hoity_env.evaluation.ratings`) and an **OpenSkill** rating (the
  ``openskill`` package's Plackett-Luce model, Weng-Lin updates).  OpenSkill is an
  online rating, so it depends on the order of the games: the ladder feeds them in
  an order shuffled by the seed (the harness plays pair by pair, and long runs of one
  match-up would pull the rating toward the last ones).  An
  agent holding several seats of a game enters it once, with its mean rank, in both.
* **Approximate exploitability** at one fixed budget: a best response (the fast
  learner's, or MaskablePPO's) trained against copies of each agent (:mod:`hoity_env.strength.exploit`), its
  win rate an estimate from below at that budget.  With a :class:`~hoity_env.strength.sweep.Sweep`
  (several budgets, seeds or learners) every agent gets a best response per (learner, seed,
  budget), and its exploitability is their maximum (still an estimate from below); the
  sweep's seeds are the best responses', the ladder's own seed stays the head-to-head games'.

Best responses are the expensive part (minutes each), so the ladder **resumes**: a
finished best response in ``runs_dir`` whose ``exploit.json`` names the same agent with
the same content hash (a ``ppo:PATH`` whose file was replaced is a new agent), budget,
seed, players, rules and games is read back instead of trained again
(:mod:`hoity_env.strength.jobs`).  An interrupted ladder re-run with the same arguments
continues where it stopped (a best response stopped by Ctrl-C or SIGTERM from its
checkpoint), and a ladder with one more agent trains only that agent's best response.
Best responses that are not found train several at once on ``settings.workers`` processes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.ratings import mean_ranks
from hoity_env.evaluation.settings import MatchSettings, refuse_unknown, settings_from
from hoity_env.evaluation.tournament import head_to_head, rate_games
from hoity_env.strength.exploit import EXPLOIT_GAMES
from hoity_env.strength.jobs import Job, find_exploit, run_jobs
from hoity_env.strength.ladder_result import LadderResult, LadderRow
from hoity_env.strength.response import BestResponse, check_targets, run_folder_name
from hoity_env.strength.results import ExploitEntry, SweepEntry
from hoity_env.strength.sweep import Sweep

__all__ = ["LADDER_GAMES", "LadderResult", "LadderRow", "find_exploit", "ladder", "openskill_ratings"]
# LadderResult and LadderRow live in ladder_result (reading a ladder needs no training code);
# they are re-exported here, where they have always been imported from.

logger = logging.getLogger(__name__)

LADDER_GAMES = 400
"""Head-to-head games per ordered pair when ``games`` is not given."""

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
    """Head to head, ratings and exploitability of ``agents`` (see the module docstring).

    Args:
        agents: distinct agent specs (at least 2).
        settings: the head-to-head games (``games`` per ordered pair, default 400).
        response: each best response's training (one ``budget`` for all; ``runs_dir``,
            default ``runs/ladder``: finished ones with the same settings are reused).
        exploit_games: games of each best response's final evaluation.
        sweep: best responses at several budgets, seeds and learners instead of ``response``'s
            one (the sweep's own runs folder, curve and learner settings; finished runs are
            reused as without a sweep).
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
