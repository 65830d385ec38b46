"""``hoity-league`` keeps the promises of docs/guarantees.md (issue 37, round three of hardening).

Every setting checked before any folder exists (``--exploiter-settings`` included), resume
with the run's own settings, damaged files of each kind, a second signal.  Each run is a
few iterations of 8 self-play games × 4 steps (128 learner steps) on the numpy engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from hoity_env.cli.league import main
from hoity_env.engine.errors import ConfigError
from hoity_env.league.members import LeagueSettings
from hoity_env.learning import LearnerSettings, load_policy
from tests.learning.test_learn_hardening import (
    ITERATION,
    TINY,
    check_final,
    check_resume_flags,
    listing,
    one_error_line,
)


def finished_league(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    """A finished league of three iterations, a checkpoint after each, a snapshot after the second."""
    run = tmp_path / "league"
    flags = ["--steps", str(3 * ITERATION), "--checkpoint-every", "1", "--league-snapshot-every", "256"]
    assert main([*TINY, *flags, "--pfsp-games", "4", "--pfsp", "none", *extra, "--out", str(run)]) == 0
    capsys.readouterr()
    return run


# ------------------------------------------------------------------ 6. every setting, before any folder
@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--exploiter-settings", '{"bogus": 1}'], "unknown fast learner settings"),
        (["--exploiter-settings", '{"num_games": 0}'], "num_games"),
        (["--exploiter-settings", '{"hidden": [0]}'], "hidden"),
        (["--exploiter-settings", '{"learning_rate": NaN}'], "learning_rate"),
        (["--exploiter-settings", '{"seed": 3}'], "unknown fast learner settings"),
        (["--exploiter-settings", "[1, 2]"], "JSON object"),
        (["--exploiter-every", "128", "--seed", str(2**32 - 1000)], "exploiters' seeds"),
        (["--pfsp-games", "0"], "pfsp_games"),
        (["--exploiter-games", str(10**9)], "exploiter_games"),
        (["--snapshot-weight", "1e308"], "snapshot_weight"),
        (["--cpu-budget", "nan"], "cpu_budget"),
        (["--pool", "self,wizard"], "unknown agent 'wizard'"),
        (["--eval-games", "4", "--eval-against", "random,wizard"], "unknown agent 'wizard'"),
        (["--players", "9"], "num_players"),
    ],
)
def test_every_setting_is_checked_before_any_folder_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    """Issue 37: a bad ``--exploiter-settings`` was found when the first exploiter was due, after
    the main agent had trained, and the run stopped without a checkpoint."""
    assert main([*TINY, "--steps", str(ITERATION), *flags, "--out", str(tmp_path / "runs" / "x")]) == 2
    assert message in one_error_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


def test_league_settings_check_the_exploiters_when_built() -> None:
    main_settings = LearnerSettings(num_games=4, rollout_steps=4, minibatch_size=16, hidden=(8, 8))
    for overrides in ({"bogus": 1}, {"num_games": 0}, {"epochs": 10**6}):
        with pytest.raises(ConfigError, match="exploiter_settings"):
            LeagueSettings(main=main_settings, exploiter_settings=overrides)


# ------------------------------------------------------------------ 1. resume keeps the run's settings
def test_resume_refuses_a_league_flag_that_differs_from_the_runs_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "league"
    flags = ["--steps", "100000", "--time-limit-minutes", "1e-9", "--pfsp-games", "4"]
    assert main([*TINY, *flags, "--out", str(run)]) == 0
    assert "continue with: hoity-league --resume" in capsys.readouterr().err
    changed = [["--league-snapshot-every", "128"], ["--pfsp", "none"], ["--pfsp-games", "8"]]
    changed += [
        ["--exploiter-settings", '{"num_games": 32}'],
        ["--lr", "0.5"],
        ["--out", str(tmp_path / "x")],
    ]
    check_resume_flags(main, run, changed, ["--pfsp-games", "4"], capsys)


def test_a_finished_league_is_final_and_its_resume_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_final(main, finished_league(tmp_path, capsys), capsys)


# ------------------------------------------------------------------ 7. damaged files, each kind
@pytest.mark.parametrize(
    ("name", "damage", "message"),
    [
        ("league_settings.json", lambda t: t[: len(t) // 2], "truncated?"),
        ("league_settings.json", lambda t: t.replace('"pfsp_games": 4', '"pfsp_games": 0'), "pfsp_games"),
        ("settings.json", lambda t: t[:10], "truncated?"),
        ("settings.json", lambda t: t.replace('"learning_rate": 0.001', '"learning_rate": 0.5'), "differs"),
        ("league_settings.json", lambda t: "{" + '"a": {' * 50_000 + "}" * 50_001, "nested too deeply"),
        ("league_settings.json", lambda t: '"text"', "JSON object"),
    ],
    ids=[
        "league-settings-truncated",
        "league-settings-edited",
        "settings-truncated",
        "settings-edited",
        "league-settings-nested",  # issue 44, 7: a RecursionError
        "league-settings-not-an-object",
    ],
)
def test_a_damaged_settings_file_is_one_error_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, damage: Any, message: str
) -> None:
    run = finished_league(tmp_path, capsys)
    path = run / name
    path.write_text(damage(path.read_text()))
    before = listing(run)
    assert main(["--resume", str(run)]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert str(path) in line and message in line
    assert listing(run) == before


@pytest.mark.parametrize("kind", ["league", "league-nested", "league-member", "state"])
def test_a_damaged_checkpoint_falls_back_to_the_one_before_and_ends_as_the_whole_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    run = finished_league(tmp_path, capsys)
    (run / "finished.json").unlink()  # not finished yet (a finished run is final: it trains nothing)
    whole = load_policy(run / "policy.zip").state_dict()
    record = json.loads((run / "league.json").read_text())
    suffix = "pt" if kind == "state" else "json"
    last = run / "checkpoints" / f"{kind.split('-')[0]}_{3 * ITERATION:012d}.{suffix}"
    if kind == "league":
        last.write_text(last.read_text().replace('"members"', '"member"'))  # edited: no longer a record
    elif kind == "league-nested":  # issue 44, 7: a RecursionError, not a fall-back
        last.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "league-member":  # a member that is no agent spec
        last.write_text(last.read_text().replace('"spec": "self"', '"spec": 7'))
    else:
        last.write_bytes(last.read_bytes()[:500])  # truncated
    assert main(["--resume", str(run)]) == 0
    assert f"{last}" in caplog.text and "falling back to the previous checkpoint" in caplog.text
    assert last.with_name(last.name + ".damaged").is_file()
    resumed = load_policy(run / "policy.zip").state_dict()
    assert all(torch.equal(resumed[k], whole[k]) for k in whole)
    again = json.loads((run / "league.json").read_text())
    assert [m["spec"] for m in again["members"]] == [m["spec"] for m in record["members"]]
