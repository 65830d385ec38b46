"""Training on the batched engine: the recipes' default vec env and shared_ppo.py (docs/design.md §4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from tests.training.test_training import _load  # the recipes load as modules the same way there


def test_the_recipes_default_to_the_batched_vec_env() -> None:
    from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

    setup = _load("model_setup")
    for recipe in ("train_ppo", "selfplay"):
        assert _load(recipe).Args().vec_env == "batched"
    env = setup.make_vec_env(
        8, "batched", num_players=3, opponent_pool=["random", "thief"], reward="progress"
    )
    try:
        assert isinstance(env, HoityVsBotsSB3VecEnv) and env.num_envs == 8
        assert env.reset().shape == (8, 21 + 24 * 3)
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("learner", ["fast", "sb3"])
def test_shared_ppo_trains_every_seat_and_reports(tmp_path: Path, learner: str) -> None:
    shared = _load("shared_ppo")
    result = shared.main(
        [
            "--learner",
            learner,
            "--runs-dir",
            str(tmp_path),
            "--num-players",
            "3",
            "--num-games",
            "4",
            "--total-timesteps",
            "768",
            "--n-steps",
            "32",
            "--batch-size",
            "128",
            "--n-epochs",
            "1",
            "--net-width",
            "16",
            "--eval-every",
            "768",
            "--eval-games",
            "6",
            "--final-eval-games",
            "6",
            "--eval-opponents",
            "random,thief",
        ]
    )
    run = Path(str(result["run_dir"]))
    assert (run / "final_model.zip").is_file() and (run / "learning_curve.png").is_file()
    report = json.loads((run / "evaluation.json").read_text())
    assert report["meta"]["parameter_sharing"] is True
    assert report["meta"].get("learner", "sb3") == learner
    assert report["meta"]["timesteps"] >= 768
    assert set(result["scores"]) == {"random", "thief"}  # type: ignore[call-overload]


def test_shared_ppo_checks_num_games_before_making_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="num-games"):  # a ConfigError
        _load("shared_ppo").main(["--runs-dir", str(tmp_path), "--num-games", "0"])
    assert not any(tmp_path.iterdir())
