"""RLlib: the env adapter, the masked module, a 2-iteration run and its saved module as an agent spec.

Needs the ``rllib`` extra (``hoity_env.integrations.rllib.env``, ``training/rllib_ppo.py``).
Not in ``tests/``: ray[rllib] 2.60 pins gymnasium 1.2.2 and weighs ~1.8 GB, so it lives in
a virtual environment of its own and ``training/rllib_check.sh`` runs these tests there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hoity_env import ConfigError
from hoity_env.agents import make
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.evaluation.harness import evaluate
from hoity_env.integrations.rllib.env import HoityRLlibEnv, MaskedPPOModule, RLlibAgent

ROOT = Path(__file__).resolve().parent.parent


def _legal(obs: dict, rng: np.random.Generator) -> dict:
    return {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}


@pytest.mark.parametrize("config", [{"num_players": 3}, {"num_players": 4, "max_cycles": 7}])
def test_episode_boundaries_and_everyone_ends_together(config: dict) -> None:
    env = HoityRLlibEnv(config)
    rng = np.random.default_rng(0)
    for episode in range(3):
        obs, infos = env.reset(seed=episode)
        assert set(obs) == set(infos) == set(env.possible_agents) == set(env.agents)
        steps = 0
        while True:
            obs, rewards, terms, truncs, infos = env.step(_legal(obs, rng))
            steps += 1
            agents = env.possible_agents
            assert set(rewards) == set(agents) and set(terms) == set(truncs) == {*agents, "__all__"}
            done = terms["__all__"] or truncs["__all__"]
            assert len({terms[a] for a in agents}) == 1 and len({truncs[a] for a in agents}) == 1
            assert terms["__all__"] == terms[agents[0]] and truncs["__all__"] == truncs[agents[0]]
            if done:
                assert env.agents == []
                break
            assert set(obs) == set(agents) == set(env.agents)
        if "max_cycles" in config:
            assert steps <= config["max_cycles"]


def test_env_refuses_illegal_actions_by_default() -> None:
    env = HoityRLlibEnv({"num_players": 2})
    obs, _ = env.reset(seed=0)
    bad = {a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()}
    with pytest.raises(ValueError, match="illegal"):
        env.step(bad)


def test_masked_module_never_prefers_an_illegal_action() -> None:
    env = HoityRLlibEnv({"num_players": 4})
    space = env.observation_spaces["player_0"]
    module = MaskedPPOModule(
        observation_space=space,
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [16]},
    )
    obs, _ = env.reset(seed=1)
    rows = list(obs.values())
    batch = {
        Columns.OBS: {
            "observation": torch.as_tensor(np.stack([o["observation"] for o in rows])),
            "action_mask": torch.as_tensor(np.stack([o["action_mask"] for o in rows])),
        }
    }
    for forward in (module.forward_inference, module.forward_exploration):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        mask = batch[Columns.OBS]["action_mask"].bool()
        assert (logits[~mask] == FLOAT_MIN).all()
        assert mask.gather(1, logits.argmax(1, keepdim=True)).all()
    values = module.compute_values(batch)
    assert values.shape == (len(rows),)


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two PPO iterations in one process (as a user runs the script), saved."""
    folder = tmp_path_factory.mktemp("rllib") / "run"
    script = ROOT / "training" / "rllib_ppo.py"
    args = ["--iterations", "2", "--batch", "200", "--env-runners", "0", "--save", str(folder)]
    out = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (
        "rllib PPO (shared): 400 env steps with 0 env runners" in out.stdout
        and "0 illegal actions" in out.stdout
    )
    return folder


def test_saved_module_plays_as_an_agent_without_ray(saved_run: Path) -> None:
    import ray

    agent = make(f"rllib:{saved_run}", seed=0, num_players=4, num_actions=56)
    assert isinstance(agent, RLlibAgent) and not ray.is_initialized()
    env = BatchedHoityEnv(num_envs=8, num_players=4)
    obs, masks, _ = env.reset(seed=3)
    actions = agent.act_batch(obs.reshape(-1, obs.shape[-1]), masks.reshape(-1, masks.shape[-1]))
    assert masks.reshape(-1, masks.shape[-1])[np.arange(actions.size), actions].all()
    one = [agent.act(o, m) for o, m in zip(obs.reshape(32, -1), masks.reshape(32, -1), strict=True)]
    assert one == actions.tolist()  # a row alone or in a batch: the same greedy choice
    spec = f"rllib:{saved_run}"
    result = evaluate([spec, "random", "random", "random"], games=8, seed=0, progress=False)
    assert result.games >= 8 and result.agents[0] == spec and not ray.is_initialized()


def test_bad_rllib_specs_raise_config_errors(saved_run: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not an RLlib module"):
        make(f"rllib:{tmp_path}")
    with pytest.raises(ConfigError, match="trained for 4 players, not 3"):
        make(f"rllib:{saved_run}", num_players=3)
