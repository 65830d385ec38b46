"""``PolicyAgent``: a real (tiny) MaskablePPO checkpoint plays through the agent protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import sb3_contrib  # the train extra: README command 2 and .ci/run install it

import hoity_env
from hoity_env.agents import PolicyAgent, make


class _ShapeOnlyEnv(gym.Env[np.ndarray, np.int64]):
    """Spaces of a 4-player standard observation; just enough to build a MaskablePPO model."""

    def __init__(self, num_players: int = 4) -> None:
        env = hoity_env.parallel_env(num_players=num_players)
        self.observation_space = env.observation_space("player_0")["observation"]
        self.action_space = env.action_space("player_0")
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        self._mask[:2] = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        return np.zeros(self.observation_space.shape, dtype=np.float32), {}

    def step(self, action: Any) -> Any:
        return np.zeros(self.observation_space.shape, dtype=np.float32), 0.0, True, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask


def save_tiny_model(path: Path, *, learn: bool = False) -> Path:
    """A tiny four-player MaskablePPO model saved at ``path`` (after 16 learning steps with ``learn``)."""
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", _ShapeOnlyEnv(), n_steps=16, batch_size=16, policy_kwargs={"net_arch": [8]}, seed=0
    )
    if learn:
        model.learn(total_timesteps=16)
    model.save(str(path))
    return path


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_model(tmp_path_factory.mktemp("ckpt") / "tiny.zip", learn=True)


def test_policy_agent_plays_legal_moves_in_a_whole_game(checkpoint: Path) -> None:
    env = hoity_env.parallel_env(num_players=4, illegal_action="raise")
    agents = [
        make(f"ppo:{checkpoint}", seed=0, num_players=4),
        make("random", 1),
        make("expert", 2),
        make("thief", 3),
    ]
    obs, _ = env.reset(seed=0)
    while env.agents:
        actions = {}
        for i, name in enumerate(env.possible_agents):
            a = agents[i].act(obs[name]["observation"], obs[name]["action_mask"])
            assert obs[name]["action_mask"][a] == 1
            actions[name] = a
        obs, *_ = env.step(actions)
    assert env.game_state.done


def test_deterministic_policy_repeats_and_sampled_policy_is_seeded(checkpoint: Path) -> None:
    env = hoity_env.parallel_env(num_players=4)
    obs, _ = env.reset(seed=3)
    o, m = obs["player_0"]["observation"], obs["player_0"]["action_mask"]
    det = PolicyAgent(checkpoint)
    assert len({det.act(o, m) for _ in range(5)}) == 1
    first = [make(f"ppo-sample:{checkpoint}", seed=5).act(o, m) for _ in range(3)]
    assert first == [make(f"ppo-sample:{checkpoint}", seed=5).act(o, m) for _ in range(3)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"num_players": 3}, "trained for 4 players, not 3"), ({"num_actions": 99}, "56 actions")],
)
def test_checkpoint_for_another_game_is_refused(
    checkpoint: Path, kwargs: dict[str, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        make(f"ppo:{checkpoint}", **kwargs)


def test_deterministic_choice_is_the_models_own_prediction(checkpoint: Path) -> None:
    agent = PolicyAgent(checkpoint)
    trace_env = hoity_env.parallel_env(num_players=4)
    obs, _ = trace_env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(20):
        for name in trace_env.possible_agents:
            o, m = obs[name]["observation"], obs[name]["action_mask"]
            expected, _ = agent.model.predict(o, action_masks=m.astype(bool), deterministic=True)
            assert agent.act(o, m) == int(expected)
        obs, *_ = trace_env.step(
            {a: int(rng.choice(np.flatnonzero(x["action_mask"]))) for a, x in obs.items()}
        )
        if not trace_env.agents:
            break


def test_sampling_leaves_torch_and_numpy_global_generators_alone(checkpoint: Path) -> None:
    import torch

    env = hoity_env.parallel_env(num_players=4)
    obs, _ = env.reset(seed=2)
    before = (torch.random.get_rng_state().clone(), np.random.get_state()[1].copy())
    agent = make(f"ppo-sample:{checkpoint}", seed=3)
    agent.reset(4)
    agent.act(obs["player_0"]["observation"], obs["player_0"]["action_mask"])
    assert torch.equal(before[0], torch.random.get_rng_state())
    assert np.array_equal(before[1], np.random.get_state()[1])
