"""The recipes' callbacks: SB3's checkpoint and evaluation callbacks on the run's timestep schedule.

SB3 counts ``save_freq`` and ``eval_freq`` in callback calls, which restart at 0 on
every ``learn`` and step ``n_envs`` timesteps at a time; a run that resumes in place
needs its checkpoints and curve points at the same timesteps as an uninterrupted
one, so both subclasses below fire when ``num_timesteps`` reaches the next multiple
of their period (:func:`next_multiple`).  :class:`TrainingBar` is what a run shows
while it trains, unless ``--verbose`` prints SB3's log instead.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from curve_plot import append_curve, plot_curve
from final_report import score_checkpoint
from run_folder import curve_timesteps, save_model
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
from stable_baselines3.common.vec_env import VecEnv
from tqdm import tqdm

from hoity_env.evaluation import AgentStats


def next_multiple(timesteps: int, every: int) -> int:
    """The first multiple of ``every`` after ``timesteps``."""
    return (timesteps // every + 1) * every


class TrainingBar(BaseCallback):  # type: ignore[misc]
    """A progress bar of the run's timesteps on stderr, with the learning curve's latest point.

    What SB3's ``progress_bar=True`` shows, drawn with tqdm alone (SB3's bar needs
    ``rich`` too, which the ``train`` extra does not bring), counted from the run's
    timestep count so that a resumed run continues the bar.  As the evaluation
    harness's bars (:mod:`hoity_env.evaluation.progress`), it is drawn on a terminal
    only: in a log file or a pipe it writes nothing.
    """

    def __init__(self) -> None:
        super().__init__()
        self.bar: tqdm | None = None

    @property
    def active(self) -> bool:
        """Whether the bar is on screen now (between the start and the end of ``learn``)."""
        return self.bar is not None

    def _on_training_start(self) -> None:
        start, total = self.num_timesteps, self.locals["total_timesteps"]  # learn() made it the run's total
        rollout = getattr(self.model, "n_steps", 1) * self.model.n_envs
        self.bar = tqdm(
            total=start + max(-(-(total - start) // rollout), 0) * rollout,  # whole rollouts, as SB3 trains
            initial=start,
            desc="training",
            unit="steps",
            file=sys.stderr,
            disable=None,  # a terminal only
            dynamic_ncols=True,
            mininterval=0.5,
        )

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self.bar.n)
        return True

    def _on_training_end(self) -> None:
        self.close()

    def close(self) -> None:
        """Leave the bar as it is now (at the end of training, or when a signal stops it)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def note(self, text: str) -> None:
        """Show ``text`` after the bar (what the run is doing, or the curve's latest point)."""
        if self.bar is not None:
            self.bar.set_postfix_str(text)


class CurveEvalCallback(MaskableEvalCallback):  # type: ignore[misc]
    """sb3-contrib's ``MaskableEvalCallback`` with the duplicate-format evaluation of the curve.

    Every ``every`` timesteps it saves ``checkpoints/curve_<N>.zip``, scores it against
    ``num_players - 1`` copies of each of ``opponents`` in the harness
    (``final_report.score_checkpoint``: seeded deals, seats rotated, worker processes),
    adds the point to ``curve.csv`` and ``learning_curve.png``, and records
    ``eval/win_rate_vs_<name>`` and ``eval/mean_reward`` (the mean win rate) in SB3's
    logger, dumped at that timestep as ``EvalCallback`` does. ``last_mean_reward``,
    ``best_mean_reward``, ``callback_on_new_best`` and ``callback_after_eval`` keep
    their SB3 meaning with the mean win rate as the reward. The games are the
    harness's own, so SB3's ``eval_env`` (a required argument) holds the training env
    and is never stepped here.  With a ``bar`` (:class:`TrainingBar`) on screen, a
    point's games show on that bar rather than on a bar of their own.
    """

    def __init__(
        self,
        env: VecEnv,
        run_dir: Path,
        every: int,
        opponents: Sequence[str],
        score: Callable[..., dict[str, AgentStats]],
        num_players: int,
        bar: TrainingBar | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(env, eval_freq=every, n_eval_episodes=0, verbose=0, **kwargs)
        self.run_dir, self.opponents, self.score = run_dir, list(opponents), score
        self.num_players = num_players
        self.bar = bar
        self.csv_path = run_dir / "curve.csv"
        self.scored = curve_timesteps(self.csv_path)
        """Timesteps already on the curve (a resumed run never scores one twice)."""
        self.next_eval = every

    def _init_callback(self) -> None:
        # No folders of SB3's to make, no eval env to compare with the training env.
        if self.callback_on_new_best is not None:
            self.callback_on_new_best.init_callback(self.model)

    def _on_training_start(self) -> None:
        super()._on_training_start()
        n = self.num_timesteps
        self.next_eval = next_multiple(n, self.eval_freq)
        if n % self.eval_freq == 0 and n and n not in self.scored:
            self.next_eval = n  # interrupted during this evaluation: redo it first

    def _on_step(self) -> bool:
        if self.num_timesteps < self.next_eval:
            return True
        self.next_eval += self.eval_freq
        self.evaluate()
        return bool(self._on_event())

    def evaluate(self) -> dict[str, AgentStats] | None:
        """Score the current policy now and extend the curve (once per timestep count)."""
        n = self.num_timesteps
        if n in self.scored:
            return None
        path = self.run_dir / "checkpoints" / f"curve_{n}.zip"
        if not path.is_file():  # else: saved before an interrupt cut this evaluation short; kept
            save_model(self.model, path)
        self.logger.log(f"[eval @ {n:,}] scoring against {', '.join(self.opponents)} ...")
        on_bar = self.bar is not None and self.bar.active
        if self.bar is not None:
            self.bar.note(f"scoring the learning curve at {n:,} steps")
        scores = self.score(path, f"[eval @ {n:,}]", progress=not on_bar)
        append_curve(self.csv_path, n, scores)
        self.scored.add(n)
        plot_curve(self.csv_path, self.run_dir / "learning_curve.png", self.num_players)
        for name, s in scores.items():
            self.logger.record(f"eval/win_rate_vs_{name}", s.win_rate)
        mean = sum(s.win_rate for s in scores.values()) / len(scores)
        if self.bar is not None:
            self.bar.note(f"mean win rate {mean:.2f} at {n:,} steps")
        self.last_mean_reward = mean
        self.evaluations_timesteps.append(n)
        self.logger.record("eval/mean_reward", mean)
        self.logger.record("time/total_timesteps", n, exclude="tensorboard")
        self.logger.dump(n)
        summary = ", ".join(f"{k} {v.win_rate:.2f}" for k, v in scores.items())
        copies = self.num_players - 1
        self.logger.log(f"[eval @ {n:,}] win rate vs {copies} copies of: {summary}")
        if mean > self.best_mean_reward:
            self.best_mean_reward = mean
            if self.callback_on_new_best is not None:
                self.callback_on_new_best.on_step()
        return scores


def curve_scorer(args: Any, opponents: Sequence[str]) -> Callable[..., dict[str, AgentStats]]:
    """``score(path, desc, progress=True)``: a curve point of a recipe's ``Args`` (``--eval-games``,
    seed ``SEED``), with the harness's progress bar labelled ``desc`` unless ``progress`` is false."""

    def score(path: Path, desc: str, progress: bool = True) -> dict[str, AgentStats]:
        return score_checkpoint(
            path,
            opponents,
            games=args.eval_games,
            seed=args.seed,
            workers=args.workers,
            num_players=args.num_players,
            desc=desc,
            rules=args.rules,
            progress=progress,
        )

    return score


def curve_callback(env: VecEnv, run_dir: Path, args: Any, opponents: Sequence[str]) -> CurveEvalCallback:
    """The learning curve of a recipe's ``Args``: ``--eval-every``, ``--eval-games``, seed ``SEED``.

    Unless ``args.verbose``, its ``bar`` is a :class:`TrainingBar` for the training loop to run.
    """
    score = curve_scorer(args, opponents)
    bar = None if args.verbose else TrainingBar()
    return CurveEvalCallback(env, run_dir, args.eval_every, opponents, score, args.num_players, bar)


class RunCheckpoints(CheckpointCallback):  # type: ignore[misc]
    """SB3's ``CheckpointCallback``: ``<prefix>_<N>_steps.zip`` every ``save_freq`` timesteps, atomically.

    Not where ``curve`` saved this very model: with ``--checkpoint-every`` equal to
    ``--eval-every`` (the defaults) the learning curve's ``curve_<N>.zip`` is the
    checkpoint (it resumes the same way), so the same model is not written twice.
    """

    def __init__(self, every: int, folder: Path, prefix: str, curve: CurveEvalCallback | None = None) -> None:
        super().__init__(save_freq=every, save_path=str(folder), name_prefix=prefix)
        self.curve = curve
        self.next_save = every

    def _on_training_start(self) -> None:
        self.next_save = next_multiple(self.num_timesteps, self.save_freq)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_save:
            self.next_save = next_multiple(self.num_timesteps, self.save_freq)
            if self.curve is None or self.num_timesteps not in self.curve.scored:
                save_model(self.model, Path(self._checkpoint_path(extension="zip")))
        return True


class TimeLimit(BaseCallback):  # type: ignore[misc]
    """Stops training once ``minutes`` of wall time have passed since it started (0 = never)."""

    def __init__(self, minutes: float) -> None:
        super().__init__()
        self.seconds = minutes * 60
        self.start = time.time()

    def _on_training_start(self) -> None:
        self.start = time.time()

    def _on_step(self) -> bool:
        return not (self.seconds and time.time() - self.start > self.seconds)
