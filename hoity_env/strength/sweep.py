"""Exploitability at several budgets, seeds and learners in one call, and per target the maximum.

One best response at one budget is a weak estimate from below: its learning curve
may still be rising, another seed may find more, the other learner may find more.
:func:`exploitability_sweep` trains one best response per (target, learner, seed,
budget) with :func:`~hoity_env.strength.exploit.exploitability_of` (each in its own run
folder, ``RUNS_DIR/<target>/<learner>_seed<seed>_<budget>``, with every file a single
run writes) and reports every estimate and, per target, their maximum: still an
estimate from below, the best those runs found.

Every budget is a **separate run**.  Reading a smaller budget off the curve snapshots
of the largest run would save training, but it equals a run at that budget only when
nothing in the learner depends on the total: SB3 saves a curve snapshot mid-rollout,
before that rollout's update, and a schedule annealed over the budget (the magnet's,
a learning rate's) sees another total.  A separate run is always what it says.

The seed is the learner's, its envs' and the final evaluation's (the curve's is
``seed + 1``), as for a single run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.settings import MatchSettings, refuse_unknown, settings_from
from hoity_env.strength.exploit import EXPLOIT_GAMES
from hoity_env.strength.jobs import Job, run_jobs
from hoity_env.strength.response import LEARNERS, BestResponse, check_targets, run_folder_name
from hoity_env.strength.results import SweepEntry, SweepResult

__all__ = ["Sweep", "exploitability_sweep"]


def _distinct(name: str, values: Sequence[Any], least: int | None) -> tuple[Any, ...]:
    """``values`` as a tuple, checked: non-empty, no repeats, ints ``>= least`` (``None``: learners)."""
    if isinstance(values, (str, int)) or not values:
        raise ConfigError(f"{name} must be a non-empty list, got {values!r}")
    for v in values:
        if least is None:
            if v not in LEARNERS:
                raise ConfigError(f"{name}: each must be one of {LEARNERS}, got {v!r}")
        elif not isinstance(v, int) or isinstance(v, bool) or v < least:
            raise ConfigError(f"{name}: each must be an integer >= {least}, got {v!r}")
    if len(set(values)) != len(values):
        raise ConfigError(f"{name} must not repeat a value, got {list(values)!r}")
    return tuple(values)


@dataclasses.dataclass(frozen=True)
class Sweep:
    """Which best responses a sweep trains (checked when built, before anything is trained).

    Attributes:
        budgets: learner steps of each run (each rounded up to whole rollouts).
        seeds: the learner's and the evaluation's seeds, one run per seed.
        learners: ``"fast"`` and/or ``"sb3"``, one run per learner.
        curve_points, curve_games, runs_dir: as for :class:`~hoity_env.strength.response.BestResponse`
            (each run gets its own learning curve).
        ppo: per learner (a key of ``learners``), overrides of its default settings.
    """

    budgets: tuple[int, ...]
    seeds: tuple[int, ...] = (0,)
    learners: tuple[str, ...] = ("sb3",)
    curve_points: int = 4
    curve_games: int = 200
    runs_dir: Path = Path("runs/exploit")
    ppo: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "budgets", _distinct("budgets", self.budgets, 1))
        object.__setattr__(self, "seeds", _distinct("seeds", self.seeds, 0))
        object.__setattr__(self, "learners", _distinct("learners", self.learners, None))
        if not isinstance(self.ppo, Mapping) or not set(self.ppo) <= set(self.learners):
            raise ConfigError(f"ppo must map learners of {self.learners} to settings, got {self.ppo!r}")
        object.__setattr__(self, "runs_dir", Path(self.runs_dir))
        self.responses()  # every learner's settings checked now

    def jobs(
        self, targets: Sequence[str], match: MatchSettings, *, nested: bool = True
    ) -> list[tuple[tuple[str, str, int, int], Job]]:
        """Every best response of the sweep with its key ``(target, learner, seed, budget)``, target
        by target, learner by learner, seed by seed, budget by budget.

        ``match`` is the evaluation, its seed replaced by each of :attr:`seeds`.  ``nested``: run
        folders ``runs_dir/<target>/<learner>_seed<seed>_<budget>`` (``exploit``'s); else
        ``runs_dir/<target>``, ``_2`` … for the others (the ladder's).
        """
        responses = self.responses()
        out = []
        for target in targets:
            for learner in self.learners:
                for seed in self.seeds:
                    for budget in self.budgets:
                        base = self.runs_dir / run_folder_name(target)
                        folder = base / f"{learner}_seed{seed}_{budget}" if nested else base
                        job = Job(target, match.replace(seed=seed), responses[learner, budget], folder)
                        out.append(((target, learner, seed, budget), job))
        return out

    def responses(self) -> dict[tuple[str, int], BestResponse]:
        """The :class:`BestResponse` of every (learner, budget)."""
        return {
            (learner, budget): BestResponse(
                budget=budget,
                curve_points=self.curve_points,
                curve_games=self.curve_games,
                runs_dir=self.runs_dir,
                ppo=dict(self.ppo.get(learner, {})),
                learner=learner,
            )
            for learner in self.learners
            for budget in self.budgets
        }


def exploitability_sweep(
    targets: str | Sequence[str],
    sweep: Sweep,
    settings: MatchSettings | None = None,
    *,
    resume: bool = False,
    **options: Any,
) -> SweepResult:
    """A best response to each target for every learner, seed and budget of ``sweep``; all scored.

    ``settings`` (or its fields as keywords) are the evaluation games, as for
    :func:`~hoity_env.strength.exploit.exploitability` (``games`` default 1000); their
    ``seed`` is replaced by each of ``sweep.seeds``.  Runs are listed target by target,
    learner by learner, seed by seed, budget by budget, and trained in that order, or several
    at once on ``settings.workers`` processes (:mod:`hoity_env.strength.jobs`; the same
    results).  ``resume``: as for :func:`~hoity_env.strength.exploit.exploitability`.  Bad
    arguments raise :class:`ConfigError` before anything is trained or written.
    """
    if not isinstance(sweep, Sweep):
        raise ConfigError(f"sweep must be a Sweep, got {type(sweep).__name__}: {sweep!r}")
    match = settings_from(MatchSettings, settings, options, games=EXPLOIT_GAMES)
    refuse_unknown(options, "exploitability_sweep")
    specs = [targets] if isinstance(targets, str) else list(dict.fromkeys(targets))
    check_targets(specs, match)
    planned = sweep.jobs(specs, match)
    done = run_jobs([job for _, job in planned], reuse=resume, workers=match.workers)
    entries = [SweepEntry.of(e, *key[1:]) for e, (key, _) in zip(done, planned, strict=True)]
    return SweepResult(
        num_players=match.num_players,
        rules=match.rules_name,
        fair_share=1.0 / match.num_players,
        budgets=sweep.budgets,
        seeds=sweep.seeds,
        learners=sweep.learners,
        entries=tuple(entries),
    )
