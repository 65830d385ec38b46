"""Runs of the fast learner in a run folder: start, resume, checkpoints, and a clean stop on Ctrl-C / SIGTERM.

Checkpoints are taken between iterations and hold the games in progress and every generator, so stop +
resume gives the same weights as the uninterrupted run on the same machine, torch version and thread
count (not across them).  The folder's rules are :mod:`hoity_env.learning.runs.folder`; the resume
state file is :mod:`hoity_env.learning.runs.state`.  See docs/learning.md (run folders, checkpoints,
resume).
"""

from __future__ import annotations

import json
import logging
import signal
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from hoity_env.engine.errors import ConfigError
from hoity_env.files import read_json, write_atomically
from hoity_env.learning.loop import Learner
from hoity_env.learning.runs.folder import LEARN, RunFolder
from hoity_env.learning.runs.state import load_learner, state_bytes
from hoity_env.learning.settings import LearnerSettings
from hoity_env.learning.update import DivergenceError

logger = logging.getLogger(__name__)

SETTINGS = "settings.json"
"""The run's :class:`LearnerSettings` (``hoity-learn``'s and a league's main agent's)."""
LATEST = "policy.zip"
"""The latest checkpoint's policy: what to evaluate or play (``ppo-sample:PATH``)."""


def read_settings(path: Path) -> LearnerSettings:
    """The :class:`LearnerSettings` of a ``settings.json`` (its one reader); a damaged one is an
    error naming it."""
    data = read_json(path)
    try:
        return LearnerSettings.from_dict(data)
    except (ConfigError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"{path} does not hold valid learner settings (edited?): {exc}") from None


def settings_text(settings: LearnerSettings) -> str:
    """``settings.json``'s text for ``settings``."""
    return json.dumps(settings.to_dict(), indent=2) + "\n"


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


def save_checkpoint(folder: RunFolder, learner: Learner, first: Mapping[str, str] | None = None) -> Path:
    """Checkpoint ``learner`` in ``folder``: the ``first`` files (name → text), its policy, its
    resume state (the commit); then ``policy.zip`` and pruning.  Returns the policy's path."""
    tag = folder.tag(learner.steps)
    policy = learner.policy_zip()
    files: dict[str, bytes | str] = {**(first or {}), f"policy_{tag}.zip": policy}
    folder.commit(learner.steps, files, state_bytes(learner))
    write_atomically(folder.path / LATEST, policy)
    logger.info("checkpoint at %d learner steps: %s", learner.steps, folder.checkpoints / f"policy_{tag}.zip")
    folder.prune(learner.settings.keep_checkpoints)
    return folder.checkpoints / f"policy_{tag}.zip"


def new_run(
    settings: LearnerSettings, path: str | Path, *, next_free: bool = False
) -> tuple[RunFolder, Learner]:
    """A new run of ``settings`` in the (empty or missing) folder ``path`` (``next_free``: or the
    next free ``path_2`` …); everything is checked before the folder exists."""
    learner = Learner(settings)  # builds the env and every agent of the pool: bad values fail here
    return RunFolder.create(path, LEARN, {SETTINGS: settings_text(settings)}, next_free=next_free), learner


def open_run(path: str | Path) -> tuple[RunFolder, Learner, Resumed]:
    """The ``hoity-learn`` run in ``path`` at its newest readable checkpoint (nothing is written).

    The learner continues with the settings stored in that checkpoint, which ``settings.json`` must
    agree with."""
    folder = RunFolder.open(path, LEARN)
    settings = read_settings(folder.path / SETTINGS)
    steps, learner, damaged = folder.latest(lambda at: load_learner(folder.state_file(at)))
    check_same_settings(folder.path / SETTINGS, settings, learner.settings)
    return folder, learner, Resumed(steps, damaged)


def finished(folder: RunFolder, learner: Learner) -> bool:
    """Whether the run is finished: ``finished.json`` written, or (a kill came between the run's
    last checkpoint and it) its learner at its total."""
    return folder.finished or learner.steps >= learner.settings.total_steps


def prepare_resume(folder: RunFolder, resumed: Resumed, learner: Learner) -> None:
    """Holding the lock: check nothing changed since the run was opened, repair, record the resume."""
    newer = {s for s in folder.complete() if s > resumed.steps}
    if newer != set(resumed.damaged) or resumed.steps not in folder.complete():
        raise ConfigError(f"the run folder {folder.path} changed since it was opened: resume it again")
    done = folder.repair(resumed.steps, resumed.damaged)
    policy = folder.checkpoints / f"policy_{folder.tag(resumed.steps)}.zip"
    if not policy.is_file():
        learner.save_policy(policy)
    if not (folder.path / LATEST).is_file() or (folder.path / LATEST).read_bytes() != policy.read_bytes():
        write_atomically(folder.path / LATEST, policy.read_bytes())  # policy.zip is the checkpoint's
    folder.record_resume(resumed.steps, resumed.session, **done)
    logger.info("resuming %s at %d learner steps", folder.path, resumed.steps)


def run(learner: Learner, folder: RunFolder, resumed: Resumed | None = None, time_limit: float = 0.0) -> Stop:
    """Train ``learner`` to its ``total_steps`` in ``folder`` (holding its lock): progress,
    checkpoints, clean stops, ``finished.json`` at the end; ``time_limit`` seconds of wall time
    (0: none).  How it ended.

    A resume takes the progress lines a killed run wrote past its checkpoint out (into
    ``resumes.jsonl``), so ``progress.jsonl`` holds each iteration once.  The first signal lets the
    iteration in progress finish, checkpoints and returns; a second raises :class:`Aborted`.  A
    diverging update raises :class:`~hoity_env.learning.update.DivergenceError`, the last complete
    checkpoint intact."""
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
            save_checkpoint(folder, current)
            last = current.steps
        return stop.requested

    with folder.locked():
        if resumed is not None:
            prepare_resume(folder, resumed, learner)
        try:
            with stop_on_signals(time_limit) as stop:
                learner.learn(on_iteration=on_iteration)
        except DivergenceError as exc:
            raise diverged(exc, folder) from None
        if last != learner.steps:  # the end of the run, unless a checkpoint was just taken
            save_checkpoint(folder, learner)
        if learner.steps >= learner.settings.total_steps:
            folder.finish({"steps": learner.steps})
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
    if finished(folder, learner):
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
    "LATEST",
    "SETTINGS",
    "Aborted",
    "Resumed",
    "Stop",
    "check_same_settings",
    "diverged",
    "finished",
    "new_run",
    "open_run",
    "prepare_resume",
    "read_settings",
    "resume",
    "run",
    "save_checkpoint",
    "settings_text",
    "stop_on_signals",
    "train_in_folder",
]
