"""AgileRL 2.58 and our action masks: the bug its IPPO has, and the paths that work (issue 35).

Needs the ``agilerl`` extra, which pins ``pettingzoo<1.27``: these tests run in the
AgileRL virtual environment (``examples/integrations/agilerl/run.sh``), not in ``tests/``.

``IPPO.extract_action_masks`` (agilerl/algorithms/ippo.py:466) tests ``None in group_masks``.
``in`` compares ``None == mask`` for each mask, and for a NumPy mask that is an array of
bools, whose truth value raises.  AgileRL's own vector env (``AsyncPettingZooVecEnv``)
stacks every agent's infos into arrays, so IPPO fails on any masked env it vectorizes:
AgileRL's bug, not the env's.  ``test_ippo_mask_bug_still_stands`` keeps a minimal
reproduction: when it fails, AgileRL has fixed the bug, and the recipe's ``MaskedIPPO``
workaround and the paragraph of docs/libraries.md can go.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from agilerl.algorithms import IPPO, MADDPG

import hoity_env

ROOT = Path(__file__).resolve().parent.parent
NET = {"encoder_config": {"hidden_size": [16]}, "head_config": {"hidden_size": [16]}}
ENVS = 2


def _recipe() -> Any:
    spec = importlib.util.spec_from_file_location(
        "agilerl_ippo_recipe", ROOT / "examples" / "integrations" / "agilerl" / "agilerl_ippo.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spaces() -> dict[str, Any]:
    env = hoity_env.parallel_env(num_players=4, observation_format="flat")
    agents = list(env.possible_agents)
    return {
        "observation_spaces": [env.observation_space(a) for a in agents],
        "action_spaces": [env.action_space(a) for a in agents],
        "agent_ids": agents,
    }


def _vectorized_infos() -> dict[str, dict[str, np.ndarray]]:
    """Infos as ``AsyncPettingZooVecEnv`` hands them over: each agent's masks stacked, ``(ENVS, A)``."""
    env = hoity_env.parallel_env(num_players=4, observation_format="flat")
    rows = [env.reset(seed=s)[1] for s in range(ENVS)]
    return {a: {"action_mask": np.stack([r[a]["action_mask"] for r in rows])} for a in env.possible_agents}


def test_ippo_mask_bug_still_stands() -> None:
    """Fails once AgileRL fixes ``None in group_masks``: then drop ``MaskedIPPO`` and the docs' note."""
    agent = IPPO(**_spaces(), net_config=NET)
    with pytest.raises(ValueError, match="truth value of an array"):
        agent.extract_action_masks(_vectorized_infos())


def test_the_recipes_masked_ippo_stacks_the_same_masks() -> None:
    infos = _vectorized_infos()
    masks = _recipe().MaskedIPPO(**_spaces(), net_config=NET).extract_action_masks(infos)
    assert set(masks) == {"player"}  # one group: player_0 … player_3
    expected = np.stack([infos[f"player_{i}"]["action_mask"] for i in range(4)])
    assert np.array_equal(masks["player"].numpy(), expected)


def test_maddpg_takes_the_flat_env_and_its_masks_as_they_are() -> None:
    """The path that works without a workaround: MADDPG reads each agent's mask from infos."""
    agent = MADDPG(**_spaces(), net_config=NET)
    infos = _vectorized_infos()
    masks = agent.extract_action_masks(infos)
    assert all(np.array_equal(masks[a], infos[a]["action_mask"]) for a in infos)
    env = hoity_env.parallel_env(num_players=4, observation_format="flat")
    obs = {a: np.stack([env.reset(seed=s)[0][a] for s in range(ENVS)]) for a in env.possible_agents}
    actions = agent.get_action(obs, infos=infos)[0]
    for a, chosen in actions.items():
        chosen = np.asarray(chosen).reshape(ENVS)
        assert infos[a]["action_mask"][np.arange(ENVS), chosen].all(), a
