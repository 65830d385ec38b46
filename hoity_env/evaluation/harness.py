"""Play many seeded games between agents in duplicate format, in parallel if asked.

Every deal is played once per seat rotation with the same env seed, so the luck of the deal (cards,
lots, start player) cancels between agents.  Each chunk's records are summed into a
:class:`~hoity_env.evaluation.tally.Tally` and dropped, so memory does not grow with the games, and
specs are checked here first, so a bad name or checkpoint fails fast with one ``ConfigError``.
See docs/evaluation.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from hoity_env.agents.batch import can_act_in_batches
from hoity_env.engine.config import resolve_rules
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.registry import BATCHED_RULESETS
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.evaluation.chunks import agents_for, cap_workers, clear_agents, env_for, play_chunks
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.ray_backend import ray_session
from hoity_env.evaluation.reports.results import EvaluationResult
from hoity_env.evaluation.settings import MatchSettings, Rules, match_settings, positive_int
from hoity_env.evaluation.tally import Tally
from hoity_env.threads import limit_blas

__all__ = ["check_specs", "evaluate", "evaluate_tables", "play_tables", "rules_batchable", "tallies"]


def check_specs(specs: Sequence[str], num_players: int, rules: Rules) -> HoityParallelEnv:
    """Validate players, rules and every spec (building each once); return the env."""
    env = env_for(num_players, rules)
    if isinstance(specs, str):
        raise ConfigError("agent specs must be a list of strings, not one string")
    if len(specs) != num_players:
        raise ConfigError(f"{num_players} players need {num_players} agents, got {len(specs)}: {list(specs)}")
    agents_for(specs, env)
    return env


def rules_batchable(rules: Rules) -> bool:
    """Whether the batched engine plays these rules."""
    return resolve_rules(rules).ruleset in BATCHED_RULESETS


def tallies(
    tables: Sequence[Sequence[str]], settings: MatchSettings, *, desc: str = "", keep: bool | None = None
) -> list[Tally]:
    """Play ``settings.deals`` deals × every rotation at each table; one :class:`Tally` per table.

    Every table replays the same deals (deal ``d`` has the same env seed at every
    table), so any one table's games are exactly those of ``evaluate`` on it.
    ``settings.engine``: ``"batched"`` plays each chunk of deals as one batch on the
    batched engine (:mod:`hoity_env.evaluation.batched_match`, which says when its
    results equal the one-game path's), ``"one-game"`` game by game, ``"auto"``
    batched when every agent decides in batches (every built-in agent does).
    ``settings.backend``: ``"local"`` plays on ``workers`` processes here; ``"ray"``
    sends the same chunks to the Ray cluster at ``address`` (``None``: a local Ray
    instance, or the session this process already has), whose CPUs set the
    parallelism.  Both give identical records.  ``keep`` (default
    ``settings.records``) keeps every game's record in the tallies.
    """
    # Agents are cached for one call only: a checkpoint file rewritten between calls
    # (a training loop's latest.zip) must be loaded afresh, and old models freed.
    clear_agents()
    tables = [list(t) for t in tables]
    batchable = True
    for specs in tables:
        env = check_specs(specs, settings.num_players, settings.rules)
        batchable &= all(can_act_in_batches(a) for a in agents_for(specs, env))
    engine = settings.engine
    batched = engine == "batched" or (engine == "auto" and batchable and rules_batchable(settings.rules))
    keep = settings.records if keep is None else keep
    out = [Tally(settings.num_players, keep_records=keep) for _ in tables]

    def count(table: int, records: list[GameRecord]) -> None:
        out[table].add_all(records)

    with contextlib.ExitStack() as stack:  # a Ray session opened here is closed here
        stack.enter_context(limit_blas(settings.blas_threads))  # this process's games, if asked
        if settings.backend == "ray":
            workers = stack.enter_context(ray_session(settings.address))
        else:
            workers = cap_workers(settings.workers)
        play_chunks(tables, settings, workers, batched, count, desc=desc)
    return out


def play_tables(
    tables: Sequence[Sequence[str]],
    settings: MatchSettings | None = None,
    *,
    deals: int | None = None,
    desc: str = "",
    **options: Any,
) -> list[list[GameRecord]]:
    """Every game's record at each table, in order (see :func:`tallies`); memory grows with the games.

    ``deals`` (keyword) asks for whole deals instead of ``games``.
    """
    if deals is not None:
        players = options.get("num_players", settings.num_players if settings else 4)
        options["games"] = positive_int("deals", deals) * players
    chosen = match_settings(settings, options, "play_tables")
    return [list(t.records or ()) for t in tallies(tables, chosen, desc=desc, keep=True)]


def summarize(specs: Sequence[str], tally: Tally, settings: MatchSettings) -> EvaluationResult:
    """An :class:`EvaluationResult` from one table's tally."""
    return EvaluationResult(
        agents=tuple(specs),
        num_players=settings.num_players,
        rules=settings.rules_name,
        seed=settings.seed,
        deals=tally.games // settings.num_players,
        games=tally.games,
        truncated=tally.truncated,
        agent_stats=tally.agent_stats(order=specs),
        seat_stats=tally.seat_stats(),
        records=tuple(tally.records or ()),
    )


def evaluate_tables(
    tables: Sequence[Sequence[str]], settings: MatchSettings | None = None, *, desc: str = "", **options: Any
) -> tuple[EvaluationResult, ...]:
    """:func:`evaluate` for several tables at once (one worker pool, the same deals at each).

    ``desc`` labels the progress bar (shown only on a terminal).
    """
    chosen = match_settings(settings, options, "evaluate_tables")
    tables = [list(t) for t in tables]
    return tuple(
        summarize(t, tally, chosen)
        for t, tally in zip(tables, tallies(tables, chosen, desc=desc), strict=True)
    )


def evaluate(
    agent_specs: Sequence[str], settings: MatchSettings | None = None, **options: Any
) -> EvaluationResult:
    """Play at least ``games`` games between ``agent_specs`` (one per seat) in duplicate format.

    Deal ``d`` is played once per rotation ``r``, which puts entry ``i`` in seat ``(i + r) % k``;
    ``games`` is rounded up to whole deals of ``k`` games (the result says how many).
    ``agent_specs`` are :func:`hoity_env.agents.make` specs (``expert``, ``random``, ``ppo:PATH``…),
    repeats allowed.  How the games are played is ``settings`` (a
    :class:`~hoity_env.evaluation.settings.MatchSettings`) or its fields as keywords (given with
    ``settings``, they override it).  Raises ``ConfigError`` (a ``ValueError``) for unknown names,
    bad checkpoints or bad arguments.

    With ``workers > 1`` the pool uses ``spawn``, which re-imports the main module in each worker:
    call this under ``if __name__ == "__main__":`` in a script (as for SB3's ``SubprocVecEnv``;
    notebooks need nothing).  ``backend="ray"`` plays the same chunks on a Ray cluster
    (``address``), with identical results (see :func:`tallies`).
    """
    if isinstance(agent_specs, str):
        raise ConfigError("agent_specs must be a list of spec strings (one per seat), not one string")
    (result,) = evaluate_tables([agent_specs], match_settings(settings, options, "evaluate"))
    return result
