"""A best response's start (issue 45): fresh, warm from the target's own weights, or a curriculum.

Each start is an estimator of ``exploit`` and the ladder, named in every result beside the
learner, settings and memory; a warm start takes the target's network (a scripted target has
none and is refused), a warm best response stopped and resumed ends as the uninterrupted one,
results written before there were starts read as ``fresh``, and the command line refuses a bad
combination before any folder exists.  Tiny budgets: plumbing, not strength.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hoity_env.cli.eval import main
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation import MatchSettings
from hoity_env.strength import BestResponse, ExploitResult, Sweep, SweepResult, exploitability
from hoity_env.strength.jobs import Interrupted
from hoity_env.strength.response import STRONG_SETTINGS
from hoity_env.strength.results import estimator_label
from hoity_env.strength.start import start_settings
from tests.helpers import FAST_TINY, tiny_training
from tests.strength.test_strength_hardening import _plain, _signal_after

FIVE = MatchSettings(num_players=5, rules="standard", seed=0)


def test_each_start_is_named_in_the_settings_and_the_estimator() -> None:
    fresh = BestResponse(budget=1)
    assert "start" not in fresh.settings and fresh.estimator()["start"] == "fresh"  # old runs still found
    warm = BestResponse(budget=1, start="warm")
    assert warm.settings == {"learner": "fast", "start": "warm", **STRONG_SETTINGS}
    curriculum = BestResponse(budget=1, start="curriculum", curriculum=0.5)
    assert curriculum.settings["start"] == "curriculum" and curriculum.settings["curriculum"] == 0.5
    assert curriculum.estimator() == {
        "learner": "fast",
        "settings": "strong",
        "memory": 0,
        "start": "curriculum 0.5",
    }
    assert estimator_label("fast", "strong", 0, "warm") == "fast/strong, warm"
    assert estimator_label("fast", "strong", 4) == "fast/strong, memory 4"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"start": "hot"}, "start must be one of fresh, warm, curriculum"),
        ({"start": "warm", "learner": "sb3"}, "MaskablePPO \\(sb3\\) starts fresh"),
        ({"start": "curriculum", "curriculum": 1.0}, "curriculum must be a fraction"),
        ({"start": "curriculum", "curriculum": float("nan")}, "curriculum must be a fraction"),
        ({"curriculum": 0.5}, "a curriculum fraction needs start 'curriculum'"),
        ({"ppo": {"init": "champion"}}, "unknown fast learner settings \\['init'\\]"),
        ({"ppo": {"curriculum_steps": 3}}, "unknown fast learner settings"),
    ],
)
def test_a_bad_start_is_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        BestResponse(budget=1, **fields)


def test_a_warm_start_takes_the_targets_network_and_keeps_the_rest_of_the_preset() -> None:
    settings = BestResponse(budget=1, start="warm").fast_settings("champion-mix", FIVE, 1000)
    assert settings.init == "champion-mix" and settings.hidden == (128, 128) and settings.padded
    assert (settings.epochs, settings.learning_rate) == (
        STRONG_SETTINGS["epochs"],
        STRONG_SETTINGS["learning_rate"],
    )
    curriculum = BestResponse(budget=1, start="curriculum").fast_settings("champion-mix", FIVE, 1000)
    assert curriculum.curriculum == (("expert", 1.0),) and curriculum.curriculum_steps == 250
    assert curriculum.hidden == (256, 256) and not curriculum.init  # the preset's own network


@pytest.mark.parametrize(
    ("target", "values", "message"),
    [
        ("expert", {}, "has no policy weights to start from"),
        ("champion-mix", {"hidden": [64, 64]}, "a warm start takes hidden from the target's file"),
        ("champion-mix", {"memory": 2}, "has memory 0, not the 2 given"),
    ],
)
def test_a_warm_start_that_cannot_copy_its_target_is_refused(
    target: str, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        start_settings(
            {**STRONG_SETTINGS, **values},
            "warm",
            0.25,
            target=target,
            rules="standard",
            num_players=5,
            total=1000,
            preset=STRONG_SETTINGS,
        )
    same = start_settings(
        {**STRONG_SETTINGS, "hidden": [128, 128]},  # the file's own: no conflict
        "warm",
        0.25,
        target="champion-mix",
        rules="standard",
        num_players=5,
        total=1000,
        preset=STRONG_SETTINGS,
    )
    assert same["hidden"] == [128, 128]


def test_a_warm_best_response_stopped_and_resumed_is_the_uninterrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kw: dict[str, Any] = {"budget": 1024, "games": 8, "curve_points": 1, "curve_games": 4, "start": "warm"}
    whole = exploitability("champion", **kw, **tiny_training(tmp_path / "whole"))
    assert whole.start == "warm" and "started from the target's own weights" in whole.to_markdown()
    runs = tmp_path / "runs"
    _signal_after(monkeypatch, 512)
    with pytest.raises(Interrupted):
        exploitability("champion", **kw, **tiny_training(runs))
    monkeypatch.undo()
    assert json.loads((runs / "champion" / "settings.json").read_text())["start"] == "warm"
    resumed = exploitability("champion", resume=True, **kw, **tiny_training(runs))
    assert _plain(resumed, runs) == _plain(whole, tmp_path / "whole")
    fresh = exploitability("champion", resume=True, **{**kw, "start": "fresh"}, **tiny_training(runs))
    assert fresh.entries[0].run_dir == str(runs / "champion_2")  # another estimator: never reused


def test_a_sweep_over_starts_reports_each_and_their_maximum(tmp_path: Path) -> None:
    sweep = Sweep(
        budgets=(512,),
        starts=("fresh", "curriculum"),
        curriculum=0.5,
        curve_points=0,
        runs_dir=tmp_path,
        ppo={"fast": FAST_TINY},
    )
    assert [name for name, _, _ in sweep.runs()] == ["fast_seed0_512", "fast_seed0_512_curriculum"]
    with pytest.raises(ConfigError, match="the fast learner's"):
        Sweep(budgets=(512,), learners=("sb3",), starts=("warm",))
    with pytest.raises(ConfigError, match="needs the curriculum start"):
        Sweep(budgets=(512,), curriculum=0.5)
    from hoity_env.strength import exploitability_sweep

    result = exploitability_sweep("thief", sweep, games=8, progress=False)
    assert [e.start for e in result.entries] == ["fresh", "curriculum 0.5"]
    tiny = "fast/strong+minibatch_size,num_games,rollout_steps"
    assert result.estimators == (tiny, f"{tiny}, curriculum 0.5")
    assert "| start |" in result.to_markdown() and SweepResult.from_json(result.to_json()) == result


def test_results_written_before_there_were_starts_read_as_fresh() -> None:
    entry = {"target": "thief", "timesteps": 8, "games": 4, "wins": 1, "win_rate": 0.25, "ci_low": 0.05,
             "ci_high": 0.7, "mean_rank": 2.5, "train_seconds": 1.0, "run_dir": "r", "curve": []}  # fmt: skip
    old = {"num_players": 4, "rules": "standard", "budget": 8, "seed": 0, "fair_share": 0.25,
           "entries": [entry], "learner": "fast", "settings": "strong", "memory": 0}  # fmt: skip
    assert ExploitResult.from_dict(old).start == "fresh"
    sweep_entry = {"target": "thief", "learner": "fast", "seed": 0, "budget": 8, "timesteps": 8, "games": 4,
                   "wins": 1, "win_rate": 0.25, "ci_low": 0.05, "ci_high": 0.7, "train_cpu_seconds": 1.0,
                   "run_dir": "r"}  # fmt: skip
    sweep = {"num_players": 4, "rules": "standard", "fair_share": 0.25, "budgets": [8], "seeds": [0],
             "learners": ["fast"], "entries": [sweep_entry]}  # fmt: skip
    assert SweepResult.from_dict(sweep).entries[0].start == "fresh"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--target", "expert", "--start", "warm"], "expert has no policy weights to start from"),
        (["--start", "warm", "--learner", "sb3"], "--start warm and curriculum are the fast learner's"),
        (["--start", "curriculum", "--learners", "sb3", "--seeds", "0,1"], "the fast learner's"),
        (["--curriculum-fraction", "0.5"], "--curriculum-fraction needs --start curriculum"),
        (["--start", "curriculum", "--curriculum-fraction", "1.5"], "curriculum must be a fraction"),
        (["--start", "warm,warm"], "--start must not repeat"),
        (["--start", "hot"], "starts are fresh, warm, curriculum"),
        (["--start", "warm", "--memory", "2"], "has memory 0, not the 2 given"),
        (["--start", "warm", "--target", "reference"], "reference"),  # registered at 4 players only
    ],
)
def test_cli_refuses_a_bad_start_before_any_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    runs = tmp_path / "runs"
    argv = ["exploit", "--target", "champion-mix", "--players", "5", "--budget", "1", "--games", "4"]
    assert main([*argv, "--runs-dir", str(runs), "--no-progress", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and message in err and "Traceback" not in err
    assert not runs.exists()


def test_cli_ladder_takes_a_start_and_refuses_warm_for_scripted_agents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    argv = [
        "ladder",
        "--agents",
        "champion,expert",
        "--budget",
        "1",
        "--runs-dir",
        str(runs),
        "--start",
        "warm",
    ]
    assert main(argv) == 2
    assert "expert has no policy weights" in capsys.readouterr().err and not runs.exists()
