"""League self-play in one SB3 VecEnv (docs/design.md §4): self-play seats plus games against a pool.

:class:`HoityLeagueSB3VecEnv` must be exactly its two parts side by side: the
self-play games of :class:`HoitySharedSB3VecEnv` seeded ``s + k`` and the pool games
of :class:`HoityVsBotsSB3VecEnv` seeded ``s + num_games + k``, step for step.  The
``--shared-games`` recipe and its argument checks are tested here too.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from hoity_env.engine.errors import ConfigError
from hoity_env.wrappers.sb3_vec_env import (
    HoityLeagueSB3VecEnv,
    HoitySharedSB3VecEnv,
    HoityVsBotsSB3VecEnv,
)
from tests.helpers import ROOT


def _legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly drawn legal action per row."""
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)


@pytest.mark.parametrize(("num_players", "rules"), [(3, "standard"), (4, "standard"), (4, "original")])
def test_the_league_env_is_its_two_parts_side_by_side(num_players: int, rules: str) -> None:
    pool = ("expert", "thief", "random")
    common = {"num_players": num_players, "reward": "progress", "rules": rules}
    league = HoityLeagueSB3VecEnv(num_games=2, num_pool_games=3, opponent_pool=pool, **common)
    shared = HoitySharedSB3VecEnv(num_games=2, **common)
    bots = HoityVsBotsSB3VecEnv(num_envs=3, opponent_pool=pool, **common)
    split = 2 * num_players
    assert league.num_envs == split + 3
    league.seed(7)
    shared.seed(7)
    bots.seed(9)
    obs = league.reset()
    np.testing.assert_array_equal(obs, np.concatenate([shared.reset(), bots.reset()]))
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(400):
        masks = np.stack(league.env_method("action_masks"))
        np.testing.assert_array_equal(masks, np.concatenate([shared.action_masks(), bots.action_masks()]))
        actions = _legal(masks, rng)
        obs, rewards, dones, infos = league.step(actions)
        a = shared.step(actions[:split])
        b = bots.step(actions[split:])
        np.testing.assert_array_equal(obs, np.concatenate([a[0], b[0]]))
        np.testing.assert_array_equal(rewards, np.concatenate([a[1], b[1]]))
        np.testing.assert_array_equal(dones, np.concatenate([a[2], b[2]]))
        assert len(infos) == league.num_envs
        for mine, theirs in zip(infos, [*a[3], *b[3]], strict=True):
            assert mine.keys() == theirs.keys()
            if "terminal_observation" in mine:
                np.testing.assert_array_equal(mine["terminal_observation"], theirs["terminal_observation"])
        episodes += int(dones.sum())
    assert episodes > league.num_envs  # both parts finished and restarted games


def test_the_pool_can_be_replaced_and_arguments_are_checked() -> None:
    league = HoityLeagueSB3VecEnv(num_games=1, num_pool_games=2, opponent_pool=("random",))
    league.env_method("set_opponent_pool", ["thief", "collector"])
    assert league.pool is not None and len(league.pool.core.agents) == 2
    only_selfplay = HoityLeagueSB3VecEnv(num_games=2, num_pool_games=0)
    assert only_selfplay.num_envs == 8 and only_selfplay.reset().shape[0] == 8
    with pytest.raises(ConfigError, match="no pool games"):
        only_selfplay.set_opponent_pool(["random"])
    with pytest.raises(ConfigError, match="not both 0"):
        HoityLeagueSB3VecEnv(num_games=0, num_pool_games=0)
    with pytest.raises(ConfigError, match="num_games >= 0"):
        HoityLeagueSB3VecEnv(num_games=-1, num_pool_games=2)


def _selfplay() -> ModuleType:
    spec = importlib.util.spec_from_file_location("recipe_selfplay", ROOT / "training" / "selfplay.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


TINY = ["--n-envs", "2", "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1", "--net-width", "16"]
TINY += ["--eval-games", "4", "--final-eval-games", "4", "--workers", "1", "--checkpoint-every", "1000"]


def test_selfplay_with_shared_games_trains_on_both(tmp_path: Path) -> None:
    selfplay = _selfplay()
    argv = ["--name", "c", "--runs-dir", str(tmp_path), "--shared-games", "1", "--total-timesteps", "384"]
    argv += ["--gate-every", "192", "--gate-games", "4", "--gate-win-rate", "0.0", "--eval-every", "384"]
    argv += ["--zoo", "random,thief", "--zoo-weights", "3,1", *TINY]
    result = selfplay.main(argv)
    assert result["gates"] and all(g["admitted"] for g in result["gates"])
    assert (tmp_path / "c" / "final_model.zip").is_file()
    # 1 game x 4 seats + 2 pool games = 6 envs; 32 steps each per rollout
    args = selfplay.Args(shared_games=1, n_envs=2, zoo="random,thief", zoo_weights="3,1")
    env = selfplay.league_env(args)
    assert isinstance(env, HoityLeagueSB3VecEnv) and env.num_envs == 6
    assert selfplay.zoo_weights(args) == [3, 1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--shared-games", "-1"], "--shared-games must be >= 0"),
        (["--shared-games", "2", "--vec-env", "dummy"], "--shared-games needs --vec-env batched"),
        (["--zoo", "random,thief", "--zoo-weights", "1"], "--zoo-weights needs 2"),
        (["--zoo", "random,thief", "--zoo-weights", "1,x"], "--zoo-weights needs 2"),
        (["--zoo", "random,thief", "--zoo-weights", "0,0"], "--zoo-weights needs 2"),
    ],
)
def test_bad_league_arguments_fail_before_the_run_folder(
    argv: list[str], message: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=message):
        _selfplay().main(["--runs-dir", str(tmp_path), *argv])
    assert not any(tmp_path.iterdir())
