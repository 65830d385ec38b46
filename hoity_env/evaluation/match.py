"""One seeded game between agent objects, summed up as a :class:`GameRecord`.

Every random choice comes from :func:`deal_seed` (the env's deal) and :func:`agent_seeds` (each seat's
agent), pure functions of the evaluation seed and the game's coordinates (deal, rotation, seat), so a
game does not depend on which worker played it nor on what it played before; global RNGs are never
touched.  See docs/design.md §5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hoity_env.agents.base import Agent
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.events import plain_fields
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.evaluation.stats import competition_ranks

__all__ = ["GameRecord", "agent_seeds", "check_seed", "deal_seed", "play_game"]

_DEAL_STREAM = 0
_AGENT_STREAM = 1


def check_seed(seed: Any) -> int:
    """An evaluation seed must be a non-negative int (``SeedSequence``'s entropy)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed must be an int >= 0, got {seed!r}")
    return int(seed)


def deal_seed(seed: int, deal: int) -> int:
    """The env seed of deal ``deal`` (a 63-bit int, as ``env.reset(seed=...)`` takes)."""
    ss = np.random.SeedSequence(seed, spawn_key=(_DEAL_STREAM, deal))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def agent_seeds(seed: int, deal: int, rotation: int, num_players: int) -> list[int]:
    """One seed per seat for the agents' ``reset(seed)`` in one game (32-bit ints).

    They include the rotation: otherwise copies of ``random`` would replay the very same game
    in every rotation, and the report would count one game ``num_players`` times.
    """
    return [
        int(
            np.random.SeedSequence(seed, spawn_key=(_AGENT_STREAM, deal, rotation, seat)).generate_state(1)[0]
        )
        for seat in range(num_players)
    ]


@dataclass(frozen=True)
class GameRecord:
    """What an evaluation keeps of one game; seats are 0-based (``player_<seat>``).

    ``ranks``: 1 is best, by the end-of-game order (track position, then the RULES
    S-7 tie-break), ties sharing the better rank; truncated games are ranked too.
    ``winners`` is empty for a truncated game (no winner, as in the env's rewards).
    """

    deal: int
    rotation: int
    env_seed: int
    agents: tuple[str, ...]
    winners: tuple[int, ...]
    ranks: tuple[int, ...]
    positions: tuple[int, ...]
    rounds: int
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (tuples become lists)."""
        return plain_fields(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(
                deal=int(data["deal"]),
                rotation=int(data["rotation"]),
                env_seed=int(data["env_seed"]),
                agents=tuple(str(a) for a in data["agents"]),
                winners=tuple(int(w) for w in data["winners"]),
                ranks=tuple(int(r) for r in data["ranks"]),
                positions=tuple(int(p) for p in data["positions"]),
                rounds=int(data["rounds"]),
                truncated=bool(data["truncated"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed game record {data!r}: {exc}") from exc


def play_game(
    env: HoityParallelEnv,
    agents: Sequence[Agent],
    *,
    env_seed: int,
    seeds: Sequence[int | None] | None = None,
    names: Sequence[str] | None = None,
    deal: int = 0,
    rotation: int = 0,
) -> GameRecord:
    """Play one game: ``agents[s]`` plays seat ``s``; reset each with ``seeds[s]`` first.

    ``names`` label the seats in the record (default: each agent's ``name``); the
    harness passes the spec strings, which tell ``ppo:X`` from ``ppo-sample:X``.
    """
    n = env.num_players
    if len(agents) != n:
        raise ConfigError(f"{n} players need {n} agents, got {len(agents)}")
    labels = tuple(names) if names is not None else tuple(a.name for a in agents)
    if len(labels) != n:
        raise ConfigError(f"{n} players need {n} names, got {len(labels)}")
    for agent, s in zip(agents, seeds if seeds is not None else [None] * n, strict=True):
        agent.reset(s)
    seats = list(zip(env.possible_agents, agents, strict=True))
    obs, _ = env.reset(seed=env_seed)
    # The hot loop of every evaluation: nothing in it but the agents and the env.
    while env.agents:
        actions = {a: agent.act(obs[a]["observation"], obs[a]["action_mask"]) for a, agent in seats}
        obs = env.step(actions)[0]
    state = env.game_state
    return GameRecord(
        deal=deal,
        rotation=rotation,
        env_seed=env_seed,
        agents=labels,
        winners=tuple(state.winners),
        ranks=tuple(competition_ranks(env.game.rank_keys(state))),
        positions=tuple(state.positions),
        rounds=state.round,
        truncated=not state.terminated,
    )
