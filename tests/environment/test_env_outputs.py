"""The output options: where the mask goes, dict or flat observations, events in infos (docs/design.md §2).

Regression tests for what broke multi-agent libraries (issue 11): a string ``phase``
(TorchRL: ``new(): invalid data type 'str'``), variable-length ``events`` (TorchRL:
``Could not infer dtype of Event``; Tianshou's buffer: ``setting an array element with
a sequence``) and the mask in both places by default.  By default every info value is
now a bool, an int, a float or a fixed-shape array; the checkers' side is in
tests/environment/test_pettingzoo_conformance.py.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
import torch
from gymnasium import spaces

import hoity_env
from hoity_env import ConfigError
from hoity_env.environment.outputs import OutputFormat

FORMATS: list[dict[str, Any]] = [
    {},
    {"action_mask": "observation"},
    {"action_mask": "infos"},
    {"action_mask": "both"},
    {"observation_format": "flat"},
    {"observation_format": "flat", "action_mask": "infos"},
    {"observation_format": "dict", "action_mask": "both", "info_events": True},
    {"observation_keys": "rllib"},
    {"observation_keys": "rllib", "action_mask": "both"},
]


def _id(kwargs: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items()) or "default"


def _random_legal(env: Any, obs: dict[str, Any], infos: dict[str, Any], rng: np.random.Generator) -> Any:
    fmt = env.output_format
    return {a: int(rng.choice(np.flatnonzero(fmt.split(obs[a], infos[a])[1]))) for a in obs}


def _play(kwargs: dict[str, Any], seed: int, num_players: int = 4) -> list[tuple[Any, Any]]:
    """(obs, infos) of every step of one random masked game."""
    env = hoity_env.parallel_env(num_players=num_players, **kwargs)
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    out = [(obs, infos)]
    while env.agents:
        obs, _, _, _, infos = env.step(_random_legal(env, obs, infos, rng))
        out.append((obs, infos))
    return out


def _tensor_friendly(value: Any) -> bool:
    return type(value) in (bool, int, float) or (
        isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.dtype != object
    )


@pytest.mark.parametrize("kwargs", [k for k in FORMATS if not k.get("info_events")], ids=_id)
def test_infos_are_tensor_friendly_by_default(kwargs: dict[str, Any]) -> None:
    """Every info value is a bool/int/float or a numeric array of one shape for the whole game."""
    shapes: dict[str, tuple[int, ...]] = {}
    for _obs, infos in _play(kwargs, seed=3):
        for agent, info in infos.items():
            assert set(info) >= {"phase", "illegal_action"}
            assert "events" not in info
            for key, value in info.items():
                assert _tensor_friendly(value), f"infos[{agent}][{key!r}] = {value!r}"
                shape = np.shape(value)
                assert shapes.setdefault(key, shape) == shape, f"{key} changed shape"
                torch.as_tensor(value)  # TorchRL builds a tensor of every value
            assert type(info["phase"]) is int and info["phase"] in (0, 1)
            assert type(info["illegal_action"]) is bool
        for key in infos["player_0"]:  # Tianshou's buffer stacks each key over the agents
            stacked = np.array([infos[a][key] for a in infos])
            assert stacked.dtype != object and stacked.shape[0] == len(infos)


@pytest.mark.parametrize("kwargs", FORMATS, ids=_id)
def test_where_the_mask_goes(kwargs: dict[str, Any]) -> None:
    env = hoity_env.parallel_env(num_players=3, **kwargs)
    fmt = env.output_format
    space = env.observation_space("player_0")
    obs, infos = env.reset(seed=0)
    for agent in env.possible_agents:
        o, info = obs[agent], infos[agent]
        assert space.contains(o)
        if fmt.flat:
            assert isinstance(space, spaces.Box) and isinstance(o, np.ndarray)
            assert o.shape == (env.observer.obs_dim,)
        else:
            assert isinstance(space, spaces.Dict) and set(o) == set(space.spaces)
            assert ("action_mask" in o) == fmt.mask_in_observation
        assert ("action_mask" in info) == fmt.mask_in_infos
        if fmt.mask_in_infos:
            assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (env.codec.size,)
        if fmt.mask_in_infos and fmt.mask_in_observation:
            assert np.array_equal(o["action_mask"], info["action_mask"])
            assert not np.shares_memory(o["action_mask"], info["action_mask"])
        assert ("events" in info) == fmt.info_events


def test_defaults_follow_pettingzoo_classic_games() -> None:
    """Mask in the observation dict, plain infos: what connect_four, chess and tictactoe do."""
    env = hoity_env.parallel_env()
    assert env.output_format == OutputFormat("observation", "dict", False)
    obs, infos = env.reset(seed=0)
    assert set(obs["player_0"]) == {"observation", "action_mask"}
    assert set(infos["player_0"]) == {"phase", "illegal_action"}
    flat = hoity_env.parallel_env(observation_format="flat")
    assert flat.output_format.action_mask == "infos"  # None picks the only place left


@pytest.mark.parametrize("kwargs", FORMATS[1:], ids=_id)
def test_every_format_plays_the_same_game(kwargs: dict[str, Any]) -> None:
    """Formats only repackage: the same seed and actions give the same vectors, masks and flags."""
    base = hoity_env.parallel_env(num_players=4)
    other = hoity_env.parallel_env(num_players=4, **kwargs)
    fmt = other.output_format
    rng = np.random.default_rng(9)
    obs_b, inf_b = base.reset(seed=9)
    obs_o, inf_o = other.reset(seed=9)
    while True:
        for a in base.possible_agents:
            vec, mask = fmt.split(obs_o[a], inf_o[a])
            assert np.array_equal(vec, obs_b[a]["observation"])
            assert np.array_equal(mask, obs_b[a]["action_mask"])
            assert inf_o[a]["phase"] == inf_b[a]["phase"]
            assert inf_o[a]["illegal_action"] == inf_b[a]["illegal_action"]
        if not base.agents:
            break
        actions = _random_legal(base, obs_b, inf_b, rng)
        obs_b, rew_b, term_b, trunc_b, inf_b = base.step(actions)
        obs_o, rew_o, term_o, trunc_o, inf_o = other.step(actions)
        assert (rew_b, term_b, trunc_b) == (rew_o, term_o, trunc_o)
        assert base.last_events == other.last_events
    assert other.agents == []


def test_events_in_infos_on_request_and_always_in_last_events() -> None:
    env = hoity_env.parallel_env(num_players=4, info_events=True)
    plain = hoity_env.parallel_env(num_players=4)
    rng = np.random.default_rng(1)
    obs, infos = env.reset(seed=1)
    plain.reset(seed=1)
    assert env.last_events == [] and infos["player_0"]["events"] == []
    seen: set[str] = set()
    while env.agents:
        actions = _random_legal(env, obs, infos, rng)
        obs, _, _, _, infos = env.step(actions)
        plain.step(actions)
        events = json.loads(json.dumps(infos["player_0"]["events"]))
        assert events == env.last_events == plain.last_events
        seen |= {e["kind"] for e in events}
    assert {"actions", "game_end"} <= seen


def test_aec_observe_and_last_follow_the_format() -> None:
    env = hoity_env.env(num_players=3, observation_format="flat")
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    assert isinstance(obs, np.ndarray) and obs.shape == env.observation_space("player_0").shape
    assert info["action_mask"].any()
    assert isinstance(env.unwrapped.observe("player_1"), np.ndarray)
    masked = hoity_env.parallel_env(num_players=3, action_mask="infos")
    masked.reset(seed=0)
    assert set(masked.observe("player_2")) == {"observation"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"action_mask": "obs"}, "action_mask"),
        ({"action_mask": True}, "action_mask"),
        ({"observation_format": "box"}, "observation_format"),
        ({"observation_format": "flat", "action_mask": "observation"}, "flat.*action_mask='infos'"),
        ({"observation_format": "flat", "action_mask": "both"}, "flat.*action_mask='infos'"),
        ({"info_events": 1}, "info_events"),
        ({"info_events": "yes"}, "info_events"),
        ({"observation_keys": "RLlib"}, "observation_keys"),
        ({"observation_keys": None}, "observation_keys"),
        ({"observation_keys": "rllib", "observation_format": "flat"}, "observation_keys='rllib'.*dict"),
        ({"observation_keys": "rllib", "action_mask": "infos"}, "observation_keys='rllib'.*mask"),
    ],
)
def test_bad_output_options_raise_config_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        hoity_env.parallel_env(**kwargs)


def test_single_agent_view_keeps_the_mask_in_info() -> None:
    """The Gymnasium view (a flat Box) still puts the learner's mask in its info, as its docs say."""
    from hoity_env.wrappers import SingleAgentEnv

    env = SingleAgentEnv(num_players=3, opponents="random")
    _obs, info = env.reset(seed=0)
    assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
    assert type(info["phase"]) is int and "events" not in info
    _obs, _, _, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())


def test_rllib_keys_are_what_rllibs_action_masking_module_reads() -> None:
    """Issue 35: RLlib's ``ActionMaskingTorchRLModule`` (ray 2.60, rllib/examples/rl_modules/classes/
    action_masking_rlm.py) checks for a Dict space with ``action_mask`` and ``observations``, then
    reads ``batch["obs"]["observations"]``: with PettingZoo's ``observation`` it raised ``KeyError``."""
    env = hoity_env.parallel_env(num_players=4, observation_keys="rllib", illegal_action="raise")
    space = env.observation_space("player_0")
    assert isinstance(space, spaces.Dict) and set(space.spaces) == {"observations", "action_mask"}
    plain = hoity_env.parallel_env(num_players=4)
    assert space["observations"] == plain.observation_space("player_0")["observation"]
    obs, infos = env.reset(seed=0)
    assert set(obs["player_0"]) == {"observations", "action_mask"} and "action_mask" not in infos["player_0"]
    assert env.output_format.split(obs["player_0"], infos["player_0"])[0] is obs["player_0"]["observations"]
    assert "observation_keys='rllib'" in repr(env)
    aec = hoity_env.env(num_players=3, observation_keys="rllib")
    aec.reset(seed=0)
    assert set(aec.last()[0]) == {"observations", "action_mask"}
