"""What is built on the batched engine, under the ``original`` ruleset (RULES O-*).

* the scripted agents deciding a whole batch of original games on the batched
  observations choose what twin agents (same seeds) choose game by game on the
  one-game engine's observations, and the games stay equal;
* the harness (``engine="auto"`` is batched for original rules now) gives identical
  records on both engines for a deterministic agent, and ``auto`` equals ``batched``;
* the Gymnasium vector env and the SB3 VecEnvs accept ``rules="original"``
  (``BatchedHoityEnv`` itself is compared with ``parallel_env`` in tests/environment/test_batched_env.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hoity_env.agents import make
from hoity_env.engine import BatchedGame, Game
from hoity_env.evaluation.harness import play_tables, rules_batchable

SCRIPTED = ["random", "collector", "thief", "detective", "expert"]


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_scripted_batch_decisions_equal_one_game_decisions(num_players: int) -> None:  # O-*, C-5
    """Seat ``p`` of every game is played by agent ``SCRIPTED[p % 5]``: one agent deciding all its
    seats' rows at once (batched) against a twin with the same seed deciding the same rows one
    by one, in the same order, on the one-game observations."""
    games = 8
    game, batched = Game("original", num_players), BatchedGame("original", num_players)
    scalar_obs, observer = game.make_observer(), batched.make_observer()
    names = [SCRIPTED[p % len(SCRIPTED)] for p in range(num_players)]
    group = {name: [p for p in range(num_players) if names[p] == name] for name in set(names)}
    batch_agents = {name: make(name, seed=11, num_players=num_players, rules="original") for name in group}
    twins = {name: make(name, seed=11, num_players=num_players, rules="original") for name in group}
    states = [game.new_state(s) for s in range(games)]
    batch = batched.deal(range(games))
    decisions = 0
    while not batch.done.all():
        live = np.flatnonzero(~batch.done)
        obs, masks = observer.observations(batch), batched.legal_masks(batch)
        joint = np.zeros((games, num_players), dtype=np.int64)
        for name, seats in group.items():
            g, p = np.meshgrid(live, seats, indexing="ij")
            g, p = g.ravel(), p.ravel()
            joint[g, p] = batch_agents[name].act_batch(obs[g, p], masks[g, p])
            one = [
                twins[name].act(scalar_obs.observations(states[k])[q], game.legal_masks(states[k])[q])
                for k, q in zip(g.tolist(), p.tolist(), strict=True)
            ]
            assert joint[g, p].tolist() == one, f"{name} decided differently"
            decisions += len(one)
        for k in live.tolist():
            game.step(states[k], joint[k].tolist())
        batched.step(batch, joint)
        for k, back in zip(live.tolist(), batched.to_states(batch, live.tolist()), strict=True):
            assert back.comparable() == states[k].comparable()
    assert decisions > 100 * num_players


def test_auto_engine_is_batched_under_original_rules() -> None:
    assert rules_batchable("original") and rules_batchable("standard")
    kw = {"num_players": 3, "deals": 3, "seed": 2, "progress": False, "rules": "original"}
    (auto,) = play_tables([["expert", "random", "thief"]], engine="auto", **kw)  # type: ignore[arg-type]
    (batched,) = play_tables([["expert", "random", "thief"]], engine="batched", **kw)  # type: ignore[arg-type]
    assert len(auto) == 9 and [r.to_dict() for r in auto] == [r.to_dict() for r in batched]
    assert all(r.rounds > 0 and (not r.truncated) == bool(r.winners) for r in auto)


def test_deterministic_agents_give_identical_records_on_both_engines(tmp_path: Path) -> None:  # O-*
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

    env = HoityVsBotsSB3VecEnv(num_envs=2, num_players=2, rules="original", opponents="random")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [8]}, seed=0
    )
    model.learn(total_timesteps=64)
    path = tmp_path / "tiny.zip"
    model.save(str(path))
    table = [f"ppo:{path}"] * 2
    kw = {"num_players": 2, "deals": 3, "seed": 4, "progress": False, "rules": "original"}
    (one,) = play_tables([table], engine="one-game", **kw)  # type: ignore[arg-type]
    (batched,) = play_tables([table], engine="batched", **kw)  # type: ignore[arg-type]
    assert len(one) == 6
    assert [r.to_dict() for r in one] == [r.to_dict() for r in batched]


@pytest.mark.filterwarnings("ignore:.*masked-out action.*:UserWarning")
def test_vector_envs_accept_original_rules() -> None:
    from hoity_env.engine.original.observation import original_obs_dim
    from hoity_env.wrappers.sb3_vec_env import HoitySharedSB3VecEnv, HoityVsBotsSB3VecEnv
    from hoity_env.wrappers.vector_env import HoityVsBotsVectorEnv

    dim = original_obs_dim(3)
    vec = HoityVsBotsVectorEnv(num_envs=3, num_players=3, rules="original", opponents=["expert", "random"])
    obs, _ = vec.reset(seed=0)
    assert obs.shape == (3, dim)
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = vec.action_masks()
        obs, _, _, _, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert obs.shape == (3, dim) and not infos["illegal_action"].any()
    for sb3 in (
        HoityVsBotsSB3VecEnv(num_envs=2, num_players=3, rules="original", opponents="random"),
        HoitySharedSB3VecEnv(num_games=2, num_players=3, rules="original"),
    ):
        assert sb3.reset().shape == (sb3.num_envs, dim)
        for _ in range(40):
            masks = np.stack(sb3.env_method("action_masks"))
            sb3.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            _, _, _, infos = sb3.step_wait()
            assert not any(i.get("illegal_action") for i in infos)
