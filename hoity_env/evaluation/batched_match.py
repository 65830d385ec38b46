"""Many seeded games at once on the batched engine: the harness's fast path.

:func:`play_deals_batched` returns the same :class:`~hoity_env.evaluation.match.GameRecord` list, in the
same order, as the one-game path (:func:`~hoity_env.evaluation.match.play_game` per game), with
identical deals.  Agents that draw random numbers draw them from one generator per seat entry and chunk,
not per game, so their games agree with the one-game path's in distribution, not game by game.
See docs/evaluation.md (Engine) and docs/design.md §5.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from gymnasium.utils import seeding

from hoity_env.agents.base import Agent
from hoity_env.agents.batch import act_batch, plays_per_game, start_games
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.game import BatchedGame
from hoity_env.environment.batched import MAX_SEED
from hoity_env.evaluation.match import GameRecord, agent_seeds, deal_seed
from hoity_env.evaluation.stats import competition_ranks

__all__ = ["BATCH_GAMES", "play_deals_batched"]

BATCH_GAMES = 4096
"""Games stepped together at most (memory stays small: about 0.5 KiB of state per game)."""

_BATCH_STREAM = 2
"""``SeedSequence`` spawn key of the agents' seeds on the batched path (0: deals, 1: one-game agents)."""


def game_seed_of(env_seed: int) -> int:
    """The deal seed the parallel env draws in ``reset(seed=env_seed)`` (its first draw)."""
    rng, _ = seeding.np_random(env_seed)
    return int(rng.integers(0, MAX_SEED))


def play_deals_batched(
    specs: Sequence[str],
    entries: Sequence[Agent],
    *,
    num_players: int,
    rules: str | RulesConfig,
    seed: int,
    start: int,
    stop: int,
    on_games: Callable[[int], None] | None = None,
    batch_games: int = BATCH_GAMES,
) -> list[GameRecord]:
    """Deals ``start … stop-1`` × every rotation of one table, in the one-game path's order.

    ``entries[i]`` is the agent of seat entry ``i`` (labelled ``specs[i]``); rotation
    ``r`` puts entry ``i`` in seat ``(i + r) % num_players``.  Records equal the one-game
    path's for agents without randomness (``ppo:PATH``) and for agents with the game hooks
    (``population:PATH``, :mod:`hoity_env.agents.batch`), which are told each game's one-game
    seed and row, so a population draws the same member per game.  Illegal choices get the
    one-game env's ``fallback`` (the lowest legal action).
    """
    k = num_players
    batched = BatchedGame(rules, k)
    observer = batched.make_observer()
    deals_per_chunk = max(1, batch_games // k)
    out: list[GameRecord] = []
    for lo in range(start, stop, deals_per_chunk):
        hi = min(lo + deals_per_chunk, stop)
        deals = np.repeat(np.arange(lo, hi), k)
        rotations = np.tile(np.arange(k), hi - lo)
        env_seeds = [deal_seed(seed, d) for d in range(lo, hi)]
        state = batched.deal(np.repeat([game_seed_of(s) for s in env_seeds], k))
        for i, agent in enumerate(entries):
            ss = np.random.SeedSequence(seed, spawn_key=(_BATCH_STREAM, lo, i))
            agent.reset(int(ss.generate_state(1)[0]))
        seat_of = (np.arange(k)[None, :] + rotations[:, None]) % k  # [G, entry] → seat
        games = np.arange(len(deals))
        hooked = [i for i, agent in enumerate(entries) if plays_per_game(agent)]
        if hooked:  # each game seeded as the one-game path seeds the seat entry i sits in
            seeds = [agent_seeds(seed, int(d), int(r), k) for d, r in zip(deals, rotations, strict=True)]
            for i in hooked:
                start_games(entries[i], games, [seeds[j][int(seat_of[j, i])] for j in games])
        while not state.done.all():
            live = ~state.done
            masks = batched.action_masks(state)
            obs = observer.observations(state)
            joint = np.zeros((len(deals), k), dtype=np.int64)
            g = games[live]
            for i, agent in enumerate(entries):
                seat = seat_of[g, i]
                joint[g, seat] = act_batch(agent, obs[g, seat], masks[g, seat], checked=True, games=g)
            batched.step(state, batched.fallback_masks(masks, joint)[0], validate=False)
        keys = batched.rank_keys(state)
        for j in range(len(deals)):
            order = [(s - int(rotations[j])) % k for s in range(k)]  # entry sitting in each seat
            out.append(
                GameRecord(
                    deal=int(deals[j]),
                    rotation=int(rotations[j]),
                    env_seed=env_seeds[int(deals[j]) - lo],
                    agents=tuple(specs[e] for e in order),
                    winners=tuple(np.flatnonzero(state.winners[j]).tolist()),
                    ranks=tuple(competition_ranks(keys[j].tolist())),
                    positions=tuple(state.positions[j].tolist()),
                    rounds=int(state.round[j]),
                    truncated=not bool(state.terminated[j]),
                )
            )
        if on_games is not None:
            on_games(len(deals))
    return out
