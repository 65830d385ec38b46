"""The kill test for the trainers: real processes stopped by SIGTERM and kill -9, then resumed (issue 21).

A tiny ``train_ppo.py`` run on the batched vec env is stopped at seeded random
timesteps (read off SB3's training table on its stdout): first by SIGTERM, which
must save a checkpoint, print the resume command and exit 143; then by kill -9,
which saves nothing. Each time ``--resume RUN_FOLDER`` alone continues it. The
run must end at its own total with its own settings, no checkpoint that existed
before a resume may change, and neither the curve nor ``progress.csv`` may repeat
a timestep.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_training import ROOT

pytest.importorskip("sb3_contrib")

TOTAL = 1024
RUN = [
    "--name", "kt", "--total-timesteps", str(TOTAL), "--n-envs", "4", "--vec-env", "batched",
    "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1", "--net-width", "16",
    "--eval-every", "256", "--checkpoint-every", "128", "--eval-games", "4", "--final-eval-games", "4",
    "--opponents", "random", "--eval-opponents", "random", "--workers", "1",
]  # fmt: skip
"""128 steps per rollout: a checkpoint after every rollout, a curve point after every second."""

_STEPS = re.compile(r"total_timesteps\s*\|\s*(\d+)")


def _start(argv: list[str], log: Path) -> subprocess.Popen[str]:
    """The recipe as a user runs it; stderr goes to ``log`` (a pipe nobody reads could fill up)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("w") as err:
        return subprocess.Popen(
            [sys.executable, str(ROOT / "training" / "train_ppo.py"), *argv],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
            cwd=ROOT,
        )


def _stop_at(proc: subprocess.Popen[str], steps: int, signum: int, log: Path) -> tuple[int, str]:
    """Send ``signum`` once the training table shows ``steps`` timesteps; ``(exit status, stderr)``."""
    assert proc.stdout is not None
    for line in proc.stdout:
        match = _STEPS.search(line)
        if match and int(match.group(1)) >= steps:
            proc.send_signal(signum)
            break
    proc.communicate(timeout=300)
    return proc.returncode, log.read_text()


def _checkpoints(run: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (run / "checkpoints").glob("*.zip")}


def test_a_run_killed_by_sigterm_and_kill_9_at_random_points_resumes_to_its_own_end(tmp_path: Path) -> None:
    rng = np.random.default_rng(21)
    first, second = sorted(int(x) for x in rng.integers(1, TOTAL // 128 - 1, size=2) * 128)
    run = tmp_path / "kt"

    log = tmp_path / "stderr.txt"
    status, err = _stop_at(_start([*RUN, "--runs-dir", str(tmp_path)], log), first, signal.SIGTERM, log)
    assert status == 143, err
    assert f"resume with: python training/train_ppo.py --resume {run}" in err
    args_json = (run / "args.json").read_bytes()
    kept = _checkpoints(run)
    assert kept, "SIGTERM saved no checkpoint"

    resumed = _start(["--resume", str(run)], log)
    status, err = _stop_at(resumed, max(second, first + 128), signal.SIGKILL, log)
    assert status == -signal.SIGKILL, err
    assert all(_checkpoints(run)[name] == digest for name, digest in kept.items()), "a checkpoint changed"
    kept = _checkpoints(run)

    finish = _start(["--resume", str(run)], log)
    out, _ = finish.communicate(timeout=300)
    assert finish.returncode == 0, log.read_text()
    assert "override" not in out  # the resumes changed no setting
    assert (run / "args.json").read_bytes() == args_json
    assert all(_checkpoints(run)[name] == digest for name, digest in kept.items()), "a checkpoint changed"
    report = json.loads((run / "evaluation.json").read_text())["meta"]
    assert report["timesteps"] == TOTAL and report["games_per_opponent"] == 4
    with (run / "curve.csv").open(newline="") as fh:
        curve = [int(r["timesteps"]) for r in csv.DictReader(fh)]
    assert sorted(curve) == [256, 512, 768, 1024], curve
    with (run / "progress.csv").open(newline="") as fh:
        steps = [int(float(r["time/total_timesteps"])) for r in csv.DictReader(fh)]
    assert steps == sorted(steps) and steps[-1] == TOTAL, steps
    assert len((run / "resumes.jsonl").read_text().splitlines()) == 2
    assert not any(p.name.startswith("ppo_") for p in (run / "checkpoints").iterdir())
    assert not list(tmp_path.glob("kt_*"))
