"""The kill test of ``hoity-learn`` and ``hoity-league`` (issue 37): SIGTERM and kill -9, then resume.

Each command runs in a real process, stopped by SIGTERM after a seeded random number of
checkpoints (status 143, the resume command printed), resumed, and killed by SIGKILL
in the middle of a checkpoint write (the process is held there by a wrapper that writes
half of the ``state_*.pt`` file and waits, so the kill lands mid-write every time).
While it is held, a second writer (``--resume`` of the live run, a fresh run with the same
``--out``) is refused.  The last resume runs in this process.  The run must end at its
own total with its own settings, no file of a checkpoint taken before a resume may
change, and ``progress.jsonl`` must equal the uninterrupted run's line for line (no row
missing or twice), as must the final weights (and, for the league, its members).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from hoity_env.cli.league import main as league_main
from hoity_env.cli.learn import main as learn_main
from hoity_env.learning import load_policy
from hoity_env.learning.runs.folder import RunFolder
from tests.learning.test_learn_hardening import ITERATION, TINY, one_error_line

ROOT = Path(__file__).resolve().parents[2]
TOTAL = 8  # iterations of each run
WRAPPER = '''
import sys, time
import hoity_env.files as files

command, hang_at, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
real, seen = files.write_atomic, [0]


def held_mid_write(path, write, *, binary=False):
    """Write half of the hang_at-th state file under its temporary name, then wait for the kill."""
    if path.name.startswith("state_"):
        seen[0] += 1
        if seen[0] == hang_at:
            with files.temporary_beside(path).open("wb") as fh:
                fh.write(b"half a checkpoint")
            print("HELD", flush=True)
            time.sleep(600)
    return real(path, write, binary=binary)


files.write_atomic = held_mid_write
if command == "learn":
    from hoity_env.cli.learn import main
else:
    from hoity_env.cli.league import main
sys.exit(main(argv))
'''

CHECKPOINT_FILES = ("state_", "policy_", "league_")


def _start(tmp_path: Path, command: str, hang_at: int, argv: list[str]) -> subprocess.Popen[str]:
    script = tmp_path / "wrapper.py"
    script.write_text(WRAPPER)
    log = (tmp_path / "stderr.txt").open("a")
    return subprocess.Popen(
        [sys.executable, str(script), command, str(hang_at), *argv],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _checkpoint_files(run: Path) -> dict[str, str]:
    """The files of the run's complete checkpoints, with a hash of their bytes."""
    folder = RunFolder(run)
    tags = {folder.tag(steps) for steps in folder.complete()}
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in (run / "checkpoints").iterdir()
        if p.name.startswith(CHECKPOINT_FILES) and p.stem.split("_")[1] in tags
    }


def _unchanged(before: dict[str, str], run: Path) -> bool:
    now = _checkpoint_files(run)
    return all(now.get(name) == digest for name, digest in before.items())


def _kill_test(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, flags: list[str]) -> Path:
    main: Callable[[list[str]], int] = learn_main if command == "learn" else league_main
    rng = np.random.default_rng(37)
    sigterm_after, hang_at = (int(k) for k in rng.integers(2, TOTAL // 2, size=2))
    argv = [
        *TINY,
        "--steps",
        str(TOTAL * ITERATION),
        "--checkpoint-every",
        "1",
        "--keep-checkpoints",
        "0",
        *flags,
    ]
    assert main([*argv, "--out", str(tmp_path / "whole")]) == 0  # the uninterrupted run
    run = tmp_path / "run"
    prog = f"hoity-{command}"

    first = _start(tmp_path, command, 0, [*argv, "--out", str(run)])
    deadline = time.monotonic() + 120
    while len(RunFolder(run).complete()) < sigterm_after:
        assert first.poll() is None and time.monotonic() < deadline, (tmp_path / "stderr.txt").read_text()
        time.sleep(0.01)
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=120) == 143, (tmp_path / "stderr.txt").read_text()
    assert f"continue with: {prog} --resume {run}" in (tmp_path / "stderr.txt").read_text()
    settings = {p.name: p.read_bytes() for p in run.glob("*settings.json")}
    kept = _checkpoint_files(run)

    second = _start(tmp_path, command, hang_at, ["--resume", str(run)])
    assert second.stdout is not None
    assert any(line.startswith("HELD") for line in iter(second.stdout.readline, "")), "never held mid-write"
    # A second writer while the run lives: refused at once, writing nothing.
    capsys.readouterr()
    assert main(["--resume", str(run)]) == 2
    assert f"another process (pid {second.pid}) is writing" in one_error_line(capsys.readouterr().err)
    assert main([*argv, "--out", str(run)]) == 2
    assert "is writing to the run folder" in one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "run_2").exists() and len((run / "resumes.jsonl").read_text().splitlines()) == 1
    second.kill()
    assert second.wait(timeout=60) == -signal.SIGKILL
    assert list((run / "checkpoints").glob(".state_*.partial")), "the kill did not land mid-write"
    assert _unchanged(kept, run), "a checkpoint file changed"
    kept = _checkpoint_files(run)

    assert main(["--resume", str(run)]) == 0  # the last resume, in this process
    assert _unchanged(kept, run), "a checkpoint file changed"
    assert {p.name: p.read_bytes() for p in run.glob("*settings.json")} == settings
    assert not list(run.rglob("*.partial"))
    whole = tmp_path / "whole"
    assert (run / "progress.jsonl").read_text() == (whole / "progress.jsonl").read_text()
    ours, theirs = (
        load_policy(run / "policy.zip").state_dict(),
        load_policy(whole / "policy.zip").state_dict(),
    )
    assert all(torch.equal(ours[k], theirs[k]) for k in theirs)
    records = [json.loads(line) for line in (run / "resumes.jsonl").read_text().splitlines()]
    assert len(records) == 2 and records[1]["partial_files_removed"]
    assert records[1]["incomplete_checkpoint_files_removed"]  # the policy written before the state
    return run


def test_hoity_learn_killed_by_sigterm_and_kill_9_mid_checkpoint_resumes_to_the_uninterrupted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _kill_test(tmp_path, capsys, "learn", [])
    assert RunFolder(run).complete()[-1] == TOTAL * ITERATION


def test_hoity_league_killed_by_sigterm_and_kill_9_mid_checkpoint_resumes_to_the_uninterrupted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--pool", "self,random", "--league-snapshot-every", "512", "--pfsp", "none"]
    run = _kill_test(tmp_path, capsys, "league", flags)
    ours, theirs = (json.loads((tmp_path / d / "league.json").read_text()) for d in ("run", "whole"))
    assert [(m["spec"], m["weight"]) for m in ours["members"]] == [
        (m["spec"], m["weight"]) for m in theirs["members"]
    ]
    assert ours["steps"] == theirs["steps"] == RunFolder(run).complete()[-1]
