"""Runs in a run folder: start, resume, checkpoints, and a clean stop on Ctrl-C / SIGTERM.

The folder itself (its files, its lock, complete checkpoints, damaged ones) is
:mod:`hoity_env.learning.runs.folder`.  A new run checks everything (settings, agent specs:
the :class:`Learner` is built first) before its folder exists; :func:`resume` picks the
newest complete checkpoint it can read and continues with the settings stored *in it*
(the settings the run started with, which ``settings.json`` must agree with), to
``settings.total_steps``.

Promise: checkpoints are taken between iterations and capture the games in
progress and every generator, so *stop + resume gives the same weights as the
uninterrupted run*, on the same machine and thread count (tested), and the progress
lines a killed run wrote past its last checkpoint are taken out on resume (into
``resumes.jsonl``), so ``progress.jsonl`` holds each iteration once.  What is not
promised: equality across torch versions or thread counts.

The first Ctrl-C (or SIGTERM, or the session's time limit) lets the iteration in
progress finish (about a second at the defaults), saves a checkpoint and returns; a
second signal raises :class:`Aborted` at once.  A diverging update
(:class:`~hoity_env.learning.update.DivergenceError`) stops the run with its last
complete checkpoint intact.  ``state_*.pt`` files are pickles (they hold the live env):
load only your own.
"""

from __future__ import annotations

import json
import logging
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from hoity_env.engine.errors import ConfigError
from hoity_env.files import write_atomically
from hoity_env.learning.loop import Learner
from hoity_env.learning.runs.folder import LATEST, LEARN, SETTINGS, RunFolder, read_json
from hoity_env.learning.settings import LearnerSettings
from hoity_env.learning.update import DivergenceError

logger = logging.getLogger(__name__)


def load_learner(path: str | Path) -> Learner:
    """The learner saved in ``state_*.pt`` file ``path`` (a pickle: load only your own); a file
    that cannot be read back (truncated, edited) is a :class:`ConfigError` naming it."""
    import torch

    try:
        state: dict[str, Any] = torch.load(path, weights_only=False)
        return Learner.from_state_dict(state)
    except ConfigError as exc:
        raise ConfigError(f"{path} holds settings this version refuses: {exc}") from None
    except Exception as exc:  # torch and pickle raise many kinds on a damaged file
        raise ConfigError(f"{path} is damaged (truncated or edited?): {type(exc).__name__}: {exc}") from None


def read_settings(path: Path) -> LearnerSettings:
    """The :class:`LearnerSettings` of a ``settings.json``; a damaged one is an error naming it."""
    data = read_json(path)
    try:
        return LearnerSettings.from_dict(data)
    except (ConfigError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"{path} does not hold valid learner settings (edited?): {exc}") from None


def check_same_settings(
    path: Path, saved: LearnerSettings, held: LearnerSettings, other: str = "the settings in its checkpoints"
) -> None:
    """A :class:`ConfigError` naming ``path`` if its settings ``saved`` differ from ``held`` (``other``)."""
    if saved != held:
        ours, theirs = saved.to_dict(), held.to_dict()
        diff = ", ".join(f"{k} {ours[k]!r} vs {theirs[k]!r}" for k in ours if ours[k] != theirs.get(k))
        raise ConfigError(f"{path} differs from {other} ({diff}): edited?")


@dataclass
class Resumed:
    """Where an opened run continues: the checkpoint's learner steps, the newer ones found damaged."""

    steps: int
    damaged: list[int] = field(default_factory=list)
    session: dict[str, Any] = field(default_factory=dict)
    """What this session sets that is no setting of the run (the CLI's time limit, workers)."""


def new_run(
    settings: LearnerSettings, path: str | Path, *, next_free: bool = False
) -> tuple[RunFolder, Learner]:
    """A new run of ``settings`` in the (empty or missing) folder ``path`` (``next_free``: or the
    next free ``path_2`` …); everything is checked before the folder exists."""
    learner = Learner(settings)  # builds the env and every agent of the pool: bad values fail here
    text = json.dumps(settings.to_dict(), indent=2) + "\n"
    return RunFolder.create(path, LEARN, {SETTINGS: text}, next_free=next_free), learner


def open_run(path: str | Path) -> tuple[RunFolder, Learner, Resumed]:
    """The ``hoity-learn`` run in ``path`` at its newest readable checkpoint (nothing is written)."""
    folder = RunFolder(path, LEARN)
    folder.check_kind()
    with folder.locked():  # a live run is refused now, before anything is loaded
        pass
    settings = read_settings(folder.path / SETTINGS)
    steps, learner, damaged = folder.latest(
        lambda at: load_learner(folder.checkpoints / f"state_{folder.tag(at)}.pt")
    )
    check_same_settings(folder.path / SETTINGS, settings, learner.settings)
    return folder, learner, Resumed(steps, damaged)


def finished(learner: Learner) -> bool:
    return learner.steps >= learner.settings.total_steps


def prepare_resume(folder: RunFolder, resumed: Resumed, learner: Learner) -> None:
    """Holding the lock: check nothing changed since the run was opened, repair, record the resume."""
    newer = {s for s in folder.complete() if s > resumed.steps}
    if newer != set(resumed.damaged) or resumed.steps not in folder.complete():
        raise ConfigError(f"the run folder {folder.path} changed since it was opened: resume it again")
    record = folder.repair(resumed.steps, resumed.damaged)
    policy = folder.checkpoints / f"policy_{folder.tag(resumed.steps)}.zip"
    if not policy.is_file():
        learner.save_policy(policy)
    if not (folder.path / LATEST).is_file() or (folder.path / LATEST).read_bytes() != policy.read_bytes():
        write_atomically(folder.path / LATEST, policy.read_bytes())  # policy.zip is the checkpoint's
    when = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    folder.record_resume({"time": when, "steps": resumed.steps, "session": resumed.session, **record})
    logger.info("resuming %s at %d learner steps", folder.path, resumed.steps)


def run(learner: Learner, folder: RunFolder, resumed: Resumed | None = None, time_limit: float = 0.0) -> Stop:
    """Train ``learner`` to its ``total_steps`` in ``folder`` (holding its lock): progress,
    checkpoints, clean stops; ``time_limit`` seconds of wall time (0: none).  How it ended."""
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

    with folder.locked():
        if resumed is not None:
            prepare_resume(folder, resumed, learner)
        try:
            with stop_on_signals(time_limit) as stop:
                learner.learn(on_iteration=on_iteration)
        except DivergenceError as exc:
            kept = folder.complete()
            where = (
                f"its checkpoint at {kept[-1]:,} learner steps" if kept else "no checkpoint (none was taken)"
            )
            raise DivergenceError(f"{exc}; nothing of it was saved: {folder.path} keeps {where}") from None
        if last != learner.steps:  # the end of the run, unless a checkpoint was just taken
            folder.save(learner)
    return stop


def diverged(exc: DivergenceError, folder: RunFolder) -> DivergenceError:
    """``exc`` with what the run folder kept (its last complete checkpoint, written before)."""
    kept = folder.complete()
    where = f"its checkpoint at {kept[-1]:,} learner steps" if kept else "no checkpoint (none was taken)"
    return DivergenceError(f"{exc}; nothing of it was saved: {folder.path} keeps {where}")


def train_in_folder(settings: LearnerSettings, path: str | Path) -> Learner:
    """A new run of ``settings`` in the (empty or missing) folder ``path``."""
    folder, learner = new_run(settings, path)
    run(learner, folder)
    return learner


def resume(path: str | Path) -> Learner:
    """Continue the run in folder ``path`` from its newest complete checkpoint, with its own settings
    (a finished run is final: nothing is written)."""
    folder, learner, resumed = open_run(path)
    if finished(learner):
        logger.info(
            "the run in %s is finished (%d learner steps): nothing to train", folder.path, learner.steps
        )
        return learner
    run(learner, folder, resumed)
    return learner


class Aborted(KeyboardInterrupt):
    """A second signal during a stop: the run ends at once, without a checkpoint."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"aborted by signal {signum}")
        self.signum = signum


class Stop:
    """Whether a stop was asked for: by which signal (``signum``, 0 before one came), or by the
    time limit (``timed_out``)."""

    def __init__(self, time_limit: float = 0.0) -> None:
        self.signum = 0
        self.timed_out = False
        self._deadline = time.monotonic() + time_limit if time_limit > 0 else None

    @property
    def requested(self) -> bool:
        if not self.signum and self._deadline is not None and time.monotonic() >= self._deadline:
            self.timed_out = True
        return bool(self.signum) or self.timed_out


@contextmanager
def stop_on_signals(
    time_limit: float = 0.0, signals: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)
) -> Iterator[Stop]:
    """First SIGINT/SIGTERM: ask the loop to stop after this iteration; the second: :class:`Aborted`.

    ``time_limit`` seconds of wall time (0: none) also ask for a stop.  The previous handlers
    come back on leaving (also used by the training recipes' fast path, ``training/fast_run.py``).
    ``signals``: those handled (a best-response worker process handles only the SIGTERM its
    parent forwards; Ctrl-C is the parent's).
    """
    stop = Stop(time_limit)
    previous: dict[signal.Signals, Any] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        if stop.signum:
            raise Aborted(signum)
        stop.signum = signum
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


__all__ = [
    "Aborted",
    "Resumed",
    "RunFolder",
    "Stop",
    "check_same_settings",
    "diverged",
    "finished",
    "load_learner",
    "new_run",
    "open_run",
    "prepare_resume",
    "read_settings",
    "resume",
    "run",
    "stop_on_signals",
    "train_in_folder",
]
