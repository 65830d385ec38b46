"""Replays of chosen evaluation games (``hoity-eval --out DIR --save-replays N``).

The first games of the evaluation are played again on the one-game path from their own seeds in a
:class:`~hoity_env.replays.RecordingEnv`.  With ``--engine one-game``, or agents without randomness,
they are the very games counted; on the batched engine, agents that draw random numbers play other
games from the same deals and seats (:mod:`hoity_env.evaluation.batched_match`).  See docs/play.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.chunks import agents_for
from hoity_env.evaluation.harness import check_specs
from hoity_env.evaluation.match import agent_seeds, check_seed, deal_seed, play_game
from hoity_env.evaluation.settings import Rules
from hoity_env.replays.recorder import RecordingEnv

__all__ = ["save_replays"]


def save_replays(
    specs: Sequence[str], *, num_players: int, rules: Rules, seed: int, count: int, folder: Path
) -> list[Path]:
    """Write replays of the evaluation's first ``count`` games into ``folder`` (created); return the paths.

    Games go in the evaluation's order (deal 0 in every seat rotation, then deal 1, …), each as
    ``game-<deal>-<rotation>.jsonl``; its header's ``meta`` records the deal, rotation, seeds and
    outcome.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ConfigError(f"the number of replays must be an int >= 1, got {count!r}")
    seed = check_seed(seed)
    check_specs(specs, num_players, rules)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    k = num_players
    for game in range(count):
        d, r = divmod(game, k)
        order = [(s - r) % k for s in range(k)]  # entry i sits in seat (i + r) % k, as in the harness
        names = [specs[e] for e in order]
        seeds = agent_seeds(seed, d, r, k)
        env = RecordingEnv(
            num_players=k,
            rules=rules,
            agent_names=names,
            meta={"source": "hoity-eval", "seed": seed, "deal": d, "rotation": r, "agent_seeds": seeds},
        )
        entries = agents_for(specs, env)
        record = play_game(
            env,
            [entries[e] for e in order],
            env_seed=deal_seed(seed, d),
            seeds=seeds,
            names=names,
            deal=d,
            rotation=r,
        )
        env.replay.meta["env_seed"] = record.env_seed
        env.replay.meta["ranks"] = list(record.ranks)
        paths.append(env.save_replay(folder / f"game-{d}-{r}.jsonl"))
    return paths
