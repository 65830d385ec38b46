"""Full-episode determinism of the parallel env (docs/design.md §2 "Determinism").

Same seed + same actions ⇒ identical observations, rewards, terminations,
truncations and infos (events included) at every step of whole games, whatever
the global ``random`` / ``np.random`` do in between; the global generators are
never used.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hoity_env
from hoity_env import HoityParallelEnv
from tests.helpers import RULESETS, assert_same

SEEDS = (0, 1, 7, 2024)
PLAYER_COUNTS = (2, 4, 6)
MAX_STEPS = 2 * 100 + 10  # the round limit (S-8) is 100 rounds of two steps


def masked_choice(obs: dict[str, dict[str, np.ndarray]], rng: np.random.Generator) -> dict[str, int]:
    """One uniformly random legal action per agent, from the agent's own observation mask."""
    return {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}


def disturb_global_rngs(step: int) -> None:
    """Unrelated use of the global generators (a user's code between steps)."""
    random.random()
    np.random.rand(3)
    np.random.seed(1000 + step)
    random.seed(step * 7)
    np.random.randint(0, 10)


def play_episode(
    env: HoityParallelEnv,
    seed: int,
    action_seed: int,
    between: Callable[[int], None] | None = None,
) -> list[tuple[Any, ...]]:
    """Play one whole game with masked random actions; the list of every output."""
    rng = np.random.default_rng(action_seed)
    if between is not None:
        between(-1)
    obs, infos = env.reset(seed=seed)
    trace: list[tuple[Any, ...]] = [(obs, infos)]
    for step in range(MAX_STEPS):
        if between is not None:
            between(step)
        actions = masked_choice(obs, rng)
        obs, rewards, terms, truncs, infos = env.step(actions)
        trace.append((actions, obs, rewards, terms, truncs, infos))
        if not env.agents:
            return trace
    raise AssertionError(f"game with seed {seed} did not end within {MAX_STEPS} steps")


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_same_seed_same_actions_identical_episode(rules: str, num_players: int, seed: int) -> None:
    env1 = hoity_env.parallel_env(num_players=num_players, rules=rules, info_events=True)
    env2 = hoity_env.parallel_env(num_players=num_players, rules=rules, info_events=True)
    rng1 = np.random.default_rng(seed + 99)
    rng2 = np.random.default_rng(seed + 99)
    obs1, infos1 = env1.reset(seed=seed)
    obs2, infos2 = env2.reset(seed=seed)
    assert_same(obs1, obs2, "reset obs")
    assert_same(infos1, infos2, "reset infos")
    steps = 0
    while env1.agents:
        a1 = masked_choice(obs1, rng1)
        a2 = masked_choice(obs2, rng2)
        assert a1 == a2, f"step {steps}: the masks led to different actions"
        out1 = env1.step(a1)
        out2 = env2.step(a2)
        assert_same(out1, out2, f"step {steps}")
        obs1, obs2 = out1[0], out2[0]
        steps += 1
        assert steps <= MAX_STEPS, "the game does not end"
    assert env2.agents == []
    assert steps >= 2
    # The final step really is the end of a game: everyone done, events say so.
    _, _, terms, truncs, infos = out1
    assert all(terms.values()) or all(truncs.values())
    kinds = {e["kind"] for e in infos["player_0"]["events"]}
    assert kinds & {"game_end", "truncated"}
    assert_same(env1.get_state(), env2.get_state(), "final get_state")
    assert np.array_equal(env1.state(), env2.state())


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_global_rng_use_does_not_change_episode(rules: str, num_players: int, seed: int) -> None:
    quiet = play_episode(hoity_env.parallel_env(num_players=num_players, rules=rules), seed, seed + 5)
    noisy = play_episode(
        hoity_env.parallel_env(num_players=num_players, rules=rules),
        seed,
        seed + 5,
        between=disturb_global_rngs,
    )
    assert len(quiet) == len(noisy)
    for i, (x, y) in enumerate(zip(quiet, noisy, strict=True)):
        assert_same(x, y, f"output {i}")


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_env_never_touches_global_rngs(rules: str, num_players: int) -> None:
    random.seed(123)
    np.random.seed(456)
    py_state = random.getstate()
    np_state = np.random.get_state()
    env = hoity_env.parallel_env(num_players=num_players, rules=rules)
    play_episode(env, seed=3, action_seed=4)
    env.reset()  # unseeded reset draws from the env's own generator
    env.state()
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0]
    assert np.array_equal(after[1], np_state[1])
    assert after[2:] == np_state[2:]


def test_global_seed_before_reset_is_irrelevant() -> None:
    outs = []
    for global_seed in (0, 1):
        np.random.seed(global_seed)
        random.seed(global_seed)
        outs.append(hoity_env.parallel_env(num_players=4).reset(seed=11))
    assert_same(outs[0], outs[1], "reset")


def deal(env: HoityParallelEnv) -> tuple[list[list[int]], list[int], int]:
    engine = env.get_state()["engine"]
    return engine["hands"], engine["draw_pile"], engine["lot"]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_different_seeds_give_different_deals(num_players: int) -> None:
    deals = []
    observations = []
    for seed in range(8):
        env = hoity_env.parallel_env(num_players=num_players)
        obs, _ = env.reset(seed=seed)
        deals.append(deal(env))
        observations.append(obs["player_0"]["observation"])
    for i in range(len(deals)):
        for j in range(i + 1, len(deals)):
            assert deals[i][0] != deals[j][0], f"seeds {i} and {j} dealt the same hands"
            assert deals[i][1] != deals[j][1], f"seeds {i} and {j} have the same draw pile"
    # The deal shows in the observations too (own hand and lot differ for some seed pairs).
    assert any(not np.array_equal(observations[0], o) for o in observations[1:])


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_same_seed_same_deal(num_players: int) -> None:
    env1 = hoity_env.parallel_env(num_players=num_players)
    env2 = hoity_env.parallel_env(num_players=num_players)
    env1.reset(seed=42)
    env2.reset(seed=42)
    assert deal(env1) == deal(env2)
    # Reseeding an env with a seed it already used repeats that deal.
    env1.reset(seed=7)
    env1.reset(seed=42)
    assert deal(env1) == deal(env2)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_unseeded_reset_after_seeded_reset_is_deterministic(num_players: int) -> None:
    """``reset()`` without a seed continues from the generator ``reset(seed=s)`` set up."""

    def run() -> tuple[list[Any], list[Any]]:
        env = hoity_env.parallel_env(num_players=num_players)
        rng = np.random.default_rng(77)
        obs, infos = env.reset(seed=5)
        outputs: list[Any] = [(obs, infos)]
        deals = [deal(env)]
        for _ in range(3):  # a few steps of the first game, then unseeded resets
            obs, *rest = env.step(masked_choice(obs, rng))
            outputs.append((obs, *rest))
        for _ in range(3):
            obs, infos = env.reset()
            outputs.append((obs, infos))
            deals.append(deal(env))
            for _ in range(4):
                obs, *rest = env.step(masked_choice(obs, rng))
                outputs.append((obs, *rest))
        return outputs, deals

    out1, deals1 = run()
    out2, deals2 = run()
    assert_same(out1, out2, "outputs")
    assert deals1 == deals2
    # Each unseeded reset deals a new game (not the first one again).
    hands = [d[0] for d in deals1]
    assert len({repr(h) for h in hands}) == len(hands)


def test_unseeded_reset_after_whole_episode_is_deterministic() -> None:
    env1 = hoity_env.parallel_env(num_players=3)
    env2 = hoity_env.parallel_env(num_players=3)
    play_episode(env1, seed=9, action_seed=1)
    play_episode(env2, seed=9, action_seed=1)
    assert_same(env1.reset(), env2.reset(), "second game")
    assert deal(env1) == deal(env2)
