"""The kill test for the trainers: real processes stopped by SIGTERM and kill -9, then resumed (issue 21).

A tiny ``train_ppo.py`` run on the batched vec env is stopped at seeded random
timesteps (read off SB3's training table on its stdout, ``--verbose``): first by SIGTERM, which
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
import time
from pathlib import Path

import numpy as np
import pytest

from tests.training.test_training import ROOT

pytest.importorskip("sb3_contrib")

TOTAL = 1024
RUN = [
    "--name", "kt", "--total-timesteps", str(TOTAL), "--n-envs", "4", "--vec-env", "batched",
    "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1", "--net-width", "16",
    "--eval-every", "256", "--checkpoint-every", "128", "--eval-games", "4", "--final-eval-games", "4",
    "--opponents", "random", "--eval-opponents", "random", "--workers", "1", "--verbose",
]  # fmt: skip
"""128 steps per rollout: a checkpoint after every rollout, a curve point after every second;
``--verbose`` prints SB3's training table on stdout, where the test reads the timesteps."""

_STEPS = re.compile(r"total_timesteps\s*\|\s*(\d+)")


def _start(argv: list[str], log: Path, recipe: str = "train_ppo") -> subprocess.Popen[str]:
    """The recipe as a user runs it; stderr goes to ``log`` (a pipe nobody reads could fill up).

    It computes with this process's torch kernels, not the portable ones a recipe sets for
    itself (``run_training.PORTABLE_MATH``): tests compare its weights with runs made here.
    """
    import torch

    kernels = {"ATEN_CPU_CAPABILITY": torch.backends.cpu.get_cpu_capability().lower(), "MKL_CBWR": "AUTO"}
    env = {**os.environ, "PYTHONPATH": str(ROOT), **kernels}
    with log.open("w") as err:
        return subprocess.Popen(
            [sys.executable, str(ROOT / "training" / f"{recipe}.py"), *argv],
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


def _kill_at_first_checkpoint(proc: subprocess.Popen[str], run: Path) -> None:
    """kill -9 ``proc`` as soon as a ``*_steps.zip`` checkpoint is in ``run`` (polled every millisecond)."""
    deadline = time.monotonic() + 120
    while not list((run / "checkpoints").glob("*_steps.zip")):
        assert proc.poll() is None and time.monotonic() < deadline, "no checkpoint before the run ended"
        time.sleep(0.001)
    proc.kill()
    proc.communicate(timeout=60)


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

    resumed = _start(["--resume", str(run), "--verbose"], log)  # not a setting: a resume may add it
    status, err = _stop_at(resumed, max(second, first + 128), signal.SIGKILL, log)
    assert status == -signal.SIGKILL, err
    assert all(_checkpoints(run)[name] == digest for name, digest in kept.items()), "a checkpoint changed"
    kept = _checkpoints(run)

    finish = _start(["--resume", str(run)], log)  # without --verbose: the table and the log file
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
    sessions = (run / "log.txt").read_text()  # each session appended to the log, none replaced
    assert sessions.count("resumed from") == 2 and sessions.index("| 128 ") < sessions.index("resumed from")
    assert "total_timesteps" not in out and "| random | 4 |" in out  # the table, not the log
    assert not any(p.name.startswith("ppo_") for p in (run / "checkpoints").iterdir())
    assert not list(tmp_path.glob("kt_*"))


def test_a_fast_learner_run_killed_by_kill_9_resumes_from_its_last_checkpoint_to_its_own_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``shared_ppo.py --learner fast`` killed by kill -9 after its first checkpoint: ``--resume``
    continues from the newest checkpoint on disk with the run's own settings, and ends where the
    uninterrupted run ends, weight for weight (the kill in a real process, the rest in this one)."""
    import torch

    from hoity_env.learning import load_policy
    from tests.training.test_training import _load
    from tests.training.test_training_runs import FAST

    total = 64 * 12  # 12 iterations of 64 learner steps, a checkpoint after each
    argv = [*FAST, "--total-timesteps", str(total), "--eval-every", str(total)]
    shared = _load("shared_ppo")
    shared.main(["--name", "u", "--runs-dir", str(tmp_path / "straight"), *argv])

    run, log = tmp_path / "k", tmp_path / "stderr.txt"
    proc = _start(["--name", "k", "--runs-dir", str(tmp_path), *argv], log, recipe="shared_ppo")
    _kill_at_first_checkpoint(proc, run)
    assert proc.returncode == -signal.SIGKILL, log.read_text()
    assert not (run / "final_model.zip").exists(), "the run ended before the kill"
    args_json, kept = (run / "args.json").read_bytes(), _checkpoints(run)
    last = max(int(name.split("_")[1]) for name in kept if name.endswith("_steps.zip"))
    assert (run / "checkpoints" / f"state_{last}.pt").is_file()

    capsys.readouterr()
    shared.main(["--resume", str(run)])  # in this process: one interpreter start less
    out = capsys.readouterr().out
    assert f"resumed from {run / 'checkpoints' / f'k_{last}_steps.zip'} at {last:,} learner steps" in out
    assert "override" not in out and (run / "args.json").read_bytes() == args_json
    assert all(_checkpoints(run)[name] == digest for name, digest in kept.items()), "a checkpoint changed"
    report = json.loads((run / "evaluation.json").read_text())["meta"]
    assert report["timesteps"] == total and report["learner"] == "fast"
    with (run / "progress.csv").open(newline="") as fh:
        steps = [int(float(r["time/total_timesteps"])) for r in csv.DictReader(fh)]
    assert steps == list(range(64, total + 1, 64)), steps  # no step lost or logged twice
    resumed = load_policy(run / "final_model.zip").state_dict()
    straight = load_policy(tmp_path / "straight" / "u" / "final_model.zip").state_dict()
    assert all(torch.equal(resumed[k], straight[k]) for k in straight)
