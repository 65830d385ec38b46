"""``HoityParallelEnv``: Hoity Toity as a PettingZoo ``ParallelEnv``.

A thin adapter: it checks and decodes actions, calls the engine, encodes observations and maps outcomes
to rewards; the rules live in :mod:`hoity_env.engine`, shared with the batched env.  See docs/environment.md.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from hoity_env.engine.actions import Phase
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError, IllegalActionError, StateError
from hoity_env.engine.events import Event
from hoity_env.engine.game import Game
from hoity_env.engine.inputs import check_finite, check_open, check_seed
from hoity_env.engine.state import GameState
from hoity_env.environment.codec import ActionCodec
from hoity_env.environment.joint_action import (
    ILLEGAL_ACTION_MODES,
    apply_illegal_policy,
    as_action_int,
    illegal_action_error,
    joint_of,
)
from hoity_env.environment.outputs import OutputFormat
from hoity_env.environment.positions import played_steps, position_option, read_position
from hoity_env.environment.render.standard import FRAME_SHAPE, board_image, check_drawable
from hoity_env.environment.render.text import render_text
from hoity_env.environment.rewards import REWARD_MODES, final_rewards, progress_shaping
from hoity_env.environment.snapshot import Snapshot, read_snapshot

RENDER_MODES = ["ansi", "human", "rgb_array"]


class HoityParallelEnv(ParallelEnv[str, Any, int]):  # type: ignore[misc]
    """Hoity Toity, all players acting simultaneously: every agent acts in every ``step()``, and a round
    takes two steps (location, then action).

    Spaces:

    * action: ``Discrete(N)`` for every agent (:mod:`hoity_env.environment.codec`; standard: 56);
    * observation: ``Dict(observation=Box(0, 1, (D,), float32), action_mask=Box(0, 1, (N,), int8))``
      (layout: :meth:`obs_layout`); ``action_mask``, ``observation_format`` and ``observation_keys``
      choose other forms (:mod:`hoity_env.environment.outputs`);
    * state: ``Box(0, 1, (S,), float32)`` for centralized critics.

    Rewards are 0 until the game ends, but for ``reward="progress"`` and the penalty of
    ``illegal_action="penalize"``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "hoity_toity_v0",
        "render_modes": RENDER_MODES,
        "is_parallelizable": True,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 4,
        rules: str | RulesConfig = "standard",
        reward: str = "win_loss",
        illegal_action: str = "fallback",
        max_cycles: int | None = None,
        render_mode: str | None = None,
        illegal_penalty: float = -1.0,
        action_mask: str | None = None,
        observation_format: str = "dict",
        info_events: bool = False,
        observation_keys: str = "pettingzoo",
    ) -> None:
        self.game = Game(rules, num_players)
        self.output_format = OutputFormat.from_args(
            action_mask, observation_format, info_events, observation_keys
        )
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        if render_mode == "rgb_array":
            check_drawable(self.game.rules)
        illegal_penalty = check_finite(illegal_penalty, "illegal_penalty")
        _check_max_cycles(max_cycles)
        self.num_players = self.game.num_players
        self.rules = self.game.rules
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.max_cycles = max_cycles  # plain attribute: parallel_api_test assigns it
        self.render_mode = render_mode

        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents: list[str] = []
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self.codec = ActionCodec(self.game.layout)
        self.observer = self.game.make_observer()
        n_act = self.codec.size
        self._action_space = spaces.Discrete(n_act)
        self._observation_space = self.output_format.observation_space(
            spaces.Box(0.0, 1.0, (self.observer.obs_dim,), np.float32), spaces.Box(0, 1, (n_act,), np.int8)
        )
        self.state_space = spaces.Box(0.0, 1.0, (self.observer.state_dim,), np.float32)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)

        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None
        self._state: GameState | None = None
        self._game_seed: int | None = None
        self._hand_made = False
        """The game started from a hand-made position (its snapshots say so: ``set_state``)."""
        self._cycles = 0
        self._events: list[Event] = []
        self._warned_illegal = False
        self._closed = False
        self._mask_lists: list[list[int]] = []
        """Each agent's mask this step, as lists (fast legality checks in ``_decode``)."""

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The (shared) observation space; ``agent`` must be one of ``possible_agents``."""
        self._check_agent_name(agent)
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The (shared) ``Discrete`` action space."""
        self._check_agent_name(agent)
        return self._action_space

    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of the ``"observation"`` vector (``playerK`` = K seats after the observer)."""
        return self.observer.obs_layout()

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of :meth:`state` (``seatK`` = absolute seat K)."""
        return self.observer.state_layout()

    # ---------------------------------------------------------------- reset
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Deal a new game from the env's generator (``seed``: a non-negative int), or start from a
        position set up by hand: ``options={"position": state_dict}``
        (:mod:`hoity_env.environment.positions`).  A bad seed, option or position changes nothing.
        """
        check_open(self._closed)
        _check_max_cycles(self.max_cycles)
        if seed is not None:
            seed = check_seed(seed)
        position = position_option(options)
        start = None if position is None else read_position(self.game, position, self.max_cycles)
        if seed is not None or self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        if start is None:
            game_seed: int | None = int(self._np_random.integers(0, 2**63 - 1))
            self._state = self.game.new_state(game_seed)
            self._cycles = 0
        else:
            game_seed, self._state, self._cycles = None, start, played_steps(start)
        self._game_seed = game_seed
        self._hand_made = start is not None
        self._events = []
        self.agents = list(self.possible_agents)
        obs, infos = self._outputs([], [False] * self.num_players, reuse=False)
        if self.render_mode == "human":
            self.render()
        return obs, infos

    # ----------------------------------------------------------------- step
    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, Any],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Apply every agent's action at once (one location or action step)."""
        check_open(self._closed)
        state = self._state
        if state is None:
            raise IllegalActionError("call reset() before step()")
        if not self.agents:
            if isinstance(actions, Mapping) and not actions:
                return {}, {}, {}, {}, {}
            raise IllegalActionError("the game is over: call reset() before sending more actions")
        joint, illegal = self._decode(state, actions)

        game = self.game
        before = list(state.positions) if self.reward_mode == "progress" else None
        was_location = state.phase is Phase.LOCATION
        events = game.step(state, joint, validate=False)
        self._cycles += 1
        self._events = events  # read-only records: shared safely with every agent's infos

        truncated = state.truncated or (self.max_cycles is not None and self._cycles >= self.max_cycles)
        done = state.terminated or truncated
        n = self.num_players
        rewards = [0.0] * n
        if done:
            rewards = final_rewards(self.reward_mode, game, state, decided=state.terminated)
        if before is not None and not was_location:
            rewards = [
                r + s
                for r, s in zip(rewards, progress_shaping(before, state.positions, state.rules), strict=True)
            ]
        if self.illegal_action == "penalize":
            rewards = [
                r + self.illegal_penalty if bad else r for r, bad in zip(rewards, illegal, strict=True)
            ]

        obs, infos = self._outputs(self._events, illegal, reuse=was_location and not done, final=done)
        agents = self.possible_agents
        rew = {a: float(rewards[i]) for i, a in enumerate(agents)}
        terms = dict.fromkeys(agents, bool(state.terminated))
        truncs = dict.fromkeys(agents, bool(truncated and not state.terminated))
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rew, terms, truncs, infos

    def check_action(self, agent: str, action: Any) -> int:
        """``agent``'s action as an int, checked as ``step`` would check it; changes nothing.  The AEC
        forms call it on each agent's own ``step``, so an error names the agent that sent it.
        """
        self._check_agent_name(agent)
        check_open(self._closed)
        state = self._state
        if state is None:
            raise IllegalActionError("call reset() before step()")
        if agent not in self.agents:
            raise IllegalActionError(f"{agent} is not playing: the game is over, call reset()")
        a = as_action_int(agent, action, self.codec.size)
        row = self._mask_lists[self._index[agent]]
        if self.illegal_action == "raise" and not row[a]:
            raise illegal_action_error(a, agent, self.codec, state.phase, row)
        return a

    def _decode(self, state: GameState, actions: Mapping[str, Any]) -> tuple[list[int], list[bool]]:
        """The checked joint action and its illegal flags, under the illegal-action policy."""
        joint = joint_of(actions, self._index, self.agents, self.codec.size)
        joint, illegal, warning = apply_illegal_policy(
            joint, self._mask_lists, self.possible_agents, self.codec, state.phase, self.illegal_action
        )
        if warning is not None and not self._warned_illegal:
            self._warned_illegal = True
            warnings.warn(warning, stacklevel=3)
        return joint, illegal

    def _outputs(
        self, events: list[Event], illegal: list[bool], *, reuse: bool, final: bool = False
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        state = self._state
        assert state is not None
        obs_rows = self.observer.observations(state, reuse=reuse)
        # The last observation of a game carries a location-step mask, never an empty one.
        game = self.game
        masks = game.location_masks(state) if final else game.legal_masks(state)  # a fresh array
        self._mask_lists = masks.tolist()
        fmt = self.output_format
        info_masks = (masks.copy() if fmt.mask_in_observation else masks) if fmt.mask_in_infos else None
        phase = int(state.phase)  # 0 = location step next, 1 = action step (as the batched env's)
        obs = {}
        infos: dict[str, dict[str, Any]] = {}
        for i, agent in enumerate(self.possible_agents):
            obs[agent] = fmt.observation(obs_rows[i], masks[i])
            info: dict[str, Any] = {"phase": phase, "illegal_action": illegal[i]}
            if info_masks is not None:
                info["action_mask"] = info_masks[i]
            if fmt.info_events:
                info["events"] = list(events)
            infos[agent] = info
        return obs, infos

    # ------------------------------------------------------------ extras
    def state(self) -> np.ndarray:
        """Global state vector (all hands included) for centralized critics."""
        if self._state is None:
            raise IllegalActionError("call reset() before state()")
        return self.observer.global_state(self._state)

    @property
    def game_state(self) -> GameState:
        """The engine state of the current game (read it; change it only through ``set_state``)."""
        if self._state is None:
            raise IllegalActionError("call reset() first")
        return self._state

    @property
    def last_events(self) -> list[dict[str, Any]]:
        """Public events of the last step (JSON-safe dicts)."""
        return [e.to_dict() for e in self._events]

    @property
    def game_seed(self) -> int | None:
        """The engine seed this game was dealt from (replays record it); ``None`` before ``reset``,
        after ``set_state`` and for a hand-made position.
        """
        return self._game_seed

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the public board as text; ``human``: print it; ``rgb_array``: the board picture,
        ``uint8`` of shape ``FRAME_SHAPE``.
        """
        if self.render_mode is None:
            warnings.warn(
                "render() called without render_mode; pass render_mode='ansi' or 'human'", stacklevel=2
            )
            return None
        if self.render_mode == "rgb_array":
            if self._state is None:
                return np.full(FRAME_SHAPE, 255, dtype=np.uint8)
            return board_image(self._state, self._events)
        if self._state is None:
            text = "(no game yet: call reset())"
        else:
            text = render_text(self._state, self._events)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """End the env: later ``reset``/``step`` calls raise (rendering opens no window to release)."""
        self._closed = True

    # ------------------------------------------------------- save / restore
    def get_state(self) -> dict[str, Any]:
        """JSON-safe snapshot: the engine's dict plus env bookkeeping."""
        if self._state is None:
            raise IllegalActionError("call reset() before get_state()")
        assert self._np_random is not None
        return Snapshot(
            self._state,
            list(self.agents),
            self._cycles,
            self._events,
            self._np_random,
            self._warned_illegal,
            self._hand_made,
        ).to_dict()

    def set_state(self, data: Any) -> None:
        """Restore a :meth:`get_state` snapshot: everything is checked and encoded first, so a bad one
        raises :class:`StateError` and leaves the env as it was.
        """
        snap = read_snapshot(self.game, data, self.max_cycles)
        state, agents = snap.state, snap.agents
        game = self.game
        try:  # the invariants make these safe; a failure here is still the state's fault
            masks = game.legal_masks(state) if agents else game.location_masks(state)
            render_text(state, snap.events)
            # Last: it also refreshes the encoder's per-round cache (only once it succeeded).
            self.observer.observations(state)
        except Exception as exc:  # pragma: no cover - guarded by the invariants
            raise StateError(f"env state cannot be encoded: {exc!r}") from exc
        self._state = state
        self._game_seed = None
        self.agents = list(agents)
        self._cycles = snap.cycles
        self._events = snap.events
        self._np_random = snap.np_random
        self._warned_illegal = snap.warned_illegal
        self._hand_made = snap.hand_made
        self._mask_lists = masks.tolist()

    def observe(self, agent: str) -> Any:
        """Current observation of ``agent`` (fresh arrays), in the env's output format."""
        self._check_agent_name(agent)
        if self._state is None:
            raise IllegalActionError("call reset() first")
        i = self._index[agent]
        row = self.observer.observations(self._state)[i]
        game = self.game
        masks = game.legal_masks(self._state) if self.agents else game.location_masks(self._state)
        return self.output_format.observation(row, masks[i])

    def _check_agent_name(self, agent: str) -> None:
        if agent not in self._index:
            raise IllegalActionError(f"unknown agent {agent!r}; agents are {self.possible_agents}")

    def __repr__(self) -> str:
        return (
            f"HoityParallelEnv(num_players={self.num_players}, rules={self.rules.name!r}, "
            f"reward={self.reward_mode!r}, illegal_action={self.illegal_action!r}, "
            f"action_mask={self.output_format.action_mask!r}, "
            f"observation_format={self.output_format.observation_format!r}, "
            f"observation_keys={self.output_format.observation_keys!r})"
        )


def _check_max_cycles(value: Any) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ConfigError(f"max_cycles must be None or an int >= 1 (step() calls), got {value!r}")
