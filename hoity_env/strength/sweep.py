"""Exploitability at several budgets, seeds and estimators in one call, and per target the maximum.

One best response at one budget is a weak estimate from below: its curve may still be rising, and
another seed or estimator may find more.  :func:`exploitability_sweep` trains one best response per
(target, learner, memory, start, seed, budget) and reports per target their maximum, an agent's
exploitability as we report it.  See docs/evaluation.md (several budgets, seeds and estimators).
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
from hoity_env.strength.start import CURRICULUM_FRACTION, DEFAULT_START, STARTS

__all__ = ["Sweep", "exploitability_sweep"]


def _distinct(
    name: str, values: Sequence[Any], least: int | None, choices: tuple[str, ...] = LEARNERS
) -> tuple[Any, ...]:
    """``values`` as a tuple, checked: non-empty, no repeats, ints ``>= least`` (``None``: names of
    ``choices``, the learners unless told)."""
    if isinstance(values, (str, int)) or not values:
        raise ConfigError(f"{name} must be a non-empty list, got {values!r}")
    for v in values:
        if least is None:
            if v not in choices:
                raise ConfigError(f"{name}: each must be one of {choices}, got {v!r}")
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
        memories: rounds of public history, one fast-learner run per value (0: none).
        preset: the fast learner's settings to start from (``None``: the default preset).
        starts: how each fast-learner run starts (:data:`~hoity_env.strength.start.STARTS`), one
            run per start; ``curriculum``: the fraction of the budget a curriculum start plays
            ``expert``.
    """

    budgets: tuple[int, ...]
    seeds: tuple[int, ...] = (0,)
    learners: tuple[str, ...] = ("fast",)
    curve_points: int = 4
    curve_games: int = 200
    runs_dir: Path = Path("runs/exploit")
    ppo: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    memories: tuple[int, ...] = (0,)
    preset: str | None = None
    starts: tuple[str, ...] = (DEFAULT_START,)
    curriculum: float = CURRICULUM_FRACTION

    def __post_init__(self) -> None:
        object.__setattr__(self, "budgets", _distinct("budgets", self.budgets, 1))
        object.__setattr__(self, "seeds", _distinct("seeds", self.seeds, 0))
        object.__setattr__(self, "learners", _distinct("learners", self.learners, None))
        object.__setattr__(self, "memories", _distinct("memories", self.memories, 0))
        object.__setattr__(self, "starts", _distinct("starts", self.starts, None, STARTS))
        if not isinstance(self.ppo, Mapping) or not set(self.ppo) <= set(self.learners):
            raise ConfigError(f"ppo must map learners of {self.learners} to settings, got {self.ppo!r}")
        if any(self.memories) and "fast" not in self.learners:
            raise ConfigError("memory is the fast learner's: add fast to the learners")
        if self.starts != (DEFAULT_START,) and "fast" not in self.learners:
            raise ConfigError("starts other than fresh are the fast learner's: add fast to the learners")
        if self.curriculum != CURRICULUM_FRACTION and "curriculum" not in self.starts:
            raise ConfigError("a curriculum fraction needs the curriculum start among the starts")
        if self.memories != (0,) and "memory" in self.ppo.get("fast", {}):
            raise ConfigError("give the memory in memories or in ppo, not both")
        object.__setattr__(self, "runs_dir", Path(self.runs_dir))
        self.responses()  # every learner's settings checked now

    def responses(self) -> dict[tuple[str, int, str, int], BestResponse]:
        """The :class:`BestResponse` of every (learner, memory, start, budget) the sweep trains."""
        out = {}
        for learner in self.learners:
            fast = learner == "fast"
            for memory in self.memories if fast else (0,):
                ppo = dict(self.ppo.get(learner, {}))
                if memory:
                    ppo["memory"] = memory
                for start in self.starts if fast else (DEFAULT_START,):
                    for budget in self.budgets:
                        out[learner, memory, start, budget] = BestResponse(
                            budget=budget,
                            curve_points=self.curve_points,
                            curve_games=self.curve_games,
                            runs_dir=self.runs_dir,
                            ppo=ppo,
                            learner=learner,
                            preset=self.preset if fast else None,
                            start=start,
                            curriculum=self.curriculum if start == "curriculum" else CURRICULUM_FRACTION,
                        )
        return out

    def runs(self) -> list[tuple[str, int, BestResponse]]:
        """Every run, learner by learner, memory by memory, start by start, seed by seed, budget by
        budget: its folder's name, its seed and its training."""
        responses = self.responses()
        keys = dict.fromkeys((learner, memory, start) for learner, memory, start, _ in responses)
        return [
            (_run_name(learner, seed, budget, memory, start), seed, response)
            for learner, memory, start in keys
            for seed in self.seeds
            for budget in self.budgets
            for response in [responses[learner, memory, start, budget]]
        ]

    def jobs(self, targets: Sequence[str], match: MatchSettings, *, nested: bool = True) -> list[Job]:
        """Every best response of the sweep as a :class:`~hoity_env.strength.jobs.Job`, target by
        target, then in :meth:`runs`' order.

        ``match`` is the evaluation, its seed replaced by each of :attr:`seeds`.  ``nested``: run
        folders ``runs_dir/<target>/<run name>`` (``exploit``'s, :meth:`runs`); else
        ``runs_dir/<target>``, ``_2`` … for the others (the ladder's).  Either way a finished or
        stopped run is reused only by a job with the same learner settings (memory and preset
        included: :func:`~hoity_env.strength.best_response.identity`).
        """
        out = []
        for target in targets:
            base = self.runs_dir / run_folder_name(target)
            for name, seed, response in self.runs():
                out.append(Job(target, match.replace(seed=seed), response, base / name if nested else base))
        return out


def _run_name(learner: str, seed: int, budget: int, memory: int, start: str) -> str:
    """``fast_seed0_2000000``, ``_memory4`` added with memory, ``_warm`` with a start not fresh."""
    name = f"{learner}_seed{seed}_{budget}" + (f"_memory{memory}" if memory else "")
    return name + (f"_{start}" if start != DEFAULT_START else "")


def exploitability_sweep(
    targets: str | Sequence[str],
    sweep: Sweep,
    settings: MatchSettings | None = None,
    *,
    resume: bool = False,
    **options: Any,
) -> SweepResult:
    """A best response to each target for every learner, memory, seed and budget of ``sweep``; all scored.

    ``settings`` (or its fields as keywords) are the evaluation games, as for
    :func:`~hoity_env.strength.exploit.exploitability` (``games`` default 1000); their
    ``seed`` is replaced by each of ``sweep.seeds``.  Runs are listed target by target, then in
    :meth:`Sweep.runs`' order (learner, memory, seed, budget), and trained in that order, or
    several at once on ``settings.workers`` processes (:mod:`hoity_env.strength.jobs`; the same
    results).  ``resume``: as for :func:`~hoity_env.strength.exploit.exploitability`.  Bad
    arguments raise :class:`ConfigError` before anything is trained or written.

    Every budget is a **separate run**, not a snapshot of the largest one: SB3 saves mid-rollout,
    before that rollout's update, and annealed schedules (the magnet's, a learning rate's) see another
    total.  Memory and starts are the fast learner's; SB3's best responses train fresh, without memory.
    """
    if not isinstance(sweep, Sweep):
        raise ConfigError(f"sweep must be a Sweep, got {type(sweep).__name__}: {sweep!r}")
    match = settings_from(MatchSettings, settings, options, games=EXPLOIT_GAMES)
    refuse_unknown(options, "exploitability_sweep")
    specs = [targets] if isinstance(targets, str) else list(dict.fromkeys(targets))
    check_targets(specs, match)
    jobs = sweep.jobs(specs, match)
    done = run_jobs(jobs, reuse=resume, workers=match.workers)
    entries = [SweepEntry.of(e, job.response, job.match.seed) for e, job in zip(done, jobs, strict=True)]
    return SweepResult(
        num_players=match.num_players,
        rules=match.rules_name,
        fair_share=1.0 / match.num_players,
        budgets=sweep.budgets,
        seeds=sweep.seeds,
        learners=sweep.learners,
        entries=tuple(entries),
    )
