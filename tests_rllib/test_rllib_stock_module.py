"""RLlib's own action-masking module on our env, with no wrapper (issue 35).

RLlib's docs point to ``ActionMaskingTorchRLModule`` (ray 2.60:
``ray.rllib.examples.rl_modules.classes.action_masking_rlm``); it reads the observation
dict's ``observations`` and ``action_mask``.  PettingZoo's key is ``observation``, so the
env's default failed with ``KeyError: 'observations'``; ``observation_keys="rllib"`` names
the keys as that module wants.  ``training/rllib_check.sh`` trains it for two iterations
(``training/rllib_ppo.py --module rllib``, ``illegal_action="raise"``).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hoity_env.integrations.rllib.env import HoityRLlibEnv


def _module(env: HoityRLlibEnv) -> ActionMaskingTorchRLModule:
    return ActionMaskingTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [16]},
    )


def test_pettingzoos_keys_are_what_the_stock_module_cannot_read() -> None:
    """The issue's failure, kept as the reason for the option (PettingZoo's key is ``observation``)."""
    with pytest.raises(KeyError, match="observations"):
        _module(HoityRLlibEnv({"num_players": 4}))


def test_stock_module_masks_our_env_with_the_rllib_keys() -> None:
    env = HoityRLlibEnv({"num_players": 4, "observation_keys": "rllib"})
    module = _module(env)
    obs, _ = env.reset(seed=1)
    rows = list(obs.values())
    mask = torch.as_tensor(np.stack([o["action_mask"] for o in rows]))
    for forward in (module.forward_inference, module.forward_exploration):
        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(np.stack([o["observations"] for o in rows])),
                "action_mask": mask,
            }
        }
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        assert (logits[~mask.bool()] == FLOAT_MIN).all()
        assert mask.bool().gather(1, logits.argmax(1, keepdim=True)).all()
