"""Who plays the seats a learner does not: agent specs and objects, fixed or drawn from a pool.

Shared by the one-game single-agent view (:class:`~hoity_env.wrappers.SingleAgentEnv`)
and its batched twin (:class:`~hoity_env.wrappers.batched_vs_bots.BatchedVsBots`), so
both read ``opponents=``, ``opponent_pool=`` and ``learner_seat=`` the same way, and
both hold an :class:`OpponentSeats` for the fixed-or-pool choice and its rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from hoity_env.agents import Agent, make
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError

DEFAULT_POOL = ("collector", "thief", "detective", "expert")
"""Opponent styles drawn for each seat every episode when no opponents are given."""

AgentLike = str | Agent
Rules = str | RulesConfig


def build_agent(spec: AgentLike, num_players: int, num_actions: int, rules: Rules | None = None) -> Agent:
    """An agent from a spec string (for the game's table, checked against it), or the agent object itself."""
    if isinstance(spec, str):
        return make(spec, num_players=num_players, rules=rules, num_actions=num_actions)
    if not isinstance(spec, Agent):
        raise ConfigError(f"an opponent must be an agent spec string or an Agent, got {spec!r}")
    return spec


def fixed_opponents(
    opponents: AgentLike | Sequence[AgentLike] | None,
    num_players: int,
    num_actions: int,
    rules: Rules | None = None,
) -> list[Agent] | None:
    """``num_players - 1`` agents in seat order after the learner, or ``None`` (use a pool).

    One spec or agent stands for every opponent seat.  A spec gives one object per seat
    (each with its own generator); an agent object given once serves every seat.
    """
    if opponents is None:
        return None
    k = num_players - 1
    specs: list[AgentLike] = [opponents] * k if isinstance(opponents, (str, Agent)) else list(opponents)
    if len(specs) != k:
        raise ConfigError(f"opponents must list {k} agents for {num_players} players, got {len(specs)}")
    return [build_agent(s, num_players, num_actions, rules) for s in specs]


def opponent_pool(
    pool: Sequence[AgentLike], num_players: int, num_actions: int, rules: Rules | None = None
) -> list[Agent]:
    """The agents opponents are drawn from (a non-empty sequence of specs or agents)."""
    if isinstance(pool, str) or not pool:
        raise ConfigError("opponent_pool must be a non-empty sequence of agents or specs")
    return [build_agent(o, num_players, num_actions, rules) for o in pool]


def check_learner_seat(seat: object, num_players: int) -> int | None:
    """``None`` (drawn every episode) or a seat in ``[0, num_players)``."""
    if seat is not None and (
        not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < num_players
    ):
        raise ConfigError(f"learner_seat must be None or an int in [0, {num_players}), got {seat!r}")
    return seat  # type: ignore[return-value]


class OpponentSeats:
    """The opponents of a learner wrapper: fixed agents, or a pool they are drawn from.

    Both learner wrappers hold one, so the rules of the choice live here once: fixed
    opponents exclude a pool (and refuse a later one), a pool can be replaced between
    episodes (self-play grows its league this way).  How opponents are *drawn* from
    the pool stays in each wrapper: one game draws seat by seat, the batched view
    draws an array for many games, and each keeps its own generator stream.  The
    learner seat is not held here: it stays each wrapper's public ``learner_seat``
    attribute, checked by :func:`check_learner_seat`.

    Args:
        opponents: as ``opponents=`` of the wrappers (``None``: use ``pool``).
        pool: the specs/agents to draw from when ``opponents`` is None (else unused).
        num_players, num_actions: the game's sizes, which every agent is checked against.
        rules: the game's rules (named agents load their file for the table).
    """

    def __init__(
        self,
        opponents: AgentLike | Sequence[AgentLike] | None,
        pool: Sequence[AgentLike],
        num_players: int,
        num_actions: int,
        rules: Rules | None = None,
    ) -> None:
        self.num_players = num_players
        self.num_actions = num_actions
        self.rules = rules
        self.fixed = fixed_opponents(opponents, num_players, num_actions, rules)
        """The ``num_players - 1`` fixed opponents in seat order after the learner, or ``None``."""
        self.pool: list[Agent] = []
        """The agents opponents are drawn from (empty when they are fixed)."""
        if self.fixed is None:
            self.set_pool(pool)

    def set_pool(self, pool: Sequence[AgentLike]) -> None:
        """Replace the pool; refused when the opponents are fixed (there is nothing to draw)."""
        if self.fixed is not None:
            raise ConfigError("this env has fixed opponents; create it with opponents=None to use a pool")
        self.pool = opponent_pool(pool, self.num_players, self.num_actions, self.rules)

    @property
    def agents(self) -> list[Agent]:
        """Every opponent agent object in play: the fixed ones, or the pool."""
        return self.fixed if self.fixed is not None else self.pool


__all__ = [
    "DEFAULT_POOL",
    "AgentLike",
    "OpponentSeats",
    "build_agent",
    "check_learner_seat",
    "fixed_opponents",
    "opponent_pool",
]
