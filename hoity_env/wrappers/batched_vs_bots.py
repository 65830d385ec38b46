"""One learner seat per game against batched bots, for N games at once (docs/design.md §4).

:class:`BatchedVsBots` is the batched twin of :class:`~hoity_env.wrappers.SingleAgentEnv` and the engine
room of the Gymnasium and SB3 vector envs (:mod:`hoity_env.wrappers.vector_env`,
:mod:`hoity_env.wrappers.sb3_vec_env`).  Every opponent decides for all its seats in all N games with one
``act_batch`` call, so a step costs a handful of array operations per agent, not a Python call per seat.
See docs/engine.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hoity_env.agents import Agent
from hoity_env.agents.batch import act_batch, plays_per_game, start_games
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import IllegalActionError
from hoity_env.engine.inputs import check_action_array, check_open, check_seed
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.wrappers.opponents import (
    DEFAULT_POOL,
    AgentLike,
    OpponentSeats,
    check_learner_seat,
)


class BatchedVsBots:
    """N games, one learner seat each, the other seats played by agents.

    ``reset(seed=s)`` seeds game slot k's deals with ``s + k`` (as the batched env does) and the
    wrapper's own generator (learner seats, opponents drawn from the pool, their seeds) with ``s``.

    Args:
        num_envs: number of games N.
        num_players, rules, reward, illegal_action, illegal_penalty, max_cycles: as for the
            parallel env (``illegal_action`` applies to the learner; bots only play legal moves).
        opponents: ``None`` (each seat drawn from ``opponent_pool`` every episode), one agent
            or spec for every opponent seat, or ``num_players - 1`` of them (seat order after
            the learner).
        opponent_pool: specs/agents to draw opponents from when ``opponents`` is None.
        learner_seat: a fixed seat, or ``None`` to draw the seat every episode.
    """

    def __init__(
        self,
        num_envs: int = 16,
        num_players: int = 4,
        rules: str | RulesConfig = "standard",
        opponents: AgentLike | Sequence[AgentLike] | None = None,
        opponent_pool: Sequence[AgentLike] = DEFAULT_POOL,
        learner_seat: int | None = None,
        reward: str = "win_loss",
        illegal_action: str = "fallback",
        illegal_penalty: float = -1.0,
        max_cycles: int | None = None,
    ) -> None:
        self.env = BatchedHoityEnv(
            num_envs=num_envs,
            num_players=num_players,
            rules=rules,
            reward=reward,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            max_cycles=max_cycles,
        )
        n = self.num_players = self.env.num_players
        self.num_envs = num_envs
        self.learner_seat = check_learner_seat(learner_seat, n)
        self._lineup = OpponentSeats(opponents, opponent_pool, n, self.env.num_actions, self.env.rules)
        self.rng = np.random.default_rng()
        self.seats = np.zeros(num_envs, dtype=np.intp)
        """Each game's learner seat this episode."""
        self.assignment = np.full((num_envs, n), -1, dtype=np.intp)
        """``[N, n]``: index into :attr:`agents` of the agent in each seat (-1: the learner)."""
        self._obs = np.zeros((num_envs, n, self.env.obs_dim), dtype=np.float32)
        self._masks = np.zeros((num_envs, n, self.env.num_actions), dtype=np.int8)
        self._rows = np.arange(num_envs)
        self._closed = False

    # ----------------------------------------------------------------- setup
    def set_opponent_pool(self, pool: Sequence[AgentLike]) -> None:
        """Replace the pool opponents are drawn from (each game draws anew when its next episode starts)."""
        self._lineup.set_pool(pool)

    @property
    def agents(self) -> list[Agent]:
        """The opponents :attr:`assignment` indexes: the fixed ones, or the pool."""
        return self._lineup.agents

    def _place(self, games: np.ndarray) -> None:
        """Draw the learner seat and the opponents of ``games`` (a new episode in each)."""
        n, k = self.num_players, len(games)
        seats = (
            np.full(k, self.learner_seat)
            if self.learner_seat is not None
            else self.rng.integers(0, n, size=k)
        )
        self.seats[games] = seats
        offset = (np.arange(n)[None, :] - seats[:, None]) % n  # 0 = learner, j = j-th seat after it
        if self._lineup.fixed is not None:
            chosen = np.broadcast_to(np.arange(n - 1), (k, n - 1))
        else:
            chosen = self.rng.integers(0, len(self._lineup.pool), size=(k, n - 1))
        self.assignment[games] = np.where(
            offset == 0, -1, np.take_along_axis(chosen, np.maximum(offset - 1, 0), axis=1)
        )
        for agent, indices in _by_object(self.agents):  # a population draws a member per seat it plays
            if plays_per_game(agent):
                g, s = np.nonzero(np.isin(self.assignment[games], indices))
                start_games(agent, games[g] * n + s)

    def close(self) -> None:
        """End the env: later ``reset``/``step`` calls raise."""
        self._closed = True
        self.env.close()

    # -------------------------------------------------------------------- API
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """New games in every slot: ``(observations [N, D], masks [N, A], infos)`` of the learners."""
        check_open(self._closed)
        if seed is not None:
            seed = check_seed(seed)
        self.rng = np.random.default_rng(seed)
        for agent in self.agents:
            agent.reset(int(self.rng.integers(2**62)))
        self._place(self._rows)
        self._obs, self._masks, infos = self.env.reset(seed=seed)
        out_infos = {
            "illegal_action": np.zeros(self.num_envs, dtype=bool),
            "learner_seat": self.seats.copy(),
            "phase": infos["phase"],
        }
        return self._learner(self._obs), self._learner(self._masks), out_infos

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learners' actions (``[N]``) with the bots' choices: one step of every game."""
        check_open(self._closed)
        if self.env._state is None:
            raise IllegalActionError("call reset() before step()")
        learner = check_action_array(actions, (self.num_envs,))
        joint = np.zeros((self.num_envs, self.num_players), dtype=np.int64)
        joint[self._rows, self.seats] = learner
        for agent, indices in _by_object(self.agents):
            # One call per agent object, even when it serves several seats: its rows in index
            # order, which draws what one call per index would (a generator fills a (B, K)
            # block as B successive rows).
            picked = [np.nonzero(self.assignment == i) for i in indices]
            g, s = (np.concatenate(parts) for parts in zip(*picked, strict=True))
            if g.size:
                joint[g, s] = act_batch(
                    agent, self._obs[g, s], self._masks[g, s], checked=True, games=g * self.num_players + s
                )
        obs, masks, rewards, terminated, truncated, infos = self.env.step(joint)
        played = self.seats.copy()  # the seats of this step's actions (a new episode may move them)
        out_infos: dict[str, Any] = {"illegal_action": infos["illegal_action"][self._rows, played]}
        seat_rewards = rewards[self._rows, played]
        if "_final" in infos:
            final = infos["_final"]
            out_infos["_final"] = final
            out_infos["final_observation"] = infos["final_observation"][self._rows, played]
            out_infos["final_action_mask"] = infos["final_action_mask"][self._rows, played]
            out_infos["final_learner_seat"] = played
            self._place(np.flatnonzero(final))
        out_infos["learner_seat"] = self.seats.copy()
        out_infos["phase"] = infos["phase"]
        self._obs, self._masks = obs, masks
        return self._learner(obs), self._learner(masks), seat_rewards, terminated, truncated, out_infos

    def _learner(self, per_seat: np.ndarray) -> np.ndarray:
        return per_seat[self._rows, self.seats]  # type: ignore[no-any-return]

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` bool: the learners' legal actions now (what ``MaskablePPO`` asks for)."""
        return self._learner(self._masks).astype(bool)


def _by_object(agents: Sequence[Agent]) -> list[tuple[Agent, list[int]]]:
    """Each distinct agent object with the indices it holds in ``agents`` (first-seen order)."""
    groups: dict[int, tuple[Agent, list[int]]] = {}
    for index, agent in enumerate(agents):
        groups.setdefault(id(agent), (agent, []))[1].append(index)
    return list(groups.values())


__all__ = ["DEFAULT_POOL", "BatchedVsBots"]
