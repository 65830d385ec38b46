"""``hoity-eval`` end to end on tiny runs, and its one-line errors (exit status 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import hoity_env
from hoity_env import ConfigError
from hoity_env.cli.eval import main
from hoity_env.evaluation import EvaluationResult, HeadToHeadResult, TournamentResult, evaluate
from tests.helpers import ROOT

FILES = ("result.json", "result.csv", "result.md", "result.png")


def test_evaluate_end_to_end_in_a_subprocess(tmp_path: Path) -> None:
    out = tmp_path / "results"
    cmd = [sys.executable, "-m", "hoity_env.cli.eval", "--players", "4"]
    cmd += ["--agents", "expert,random,random,random", "--games", "8", "--seed", "0"]
    cmd += ["--workers", "2", "--out", str(out)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "| `expert` |" in proc.stdout and "| `random` |" in proc.stdout
    assert "\r" not in proc.stderr  # stderr is a pipe here: no progress bar
    for name in FILES:
        assert (out / name).stat().st_size > 0, name
    result = EvaluationResult.from_json((out / "result.json").read_text(encoding="utf-8"))
    assert result.games == 8 and result.agents == ("expert", "random", "random", "random")
    assert (out / "result.md").read_text(encoding="utf-8") == result.to_markdown()
    # The same run in-process, with one worker: the same result.
    again = tmp_path / "again"
    argv = ["--agents", "expert,random,random,random", "--games", "8", "--no-progress", "--out", str(again)]
    assert main(argv) == 0
    assert (again / "result.json").read_text(encoding="utf-8") == (out / "result.json").read_text(
        encoding="utf-8"
    )
    assert (again / "result.csv").read_text(encoding="utf-8") == (out / "result.csv").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("argv", "kind"),
    [
        (["tournament", "--pool", "expert,thief,random", "--players", "3", "--games", "3"], TournamentResult),
        (["h2h", "--pool", "expert,random", "--players", "2", "--games", "2"], HeadToHeadResult),
    ],
)
def test_tournament_and_h2h_commands(
    argv: list[str],
    kind: type[TournamentResult | HeadToHeadResult],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*argv, "--no-progress", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "`expert`" in out
    for name in FILES:
        assert (tmp_path / name).stat().st_size > 0
    kind.from_json((tmp_path / "result.json").read_text(encoding="utf-8"))


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main([*argv, "--games", "4", "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    return captured.err


def test_unknown_agent_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["--agents", "expert,wizard,random,random"], capsys)
    assert err.startswith("hoity-eval: error: unknown agent 'wizard'")
    assert len(err.strip().splitlines()) == 1


def test_unknown_agent_in_a_pool(capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["tournament", "--pool", "expert,wizard"], capsys)
    assert err.startswith("hoity-eval tournament: error: unknown agent 'wizard'")


def test_missing_checkpoint(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = _error(["--agents", f"ppo:{tmp_path / 'nope.zip'},random"], capsys)
    assert "hoity-eval: error: checkpoint file not found" in err and "nope.zip" in err


def test_corrupt_checkpoint(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_text("this is not a zip archive", encoding="utf-8")
    err = _error(["--agents", f"expert,ppo-sample:{bad}"], capsys)
    assert "hoity-eval: error: checkpoint" in err and "corrupt" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--agents", "expert,,random"]) == 2
    assert main(["--agents", "expert,random", "--games", "0"]) == 2
    assert main(["--agents", "expert,random", "--players", "4"]) == 2
    assert "4 players need 4 agents" in capsys.readouterr().err
    assert main(["--help"]) == 0


def test_unwritable_out_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main(["--agents", "random,random", "--games", "2", "--no-progress", "--out", str(blocker)]) == 2
    assert "hoity-eval: error: cannot write results" in capsys.readouterr().err


def _checkpoint(tmp_path: Path, num_players: int) -> Path:
    """A tiny untrained MaskablePPO with the spaces of a ``num_players`` game."""
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    env = hoity_env.parallel_env(num_players=num_players)
    space = env.observation_space("player_0")["observation"]

    class Spaces(gym.Env):  # type: ignore[type-arg]
        observation_space = space
        action_space = env.action_space("player_0")

    model = MaskablePPO("MlpPolicy", Spaces(), n_steps=8, batch_size=8, policy_kwargs={"net_arch": [8]})
    path = tmp_path / f"ppo{num_players}.zip"
    model.save(str(path))
    return path


def test_checkpoints_play_and_wrong_player_count_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _checkpoint(tmp_path, 3)
    err = _error(["--agents", f"ppo:{path},random,random,random"], capsys)
    assert "trained for 3 players, not 4" in err
    assert (
        main(
            ["--agents", f"ppo:{path},random,random", "--games", "3", "--no-progress", "--out", str(tmp_path)]
        )
        == 0
    )
    data = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert data["agent_stats"][0]["agent"] == f"ppo:{path}" and data["games"] == 3


def test_a_removed_checkpoint_is_not_served_from_a_cache(tmp_path: Path) -> None:
    # A training loop re-evaluating runs/x/latest.zip must get the file as it is now.
    path = _checkpoint(tmp_path, 2)
    result = evaluate([f"ppo:{path}", "random"], num_players=2, games=2, progress=False)
    assert result.games == 2
    path.unlink()
    with pytest.raises(ConfigError, match="not found"):
        evaluate([f"ppo:{path}", "random"], num_players=2, games=2, progress=False)
