"""The Gymnasium VectorEnv and the SB3 VecEnvs over the batched engine (docs/design.md §4).

They are views of :class:`BatchedHoityEnv`, whose every step the differential tests
check against the one-game env; here we check the views: shapes and dtypes,
masks as sb3-contrib reads them, same-step autoreset with final observations,
seeding, the learner seat's rows, parameter sharing's layout, and that
MaskablePPO trains on both SB3 forms.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import hoity_env
from hoity_env.agents import make
from hoity_env.engine.errors import ConfigError, IllegalActionError
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.wrappers.batched_vs_bots import BatchedVsBots
from hoity_env.wrappers.vector_env import HoityVsBotsVectorEnv


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(masks.shape)
    return np.argmax(np.where(masks.astype(bool), u, -1.0), axis=-1)


def test_make_vec_builds_the_batched_vector_env() -> None:
    env = gymnasium.make_vec(hoity_env.GYM_ID, num_envs=5, vectorization_mode="vector_entry_point")
    assert isinstance(env.unwrapped, HoityVsBotsVectorEnv)
    obs, infos = env.reset(seed=0)
    assert obs.shape == (5, 117) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert infos["action_mask"].shape == (5, 56) and infos["action_mask"].dtype == np.int8
    assert np.array_equal(env.unwrapped.action_masks(), infos["action_mask"].astype(bool))
    env.close()


def test_vector_env_same_step_autoreset_keeps_final_observations() -> None:
    env = HoityVsBotsVectorEnv(num_envs=6, num_players=3, opponents="random")
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=1)
    ended = 0
    for _ in range(400):
        obs, rewards, terminated, truncated, infos = env.step(_random_legal(infos["action_mask"], rng))
        assert rewards.dtype == np.float32 and terminated.dtype == bool and truncated.dtype == bool
        done = terminated | truncated
        if done.any():
            assert np.array_equal(infos["_final_obs"], done)
            # The returned row is a fresh game's first observation: round 0, location step.
            layout = env.core.env.obs_layout()
            assert np.all(obs[done][:, layout["round"]] == 0)
            assert np.all(obs[done][:, layout["phase"]][:, 0] == 1)
            assert not np.array_equal(infos["final_obs"][done], obs[done])
            # win_loss rewards at the end of a decided three-player game: +1 or -1/2.
            for r, t in zip(rewards[done], terminated[done], strict=True):
                assert (r in (1.0, -0.5, 0.5, -1.0)) if t else r == 0.0
            ended += int(done.sum())
        else:
            assert "final_obs" not in infos and np.all(rewards == 0)
    assert ended >= 6


def test_vector_env_is_deterministic_under_a_seed() -> None:
    def rollout() -> list[np.ndarray]:
        env = HoityVsBotsVectorEnv(num_envs=4)
        rng = np.random.default_rng(5)
        obs, infos = env.reset(seed=11)
        out = [obs]
        for _ in range(120):
            obs, rewards, *_, infos = env.step(_random_legal(infos["action_mask"], rng))
            out += [obs, rewards, infos["learner_seat"]]
        return out

    assert all(np.array_equal(a, b) for a, b in zip(rollout(), rollout(), strict=True))


def test_vector_env_refuses_a_render_mode() -> None:
    with pytest.raises(ConfigError, match="render"):
        HoityVsBotsVectorEnv(num_envs=2, render_mode="rgb_array")


def test_learner_rows_are_the_batched_env_rows_of_the_learner_seat() -> None:
    core = BatchedVsBots(num_envs=8, num_players=4, opponents="random")
    obs, masks, infos = core.reset(seed=3)
    twin = BatchedHoityEnv(num_envs=8, num_players=4)
    all_obs, all_masks, _ = twin.reset(seed=3)
    rows = np.arange(8)
    assert np.array_equal(obs, all_obs[rows, infos["learner_seat"]])
    assert np.array_equal(masks, all_masks[rows, infos["learner_seat"]])


def test_fixed_learner_seat_and_opponent_placement() -> None:
    core = BatchedVsBots(num_envs=4, num_players=5, learner_seat=2, opponents=["random", "thief"] * 2)
    core.reset(seed=0)
    assert np.all(core.seats == 2)
    # Opponents sit in seat order after the learner: seat 3 gets the first, seat 1 the last.
    assert np.all(core.assignment[:, 2] == -1)
    assert np.all(core.assignment[:, 3] == 0) and np.all(core.assignment[:, 1] == 3)


def test_pool_opponents_are_drawn_per_game() -> None:
    core = BatchedVsBots(num_envs=64, num_players=4, opponent_pool=["random", "thief", "detective"])
    core.reset(seed=0)
    drawn = core.assignment[core.assignment >= 0]
    assert set(drawn.tolist()) == {0, 1, 2}
    assert len(set(core.seats.tolist())) == 4  # the learner seat is drawn too


def test_the_pool_can_be_replaced_and_fixed_opponents_refuse_one() -> None:
    core = BatchedVsBots(num_envs=8, num_players=3, opponent_pool=["thief"])
    assert [a.name for a in core.agents] == ["thief"]
    core.set_opponent_pool(["random", "expert"])
    core.reset(seed=0)
    assert [a.name for a in core.agents] == ["random", "expert"]
    assert set(core.assignment[core.assignment >= 0].tolist()) <= {0, 1}
    with pytest.raises(ConfigError, match="non-empty"):
        core.set_opponent_pool([])
    fixed = BatchedVsBots(num_envs=2, num_players=3, opponents="random")
    with pytest.raises(ConfigError, match="fixed opponents; create it with opponents=None"):
        fixed.set_opponent_pool(["expert"])
    assert [a.name for a in fixed.agents] == ["random", "random"]


def test_bad_arguments_and_actions_raise_clear_errors() -> None:
    with pytest.raises(ConfigError, match="learner_seat"):
        BatchedVsBots(num_envs=2, learner_seat=7)
    with pytest.raises(ConfigError, match="opponents must list"):
        BatchedVsBots(num_envs=2, opponents=["random"])
    with pytest.raises(ConfigError, match="unknown agent"):
        BatchedVsBots(num_envs=2, opponents="expret")
    core = BatchedVsBots(num_envs=3)
    with pytest.raises(IllegalActionError, match="reset"):
        core.step(np.zeros(3, dtype=np.int64))
    core.reset(seed=0)
    with pytest.raises(IllegalActionError, match="shape"):
        core.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="integer"):
        core.step(np.zeros(3))


def test_an_agent_object_without_act_batch_still_plays() -> None:
    class RowByRow:
        name = "row"

        def __init__(self) -> None:
            self.inner = make("random", seed=0, num_players=2)
            self.calls = 0

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            self.calls += 1
            return self.inner.act(observation, action_mask)

        def reset(self, seed: int | None = None) -> None:
            self.inner.reset(seed)

    agent = RowByRow()
    core = BatchedVsBots(num_envs=2, num_players=2, opponents=agent)
    _obs, masks, _ = core.reset(seed=0)
    core.step(np.argmax(masks, axis=1))
    assert agent.calls == 2


def test_one_agent_object_decides_all_its_seats_in_one_call() -> None:
    """An agent object serving every opponent seat gets one batched call per step, with the
    rows in seat-index order, so it decides exactly what one call per seat would have."""

    class Counting:
        name = "counting"

        def __init__(self, seed: int) -> None:
            self.inner = make("expert", seed=seed)
            self.batches: list[int] = []

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            raise AssertionError("the batched view calls act_batch")

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            self.batches.append(len(observations))
            return self.inner.act_batch(observations, masks)

        def reset(self, seed: int | None = None) -> None:
            pass

    shared = Counting(seed=1)
    core = BatchedVsBots(num_envs=8, num_players=4, opponents=shared, learner_seat=0)
    _obs, masks, _ = core.reset(seed=0)
    rng = np.random.default_rng(0)
    twin = make("expert", seed=1)
    for _ in range(6):
        seat_rows = [(core._obs[:, i].copy(), core._masks[:, i].copy()) for i in (1, 2, 3)]
        expected = [twin.act_batch(o, m) for o, m in seat_rows]  # one call per seat, in order
        legal = np.where(masks == 1, rng.random(masks.shape), -1.0).argmax(axis=1)
        location_step = not core.env._state.phase.any()
        before = len(shared.batches)
        _obs, masks, *_ = core.step(legal)
        assert shared.batches[before:] == [24]  # 3 seats x 8 games, one call
        state = core.env._state
        played = state.locations[:, 1:] if location_step else state.last_actions[:, 1:]
        assert np.array_equal(played, np.stack(expected, axis=1))
    assert len(shared.batches) == 6


# ------------------------------------------------------------------ SB3
sb3 = pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")


def test_sb3_vs_bots_vec_env_follows_sb3_conventions() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

    env = HoityVsBotsSB3VecEnv(num_envs=4, num_players=2, opponents="random")
    assert is_masking_supported(env)
    env.seed(7)
    obs = env.reset()
    assert obs.shape == (4, 69)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        masks = get_action_masks(env)
        assert masks.shape == (4, 56) and masks.dtype == bool
        obs, _rewards, dones, infos = env.step(_random_legal(masks, rng))
        assert isinstance(infos, list) and len(infos) == 4
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (69,)
            assert infos[i]["TimeLimit.truncated"] is False
            finished += 1
    assert finished >= 4
    # seed() then reset() replays the same deals.
    env.seed(7)
    again = env.reset()
    env.seed(7)
    assert np.array_equal(again, env.reset())
    # Self-play grows its league through env_method, as with one-game envs in SubprocVecEnv.
    pooled = HoityVsBotsSB3VecEnv(num_envs=4, num_players=2)
    pooled.env_method("set_opponent_pool", ["random", "thief"])
    assert [a.name for a in pooled.core.agents] == ["random", "thief"]


def test_sb3_shared_vec_env_lays_out_every_seat_of_every_game() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks

    from hoity_env.wrappers.sb3_vec_env import HoitySharedSB3VecEnv

    env = HoitySharedSB3VecEnv(num_games=3, num_players=4)
    env.seed(2)
    obs = env.reset()
    twin = BatchedHoityEnv(num_envs=3, num_players=4)
    per_seat, masks, _ = twin.reset(seed=2)
    assert np.array_equal(obs, per_seat.reshape(12, -1))
    assert np.array_equal(get_action_masks(env), masks.reshape(12, -1).astype(bool))
    rng = np.random.default_rng(1)
    for _ in range(200):
        acts = _random_legal(get_action_masks(env), rng)
        obs, rewards, dones, infos = env.step(acts)
        p_obs, _p_masks, p_rewards, term, trunc, p_infos = twin.step(acts.reshape(3, 4))
        assert np.array_equal(obs, p_obs.reshape(12, -1))
        assert np.array_equal(rewards, p_rewards.reshape(-1))
        assert np.array_equal(dones, np.repeat(term | trunc, 4))
        for i in np.flatnonzero(dones):
            assert np.array_equal(
                infos[i]["terminal_observation"], p_infos["final_observation"][i // 4, i % 4]
            )
        # Zero-sum: a finished game's four seats' rewards add up to 0 under win_loss.
        ended = term | trunc
        assert np.allclose(rewards.reshape(3, 4)[ended].sum(axis=1), 0.0, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["vs_bots", "shared"])
def test_maskable_ppo_trains_on_the_batched_vec_envs(form: str) -> None:
    from sb3_contrib import MaskablePPO

    from hoity_env.wrappers.sb3_vec_env import HoitySharedSB3VecEnv, HoityVsBotsSB3VecEnv

    env = (
        HoityVsBotsSB3VecEnv(num_envs=4, num_players=3)
        if form == "vs_bots"
        else HoitySharedSB3VecEnv(num_games=2, num_players=3)
    )
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert np.all(env.action_masks()[np.arange(env.num_envs), actions])
