"""The recipes on the fast learner (``--learner fast``): run_training.py's run, with a ``Learner``.

``selfplay.py`` and ``shared_ppo.py`` train with either MaskablePPO (``--learner sb3``,
:mod:`run_training`) or the fast learner of :mod:`hoity_env.learning` (``--learner
fast``, here).  The run folder keeps every promise of :mod:`run_folder`: a fresh
folder per run, ``args.json`` as written, ``--resume RUN_FOLDER`` with the run's own
settings, a finished run final, atomic saves, the same ``curve.csv`` /
``learning_curve.png`` / ``progress.csv`` / ``final_model.zip`` / ``evaluation.json``, and
Ctrl-C or SIGTERM saving a checkpoint and exiting 130 or 143.  What differs:

* the learner's settings (:func:`fast_settings`): the recipe's shared knobs
  (players, rules, reward, gamma, GAE lambda, entropy, network width, seed) carry over;
  ``--n-steps``, ``--batch-size``, ``--n-epochs``, ``--learning-rate`` (and the game
  count) at the recipe's defaults mean the fast learner's own defaults, other values
  are used as its rollout steps, minibatch, epochs and rate; the resolved settings are
  written to ``learner_settings.json``;
* checkpoints and curve points fall between iterations (rollouts of ``num_games ×
  rollout_steps`` decisions), on the first iteration at or past each multiple of
  ``--checkpoint-every`` / ``--eval-every``, named by the learner steps they hold;
* each checkpoint zip has ``state_<N>.pt`` beside it (the resume state of
  :mod:`hoity_env.learning.runs.state`: optimizer, generators, the games in progress, as
  plain data), written first, so a zip is there only with its state, and a resumed run
  continues exactly as the uninterrupted one;
* a signal lets the iteration in progress finish (about a second), then saves; a
  second signal aborts at once.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arg_checks import check_args
from curve_plot import append_curve, plot_curve
from final_report import finish
from run_callbacks import curve_scorer, next_multiple
from run_folder import Resume, checkpoint_step, curve_timesteps, record_resume, save_model
from run_training import interrupted, signals_as_interrupts

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation import AgentStats
from hoity_env.files import write_atomically
from hoity_env.learning import Learner, LearnerSettings, load_policy
from hoity_env.learning.runs.session import stop_on_signals
from hoity_env.learning.runs.state import load_learner, write_state

RECIPE_TO_LEARNER = {
    "n_steps": "rollout_steps",
    "batch_size": "minibatch_size",
    "n_epochs": "epochs",
    "learning_rate": "learning_rate",
}
"""Recipe flags that become a fast-learner setting when given a value other than the recipe's default."""


def fast_settings(args: Any, opponents: tuple[tuple[str, float], ...], games_field: str) -> LearnerSettings:
    """The :class:`LearnerSettings` of a recipe's ``Args`` (see the module docstring).

    ``games_field`` names the recipe's game count (``num_games``, ``n_envs``); bad values
    raise :class:`ConfigError` before any folder exists.
    """
    check_args(args)  # the recipe's own checks first: their errors name the --flag
    if args.final_lr_fraction != 1.0:
        raise ConfigError(
            "--final-lr-fraction decays MaskablePPO's rate; the fast learner keeps its rate constant: "
            "leave it out, or pass --learner sb3"
        )
    defaults = {f.name: f.default for f in dataclasses.fields(args)}
    values: dict[str, Any] = {
        "num_players": args.num_players,
        "rules": args.rules,
        "reward": args.reward,
        "opponents": opponents,
        "total_steps": args.total_timesteps,
        "gamma": args.gamma,
        "gae_lambda": args.gae_lambda,
        "ent_coef": args.ent_coef,
        "hidden": (args.net_width, args.net_width),
        "seed": args.seed,
    }
    for name, field in {**RECIPE_TO_LEARNER, games_field: "num_games"}.items():
        if getattr(args, name) != defaults[name]:
            values[field] = getattr(args, name)
    return LearnerSettings(**values)


class FastModel:
    """What the recipes' shared code asks of a model (``save``, ``num_timesteps``, ``logger.log``)."""

    def __init__(self, learner: Learner) -> None:
        self.learner = learner
        self.logger = self

    @property
    def num_timesteps(self) -> int:
        return self.learner.steps

    def save(self, fh: Any, exclude: Sequence[str] | None = None) -> None:
        """The policy as a ``MaskablePPO`` zip into the open binary file ``fh`` (it holds no paths)."""
        learner = self.learner
        fh.write(learner.policy_zip())

    def log(self, text: str) -> None:
        print(text, flush=True)

    def save_state(self, folder: Path) -> None:
        """``state_<N>.pt``: everything a resume needs beside the policy zip (written before it)."""
        write_state(folder / f"state_{self.learner.steps}.pt", self.learner)


def build_learner(settings: LearnerSettings, args: Any, run_dir: Path, resume: Resume | None) -> Learner:
    """A new learner, or the one ``args.resume`` names (its ``state_<N>.pt``), as ``build_model`` does."""
    if not args.resume:
        write_atomically(run_dir / "learner_settings.json", json.dumps(settings.to_dict(), indent=1) + "\n")
        return Learner(settings)
    checkpoint = Path(args.resume)
    if resume is None:  # a checkpoint outside any run folder: a new run from its weights
        learner = Learner(settings)
        try:
            learner.policy.load_state_dict(load_policy(checkpoint).state_dict())
        except RuntimeError as exc:
            raise ConfigError(f"--resume {checkpoint}: its network is not this run's ({exc})") from None
        return learner
    state = checkpoint.parent / f"state_{checkpoint_step(checkpoint)}.pt"
    if not state.is_file():
        raise ConfigError(
            f"--resume {checkpoint}: no learner state {state.name} beside it; a run of --learner fast "
            "resumes from a checkpoint it saved itself"
        )
    learner = load_learner(state)
    record_resume(run_dir, args, learner.steps, resume)
    print(f"resumed from {checkpoint} at {learner.steps:,} learner steps", flush=True)
    return learner


class _Progress:
    """``progress.csv`` rows (``time/total_timesteps`` first, as SB3 writes it), continued on resume."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fields: list[str] = []
        if path.is_file() and path.stat().st_size:
            with path.open(newline="", encoding="utf-8") as fh:
                self.fields = next(csv.reader(fh), [])

    def add(self, steps: int, stats: dict[str, float]) -> None:
        row = {"time/total_timesteps": steps, **{k: v for k, v in stats.items() if k != "steps"}}
        new = not self.fields
        if new:
            self.fields = list(row)
        with self.path.open("a", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=self.fields, extrasaction="ignore", lineterminator="\n")
            if new:
                writer.writeheader()
            writer.writerow(row)


def learn_and_finish_fast(
    learner: Learner,
    args: Any,
    run_dir: Path,
    opponents: Sequence[str],
    *,
    script: str,
    each_iteration: Callable[[Learner], None] = lambda learner: None,
    meta: Callable[[], dict[str, Any]] = dict,
) -> tuple[Path, dict[str, AgentStats], str]:
    """Train to ``--total-timesteps`` with the curve and checkpoints, then ``finish`` (as SB3's path).

    ``each_iteration(learner)`` runs after every iteration before the curve (selfplay's gate).
    """
    model, folder = FastModel(learner), run_dir / "checkpoints"
    csv_path = run_dir / "curve.csv"
    scored = curve_timesteps(csv_path)
    progress = _Progress(run_dir / "progress.csv")
    score = curve_scorer(args, opponents)

    def checkpoint(name: str) -> Path:
        path = folder / name
        if not path.is_file():
            model.save_state(folder)
            save_model(model, path)
        return path

    def curve_point() -> None:
        steps = learner.steps
        if steps in scored:
            return
        path = checkpoint(f"curve_{steps}.zip")
        scores = score(path, f"[eval @ {steps:,}]")
        append_curve(csv_path, steps, scores)
        scored.add(steps)
        plot_curve(csv_path, run_dir / "learning_curve.png", args.num_players)
        summary = ", ".join(f"{k} {v.win_rate:.2f}" for k, v in scores.items())
        model.log(f"[eval @ {steps:,}] win rate vs {args.num_players - 1} copies of: {summary}")

    if (folder / f"curve_{learner.steps}.zip").is_file():
        curve_point()  # killed while scoring this point: score it first
    next_eval = next_multiple(learner.steps, args.eval_every)
    next_save = next_multiple(learner.steps, args.checkpoint_every)
    limit, start = args.time_limit_minutes * 60, time.time()

    def on_iteration(current: Learner, stats: dict[str, float]) -> bool:
        nonlocal next_eval, next_save
        steps = current.steps
        progress.add(steps, stats)
        model.log(f"[fast] {steps:,} learner steps: return {stats.get('episode_return', 0.0):.3f}")
        each_iteration(current)
        if steps >= next_eval:
            next_eval = next_multiple(steps, args.eval_every)
            curve_point()
        if steps >= next_save:
            next_save = next_multiple(steps, args.checkpoint_every)
            if steps not in scored:
                checkpoint(f"{args.name}_{steps}_steps.zip")
        return stop.requested or bool(limit and time.time() - start > limit)

    if learner.steps >= args.total_timesteps:
        model.log(f"the learner already has {learner.steps:,} >= --total-timesteps; not training")
    with stop_on_signals() as stop:
        learner.learn(args.total_timesteps, on_iteration=on_iteration)
    if stop.requested:
        if not (folder / f"state_{learner.steps}.pt").is_file():  # else: this very point is saved
            model.save_state(folder)
        with signals_as_interrupts():  # the handlers as they were before the run, once it exits
            interrupted(model, learner.env, args, run_dir, script, stop.signum)
    train_seconds = time.time() - start
    curve_point()  # the last point of the curve
    return finish(model, args, run_dir, opponents, train_seconds, learner="fast", **meta())


__all__ = ["FastModel", "build_learner", "fast_settings", "learn_and_finish_fast"]
