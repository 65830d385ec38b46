"""The harness's unit of work: a chunk of deals of one table, played here, in workers or on Ray.

Chunks (:class:`Task`) are generated as they are needed, so a huge ``games`` never builds a task list,
and go to ``spawn`` worker processes (safe with torch and threads, the same on every OS:
:mod:`hoity_env.evaluation.workers`) or to Ray (:mod:`hoity_env.evaluation.ray_backend`).  Agents are
built from their specs inside each worker, so checkpoints load there.  Every game's seeds come from its
coordinates and chunks come back in deal order, so ``workers=1`` and ``workers=8`` give identical
results.  See docs/design.md §5.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from hoity_env.agents import Agent, make
from hoity_env.engine.config import RulesConfig
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.evaluation.batched_match import BATCH_GAMES, play_deals_batched
from hoity_env.evaluation.match import GameRecord, agent_seeds, deal_seed, play_game
from hoity_env.evaluation.progress import progress_bar
from hoity_env.evaluation.ray_backend import run_on_ray
from hoity_env.evaluation.settings import MatchSettings, Rules
from hoity_env.evaluation.workers import run_in_order, usable_cpus
from hoity_env.threads import DEFAULT_BLAS_THREADS, limit_process

__all__ = [
    "Task",
    "agents_for",
    "cap_workers",
    "clear_agents",
    "env_for",
    "play_chunks",
    "worker_initializer",
]

logger = logging.getLogger(__name__)

_MAX_CHUNK = 25
"""Deals per worker task at most: big enough to amortize the pickling, small enough for a live bar."""

_ENVS: dict[tuple[int, Rules], HoityParallelEnv] = {}
_AGENTS: dict[tuple[str, int, RulesConfig, int], Agent] = {}
"""Per-process caches: an env per (players, rules); an agent per (spec, players, actions, copy)."""
_CALL = [""]
"""The harness call whose agents ``_AGENTS`` holds, in a long-lived (Ray) worker."""
_CALL_NUMBERS = itertools.count()

OnRecords = Callable[[int, list[GameRecord]], None]
"""Called with a table's index and the records of one of its chunks, in deal order."""


@dataclass(frozen=True)
class Task:
    """A chunk of deals of one table, as sent to a worker."""

    table: int
    specs: tuple[str, ...]
    num_players: int
    rules: Rules
    seed: int
    start: int
    stop: int
    batched: bool = False

    def __str__(self) -> str:
        return f"table {self.table} ({', '.join(self.specs)}), deals {self.start}-{self.stop - 1}"


def env_for(num_players: int, rules: Rules) -> HoityParallelEnv:
    """This process's env for ``(num_players, rules)`` (built once)."""
    key = (num_players, rules)
    if key not in _ENVS:
        _ENVS[key] = HoityParallelEnv(num_players=num_players, rules=rules)
    return _ENVS[key]


def agents_for(specs: Sequence[str], env: HoityParallelEnv) -> list[Agent]:
    """One agent object per entry: repeated specs get distinct objects (each its own generator)."""
    out = []
    for i, spec in enumerate(specs):
        key = (spec, env.num_players, env.rules, specs[:i].count(spec))
        if key not in _AGENTS:
            n, size = env.num_players, env.codec.size
            _AGENTS[key] = make(spec, num_players=n, rules=env.rules, num_actions=size)
        out.append(_AGENTS[key])
    return out


def clear_agents() -> None:
    """Forget the cached agents: a checkpoint file rewritten between calls must be loaded afresh."""
    _AGENTS.clear()


def _play_task(task: Task, on_game: Callable[[], None] | None = None) -> list[GameRecord]:
    """Play deals ``start..stop-1`` of a table, every rotation, in order."""
    env = env_for(task.num_players, task.rules)
    entries = agents_for(task.specs, env)
    if task.batched:

        def games_done(count: int) -> None:
            for _ in range(count if on_game is not None else 0):
                on_game()  # type: ignore[misc]

        return play_deals_batched(
            task.specs,
            entries,
            num_players=task.num_players,
            rules=task.rules,
            seed=task.seed,
            start=task.start,
            stop=task.stop,
            on_games=games_done,
        )
    k = task.num_players
    out = []
    for d in range(task.start, task.stop):
        env_seed = deal_seed(task.seed, d)
        for r in range(k):
            order = [(s - r) % k for s in range(k)]  # entry i sits in seat (i + r) % k
            out.append(
                play_game(
                    env,
                    [entries[e] for e in order],
                    env_seed=env_seed,
                    seeds=agent_seeds(task.seed, d, r, k),
                    names=[task.specs[e] for e in order],
                    deal=d,
                    rotation=r,
                )
            )
            if on_game is not None:
                on_game()
    return out


def _play_task_of_call(call: str, task: Task) -> list[GameRecord]:
    """:func:`_play_task` in a worker that outlives one harness call (Ray's).

    Agents are cached for one call only, as in the calling process: a checkpoint
    rewritten between calls (a league's ``main``) must be loaded afresh.
    """
    if _CALL[0] != call:
        _AGENTS.clear()
        _CALL[0] = call
    return _play_task(task)


def _init_worker(blas_threads: int) -> None:
    """``blas_threads`` math threads per worker (one by default): N workers each spreading a policy
    over every core only thrash.  numpy is loaded by the time this runs (unpickling the task
    function imports it), so its BLAS is limited through threadpoolctl, not the environment."""
    limit_process(blas_threads)


def worker_initializer(settings: MatchSettings) -> Callable[[], None]:
    """What each worker process runs first: ``settings.blas_threads`` BLAS threads, else one."""
    return functools.partial(_init_worker, settings.blas_threads or DEFAULT_BLAS_THREADS)


def cap_workers(workers: int) -> int:
    """``workers``, or the usable CPU count with a warning when asked for more.

    Each worker plays whole games on one core; beyond the cores they only take turns
    and slow every game down.
    """
    cpus = usable_cpus()
    if workers > cpus:
        warnings.warn(
            f"workers={workers} is more than the {cpus} usable CPU(s); using {cpus}",
            RuntimeWarning,
            stacklevel=4,
        )
        return cpus
    return workers


def play_chunks(
    tables: Sequence[Sequence[str]],
    settings: MatchSettings,
    workers: int,
    batched: bool,
    on_records: OnRecords,
    *,
    desc: str = "",
) -> None:
    """Cut the tables into chunks of deals, play them and hand each chunk's records to ``on_records``.

    ``workers``: local processes (already capped) or the Ray cluster's CPUs.  Chunks
    reach ``on_records`` in task order (table by table, deal by deal) whatever
    finishes first: the source of worker independence.
    """
    num_players, deals = settings.num_players, settings.deals
    # A batched chunk is a fixed number of deals: its agents are seeded per chunk, so
    # chunk boundaries must not depend on ``workers`` (results never do).
    chunk = (
        BATCH_GAMES // num_players if batched else max(1, min(_MAX_CHUNK, math.ceil(deals / (4 * workers))))
    )
    num_tasks = len(tables) * math.ceil(deals / chunk)

    def tasks() -> Iterator[Task]:  # made on demand: a huge run never holds its task list
        for t, specs in enumerate(tables):
            for start in range(0, deals, chunk):
                stop = min(start + chunk, deals)
                yield Task(t, tuple(specs), num_players, settings.rules, settings.seed, start, stop, batched)

    logger.debug("%d tables, %d deals each, %d tasks on %d worker(s)", len(tables), deals, num_tasks, workers)
    with progress_bar(len(tables) * deals * num_players, enabled=settings.progress, desc=desc) as bar:
        if settings.backend == "local" and (workers == 1 or num_tasks == 1):
            for task in tasks():
                on_records(task.table, _play_task(task, bar.update))
            return
        if settings.backend == "ray":
            play = functools.partial(_play_task_of_call, f"{os.getpid()}:{next(_CALL_NUMBERS)}")
            ordered = run_on_ray(play, tasks(), window=4 * workers)
        else:
            init = worker_initializer(settings)
            ordered = run_in_order(_play_task, tasks(), workers=min(workers, num_tasks), initializer=init)
        for task, records in zip(tasks(), ordered, strict=True):
            on_records(task.table, records)
            bar.update(len(records))
