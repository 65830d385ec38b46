"""A typo in an agent spec stops a recipe at once: one line, no run folder, no worker (docs/design.md §4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT


@pytest.mark.parametrize(
    ("recipe", "flag", "value", "expected"),
    [
        # The default --vec-env subproc used to crash its workers with ConnectionResetError here.
        ("train_ppo", "--opponents", "expert,expret", "--opponents: unknown agent 'expret'"),
        ("train_ppo", "--eval-opponents", "ppo:no/such/model.zip", "--eval-opponents: "),
        ("selfplay", "--zoo", "expert,thef", "--zoo: unknown agent 'thef'"),
        ("train_ppo", "--rules", "classic", "--rules must be one of ['original', 'standard']"),
        ("shared_ppo", "--eval-opponents", "expert,expret", "--eval-opponents: unknown agent 'expret'"),
    ],
)
def test_bad_agent_spec_is_one_line_before_any_run_folder(
    recipe: str, flag: str, value: str, expected: str, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    cmd = [sys.executable, str(ROOT / "training" / f"{recipe}.py"), flag, value, "--runs-dir", str(runs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"{recipe}.py: error: {expected}"), lines[0]
    assert not runs.exists()  # no runs/<name>/ left behind
    assert proc.stdout == ""
