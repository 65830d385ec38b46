"""Training one best response: the fast learner or MaskablePPO, its curve, a clean stop and a resume.

:func:`train` runs the learner a :class:`~hoity_env.strength.response.BestResponse` names for its
budget (rounded up to whole rollouts), calling ``point`` at each learning-curve mark and stopping
cleanly with a checkpoint when asked; :func:`check_training` refuses beforehand what training would
refuse later.  Training needs the ``train`` extra.  See docs/evaluation.md (approximate exploitability).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoity_env.agents import make
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.settings import MatchSettings
from hoity_env.files import write_atomic
from hoity_env.learning.bounds import MAX_STEPS
from hoity_env.strength.response import BestResponse, maskable_ppo

if TYPE_CHECKING:  # torch only when something is trained
    from hoity_env.learning.runs.session import Stop

__all__ = ["Point", "Trained", "check_training", "rollout_of", "train"]

logger = logging.getLogger(__name__)

Point = Callable[[int, Callable[[Path], None]], None]
"""``point(timesteps, save)``: a learning-curve point, the model saved by ``save(path)``."""


@dataclass(frozen=True)
class Trained:
    """How far a training got: its learner steps, how to save the model, and, if it was stopped
    before the end, the checkpoint to resume from."""

    steps: int
    save: Callable[[Path], None]
    checkpoint: Path | None = None


def rollout_of(response: BestResponse) -> int:
    """Learner steps per rollout: the unit a budget is rounded up to."""
    ppo = response.ppo
    assert ppo is not None  # filled in by BestResponse
    return int(
        ppo["num_games"] * ppo["rollout_steps"]
        if response.learner == "fast"
        else ppo["n_envs"] * ppo["n_steps"]
    )


def _marks(total: int, rollout: int, points: int) -> list[int]:
    """The curve's timesteps: ``points`` evenly spaced over ``total``, on whole rollouts."""
    return sorted({math.ceil(total * (k + 1) / points / rollout) * rollout for k in range(points)})


@dataclass(frozen=True)
class _Plan:
    """One training: the target, its games, the learner, the folder, the total and the curve marks."""

    target: str
    settings: MatchSettings
    response: BestResponse
    run_dir: Path
    total: int
    marks: list[int]


def _total(response: BestResponse) -> int:
    """The learner steps trained: the budget rounded up to whole rollouts."""
    rollout = rollout_of(response)
    return math.ceil(response.budget / rollout) * rollout


def check_training(target: str, settings: MatchSettings, response: BestResponse) -> None:
    """A :class:`ConfigError` now for what training this best response would refuse later (a budget
    whose total no learner takes, a seed past the learner's bound, a warm start without weights)."""
    total = _total(response)
    if total > MAX_STEPS:
        raise ConfigError(
            f"budget {response.budget:,} rounds up to {total:,} learner steps, past {MAX_STEPS:,}"
        )
    if response.learner == "fast":
        response.fast_settings(target, settings, total)  # a warm start reads the target's file now


def train(
    target: str,
    settings: MatchSettings,
    response: BestResponse,
    run_dir: Path,
    point: Point,
    stop: Stop | None = None,
    resume: Path | None = None,
) -> Trained:
    """Train a best response to ``target`` in ``run_dir`` (from checkpoint ``resume`` if given).

    ``stop`` (set by a signal) is looked at as it goes.  The fast learner stops after the iteration
    in progress and saves ``checkpoints/state_<steps>.pt``: resumed, it continues exactly as the
    uninterrupted run (a warm start's and a curriculum's too; a resume never reads the target's
    weights again).  MaskablePPO stops at the next env step and saves ``checkpoints/sb3_<steps>.zip``
    (weights and optimizer), its step count set back to the last whole rollout: resumed, it reaches
    the same total on fresh games, not the same numbers.
    """
    total = _total(response)
    marks = _marks(total, rollout_of(response), response.curve_points)
    plan = _Plan(target, settings, response, run_dir, total, marks)
    run = _train_fast if response.learner == "fast" else _train_sb3
    return run(plan, point, stop, resume)


def _train_fast(plan: _Plan, point: Point, stop: Stop | None, resume: Path | None) -> Trained:
    """The fast learner (:mod:`hoity_env.learning`) for ``total`` steps; a checkpoint if stopped."""
    from hoity_env.learning import Learner
    from hoity_env.learning.runs.folder import RESPONSE, RunFolder
    from hoity_env.learning.runs.state import load_learner, write_state

    total = plan.total
    if resume is not None:
        learner = load_learner(resume)
    else:
        learner = Learner(plan.response.fast_settings(plan.target, plan.settings, total))
    marks = [m for m in plan.marks if m > learner.steps]

    def save(path: Path) -> None:
        learner.save_policy(path)

    def on_iteration(current: Learner, stats: dict[str, float]) -> bool:
        if marks and current.steps >= marks[0]:
            marks.pop(0)
            point(current.steps, save)
        return stop is not None and stop.requested

    logger.info("[exploit %s] training a fast best response for %s steps ...", plan.target, f"{total:,}")
    learner.learn(on_iteration=on_iteration)
    if learner.steps >= total:
        return Trained(learner.steps, save)
    path = write_state(RunFolder(plan.run_dir, RESPONSE).state_file(learner.steps), learner)
    return Trained(learner.steps, save, path)


def _train_sb3(plan: _Plan, point: Point, stop: Stop | None, resume: Path | None) -> Trained:
    """MaskablePPO on the batched vector env for ``total`` steps; a checkpoint if stopped."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    ppo, total = plan.response.settings, plan.total
    env = _vs_target(plan.target, plan.settings, ppo)
    if resume is not None:
        model = MaskablePPO.load(resume, env=env, device="cpu")
    else:
        model = maskable_ppo(env, ppo, plan.settings.seed)
    rollout = ppo["n_envs"] * ppo["n_steps"]
    marks = [m for m in plan.marks if m > model.num_timesteps]
    halted = [False]

    def save(path: Path) -> None:
        write_atomic(path, lambda fh: model.save(fh), binary=True)

    class Curve(BaseCallback):  # type: ignore[misc]
        def _on_step(self) -> bool:
            if marks and self.num_timesteps >= marks[0]:
                marks.pop(0)
                point(int(self.num_timesteps), save)
            halted[0] = stop is not None and stop.requested
            return not halted[0]

    logger.info(
        "[exploit %s] training a MaskablePPO best response for %s steps ...", plan.target, f"{total:,}"
    )
    model.learn(
        total_timesteps=total - model.num_timesteps, callback=Curve(), reset_num_timesteps=resume is None
    )
    env.close()
    if not halted[0]:
        return Trained(int(model.num_timesteps), save)
    # The rollout in progress was dropped unlearned: count only the rollouts learned from.
    model.num_timesteps = (int(model.num_timesteps) - 1) // rollout * rollout
    path = plan.run_dir / "checkpoints" / f"sb3_{model.num_timesteps:012d}.zip"
    save(path)
    return Trained(int(model.num_timesteps), save, path)


def _vs_target(target: str, settings: MatchSettings, ppo: dict[str, Any]) -> Any:
    """The batched SB3 vector env with copies of ``target`` in the other seats, seeded."""
    from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

    env = HoityVsBotsSB3VecEnv(
        num_envs=ppo["n_envs"],
        num_players=settings.num_players,
        rules=settings.rules,
        # One agent object for every target seat: it decides all of them in one batched call
        # (three calls of 16 rows cost three times one call of 48 for the expert's role game).
        opponents=make(target, num_players=settings.num_players, rules=settings.rules),
        reward=ppo["reward"],
    )
    env.seed(settings.seed)
    return env
