"""What the recipes train with: the vector env, the MaskablePPO model and SB3's logger for the run.

The logger is SB3's own (``stable_baselines3.common.logger``): the training table and
the run's messages in ``log.txt`` (and on stdout with ``--verbose``), ``progress.csv``
(fps, losses, the learning curve's win rates) and TensorBoard events in ``tb/``, all
keyed by the run's timestep count.  Three changes make it fit a run that resumes in
place: SB3's text and CSV writers truncate their files when opened, so :class:`LogText`
appends to ``log.txt`` and :class:`ProgressCSV` continues the existing ``progress.csv``
(whose rows past the checkpoint ``run_folder.record_resume`` has moved aside), and the
TensorBoard writer purges the events past the checkpoint.
"""

from __future__ import annotations

import csv
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arg_checks import VEC_ENVS
from run_folder import Resume, record_resume
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import (
    CSVOutputFormat,
    HumanOutputFormat,
    Logger,
    TensorBoardOutputFormat,
    make_output_format,
)
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
from torch.utils.tensorboard import SummaryWriter

from hoity_env.evaluation.harness import rules_batchable
from hoity_env.wrappers import SingleAgentEnv
from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv


def make_vec_env(n_envs: int, vec_env: str = "batched", **env_kwargs: Any) -> VecEnv:
    """``n_envs`` games of the single-agent view.

    ``"batched"`` (the default) plays them all in one batched engine with batched bots
    (:class:`~hoity_env.wrappers.sb3_vec_env.HoityVsBotsSB3VecEnv`), the fastest by far
    (``benchmarks/profile_training.py``).  ``"subproc"`` runs :class:`SingleAgentEnv`
    copies in subprocesses (one env alone stays in-process);
    ``"dummy"`` steps them all in this process, which on two cores was the faster of
    the two with 16 envs (``benchmarks/profile_training.py``): the env step is short
    next to the pipe round trip.
    """
    if vec_env not in VEC_ENVS:
        raise ValueError(f"--vec-env must be one of {VEC_ENVS}, got {vec_env!r}")
    rules = env_kwargs.get("rules", "standard")
    if vec_env == "batched" and not rules_batchable(rules):
        print(
            f"the batched engine plays only the standard rules: {rules!r} trains on --vec-env dummy",
            flush=True,
        )
        vec_env = "dummy"
    if vec_env == "batched":
        return HoityVsBotsSB3VecEnv(num_envs=n_envs, **env_kwargs)
    if vec_env == "subproc" and n_envs > 1:

        def worker_env() -> SingleAgentEnv:
            # Runs in the worker (pickled by value): Ctrl-C and SIGTERM are the main process's to
            # handle (it saves a checkpoint); a worker whose parent died ends on its closed pipe.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            return SingleAgentEnv(**env_kwargs)

        return SubprocVecEnv([worker_env] * n_envs)  # type: ignore[list-item]
    fns: list[Callable[[], SingleAgentEnv]] = [lambda: SingleAgentEnv(**env_kwargs) for _ in range(n_envs)]
    return DummyVecEnv(fns)  # type: ignore[arg-type, list-item]


class ProgressCSV(CSVOutputFormat):  # type: ignore[misc]
    """SB3's CSV writer, continuing the rows a file already has instead of truncating it.

    SB3 opens its file with mode ``"w+"``; this opens an existing one ``"r+"``, takes its
    header as the known keys and appends. SB3's own code adds a column when a new key
    appears (it rewrites the file from the top, which only grows).
    """

    def __init__(self, filename: Path) -> None:
        if not filename.is_file() or filename.stat().st_size == 0:
            super().__init__(str(filename))
            return
        with filename.open(newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh), [])
        self.file = filename.open("r+", encoding="utf-8")
        self.file.seek(0, 2)
        self.keys = list(header)
        self.separator = ","
        self.quotechar = '"'


class LogText(HumanOutputFormat):  # type: ignore[misc]
    """SB3's text log (``log.txt``: the training tables and the run's messages), appended to.

    SB3 opens its file with mode ``"w"``; a resumed run adds its session below the earlier ones.
    """

    def __init__(self, filename: Path) -> None:
        super().__init__(filename.open("a", encoding="utf-8"))
        self.own_file = True  # closed with the logger


def run_logger(run_dir: Path, timesteps: int, verbose: bool = False) -> Logger:
    """SB3's logger for the run: ``log.txt`` (and stdout when ``verbose``), ``progress.csv``, ``tb/``.

    What ``configure(run_dir, ["log", "csv", "tensorboard"])`` builds (``"stdout"`` too
    when ``verbose``), with the text log appended to (:class:`LogText`), the CSV
    continued (:class:`ProgressCSV`) and TensorBoard's events from ``timesteps`` on
    purged, so that a resumed run shows each step once.
    """
    board = TensorBoardOutputFormat(str(run_dir / "tb"))
    if timesteps:
        board.writer.close()
        board.writer = SummaryWriter(log_dir=str(run_dir / "tb"), purge_step=timesteps)
    formats = [LogText(run_dir / "log.txt"), ProgressCSV(run_dir / "progress.csv"), board]
    if verbose:
        formats.insert(0, make_output_format("stdout", str(run_dir)))
    return Logger(folder=str(run_dir), output_formats=formats)


def build_model(args: Any, env: VecEnv, run_dir: Path, resume: Resume | None = None) -> MaskablePPO:
    """A new MaskablePPO from the recipe's ``Args``, or the one ``args.resume`` names, logging to the run.

    An in-place ``resume`` records itself in the run folder first (``run_folder.record_resume``).
    """
    if args.resume:
        model = MaskablePPO.load(args.resume, env=env, device="cpu")
        if resume is not None:
            record_resume(run_dir, args, model.num_timesteps, resume)
        model.set_logger(run_logger(run_dir, model.num_timesteps, args.verbose))
        model.logger.log(f"resumed from {args.resume} at {model.num_timesteps:,} timesteps")
        return model
    # ``final_lr_fraction < 1`` decays the rate linearly over ``total_timesteps`` (a run
    # cut short by its time limit stops part-way down): late, smaller updates keep the
    # last snapshots from swinging between checkpoints.
    frac = args.final_lr_fraction
    if not 0.0 <= frac <= 1.0:
        raise ValueError(f"--final-lr-fraction must be in [0, 1], got {frac}")
    learning_rate = (
        LinearSchedule(args.learning_rate, args.learning_rate * frac, 1.0) if frac < 1 else args.learning_rate
    )
    ppo = {
        k: getattr(args, k) for k in ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef")
    }
    net = {"net_arch": [args.net_width, args.net_width]}
    model = MaskablePPO(
        "MlpPolicy", env, learning_rate=learning_rate, seed=args.seed, device="cpu", policy_kwargs=net, **ppo
    )
    model.set_logger(run_logger(run_dir, 0, args.verbose))
    return model


def remaining_timesteps(model: MaskablePPO, total: int) -> int:
    """Timesteps still to train: ``--total-timesteps`` is a total, also on resume."""
    left = max(total - model.num_timesteps, 0)
    if not left:
        model.logger.log(
            f"the model already has {model.num_timesteps:,} >= --total-timesteps {total:,}; not training"
        )
    return left
