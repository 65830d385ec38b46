"""RLlib adapter and masked module (training/rllib_ppo.py); needs the ``rllib`` extra.

Not in ``tests/``: ray[rllib] 2.60 pins gymnasium 1.2.2 and ~1.8 GB, so it lives in a
virtual environment of its own and ``training/rllib_check.sh`` runs these tests there.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "training"))

import rllib_ppo
from rllib_ppo import HoityRLlibEnv, MaskedPPOModule


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


def test_two_iterations_in_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    rllib_ppo.main(["--iterations", "2", "--batch", "200", "--env-runners", "0"])
    out = capsys.readouterr().out
    assert "rllib PPO: 400 env steps with 0 env runners" in out and "0 illegal actions" in out
