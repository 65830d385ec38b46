"""Best responses as jobs: each one's run folder, which finished or stopped ones are reused, and
several trained at once on worker processes.

Every folder is placed first, in order, in this process, so every job gets the same folder whatever
the number of workers; each best response depends only on its own seed and settings, so the results
equal the serial run's.  See docs/evaluation.md (approximate exploitability: ``--workers``,
``--resume``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import logging.handlers
import multiprocessing
import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hoity_env.agents.policies.content import content_hash
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.chunks import cap_workers
from hoity_env.evaluation.settings import MatchSettings
from hoity_env.evaluation.workers import run_in_order
from hoity_env.files import read_json
from hoity_env.learning.runs.folder import RESPONSE, RunFolder
from hoity_env.strength.best_response import (
    IDENTITY,
    ResponseStopped,
    exploitability_of,
    identity,
    read_identity,
    response_folder,
)
from hoity_env.strength.response import BestResponse, run_folder_name
from hoity_env.strength.results import ExploitEntry, ExploitResult
from hoity_env.strength.training import check_training

__all__ = ["Interrupted", "Job", "find_exploit", "run_jobs"]

logger = logging.getLogger(__name__)


class Interrupted(Exception):
    """Best responses stopped by a signal (``signum``); ``stopped``: each one's folder and steps."""

    def __init__(self, signum: int, stopped: Sequence[tuple[Path, int]]) -> None:
        where = "; ".join(f"{folder} at {steps:,} steps" for folder, steps in stopped) or "none in training"
        super().__init__(f"stopped by signal {signum}; best responses checkpointed: {where}")
        self.signum, self.stopped = signum, list(stopped)


@dataclasses.dataclass(frozen=True)
class Job:
    """One best response to train: a target, its evaluation games (their seed is the best response's),
    its training, and the folder name it gets (``base``, then ``base_2`` … when taken)."""

    target: str
    match: MatchSettings
    response: BestResponse
    base: Path

    def __str__(self) -> str:
        r = self.response
        who = f"{r.learner}, memory {r.memory}" if r.memory else r.learner
        who += "" if r.start == "fresh" else f", {r.start_label}"
        return f"best response to {self.target}, {who}, seed {self.match.seed}, budget {r.budget:,}"


@dataclasses.dataclass(frozen=True)
class _Task:
    """A job and the folder it trains in: what a worker is handed (named so in a dead worker's error)."""

    job: Job
    folder: Path

    def __str__(self) -> str:
        return f"{self.job}, in {self.folder}"


@dataclasses.dataclass(frozen=True)
class _Stopped:
    """A worker's reply for a job it stopped (a signal) after checkpointing it."""

    run_dir: Path
    steps: int


def _candidates(base: Path) -> list[Path]:
    """``base`` and its taken-name siblings ``base_2``, ``base_3`` …"""
    return [base, *sorted(base.parent.glob(f"{base.name}_*"))]


def find_exploit(
    runs_dir: Path,
    target: str,
    *,
    budget: int,
    num_players: int,
    rules: str,
    games: int,
    seed: int,
    settings: dict[str, Any],
    target_hash: str = "",
    base: Path | None = None,
) -> ExploitEntry | None:
    """A finished best response of ``target`` with exactly these settings in ``runs_dir``, if any.

    A run folder (``runs_dir/<target>``, or ``base``, and their ``_N`` siblings) matches when it is
    a finished best response of this format whose ``exploit.json`` names ``target`` with the same
    content hash, budget, players, rules, seed and evaluation games, and whose ``settings.json``
    holds the same learner settings; anything unreadable is skipped (and trained again elsewhere).
    """
    for folder in _candidates(base or runs_dir / run_folder_name(target)):
        run = response_folder(folder)
        if run is None or not run.finished:
            continue
        try:
            found = ExploitResult.from_dict(read_json(folder / "exploit.json", finite=False))
            learner = read_json(folder / "settings.json")
        except (ConfigError, ValueError):
            continue
        if learner != settings:
            continue
        same = (found.budget, found.num_players, found.rules, found.seed) == (
            budget,
            num_players,
            rules,
            seed,
        )
        for entry in found.entries:
            if same and (entry.target, entry.games, entry.target_hash) == (target, games, target_hash):
                return dataclasses.replace(entry, run_dir=str(folder))  # where it is now, if moved
    return None


def _place(job: Job, reuse: bool, taken: set[Path]) -> ExploitEntry | Path:
    """A finished entry to read back, or the folder to train the job in (taken now, and added to
    ``taken``: the folders of this call's earlier jobs, never given to a second one)."""
    target_hash = content_hash(job.target, rules=job.match.rules, num_players=job.match.num_players)
    me = identity(job.target, job.match, job.response, target_hash)
    if reuse:
        keys = ("budget", "num_players", "rules", "games", "seed", "settings", "target_hash")
        found = find_exploit(job.base.parent, job.target, base=job.base, **{k: me[k] for k in keys})
        if found is not None:
            logger.info("[%s] found finished in %s", job, found.run_dir)
            return found
        for folder in _candidates(job.base):
            run = response_folder(folder)
            if run is None or run.finished or folder in taken or read_identity(folder) != me:
                continue
            logger.info("[%s] continuing in %s", job, folder)
            taken.add(folder)
            return folder
    made = RunFolder.create(job.base, RESPONSE, {IDENTITY: json.dumps(me, indent=1) + "\n"}, next_free=True)
    taken.add(made.path)
    return made.path


def run_jobs(jobs: Sequence[Job], *, reuse: bool, workers: int) -> list[ExploitEntry]:
    """Each job's finished best response, in job order.

    Every job's training is checked first (a refused command leaves nothing behind), then every job
    is placed, in order: with ``reuse`` a matching finished best response is read back
    (:func:`find_exploit`, the target matched by content hash) and an unfinished one with the same
    ``response.json`` continued in its own folder; otherwise a fresh folder is made
    (:meth:`~hoity_env.learning.runs.folder.RunFolder.create`).  The jobs left train one after
    another here, or on ``min(workers, jobs)`` spawned processes of one torch and one BLAS thread
    each, whose log records reach this process's loggers.  A worker that dies raises
    :class:`~hoity_env.evaluation.workers.WorkerDied` naming its job, the others stopped.  The first
    Ctrl-C or SIGTERM checkpoints every job in training and starts no other, then raises
    :class:`Interrupted`; a second aborts at once.
    """
    from hoity_env.learning.runs.session import stop_on_signals

    for job in jobs:  # what training would refuse, refused before any folder exists
        check_training(job.target, job.match, job.response)
    taken: set[Path] = set()
    placed = [_place(job, reuse, taken) for job in jobs]
    todo = [(i, folder) for i, folder in enumerate(placed) if isinstance(folder, Path)]
    entries: dict[int, ExploitEntry] = {i: e for i, e in enumerate(placed) if isinstance(e, ExploitEntry)}
    stopped: list[tuple[Path, int]] = []
    processes = min(cap_workers(workers), len(todo)) if workers > 1 and len(todo) > 1 else 1
    with stop_on_signals() as stop:
        if processes > 1:
            tasks = [_Task(dataclasses.replace(jobs[i], match=_in_worker(jobs[i].match)), f) for i, f in todo]
            with _relayed_logs() as queue:
                init = functools.partial(
                    _init_worker, queue, logging.getLogger("hoity_env").getEffectiveLevel()
                )
                replies = run_in_order(
                    _train_in_worker,
                    tasks,
                    workers=processes,
                    initializer=init,
                    stop=lambda: stop.requested,
                    label=("best-response worker", "training"),
                )
                for (i, _), reply in zip(todo, replies, strict=False):
                    if isinstance(reply, _Stopped):
                        stopped.append((reply.run_dir, reply.steps))
                    else:
                        entries[i] = reply
        else:
            for i, folder in todo:
                if stop.requested:
                    break
                job = jobs[i]
                try:
                    entries[i] = exploitability_of(job.target, job.match, job.response, folder, stop)
                except ResponseStopped as exc:
                    stopped.append((exc.run_dir, exc.steps))
        if stop.requested:
            raise Interrupted(stop.signum, stopped)
    return [entries[i] for i in range(len(jobs))]


def _in_worker(match: MatchSettings) -> MatchSettings:
    """A worker's evaluation games: in its own process (a worker cannot start processes), no bars."""
    return match.replace(workers=1, progress=False)


def _train_in_worker(task: _Task) -> ExploitEntry | _Stopped:
    """One job in a worker process; SIGTERM (forwarded by the parent) stops it with a checkpoint."""
    from hoity_env.learning.runs.session import stop_on_signals

    job, folder = task.job, task.folder
    with stop_on_signals(signals=(signal.SIGTERM,)) as stop:
        try:
            return exploitability_of(job.target, job.match, job.response, folder, stop)
        except ResponseStopped as exc:
            return _Stopped(exc.run_dir, exc.steps)


def _init_worker(queue: Any, level: int) -> None:
    """A best-response worker: one torch and one BLAS thread, logs to the parent, SIGTERM only in a job.

    One thread each, because on a small machine two single-thread processes keep both cores busy
    where two threads in one process mostly wait on each other."""
    import threadpoolctl
    import torch

    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # between jobs; a job turns it into a clean stop
    threadpoolctl.threadpool_limits(1)  # stays in force: the worker's whole life is best responses
    torch.set_num_threads(1)
    root = logging.getLogger("hoity_env")
    root.handlers[:] = [logging.handlers.QueueHandler(queue)]
    root.setLevel(level)
    root.propagate = False
    blas = sorted({pool["num_threads"] for pool in threadpoolctl.threadpool_info()})
    logger.debug("best-response worker: %d torch thread(s), BLAS thread(s) %s", torch.get_num_threads(), blas)


class _Relay(logging.Handler):
    """Hands a worker's log record to this process's logger of the same name."""

    def emit(self, record: logging.LogRecord) -> None:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


@contextmanager
def _relayed_logs() -> Iterator[Any]:
    """A queue for the workers' log records, relayed to our loggers while the block runs."""
    queue = multiprocessing.get_context("spawn").Queue()
    listener = logging.handlers.QueueListener(queue, _Relay())
    listener.start()
    try:
        yield queue
    finally:
        listener.stop()
        queue.close()
