"""``SingleAgentEnv`` (docs/design.md §4): Gymnasium/SB3 checkers, vector envs, seeding, arguments."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import hoity_env
from hoity_env.agents import make
from hoity_env.wrappers import SingleAgentEnv


def _episode(env: SingleAgentEnv, seed: int) -> list[tuple[bytes, float, bool, bool, int]]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, term, trunc, info = env.step(int(rng.choice(legal)))
        out.append((obs.tobytes(), reward, term, trunc, info["learner_seat"]))
        done = term or trunc
    return out


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gymnasium_check_env_passes() -> None:
    gym_check_env(SingleAgentEnv(), skip_render_check=True)
    gym_check_env(gymnasium.make(hoity_env.GYM_ID).unwrapped, skip_render_check=True)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_sb3_check_env_passes(num_players: int) -> None:
    sb3_check_env(SingleAgentEnv(num_players=num_players), warn=True)


def test_gymnasium_make_gives_the_wrapper_with_masks() -> None:
    env = gymnasium.make(hoity_env.GYM_ID, num_players=3, opponents="random")
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    mask = env.get_wrapper_attr("action_masks")()
    assert mask.dtype == bool and mask.any()
    assert np.array_equal(mask, info["action_mask"].astype(bool))


def test_whole_episodes_are_deterministic_under_a_seed() -> None:
    a, b = SingleAgentEnv(), SingleAgentEnv()
    assert _episode(a, 3) == _episode(b, 3)
    assert _episode(a, 3) != _episode(a, 4)


def test_learner_seat_rotates_or_stays_fixed() -> None:
    env = SingleAgentEnv(num_players=4)
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(40)}
    assert seats == {0, 1, 2, 3}
    fixed = SingleAgentEnv(num_players=4, learner_seat=2)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {2}


def test_opponents_fixed_or_drawn_from_the_pool() -> None:
    fixed = SingleAgentEnv(num_players=3, opponents=["thief", "expert"])
    fixed.reset(seed=0)
    assert [o.name for o in fixed.opponents] == ["thief", "expert"]
    pooled = SingleAgentEnv(num_players=4, opponent_pool=["thief", "collector"])
    names = set()
    for s in range(10):
        pooled.reset(seed=s)
        names.update(o.name for o in pooled.opponents)
    assert names == {"thief", "collector"}
    obj = make("detective", seed=1)
    same = SingleAgentEnv(num_players=4, opponents=obj)
    same.reset(seed=0)
    assert all(o is obj for o in same.opponents)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": ["thief"]}, "must list 3 agents"),
        ({"opponents": "nobody"}, "unknown agent"),
        ({"opponents": [1, 2, 3]}, "agent spec string or an Agent"),
        ({"learner_seat": 4}, "learner_seat"),
        ({"opponent_pool": []}, "opponent_pool"),
        ({"num_players": 9}, "num_players"),
        ({"reward": "money"}, "reward"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SingleAgentEnv(**kwargs)  # type: ignore[arg-type]


def test_action_masks_before_reset_is_a_clear_error() -> None:
    """Issue 37: it was ``KeyError: 'player_0'``."""
    env = SingleAgentEnv()
    with pytest.raises(ValueError, match=r"call reset\(\) before action_masks\(\)"):
        env.action_masks()
    env.reset(seed=0)
    assert env.action_masks().any()


def test_env_arguments_pass_through() -> None:
    env = SingleAgentEnv(num_players=3, reward="rank", max_cycles=4, render_mode="ansi")
    env.reset(seed=0)
    for _ in range(4):
        _, reward, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert trunc and not term and -1.0 <= reward <= 1.0
    assert "player_0" in str(env.render())


def test_masked_ppo_learns_under_dummy_and_subproc_vec_envs() -> None:
    for vec_cls in (DummyVecEnv, SubprocVecEnv):
        vec = vec_cls([lambda: SingleAgentEnv(opponents="random") for _ in range(2)])
        model = MaskablePPO(
            "MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0, policy_kwargs={"net_arch": [16]}
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.learn(total_timesteps=64)
        assert model.num_timesteps >= 64
        vec.close()


def test_the_pool_can_grow_between_episodes() -> None:
    env = SingleAgentEnv(num_players=4, opponent_pool=["thief"])
    env.reset(seed=0)
    assert {o.name for o in env.opponents} == {"thief"}
    env.set_opponent_pool(["expert"])
    env.reset(seed=1)
    assert {o.name for o in env.opponents} == {"expert"}
    with pytest.raises(ValueError, match="non-empty"):
        env.set_opponent_pool([])
    with pytest.raises(ValueError, match="fixed opponents"):
        SingleAgentEnv(opponents="random").set_opponent_pool(["expert"])
