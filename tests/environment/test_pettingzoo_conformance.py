"""PettingZoo's own checkers on every form of the env (docs/design.md §2, §8).

Warnings are errors here, except the ones docs/design.md §2 calls harmless: PettingZoo's
remarks about Dict observations, and the ``fallback`` warning (the checkers send
unmasked actions on purpose).  Anything else a checker warns about (an agent
given no observation, agents gone without terminating…) fails the test.

Every output format (where the mask goes, dict or flat observation, events in
infos or not: ``OUTPUT_FORMATS``) passes the same checkers.
"""

from __future__ import annotations

import functools
import re
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)
from pettingzoo.test.state_test import test_parallel_env as pz_state_parallel_check
from pettingzoo.test.state_test import test_state as pz_state_check
from pettingzoo.test.state_test import test_state_space as pz_state_space_check
from pettingzoo.utils.conversions import parallel_to_aec, parallel_to_aec_wrapper
from pettingzoo.utils.env import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import hoity_env
from hoity_env import HoityParallelEnv
from hoity_env.environment.render.standard import FRAME_SHAPE
from tests.helpers import RULESETS

PLAYER_COUNTS = (2, 4, 6)
ROOT_PYPROJECT = __import__("pathlib").Path(__file__).resolve().parents[2] / "pyproject.toml"

# Every output option of the env (hoity_env/environment/outputs.py), each with and without events.
_PLACES = [
    {},
    {"action_mask": "infos"},
    {"action_mask": "both"},
    {"observation_format": "flat"},
    {"observation_keys": "rllib"},  # RLlib's masking module's keys: observations, action_mask
]
OUTPUT_FORMATS = [{**place, **events} for place in _PLACES for events in ({}, {"info_events": True})]


def _format_id(kwargs: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items()) or "default"


# Earlier entries take precedence: allow the known warnings, turn every other one into an error.
pytestmark = [
    pytest.mark.filterwarnings("error"),
    pytest.mark.filterwarnings("ignore:.*masked-out action.*:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be.*:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
    pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning"),
]

AECFactory = Callable[[int, str], AECEnv]
AEC_FORMS: dict[str, AECFactory] = {
    "parallel_to_aec": lambda n, r: parallel_to_aec(hoity_env.parallel_env(num_players=n, rules=r)),
    "env": lambda n, r: hoity_env.env(num_players=n, rules=r),
    "raw_env": lambda n, r: hoity_env.raw_env(num_players=n, rules=r),
}
by_rules = pytest.mark.parametrize("rules", RULESETS)


@pytest.mark.parametrize("kwargs", OUTPUT_FORMATS, ids=_format_id)
def test_every_output_format_passes_the_checkers(kwargs: dict[str, Any]) -> None:
    """api_test (plain and order-enforced AEC), parallel_api_test and both seed tests, per format."""
    parallel_api_test(hoity_env.parallel_env(num_players=4, **kwargs), num_cycles=1000)
    api_test(hoity_env.env(num_players=4, **kwargs), num_cycles=1000)
    api_test(hoity_env.raw_env(num_players=3, **kwargs), num_cycles=1000)
    seed_test(functools.partial(hoity_env.env, num_players=4, **kwargs), num_cycles=500)
    parallel_seed_test(functools.partial(hoity_env.parallel_env, num_players=4, **kwargs), num_cycles=500)


def test_flat_observation_passes_the_checkers_without_any_warning() -> None:
    """A flat Box is what the checkers prefer: not even the Dict remarks are raised.

    (parallel_api_test samples unmasked actions when the mask is not in the observation,
    so the fallback warning stays allowed.)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", ".*masked-out action.*", UserWarning)
        parallel_api_test(hoity_env.parallel_env(num_players=4, observation_format="flat"), num_cycles=1000)
        api_test(hoity_env.env(num_players=4, observation_format="flat"), num_cycles=1000)


def test_pyproject_filters_name_the_checkers_dict_warnings() -> None:
    """Each warning the checkers raise on the default env is matched by an ignore filter in pyproject.toml.

    (The filter used to be ``.*is not a box.*``, which matched neither message.)
    """
    text = ROOT_PYPROJECT.read_text(encoding="utf-8")
    block = text.split("filterwarnings = [", 1)[1].split("]", 1)[0]
    patterns = [
        entry.split(":")[1]
        for entry in re.findall(r'^\s*"(ignore:[^"]*)"', block, flags=re.M)
        if entry.split(":")[2:3] in (["UserWarning"], [""])
    ]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        api_test(hoity_env.env(num_players=4), num_cycles=200)
        parallel_api_test(hoity_env.parallel_env(num_players=4), num_cycles=200)
    messages = {str(w.message) for w in record if issubclass(w.category, UserWarning)}
    assert messages, "the checkers no longer warn about Dict observations: drop the filters"
    for message in messages:
        assert any(re.match(p, message, flags=re.I) for p in patterns), (message, patterns)


def test_warning_filters_are_active() -> None:
    """The module's 'error' filter is in force (otherwise the checker tests prove less)."""
    import warnings

    with pytest.raises(UserWarning, match="unexpected"):
        warnings.warn("unexpected", UserWarning, stacklevel=1)


@by_rules
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_parallel_api_test(rules: str, num_players: int) -> None:
    env = hoity_env.parallel_env(num_players=num_players, rules=rules)
    assert isinstance(env, ParallelEnv)
    assert isinstance(env, HoityParallelEnv)
    parallel_api_test(env, num_cycles=1000)
    assert env.max_cycles == 1000  # the checker assigns the plain attribute


@by_rules
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("form", sorted(AEC_FORMS))
def test_aec_api_test(rules: str, form: str, num_players: int) -> None:
    env = AEC_FORMS[form](num_players, rules)
    assert isinstance(env, AECEnv)
    api_test(env, num_cycles=1000)


def test_aec_wrappers_are_as_documented() -> None:
    """``env`` adds the order-enforcing wrapper; ``raw_env`` is the bare conversion (docs/design.md §2)."""
    wrapped = hoity_env.env(num_players=3)
    raw = hoity_env.raw_env(num_players=3)
    assert isinstance(wrapped, OrderEnforcingWrapper)
    assert not isinstance(raw, OrderEnforcingWrapper)
    assert isinstance(raw, parallel_to_aec_wrapper)
    assert raw.unwrapped is raw.env  # the parallel env under the conversion
    assert isinstance(raw.env, HoityParallelEnv)
    assert raw.env.num_players == 3
    assert isinstance(wrapped.env, parallel_to_aec_wrapper)
    assert isinstance(wrapped.unwrapped, HoityParallelEnv)
    assert wrapped.possible_agents == raw.possible_agents == ["player_0", "player_1", "player_2"]
    # The order-enforcing wrapper refuses use before reset; that is what it is for.
    with pytest.raises(Exception, match="reset"):
        wrapped.step(0)


def _module(num_players: int, rules: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        parallel_env=functools.partial(hoity_env.parallel_env, num_players=num_players, rules=rules),
        env=functools.partial(hoity_env.env, num_players=num_players, rules=rules),
    )


@by_rules
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_max_cycles_test(rules: str, num_players: int) -> None:
    max_cycles_test(_module(num_players, rules))


@by_rules
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_render_test(rules: str, num_players: int, capsys: pytest.CaptureFixture[str]) -> None:
    """PettingZoo's render_test over every mode the metadata advertises, under both rulesets."""
    assert HoityParallelEnv.metadata["render_modes"] == ["ansi", "human", "rgb_array"]

    def make(render_mode: str | None = None) -> AECEnv:
        return hoity_env.env(num_players=num_players, rules=rules, render_mode=render_mode)

    def names_players(text: Any) -> bool:
        return isinstance(text, str) and all(f"player_{p}" in text for p in range(num_players))

    def draws_something(frame: Any) -> bool:
        return isinstance(frame, np.ndarray) and frame.shape == FRAME_SHAPE and frame.std() > 10

    render_test(make, custom_tests={"ansi": names_players, "rgb_array": draws_something})
    printed = capsys.readouterr().out
    assert all(f"player_{p}" in printed for p in range(num_players)), "human mode printed nothing useful"


@by_rules
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_state_test(rules: str, num_players: int) -> None:
    env = hoity_env.env(num_players=num_players, rules=rules)
    pz_state_space_check(env)
    pz_state_check(env, 1000)
    pz_state_parallel_check(hoity_env.parallel_env(num_players=num_players, rules=rules))


@by_rules
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_seed_test(rules: str, num_players: int) -> None:
    seed_test(functools.partial(hoity_env.env, num_players=num_players, rules=rules), num_cycles=500)


@by_rules
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_parallel_seed_test(rules: str, num_players: int) -> None:
    parallel_seed_test(
        functools.partial(hoity_env.parallel_env, num_players=num_players, rules=rules), num_cycles=500
    )


# ----------------------------------------------------------------- registry
def _play_parallel(env: ParallelEnv, seed: int) -> int:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    steps = 0
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, *_ = env.step(actions)
        steps += 1
        assert steps < 500
    return steps


def test_registry_parallel_id() -> None:
    assert hoity_env.PARALLEL_ID == "hoity/HoityToity-v0"
    assert hoity_env.PARALLEL_ID in pettingzoo.parallel_registry
    env = pettingzoo.make("parallel", "hoity/HoityToity-v0", num_players=3)
    assert isinstance(env, HoityParallelEnv)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert _play_parallel(env, seed=1) >= 2
    parallel_api_test(pettingzoo.make("parallel", "hoity/HoityToity-v0", num_players=3), num_cycles=1000)


def test_registry_aec_id() -> None:
    assert hoity_env.AEC_ID in pettingzoo.aec_registry
    env = pettingzoo.make("aec", "hoity/HoityToity-v0", num_players=3)
    assert isinstance(env, AECEnv)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert isinstance(env.unwrapped, HoityParallelEnv)
    env.reset(seed=0)
    for _ in range(12):
        agent = env.agent_selection
        obs, reward, term, trunc, _info = env.last()
        assert isinstance(reward, (int, float))  # PettingZoo's AEC wrapper starts the sums at int 0
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    api_test(pettingzoo.make("aec", "hoity/HoityToity-v0", num_players=3), num_cycles=1000)
    assert agent in env.possible_agents


def test_registration_skips_pettingzoo_without_a_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """PettingZoo 1.24.2-1.26 (AgileRL pins <1.27) has no ``register``: importing us must still work."""
    from hoity_env.registration import register_envs

    monkeypatch.delattr(pettingzoo, "register")
    register_envs()  # no AttributeError
    assert isinstance(hoity_env.parallel_env(num_players=2), ParallelEnv)


def test_registration_is_idempotent() -> None:
    before_p = pettingzoo.parallel_registry[hoity_env.PARALLEL_ID]
    before_a = pettingzoo.aec_registry[hoity_env.AEC_ID]
    from hoity_env.registration import register_envs

    register_envs()
    assert pettingzoo.parallel_registry[hoity_env.PARALLEL_ID] == before_p
    assert pettingzoo.aec_registry[hoity_env.AEC_ID] == before_a
