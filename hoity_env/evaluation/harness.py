"""Play many seeded games between agents in duplicate format, in parallel if asked.

Duplicate seat rotation: with ``k`` players, a "game count" means deals × ``k``
rotations.  Deal ``d`` is played ``k`` times with the same env seed
(:func:`~hoity_env.evaluation.match.deal_seed`), rotation ``r`` putting entry
``i`` of the agent list in seat ``(i + r) % k``.  Every entry thus plays every
deal from every seat, and the luck of the deal (cards, lots, start player)
cancels between agents.  A game count that is not a multiple of ``k`` is
rounded up to the next whole deal; the result says how many games were played.

Parallelism: deals are cut into chunks and spread over ``spawn`` worker processes
(spawn, not fork: safe with torch and threads, and the same on every OS) by
:func:`~hoity_env.evaluation.workers.run_in_order`: a worker that dies raises
:class:`~hoity_env.evaluation.workers.WorkerDied` naming it instead of hanging, and
chunks are generated as they are needed, so a huge ``games`` never builds a task list.
More workers than usable CPUs only slow every game down, so ``workers`` is capped
at the CPU count with a warning.
The same chunks can instead go to a Ray cluster (``backend="ray"``,
:mod:`hoity_env.evaluation.ray_backend`, Ray imported only then); they come back in
the same order, so the records are identical to the local backend's.
Agents are built inside each worker from their spec strings, so checkpoints
load there, and cached per worker.  Every game's seeds come from its
coordinates alone and chunks are gathered in deal order, so ``workers=1`` and
``workers=8`` give identical results.  Specs are checked in the calling process
first, so a bad name or checkpoint fails fast with one clear ``ConfigError``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from hoity_env.agents import Agent, make
from hoity_env.agents.batch import can_act_in_batches
from hoity_env.engine.batched import BATCHED_RULESETS
from hoity_env.engine.config import RulesConfig, resolve_rules
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.parallel_env import HoityParallelEnv
from hoity_env.evaluation.batched_match import BATCH_GAMES, play_deals_batched
from hoity_env.evaluation.match import GameRecord, agent_seeds, check_seed, deal_seed, play_game
from hoity_env.evaluation.progress import progress_bar
from hoity_env.evaluation.ray_backend import BACKENDS, ray_session, run_on_ray
from hoity_env.evaluation.report import EvaluationResult
from hoity_env.evaluation.summary import agent_stats, seat_stats
from hoity_env.evaluation.workers import run_in_order, usable_cpus

__all__ = ["check_specs", "evaluate", "play_tables", "rules_name"]

Rules = str | RulesConfig
ENGINES = ("auto", "batched", "one-game")

_MAX_CHUNK = 25
"""Deals per worker task at most: big enough to amortize the pickling, small enough for a live bar."""

_ENVS: dict[tuple[int, Rules], HoityParallelEnv] = {}
_AGENTS: dict[tuple[str, int, int, int], Agent] = {}
"""Per-process caches: an env per (players, rules); an agent per (spec, players, actions, copy)."""
_CALL = [""]
"""The harness call whose agents ``_AGENTS`` holds, in a long-lived (Ray) worker."""
_CALL_NUMBERS = itertools.count()


@dataclass(frozen=True)
class _Task:
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


def _env(num_players: int, rules: Rules) -> HoityParallelEnv:
    key = (num_players, rules)
    if key not in _ENVS:
        _ENVS[key] = HoityParallelEnv(num_players=num_players, rules=rules)
    return _ENVS[key]


def _agents(specs: Sequence[str], env: HoityParallelEnv) -> list[Agent]:
    """One agent object per entry: repeated specs get distinct objects (each its own generator)."""
    out = []
    for i, spec in enumerate(specs):
        key = (spec, env.num_players, env.codec.size, specs[:i].count(spec))
        if key not in _AGENTS:
            _AGENTS[key] = make(spec, num_players=env.num_players, num_actions=env.codec.size)
        out.append(_AGENTS[key])
    return out


def _play_task(task: _Task, on_game: Callable[[], None] | None = None) -> list[GameRecord]:
    """Play deals ``start..stop-1`` of a table, every rotation, in order."""
    env = _env(task.num_players, task.rules)
    entries = _agents(task.specs, env)
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


def _play_task_of_call(call: str, task: _Task) -> list[GameRecord]:
    """:func:`_play_task` in a worker that outlives one harness call (Ray's).

    Agents are cached for one call only, as in the calling process: a checkpoint
    rewritten between calls (a league's ``main``) must be loaded afresh.
    """
    if _CALL[0] != call:
        _AGENTS.clear()
        _CALL[0] = call
    return _play_task(task)


def _init_worker() -> None:
    """One math thread per worker: N workers each spreading a batch-1 policy over every core only thrash."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def check_specs(specs: Sequence[str], num_players: int, rules: Rules) -> HoityParallelEnv:
    """Validate players, rules and every spec (building each once); return the env."""
    env = _env(num_players, rules)
    if isinstance(specs, str):
        raise ConfigError("agent specs must be a list of strings, not one string")
    if len(specs) != num_players:
        raise ConfigError(f"{num_players} players need {num_players} agents, got {len(specs)}: {list(specs)}")
    _agents(specs, env)
    return env


def rules_batchable(rules: Rules) -> bool:
    """Whether the batched engine plays these rules."""
    return resolve_rules(rules).ruleset in BATCHED_RULESETS


def rules_name(rules: Rules) -> str:
    """The preset name recorded in results."""
    return rules if isinstance(rules, str) else rules.name


def deals_for(games: int, num_players: int) -> int:
    """Whole deals needed for at least ``games`` games (each deal is ``num_players`` games)."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ConfigError(f"games must be an int >= 1, got {games!r}")
    return math.ceil(games / num_players)


def play_tables(
    tables: Sequence[Sequence[str]],
    *,
    num_players: int,
    deals: int,
    seed: int,
    workers: int = 1,
    rules: Rules = "standard",
    progress: bool = True,
    engine: str = "auto",
    desc: str = "",
    backend: str = "local",
    address: str | None = None,
) -> list[list[GameRecord]]:
    """Play ``deals`` deals × ``num_players`` rotations at each table; records per table, in order.

    Every table replays the same deals (deal ``d`` has the same env seed at every
    table), so any one table's games are exactly those of ``evaluate`` on it.
    ``engine``: ``"batched"`` plays each chunk of deals as one batch on the batched
    engine (:mod:`hoity_env.evaluation.batched_match`, which says when its results
    equal the one-game path's), ``"one-game"`` game by game, ``"auto"`` (default)
    batched when every agent decides in batches (every built-in agent does).
    ``progress`` shows a bar (labelled ``desc``) on stderr when stderr is a terminal.
    ``backend``: ``"local"`` (default) plays on ``workers`` processes here; ``"ray"``
    sends the same chunks to the Ray cluster at ``address`` (``None``: a local Ray
    instance, or the session this process already has), whose CPUs set the
    parallelism (``workers`` must stay 1).  Both give identical records.
    """
    if engine not in ENGINES:
        raise ConfigError(f"engine must be one of {ENGINES}, got {engine!r}")
    if backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "local" and address is not None:
        raise ConfigError("an address is for backend 'ray' (--backend ray --address ADDRESS)")
    if backend == "ray" and workers != 1:
        raise ConfigError("workers is for backend 'local'; with backend 'ray' the cluster's CPUs set it")
    seed = check_seed(seed)
    # Agents are cached for one call only: a checkpoint file rewritten between calls
    # (a training loop's latest.zip) must be loaded afresh, and old models freed.
    _AGENTS.clear()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be an int >= 1, got {workers!r}")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ConfigError(f"deals must be an int >= 1, got {deals!r}")
    batchable = True
    for specs in tables:
        env = check_specs(specs, num_players, rules)
        batchable &= all(can_act_in_batches(a) for a in _agents(specs, env))
    batched = engine == "batched" or (engine == "auto" and batchable and rules_batchable(rules))
    with contextlib.ExitStack() as stack:  # a Ray session opened here is closed here
        workers = stack.enter_context(ray_session(address)) if backend == "ray" else cap_workers(workers)
        return _play_chunks(
            tables, num_players, deals, seed, workers, rules, progress, batched, desc=desc, backend=backend
        )


def _play_chunks(
    tables: Sequence[Sequence[str]],
    num_players: int,
    deals: int,
    seed: int,
    workers: int,
    rules: Rules,
    progress: bool,
    batched: bool,
    *,
    desc: str,
    backend: str,
) -> list[list[GameRecord]]:
    """Cut the tables into chunks of deals, play them on ``backend`` and gather them in order."""
    # A batched chunk is a fixed number of deals: its agents are seeded per chunk, so
    # chunk boundaries must not depend on ``workers`` (results never do).
    chunk = (
        BATCH_GAMES // num_players if batched else max(1, min(_MAX_CHUNK, math.ceil(deals / (4 * workers))))
    )
    num_tasks = len(tables) * math.ceil(deals / chunk)

    def tasks() -> Iterator[_Task]:  # made on demand: a huge run never holds its task list
        for t, specs in enumerate(tables):
            for start in range(0, deals, chunk):
                yield _Task(
                    t, tuple(specs), num_players, rules, seed, start, min(start + chunk, deals), batched
                )

    results: list[list[GameRecord]] = [[] for _ in tables]
    with progress_bar(len(tables) * deals * num_players, enabled=progress, desc=desc) as bar:
        if backend == "local" and (workers == 1 or num_tasks == 1):
            for task in tasks():
                results[task.table] += _play_task(task, bar.update)
        else:
            # Results come back in task order whatever finishes first: the source of worker independence.
            if backend == "ray":
                play = functools.partial(_play_task_of_call, f"{os.getpid()}:{next(_CALL_NUMBERS)}")
                ordered = run_on_ray(play, tasks(), window=4 * workers)
            else:
                ordered = run_in_order(
                    _play_task, tasks(), workers=min(workers, num_tasks), initializer=_init_worker
                )
            for task, records in zip(tasks(), ordered, strict=True):
                results[task.table] += records
                bar.update(len(records))
    return results


def cap_workers(workers: int) -> int:
    """``workers``, or the usable CPU count with a warning when asked for more.

    Each worker plays whole games on one core; beyond the cores they only take
    turns (32 workers on 2 cores ran 17 times slower than 2).
    """
    cpus = usable_cpus()
    if workers > cpus:
        warnings.warn(
            f"workers={workers} is more than the {cpus} usable CPU(s); using {cpus}",
            RuntimeWarning,
            stacklevel=3,
        )
        return cpus
    return workers


def summarize(
    specs: Sequence[str], records: Sequence[GameRecord], *, num_players: int, rules: Rules, seed: int
) -> EvaluationResult:
    """An :class:`EvaluationResult` from one table's records."""
    return EvaluationResult(
        agents=tuple(specs),
        num_players=num_players,
        rules=rules_name(rules),
        seed=seed,
        deals=len(records) // num_players,
        games=len(records),
        truncated=sum(1 for r in records if r.truncated),
        agent_stats=agent_stats(records, order=specs),
        seat_stats=seat_stats(records, num_players),
        records=tuple(records),
    )


def evaluate_tables(
    tables: Sequence[Sequence[str]],
    num_players: int = 4,
    games: int = 1000,
    seed: int = 0,
    workers: int = 1,
    rules: Rules = "standard",
    progress: bool = True,
    engine: str = "auto",
    desc: str = "",
    backend: str = "local",
    address: str | None = None,
) -> tuple[EvaluationResult, ...]:
    """:func:`evaluate` for several tables at once (one worker pool, the same deals at each).

    ``desc`` labels the progress bar (shown only on a terminal).
    """
    seed = check_seed(seed)
    tables = [list(t) for t in tables]
    per_table = play_tables(
        tables,
        num_players=num_players,
        deals=deals_for(games, num_players),
        seed=seed,
        workers=workers,
        rules=rules,
        progress=progress,
        engine=engine,
        desc=desc,
        backend=backend,
        address=address,
    )
    return tuple(
        summarize(t, records, num_players=num_players, rules=rules, seed=seed)
        for t, records in zip(tables, per_table, strict=True)
    )


def evaluate(
    agent_specs: Sequence[str],
    num_players: int = 4,
    games: int = 1000,
    seed: int = 0,
    workers: int = 1,
    rules: Rules = "standard",
    progress: bool = True,
    engine: str = "auto",
    backend: str = "local",
    address: str | None = None,
) -> EvaluationResult:
    """Play at least ``games`` games between ``agent_specs`` (one per seat) in duplicate format.

    ``agent_specs`` are :func:`hoity_env.agents.make` specs (``expert``, ``random``,
    ``ppo:PATH``…); the same spec may appear several times.  Raises ``ConfigError``
    (a ``ValueError``) for unknown names, bad checkpoints or bad arguments.

    With ``workers > 1`` the pool uses ``spawn``, which re-imports the main module
    in each worker: call this from under ``if __name__ == "__main__":`` in a script
    (as for SB3's ``SubprocVecEnv``); notebooks and ``hoity-eval`` need nothing.
    ``backend="ray"`` plays the same chunks on a Ray cluster (``address``), with
    identical results (see :func:`play_tables`).
    """
    if isinstance(agent_specs, str):
        raise ConfigError("agent_specs must be a list of spec strings (one per seat), not one string")
    (result,) = evaluate_tables(
        [agent_specs],
        num_players=num_players,
        games=games,
        seed=seed,
        workers=workers,
        rules=rules,
        progress=progress,
        engine=engine,
        backend=backend,
        address=address,
    )
    return result
