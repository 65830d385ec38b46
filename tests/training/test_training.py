"""The training recipes run end to end on tiny budgets, resume, and their models play (docs/design.md §4)."""

from __future__ import annotations

import importlib.util
import json
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hoity_env.evaluation import evaluate
from hoity_env.learning.runs.state import read_state
from tests.helpers import ROOT

TINY = [
    "--n-envs",
    "1",
    "--n-steps",
    "64",
    "--batch-size",
    "64",
    "--n-epochs",
    "1",
    "--net-width",
    "16",
    "--eval-games",
    "4",
    "--final-eval-games",
    "4",
    "--workers",
    "1",
]


def _load(name: str) -> ModuleType:
    path = ROOT / "training" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"recipe_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


pytestmark = pytest.mark.slow


def _train(tmp_path: Path, name: str, total: int, *flags: str) -> Any:
    """``train_ppo.py`` on a tiny budget into ``tmp_path/name``; returns what its ``main`` does."""
    argv = ["--name", name, "--runs-dir", str(tmp_path), "--total-timesteps", str(total), *flags, *TINY]
    return _load("train_ppo").main(argv)


def test_train_ppo_writes_the_run_folder(tmp_path: Path) -> None:
    every = ["--eval-every", "64", "--checkpoint-every", "64"]
    _train(tmp_path, "t", 128, *every, "--eval-opponents", "random,expert")
    run = tmp_path / "t"
    for name in (
        "final_model.zip",
        "evaluation.json",
        "evaluation.md",
        "learning_curve.png",
        "curve.csv",
        "args.json",
    ):
        assert (run / name).is_file(), name
    assert any((run / "tb").rglob("events.out.tfevents*"))
    report = json.loads((run / "evaluation.json").read_text())
    assert set(report["scores"]) == {"random", "expert"}
    assert list(report["scores"]["random"])[:3] == ["agent", "entries", "games"]  # key columns first
    assert report["meta"]["timesteps"] >= 128
    checkpoint = run / "checkpoints" / "curve_128.zip"
    assert checkpoint.is_file()
    # Checkpoint and curve snapshot at the same step are one file, not two copies.
    assert not list((run / "checkpoints").glob("t_*_steps.zip"))
    # No saved model carries a path of this machine (the TensorBoard folder is absolute here).
    for model in [run / "final_model.zip", *(run / "checkpoints").glob("*.zip")]:
        with zipfile.ZipFile(model) as zf:
            assert str(tmp_path) not in zf.read("data").decode(), model

    # SB3's logger: the training table's fps and the curve's win rates in progress.csv.
    progress = (run / "progress.csv").read_text().splitlines()
    assert "time/fps" in progress[0] and "eval/win_rate_vs_random" in progress[0]


def _selfplay(
    tmp_path: Path, name: str, total: int, gate: str, eval_every: int, zoo: str, *extra: str
) -> Any:
    """A tiny self-play run: a gate every 64 steps admitting at win rate ``gate``."""
    flags = {"--total-timesteps": total, "--gate-every": 64, "--gate-games": 4, "--gate-win-rate": gate}
    argv = ["--name", name, "--runs-dir", str(tmp_path), *(str(x) for kv in flags.items() for x in kv)]
    return _load("selfplay").main([*argv, "--eval-every", str(eval_every), "--zoo", zoo, *extra, *TINY])


def test_selfplay_admits_snapshots_through_the_gate(tmp_path: Path) -> None:
    # The fast learner: 1 game x 64 steps per iteration, a gate after each.
    result = _selfplay(
        tmp_path, "s", 192, "0.0", 128, "random,thief", "--max-snapshots", "2", "--learner", "fast"
    )
    league = sorted((tmp_path / "s" / "league").glob("snapshot_*.zip"))
    assert len(result["gates"]) >= 2 and all(g["admitted"] for g in result["gates"])
    assert len(result["league"]) == 2 and set(result["league"]) <= set(league)
    assert (tmp_path / "s" / "final_model.zip").is_file()
    state = sorted((tmp_path / "s" / "checkpoints").glob("state_*.pt"))[-1]
    (table,) = read_state(state)["tables"]  # the gate's snapshots play
    assert table["seating"]["snapshots"] == len(result["gates"]) and table["seating"]["weights"][-1] > 0


def test_selfplay_gate_refuses_a_weak_learner(tmp_path: Path) -> None:
    result = _selfplay(tmp_path, "w", 64, "1.01", 64, "random", "--learner", "sb3")
    assert result["gates"] and not any(g["admitted"] for g in result["gates"])
    assert not list((tmp_path / "w" / "league").glob("snapshot_*.zip"))


def test_a_saved_model_plays_through_the_harness(tmp_path: Path) -> None:
    _train(tmp_path, "h", 64, "--eval-every", "64", "--eval-opponents", "random")
    model = tmp_path / "h" / "final_model.zip"
    result = evaluate([f"ppo:{model}", "expert", "random", "thief"], games=8, seed=0, progress=False)
    assert result.games == 8
    assert {s.agent for s in result.agent_stats} == {f"ppo:{model}", "expert", "random", "thief"}


def test_select_best_keeps_the_best_candidate_on_a_validation_seed(tmp_path: Path) -> None:
    every = ["--eval-every", "64", "--checkpoint-every", "96", "--eval-opponents", "random"]
    _train(tmp_path, "b", 192, *every, "--select-best", "2", "--validation-games", "4")
    run = tmp_path / "b"
    meta = json.loads((run / "evaluation.json").read_text())["meta"]
    table = meta["selected_from"]
    assert [Path(row["checkpoint"]).name for row in table] == [
        "curve_64.zip",
        "curve_128.zip",
        "curve_192.zip",  # the end-of-training model, once (no copy of it as last_model.zip)
    ]
    # Checkpoints fall where no curve snapshot was saved: 96 (128 and 192 would repeat a snapshot).
    assert sorted(p.name for p in (run / "checkpoints").glob("b_*_steps.zip")) == ["b_96_steps.zip"]
    best = max(table, key=lambda row: row["mean_win_rate"])
    assert meta["selected"] == best["checkpoint"]
    assert (run / "final_model.zip").read_bytes() == Path(best["checkpoint"]).read_bytes()


def test_final_lr_fraction_decays_the_learning_rate_linearly(tmp_path: Path) -> None:
    setup = _load("model_setup")
    train = _load("train_ppo")
    env = setup.make_vec_env(1, num_players=3)
    try:
        args = train.Args(learning_rate=1e-3, final_lr_fraction=0.1, n_steps=64, batch_size=64)
        model = setup.build_model(args, env, tmp_path)
        assert model.lr_schedule(1.0) == pytest.approx(1e-3)
        assert model.lr_schedule(0.5) == pytest.approx(5.5e-4)
        assert model.lr_schedule(0.0) == pytest.approx(1e-4)
        constant = setup.build_model(train.Args(n_steps=64, batch_size=64), env, tmp_path)
        assert constant.lr_schedule(0.0) == pytest.approx(3e-4)
        with pytest.raises(ValueError, match="final-lr-fraction"):
            setup.build_model(train.Args(final_lr_fraction=1.5), env, tmp_path)
    finally:
        env.close()


def test_a_fresh_recipe_run_takes_a_free_run_folder_and_writes_nothing_elsewhere(tmp_path: Path) -> None:
    """The recipes' folders are the package's run folders (the fresh-name rule and the race of two
    runs started together are tested there, tests/learning/test_run_folder.py)."""
    folders = _load("run_folder")
    train = _load("train_ppo")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "curve.csv").write_text("an earlier run")
    with folders.run_folder(train.Args(runs_dir=str(tmp_path), name="x"), None) as run_dir:
        assert run_dir == tmp_path / "x_2" and (run_dir / ".hoity-run.lock").is_file()  # held
    assert json.loads((run_dir / "args.json").read_text())["name"] == "x"
    assert json.loads((run_dir / "run.json").read_text())["kind"] == "training-recipe"
    assert [p.name for p in (tmp_path / "x").iterdir()] == ["curve.csv"]


def test_vec_env_choice() -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    setup = _load("model_setup")
    for kind, n, cls in (
        ("dummy", 2, DummyVecEnv),
        ("subproc", 2, SubprocVecEnv),
        ("subproc", 1, DummyVecEnv),
    ):
        env = setup.make_vec_env(n, kind, num_players=3)
        try:
            assert isinstance(env, cls) and env.num_envs == n
            env.reset()
        finally:
            env.close()
    with pytest.raises(ValueError, match="vec-env"):
        setup.make_vec_env(2, "threads")


@pytest.mark.parametrize("flag", [["--vec-env", "threads"], ["--final-lr-fraction", "2"]])
@pytest.mark.parametrize("recipe", ["train_ppo", "selfplay"])
def test_bad_recipe_arguments_fail_before_a_run_folder_is_made(
    tmp_path: Path, recipe: str, flag: list[str]
) -> None:
    module = _load(recipe)
    with pytest.raises(ValueError, match=flag[0]):
        module.main(["--runs-dir", str(tmp_path), *flag])
    assert not any(tmp_path.iterdir())


def test_train_ppo_under_the_original_rules(tmp_path: Path) -> None:  # RULES O-*: --rules original
    every = ["--eval-every", "64", "--checkpoint-every", "64"]
    result = _train(tmp_path, "o", 64, "--rules", "original", *every, "--eval-opponents", "random,expert")
    run = tmp_path / "o"
    assert json.loads((run / "args.json").read_text())["rules"] == "original"
    report = json.loads((run / "evaluation.json").read_text())
    assert set(report["scores"]) == {"random", "expert"} and report["meta"]["timesteps"] >= 64
    assert result["run_dir"] == str(run)
    # The model plays original games through the harness (55 actions, original observations).
    learner = f"ppo:{run / 'final_model.zip'}"
    played = evaluate([learner, "random", "random", "random"], games=4, rules="original", progress=False)
    assert played.games == 4
