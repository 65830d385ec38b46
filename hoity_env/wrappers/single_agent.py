"""``SingleAgentEnv``: one learner seat as a Gymnasium env, the other seats played by agents.

This is the view single-agent RL libraries need (docs/design.md §4): a flat ``Box``
observation, a ``Discrete`` action space and ``action_masks()`` for
sb3-contrib's ``MaskablePPO``.  Opponents are agents (objects, names or
checkpoint specs, see :func:`hoity_env.agents.make`); every random choice of the
wrapper (deal, learner seat, opponents' seeds, opponents drawn from a pool) comes
from the generator seeded in ``reset(seed=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hoity_env.agents import Agent
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import IllegalActionError
from hoity_env.engine.inputs import check_seed
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.wrappers.opponents import (
    DEFAULT_POOL,
    AgentLike,
    OpponentSeats,
    check_learner_seat,
)


class SingleAgentEnv(gym.Env[np.ndarray, np.int64]):
    """A learner seat against agents; see the module docstring.

    Args:
        num_players: 2-6.
        rules: preset name or ``RulesConfig``.
        opponents: ``None`` (each seat drawn from ``opponent_pool`` every episode), one
            agent or spec for every opponent seat, or a sequence of ``num_players - 1``
            of them (seat order after the learner).
        opponent_pool: specs/agents to draw opponents from when ``opponents`` is None.
        learner_seat: a fixed seat, or ``None`` to draw the seat every episode.
        reward, illegal_action, illegal_penalty, max_cycles, render_mode: as for the
            parallel env.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}  # noqa: RUF012  # gym.Env declares it

    def __init__(
        self,
        num_players: int = 4,
        rules: str | RulesConfig = "standard",
        opponents: AgentLike | Sequence[AgentLike] | None = None,
        opponent_pool: Sequence[AgentLike] = DEFAULT_POOL,
        learner_seat: int | None = None,
        reward: str = "win_loss",
        illegal_action: str = "fallback",
        illegal_penalty: float = -1.0,
        max_cycles: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.env = HoityParallelEnv(
            num_players=num_players,
            rules=rules,
            reward=reward,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            max_cycles=max_cycles,
            render_mode=render_mode,
            # The opponents read the mask beside their observation; the learner's info
            # carries it too, where Gymnasium users of a flat Box look for it.
            action_mask="both",
        )
        n = self.env.num_players
        self.num_players = n
        self.render_mode = render_mode
        self.learner_seat = check_learner_seat(learner_seat, n)
        self._lineup = OpponentSeats(opponents, opponent_pool, n, self.env.codec.size, self.env.rules)
        obs_space = self.env.observation_space("player_0")
        assert isinstance(obs_space, spaces.Dict)
        self.observation_space = obs_space["observation"]
        self.action_space = self.env.action_space("player_0")
        self._seat = 0
        self._opponents: list[Agent] = []
        self._obs: dict[str, dict[str, np.ndarray]] = {}

    # ----------------------------------------------------------------- setup
    def set_opponent_pool(self, pool: Sequence[AgentLike]) -> None:
        """Replace the pool opponents are drawn from (from the next episode on).

        Self-play grows its league this way, also inside ``SubprocVecEnv`` workers
        (``vec_env.env_method("set_opponent_pool", specs)``).
        """
        self._lineup.set_pool(pool)

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._seat

    @property
    def opponents(self) -> list[Agent]:
        """The agents in the other seats this episode, in seat order after the learner."""
        return list(self._opponents)

    # -------------------------------------------------------------- gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game, place the learner and (re)seed the opponents."""
        if seed is not None:
            seed = check_seed(seed)  # ours, not gymnasium's error: a ValueError like every input error
        super().reset(seed=seed)
        rng = self.np_random
        n = self.num_players
        self._seat = self.learner_seat if self.learner_seat is not None else int(rng.integers(n))
        fixed, pool = self._lineup.fixed, self._lineup.pool
        if fixed is not None:
            self._opponents = fixed
        else:
            self._opponents = [pool[int(rng.integers(len(pool)))] for _ in range(n - 1)]
        for agent in self._opponents:
            agent.reset(int(rng.integers(2**62)))
        self._obs, infos = self.env.reset(seed=int(rng.integers(2**62)))
        return self._learner_view(infos)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action together with the opponents' choices (one env step)."""
        learner = self.env.possible_agents[self._seat]
        actions = {learner: action}
        for k, agent in enumerate(self._opponents, start=1):
            name = self.env.possible_agents[(self._seat + k) % self.num_players]
            o = self._obs[name]
            actions[name] = agent.act(o["observation"], o["action_mask"])
        self._obs, rewards, terms, truncs, infos = self.env.step(actions)
        obs, info = self._learner_view(infos)
        return obs, rewards[learner], terms[learner], truncs[learner], info

    def _learner_view(self, infos: dict[str, dict[str, Any]]) -> tuple[np.ndarray, dict[str, Any]]:
        learner = self.env.possible_agents[self._seat]
        info = dict(infos[learner])
        info["learner_seat"] = self._seat
        return self._obs[learner]["observation"], info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, as booleans (what ``MaskablePPO`` asks for)."""
        if not self._obs:
            raise IllegalActionError("call reset() before action_masks(): there is no game yet")
        mask: np.ndarray = self._obs[self.env.possible_agents[self._seat]]["action_mask"].astype(bool)
        return mask

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The parallel env's render (public information only; a board picture for ``rgb_array``)."""
        return self.env.render()

    def close(self) -> None:
        """Close the parallel env: later ``reset``/``step`` calls raise."""
        self.env.close()
