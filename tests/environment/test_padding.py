"""The padded observation: a differential test against the env's own encoding, field by field.

For every player count 2-6 and both rulesets, random legal games (seeded, the batched engine,
whose rows equal the one-game env's by its own differential tests, and the one-game env
itself) are padded, and every field of the env's layout is found, unchanged, under its name
in the padded layout; the absent seats' blocks are zero, the presence flags and the
player-count one-hot are right, and nothing else in a padded row is nonzero.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hoity_env.engine.config import RULESET_NAMES
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.environment.padding import (
    MAX_SEATS,
    PLAYER_COUNTS,
    padded_dim,
    padded_layout_markdown,
    padded_obs_layout,
    padder,
    unpadded_dim,
)
from hoity_env.environment.parallel import HoityParallelEnv

TABLES = [(rules, n) for rules in RULESET_NAMES for n in PLAYER_COUNTS]


def check_padded(
    padded: np.ndarray, obs: np.ndarray, env_layout: dict[str, slice], rules: str, n: int
) -> None:
    """``padded`` rows hold ``obs`` rows field by field (see the module docstring)."""
    layout = padded_obs_layout(rules)
    seen = np.zeros(padded.shape[-1], dtype=bool)
    for name, where in env_layout.items():
        target = layout[name]
        width = where.stop - where.start
        np.testing.assert_array_equal(padded[:, target.start : target.start + width], obs[:, where], name)
        np.testing.assert_array_equal(
            padded[:, target.start + width : target.stop], 0.0, name
        )  # checks slots
        seen[target] = True
    count = layout["num_players"]
    expected = np.zeros(count.stop - count.start)
    expected[PLAYER_COUNTS.index(n)] = 1.0
    np.testing.assert_array_equal(padded[:, count], np.broadcast_to(expected, (len(padded), expected.size)))
    seen[count] = True
    for k in range(MAX_SEATS):
        present = layout[f"player{k}.present"]
        np.testing.assert_array_equal(padded[:, present], 1.0 if k < n else 0.0)
        seen[present] = True
    assert not padded[:, ~seen].any()  # absent seats' blocks: nothing but zeros


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_padded_rows_hold_the_env_observation_field_by_field(rules: str, n: int) -> None:
    env = BatchedHoityEnv(num_envs=6, num_players=n, rules=rules)
    rng = np.random.default_rng(n)
    obs, _, _ = env.reset(seed=10 * n)
    pad = padder(rules, n)
    assert (pad.obs_dim, pad.padded_dim) == (env.obs_dim, padded_dim(rules))
    rows = []
    for step in range(120):  # whole games end and restart within these steps
        if step % 7 == 0:
            rows.append(obs.reshape(-1, env.obs_dim).copy())
        obs = env.step(env.sample_actions(rng))[0]
    every = np.concatenate(rows)
    assert every.any(axis=0).sum() > 0.5 * env.obs_dim  # real play: most fields were nonzero somewhere
    check_padded(pad.pad(every), every, env.obs_layout(), rules, n)
    batch = pad.pad(np.stack([every[:5], every[5:10]]))  # any leading shape, into a given array too
    out = np.full((2, 5, pad.padded_dim), 7.0, dtype=np.float32)
    assert pad.pad(np.stack([every[:5], every[5:10]]), out=out) is out
    np.testing.assert_array_equal(out, batch)
    np.testing.assert_array_equal(batch[1], pad.pad(every[5:10]))


@pytest.mark.parametrize("rules", RULESET_NAMES)
def test_the_one_game_env_pads_alike(rules: str) -> None:
    env = HoityParallelEnv(num_players=3, rules=rules, illegal_action="raise")
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(30):
        rows = np.stack([obs[a]["observation"] for a in env.possible_agents])
        check_padded(padder(rules, 3).pad(rows), rows, env.obs_layout(), rules, 3)
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.possible_agents}
        obs = env.step(actions)[0]


@pytest.mark.parametrize("rules", RULESET_NAMES)
def test_one_layout_per_ruleset_named_and_contiguous(rules: str) -> None:
    layout = padded_obs_layout(rules)
    spans = sorted((s.start, s.stop) for s in layout.values())
    assert spans[0][0] == 0 and spans[-1][1] == padded_dim(rules)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))  # no gap, no overlap
    assert padded_dim("standard") == 176 and padded_dim("original") == 350
    widths = {unpadded_dim(rules, n) for n in PLAYER_COUNTS}
    assert padded_dim(rules) not in widths | {
        unpadded_dim(r, n) for r in RULESET_NAMES for n in PLAYER_COUNTS
    }
    table = padded_layout_markdown(rules)
    assert "`num_players`" in table and "`playerK.present`" in table


def test_bad_widths_and_outputs_are_refused() -> None:
    pad = padder("standard", 4)
    with pytest.raises(ConfigError, match="4-player standard observation has length 117, got 93"):
        pad.pad(np.zeros((2, 93), dtype=np.float32))
    with pytest.raises(ConfigError, match="C-contiguous float32"):
        pad.pad(np.zeros((2, 117), dtype=np.float32), out=np.zeros((2, 176)))
    with pytest.raises(ConfigError, match="num_players"):
        padder("standard", 7)
