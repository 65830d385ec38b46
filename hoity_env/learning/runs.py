"""Run folders: settings, checkpoints, progress, resume, and a clean stop on Ctrl-C / SIGTERM.

A run folder holds::

    settings.json                 the run's LearnerSettings (resume reads them back)
    progress.jsonl                one line of statistics per iteration
    checkpoints/policy_<steps>.zip   the policy at <steps> learner steps (MaskablePPO zip: ppo:PATH)
    checkpoints/state_<steps>.pt     everything else the run holds at that point (resume)
    policy.zip                    the latest policy (what to evaluate or play)

Every file is written to a temporary name and renamed (:mod:`hoity_env.files`),
so a kill mid-save leaves the previous checkpoint intact.  A new run refuses a
folder that already holds one (never mixing two runs' files); :func:`resume` picks
the latest ``state_*.pt`` and continues with the settings stored *in it* (the
settings the run started with), to ``settings.total_steps``.

Promise: checkpoints are taken between iterations and capture the games in
progress and every generator, so *stop + resume gives the same weights as the
uninterrupted run*, on the same machine and thread count (tested).  What is not
promised: equality across torch versions or thread counts, and ``progress.jsonl``
lines after the last checkpoint of a killed (SIGKILL) run are written again on
resume.

The first Ctrl-C (or SIGTERM) lets the iteration in progress finish (about a
second at the defaults), saves a checkpoint and returns; a second one aborts at
once.  ``state_*.pt`` files are pickles (they hold the live env): load only your own.
"""

from __future__ import annotations

import io
import json
import logging
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import torch

from hoity_env.engine.errors import ConfigError
from hoity_env.files import write_atomically
from hoity_env.learning.loop import Learner
from hoity_env.learning.settings import LearnerSettings

logger = logging.getLogger(__name__)

SETTINGS = "settings.json"
PROGRESS = "progress.jsonl"
CHECKPOINTS = "checkpoints"
LATEST = "policy.zip"


class RunFolder:
    """One run's folder (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.checkpoints = self.path / CHECKPOINTS

    def create(self, settings: LearnerSettings) -> None:
        """Start a new run here; a folder holding anything already is refused."""
        if self.path.exists() and (not self.path.is_dir() or any(self.path.iterdir())):
            raise ConfigError(
                f"run folder {self.path} is not empty; resume it, or choose a new folder "
                "(hoity_env.files.fresh_folder finds a free name)"
            )
        self.checkpoints.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path / SETTINGS, json.dumps(settings.to_dict(), indent=2) + "\n")

    def latest_state(self) -> Path:
        """The newest ``state_*.pt`` (by learner steps)."""
        states = sorted(self.checkpoints.glob("state_*.pt"))
        if not states:
            raise ConfigError(f"no checkpoint to resume in {self.checkpoints}")
        return states[-1]

    def save(self, learner: Learner) -> Path:
        """Checkpoint ``learner`` now: its policy (zip), its state, and ``policy.zip``; the policy path."""
        steps = f"{learner.steps:012d}"
        policy = learner.save_policy(self.checkpoints / f"policy_{steps}.zip")
        buffer = io.BytesIO()
        torch.save(learner.state_dict(), buffer)
        write_atomically(self.checkpoints / f"state_{steps}.pt", buffer.getvalue())
        write_atomically(self.path / LATEST, policy.read_bytes())
        logger.info("checkpoint at %d learner steps: %s", learner.steps, policy)
        return policy

    def log(self, stats: dict[str, float]) -> None:
        """Append one iteration's statistics to ``progress.jsonl``."""
        with (self.path / PROGRESS).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(stats) + "\n")


def load_learner(path: str | Path) -> Learner:
    """The learner saved in ``state_*.pt`` file ``path`` (a pickle: load only your own)."""
    state: dict[str, Any] = torch.load(path, weights_only=False)
    return Learner.from_state_dict(state)


def run(learner: Learner, folder: RunFolder) -> Learner:
    """Train ``learner`` to its ``total_steps`` in ``folder``: progress, checkpoints, clean stops."""
    every = learner.settings.checkpoint_every
    last = learner.steps

    def on_iteration(current: Learner, stats: dict[str, float]) -> bool:
        nonlocal last
        folder.log(stats)
        logger.info(
            "%d learner steps: return %.3f over %d episodes, entropy %.3f",
            current.steps,
            stats.get("episode_return", 0.0),
            stats.get("episodes", 0.0),
            stats.get("loss/entropy", 0.0),
        )
        if stop.requested or (every and current.steps - last >= every):
            folder.save(current)
            last = current.steps
        return stop.requested

    with stop_on_signals() as stop:
        learner.learn(on_iteration=on_iteration)
    if last != learner.steps:  # the end of the run, unless a checkpoint was just taken
        folder.save(learner)
    return learner


def train_in_folder(settings: LearnerSettings, path: str | Path) -> Learner:
    """A new run of ``settings`` in the (empty or missing) folder ``path``."""
    folder = RunFolder(path)
    folder.create(settings)
    return run(Learner(settings), folder)


def resume(path: str | Path) -> Learner:
    """Continue the run in folder ``path`` from its latest checkpoint, with its own settings."""
    folder = RunFolder(path)
    learner = load_learner(folder.latest_state())
    logger.info("resuming %s at %d learner steps", folder.path, learner.steps)
    return run(learner, folder)


class Stop:
    """Whether a stop was asked for, and by which signal (``signum``, 0 before one came)."""

    requested = False
    signum = 0


@contextmanager
def stop_on_signals(signals: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[Stop]:
    """First SIGINT/SIGTERM: ask the loop to stop after this iteration; the second: abort.

    The previous handlers come back on leaving (also used by the training recipes'
    fast path, ``training/fast_run.py``).  ``signals``: those handled (a best-response worker
    process handles only the SIGTERM its parent forwards; Ctrl-C is the parent's).
    """
    stop = Stop()
    previous: dict[signal.Signals, Any] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        if stop.requested:
            raise KeyboardInterrupt
        stop.requested, stop.signum = True, signum
        logger.warning("stopping after this iteration (signal %d); send it again to abort", signum)

    try:
        for sig in signals:
            previous[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread: no handlers, no clean stop
        previous.clear()
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


__all__ = ["RunFolder", "Stop", "load_learner", "resume", "run", "stop_on_signals", "train_in_folder"]
