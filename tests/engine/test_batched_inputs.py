"""Bad input to the batched engine and every env: one clear error, raised before anything changes.

The batched engine's public API (``deal``, ``reset_games``, ``step``) and the envs
(``reset`` seeds, ``illegal_penalty``, ``num_envs``, calls after ``close``) check
their arguments with :mod:`hoity_env.engine.inputs`, the same rules and error
classes as the one-game env.  The fuzz test at the end throws random seeds, slot
lists and action arrays of every dtype at a live batch: each call either works or
raises a ``ConfigError``/``IllegalActionError``, and a refused call leaves every
array and generator of the batch bit-identical.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hoity_env
from hoity_env.engine import BatchedGame
from hoity_env.engine.errors import ConfigError, HoityError, IllegalActionError
from hoity_env.engine.inputs import MAX_BATCH
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.wrappers import SingleAgentEnv
from hoity_env.wrappers.batched_vs_bots import BatchedVsBots
from tests.engine.test_batched_engine import arrays_of, assert_same_arrays

ENVS: dict[str, Callable[..., Any]] = {
    "parallel": hoity_env.parallel_env,
    "aec": hoity_env.env,
    "single-agent": SingleAgentEnv,
    "batched": lambda **kw: BatchedHoityEnv(num_envs=2, **kw),
    "batched-vs-bots": lambda **kw: BatchedVsBots(num_envs=2, opponents="random", **kw),
}


# --------------------------------------------------------------- item 8: the batched engine
@pytest.fixture
def batch() -> tuple[BatchedGame, Any]:
    game = BatchedGame("standard", 3)
    state = game.deal([1, 2, 3])
    game.step(state, game.random_from_masks(game.action_masks(state), np.random.default_rng(0)))
    return game, state


@pytest.mark.parametrize("seeds", [[1.5], ["1"], [True], [np.float64(2)], np.array([1.5]), [-1], "12", 7])
def test_deal_refuses_seeds_that_are_not_non_negative_ints(seeds: Any) -> None:
    with pytest.raises(ConfigError, match="seeds"):
        BatchedGame("standard", 3).deal(seeds)


@pytest.mark.parametrize(
    ("games", "seeds", "match"),
    [
        ([-1], [5], "slot -1 is outside"),  # used to reset the last slot
        ([1.9], [5], "must hold ints"),  # used to reset slot 1
        ([0, 10], [5, 6], "slot 10 is outside"),  # used to replace slot 0's generator, then IndexError
        ([0, 0], [5, 6], "twice"),
        ([True], [5], "must hold ints"),
        (np.array([0.0]), [5], "dtype float64"),
        ([0], [5, 6], "1 games but 2 seeds"),
        ([0], [-5], "non-negative"),
        ([0], [np.timedelta64(3)], "must hold ints"),
    ],
)
def test_reset_games_validates_then_changes(
    batch: tuple[BatchedGame, Any], games: Any, seeds: Any, match: str
) -> None:
    game, state = batch
    before = arrays_of(state)
    with pytest.raises(ConfigError, match=match):
        game.reset_games(state, games, seeds)
    assert_same_arrays(before, state)


def test_reset_games_still_resets_what_it_is_given(batch: tuple[BatchedGame, Any]) -> None:
    game, state = batch
    game.reset_games(state, np.array([2], dtype=np.uint8), [np.int64(9)])
    assert game.to_states(state, [2])[0].comparable() == game.to_states(game.deal([9]))[0].comparable()


@pytest.mark.parametrize("dtype", ["m8[s]", "M8[s]", bool, float, object, "U1"])
def test_engine_step_refuses_non_integer_action_dtypes(batch: tuple[BatchedGame, Any], dtype: Any) -> None:
    game, state = batch
    before = arrays_of(state)
    with pytest.raises(IllegalActionError, match="integer array"):
        game.step(state, np.zeros((3, 3)).astype(dtype))
    assert_same_arrays(before, state)


@pytest.mark.parametrize("env_name", ["batched", "batched-vs-bots"])
@pytest.mark.parametrize("bad", [np.timedelta64(1, "s"), np.datetime64(1, "s"), 1.0, True])
def test_batched_envs_refuse_non_integer_actions(env_name: str, bad: Any) -> None:
    env = ENVS[env_name]()
    env.reset(seed=0)
    shape = (2, env.num_players) if env_name == "batched" else (2,)
    state = env.game_state if env_name == "batched" else env.env.game_state
    before = arrays_of(state)
    with pytest.raises(IllegalActionError, match="integer array"):
        env.step(np.full(shape, bad))
    assert_same_arrays(before, state)


# ------------------------------------------------------------- item 8: illegal_penalty
@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize("penalty", [float("nan"), float("inf"), -float("inf"), "1", None])
def test_illegal_penalty_must_be_finite_in_every_env(name: str, penalty: Any) -> None:
    with pytest.raises(ConfigError, match="illegal_penalty must be a finite number"):
        ENVS[name](illegal_penalty=penalty)


# ----------------------------------------------------------------- item 10: the smaller ones
@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize("seed", [-1, True, 1.5, "3"])
def test_reset_seed_must_be_a_non_negative_int(name: str, seed: Any) -> None:
    env = ENVS[name]()
    try:
        env.reset(seed=seed)
    except gymnasium.error.Error as exc:  # pragma: no cover - the failure this test guards against
        pytest.fail(f"gymnasium's error escaped: {exc!r}")
    except ConfigError as exc:
        assert "seed" in str(exc)
    else:
        pytest.fail(f"reset(seed={seed!r}) was accepted")


def test_a_numpy_integer_seed_is_the_same_seed() -> None:
    a, b = hoity_env.parallel_env(), hoity_env.parallel_env()
    a.reset(seed=np.int64(5))
    b.reset(seed=5)
    assert a.get_state() == b.get_state()


@pytest.mark.parametrize("num_envs", [10**12, MAX_BATCH + 1, 0, 2.0])
def test_num_envs_beyond_the_limit_is_a_config_error_naming_it(num_envs: Any) -> None:
    with pytest.raises(ConfigError, match=f"num_envs must be an int in \\[1, {MAX_BATCH}\\]"):
        BatchedHoityEnv(num_envs=num_envs)


def test_deal_beyond_the_limit_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=str(MAX_BATCH)):
        BatchedGame("standard", 2).deal(range(MAX_BATCH + 1))


@pytest.mark.parametrize("name", sorted(ENVS))
def test_step_after_close_raises(name: str) -> None:
    env = ENVS[name]()
    env.reset(seed=0)
    if name == "parallel":
        action: Any = dict.fromkeys(env.agents, 0)
    elif name in ("aec", "single-agent"):
        action = 0
    else:
        action = np.zeros((2, env.num_players) if name == "batched" else (2,), dtype=np.int64)
    env.close()
    with pytest.raises(IllegalActionError, match="closed"):
        env.step(action)
    with pytest.raises(IllegalActionError, match="closed"):
        env.reset(seed=0)


# ------------------------------------------------------------------------ the fuzz test
_SCALARS = st.one_of(
    st.integers(-3, 12),
    st.integers(2**62, 2**70),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=2),
    st.none(),
    st.just(np.timedelta64(1, "s")),
    st.just(np.int64(1)),
    st.just(np.uint8(2)),
)
_DTYPES = st.sampled_from(["int8", "int64", "uint16", "float32", "bool", "m8[s]", "M8[D]", "object", "U2"])


def _as_array(values: list[Any], dtype: str) -> Any:
    try:
        return np.array(values, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        return values


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    call=st.sampled_from(["deal", "reset_games", "step"]),
    items=st.lists(_SCALARS, max_size=4),
    seeds=st.lists(_SCALARS, max_size=4),
    dtype=_DTYPES,
    as_array=st.booleans(),
)
def test_fuzzed_batched_api_is_either_applied_or_refused_without_change(
    batch: tuple[BatchedGame, Any], call: str, items: list[Any], seeds: list[Any], dtype: str, as_array: bool
) -> None:
    game, state = batch
    before = arrays_of(state)
    first = _as_array(items, dtype) if as_array else items
    try:
        if call == "deal":
            game.deal(first)
        elif call == "reset_games":
            game.reset_games(state, first, seeds)
        else:
            actions = np.resize(np.asarray(first if len(items) else [0], dtype=object), (3, 3))
            game.step(state, _as_array(actions.tolist(), dtype) if as_array else actions.tolist())
    except (ConfigError, IllegalActionError) as exc:
        assert isinstance(exc, HoityError) and str(exc)
        assert_same_arrays(before, state)
        return
    # Accepted: only genuine inputs get through.
    if call == "deal":
        assert all(isinstance(int(s), int) and int(s) >= 0 for s in np.asarray(first).tolist())
    elif call == "reset_games":
        slots = np.asarray(first).tolist()
        assert len(set(slots)) == len(slots) and all(0 <= s < 3 for s in slots)
