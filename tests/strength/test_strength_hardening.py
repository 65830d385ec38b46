"""``exploit`` and the ladder keep docs/guarantees.md's promises (issue 37 items 8, 11, 14, 16;
issue 34 item 2: best responses on worker processes).

Each test here failed on the code before its fix: the ladder reused a best response by the
spec string alone, so a replaced ``ppo:`` file kept the old file's exploitability; an
interrupted ``exploit`` lost its best response (no checkpoint, no resume) and left its lock
file in ``--out``; the reports labelled a best response with the budget asked for (``@ 1
steps``) instead of the 16,384 steps trained; the closing line timed the whole command as
"N games in S s"; ``--out /proc/x`` was a traceback; best responses ran one after another
in one process.  Budgets are tiny: these check the plumbing, not strength.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hoity_env.agents.policies.content import content_hash
from hoity_env.agents.policies.population import Member, write_population
from hoity_env.cli.eval import main
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.reports.output import LOCK_FILE
from hoity_env.learning import Learner, LearnerSettings
from hoity_env.strength import ExploitResult, Sweep, SweepResult, exploitability, exploitability_sweep, ladder
from hoity_env.strength.jobs import Interrupted, find_exploit
from hoity_env.strength.response import learner_settings
from tests.helpers import FAST_TINY, ROOT, tiny_training

SB3_TINY = {"n_envs": 4, "n_steps": 128, "batch_size": 128, "n_epochs": 1}
"""MaskablePPO with 512 learner steps per rollout."""
TIMINGS = ("train_seconds", "train_cpu_seconds", "eval_seconds")


def _policy(path: Path, seed: int) -> str:
    """A tiny fast-learner policy saved at ``path``; its ``ppo:`` spec."""
    settings = LearnerSettings(num_games=2, rollout_steps=4, minibatch_size=8, total_steps=8, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    Learner(settings).save_policy(path)
    return f"ppo:{path}"


def _plain(result: Any, runs: Path) -> Any:
    """A result's JSON without its timings, its run folders relative to ``runs``."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: str(Path(v).relative_to(runs)) if k in ("run_dir", "exploit_run_dir") else strip(v)
                for k, v in value.items()
                if k not in TIMINGS
            }
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(result.to_json()))


def _signal_after(monkeypatch: pytest.MonkeyPatch, steps: int, sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to this process once a fast learner has trained ``steps`` learner steps."""
    real = Learner.iterate
    sent: list[bool] = []

    def iterate(self: Learner) -> dict[str, float]:
        stats = real(self)
        if self.steps >= steps and not sent:
            sent.append(True)
            os.kill(os.getpid(), sig)
        return stats

    monkeypatch.setattr(Learner, "iterate", iterate)


# ------------------------------------------------------------------ item 8: reuse by content
def test_content_hashes_name_what_a_spec_plays(tmp_path: Path) -> None:
    assert content_hash("expert") == ""  # scripted: no file
    npz = (ROOT / "hoity_env/agents/models/champion.npz").read_bytes()
    assert (
        content_hash("champion")
        == content_hash("champion-greedy")
        == f"sha256:{hashlib.sha256(npz).hexdigest()}"
    )
    member = _policy(tmp_path / "members" / "a.zip", 0)
    assert (
        content_hash(member)
        == f"sha256:{hashlib.sha256((tmp_path / 'members/a.zip').read_bytes()).hexdigest()}"
    )
    manifest = write_population(tmp_path / "population.json", [Member("ppo-sample:members/a.zip", 1.0)])
    before = content_hash(f"population:{manifest}")
    _policy(tmp_path / "members" / "a.zip", 1)  # a member replaced, the manifest unchanged
    assert content_hash(f"population:{manifest}") not in ("", before)
    assert content_hash("champion-mix").startswith("sha256:")


def test_the_ladder_measures_a_replaced_checkpoint_again(tmp_path: Path) -> None:
    spec = _policy(tmp_path / "policy.zip", 0)
    runs = tmp_path / "runs"
    kwargs: dict[str, Any] = {"budget": 512, "games": 4, "exploit_games": 4, "curve_points": 0}
    kwargs |= tiny_training(runs)
    first = ladder([spec, "random"], **kwargs)
    mine, scripted = first.exploit
    assert mine.target_hash == content_hash(spec) != "" and scripted.target_hash == ""
    recorded = ExploitResult.from_json((Path(mine.run_dir) / "exploit.json").read_text())
    assert recorded.entries[0].target_hash == mine.target_hash
    assert ladder([spec, "random"], **kwargs).exploit == first.exploit  # the same file: read back
    _policy(tmp_path / "policy.zip", 1)  # retrained to the same path
    third = ladder([spec, "random"], **kwargs)
    assert third.exploit[1] == scripted  # still read back
    assert third.exploit[0].run_dir != mine.run_dir and third.exploit[0].target_hash == content_hash(spec)
    assert third.exploit[0].target_hash != mine.target_hash
    same = {"budget": 512, "num_players": 4, "rules": "standard", "games": 4, "seed": 0}
    same["settings"] = {"learner": "fast", **learner_settings(FAST_TINY, "fast")}
    assert find_exploit(runs, spec, **same) is None  # type: ignore[arg-type]  # no hash: not a match
    assert find_exploit(runs, spec, target_hash=mine.target_hash, **same).run_dir == mine.run_dir  # type: ignore[arg-type, union-attr]


def test_a_target_replaced_while_measured_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _policy(tmp_path / "policy.zip", 0)
    real = Learner.iterate

    def iterate(self: Learner) -> dict[str, float]:  # the file is rewritten mid-training
        _policy(tmp_path / "policy.zip", 1)
        return real(self)

    monkeypatch.setattr(Learner, "iterate", iterate)
    with pytest.raises(ConfigError, match="changed while its best response was measured"):
        exploitability(spec, budget=512, games=4, curve_points=0, **tiny_training(tmp_path / "runs"))


# ------------------------------------------------------------------ item 14: stop, checkpoint, resume
def test_a_stopped_fast_best_response_resumes_to_the_uninterrupted_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kw: dict[str, Any] = {"budget": 2048, "games": 8, "curve_points": 2, "curve_games": 4}
    whole = exploitability("thief", **kw, **tiny_training(tmp_path / "whole"))
    runs = tmp_path / "runs"
    _signal_after(monkeypatch, 1024)
    with pytest.raises(Interrupted) as info:
        exploitability("thief", **kw, **tiny_training(runs))
    assert info.value.signum == signal.SIGTERM and info.value.stopped == [(runs / "thief", 1024)]
    run = runs / "thief"
    assert json.loads((run / "stopped.json").read_text())["steps"] == 1024
    assert (run / "checkpoints" / "state_000000001024.pt").is_file() and not (run / "exploit.json").exists()
    monkeypatch.undo()
    resumed = exploitability("thief", resume=True, **kw, **tiny_training(runs))
    assert resumed.entries[0].run_dir == str(run)  # continued in its own folder
    assert _plain(resumed, runs) == _plain(whole, tmp_path / "whole")  # weight for weight: the same result
    assert not (run / "stopped.json").exists() and not list(run.glob("checkpoints/state_*"))
    # read back once finished; without resume a new folder, never the stopped or finished one
    assert exploitability("thief", resume=True, **kw, **tiny_training(runs)) == resumed
    again = exploitability("thief", **{**kw, "budget": 512, "curve_points": 0}, **tiny_training(runs))
    assert again.entries[0].run_dir == str(runs / "thief_2")


def test_a_stopped_maskable_ppo_best_response_continues_from_its_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stable_baselines3.common.callbacks import BaseCallback

    real = BaseCallback.on_step
    sent: list[bool] = []

    def on_step(self: BaseCallback) -> bool:
        if self.num_timesteps >= 700 and not sent:  # in the second rollout: it is dropped
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
        return bool(real(self))

    monkeypatch.setattr(BaseCallback, "on_step", on_step)
    kw: dict[str, Any] = {"budget": 1536, "games": 4, "curve_points": 3, "curve_games": 4}
    with pytest.raises(Interrupted) as info:
        exploitability("thief", **kw, **tiny_training(tmp_path, SB3_TINY, "sb3"))
    assert info.value.signum == signal.SIGINT and info.value.stopped == [(tmp_path / "thief", 512)]
    assert (tmp_path / "thief" / "checkpoints" / "sb3_000000000512.zip").is_file()
    resumed = exploitability("thief", resume=True, **kw, **tiny_training(tmp_path, SB3_TINY, "sb3"))
    (entry,) = resumed.entries
    assert entry.timesteps == 1536 and [p.timesteps for p in entry.curve] == [512, 1024, 1536]
    assert not list((tmp_path / "thief").glob("checkpoints/sb3_*"))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_exploit_stopped_prints_its_resume_command_and_leaves_no_lock(
    sig: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, out = tmp_path / "runs", tmp_path / "out"
    argv = ["exploit", "--target", "thief", "--budget", "40000", "--games", "4", "--learner", "fast"]
    argv += ["--curve-points", "0", "--workers", "1", "--runs-dir", str(runs), "--out", str(out)]
    _signal_after(monkeypatch, 16_384, sig)
    assert main(argv) == 128 + sig
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{runs / 'thief'} at 16,384 steps" in err
    command = err.split("continue with: ", 1)[1].strip()
    assert shlex.split(command) == ["hoity-eval", *argv, "--resume"]
    assert not out.exists()  # no results, and the lock file went with the folder this run made
    monkeypatch.undo()
    assert main(shlex.split(command)[1:]) == 0
    timing = capsys.readouterr().err
    result = ExploitResult.from_json((out / "result.json").read_text())
    (entry,) = result.entries
    assert entry.timesteps == 49_152 and entry.run_dir == str(runs / "thief")
    assert not (out / LOCK_FILE).exists()
    # item 11: the closing line says what was timed
    assert (
        f"1 best responses: {entry.train_seconds:.1f} s of training and {entry.eval_seconds:.1f} s" in timing
    )
    assert "4 evaluation games" in timing and "the whole command took" in timing and "games in" not in timing


def test_cli_ladder_stopped_resumes_with_the_same_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    argv = ["ladder", "--agents", "thief,random", "--budget", "20000", "--games", "4", "--exploit-games", "4"]
    argv += ["--learner", "fast", "--curve-points", "0", "--workers", "1", "--runs-dir", str(runs)]
    _signal_after(monkeypatch, 16_384)
    assert main(argv) == 143
    command = capsys.readouterr().err.split("continue with: ", 1)[1].strip()
    assert shlex.split(command) == ["hoity-eval", *argv]  # the ladder always resumes
    assert (runs / "thief" / "stopped.json").is_file()
    placed = ["checkpoints", "response.json", "run.json"]
    assert sorted(p.name for p in (runs / "random").iterdir()) == placed  # placed, not started
    assert not list((runs / "random" / "checkpoints").iterdir())
    monkeypatch.undo()
    assert main(argv) == 0
    assert (runs / "thief" / "exploit.json").is_file() and (runs / "random" / "exploit.json").is_file()
    assert sorted(p.name for p in runs.iterdir()) == ["random", "thief"]  # continued, not trained anew


def test_sigterm_during_any_command_removes_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()

    def terminated(*args: Any, **kwargs: Any) -> Any:
        assert (out / LOCK_FILE).is_file()
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the command")

    monkeypatch.setattr("hoity_env.cli.evaluate.run", terminated)
    assert main(["--agents", "random,random", "--games", "4", "--out", str(out)]) == 143
    assert "terminated" in capsys.readouterr().err and list(out.iterdir()) == []


# ------------------------------------------------------------------ item 16: --out that cannot exist
@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("command", [[], ["exploit", "--target", "thief", "--budget", "1"]])
def test_an_out_folder_that_cannot_be_made_is_one_error_line(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = [] if command else ["--agents", "random,random", "--games", "2"]
    argv = [*command, *agents, "--runs-dir", str(tmp_path)] if command else agents
    assert main([*argv, "--out", "/proc/hoity-x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error: cannot write results to /proc/hoity-x" in err
    assert "Traceback" not in err and list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ issue 34 item 2: both cores
def test_best_responses_on_workers_equal_the_serial_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def sweep(runs: Path) -> Sweep:
        return Sweep(
            budgets=(512,),
            seeds=(0, 1),
            learners=("fast",),
            curve_points=1,
            runs_dir=runs,
            ppo={"fast": FAST_TINY},
        )

    kw: dict[str, Any] = {"games": 4, "progress": False}
    serial = exploitability_sweep("thief", sweep(tmp_path / "serial"), workers=1, **kw)
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="hoity_env"):
        parallel = exploitability_sweep("thief", sweep(tmp_path / "parallel"), workers=2, **kw)
    assert _plain(parallel, tmp_path / "parallel") == _plain(serial, tmp_path / "serial")
    # each trained in a worker process of its own, its log lines relayed here
    trained_in = {r.process for r in caplog.records if "training a fast best response" in r.getMessage()}
    assert len(trained_in) == 2 and os.getpid() not in trained_in
    threads = [r.getMessage() for r in caplog.records if r.getMessage().startswith("best-response worker:")]
    assert threads == ["best-response worker: 1 torch thread(s), BLAS thread(s) [1]"] * 2
    assert SweepResult.from_json(parallel.to_json()) == parallel
    for e in parallel.entries:  # every run's own files, as in the serial run
        assert (Path(e.run_dir) / "exploit.json").is_file() and e.train_cpu_seconds > 0


def test_the_ladders_best_responses_on_workers_equal_the_serial_run(tmp_path: Path) -> None:
    kw: dict[str, Any] = {"budget": 512, "games": 4, "exploit_games": 4, "curve_points": 0}
    serial = ladder(["thief", "random"], workers=1, **kw, **tiny_training(tmp_path / "serial"))
    parallel = ladder(["thief", "random"], workers=2, **kw, **tiny_training(tmp_path / "parallel"))
    assert _plain(parallel, tmp_path / "parallel") == _plain(serial, tmp_path / "serial")


_WORKER_SCRIPT = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
import hoity_env.strength.jobs as jobs
from hoity_env.learning import Learner

MODE, RUNS = sys.argv[2], sys.argv[3]
real_job, real_iterate = jobs.exploitability_of, Learner.iterate

def dying(target, *args, **kwargs):  # spawn workers import this file: the patch holds in them
    if MODE == "die" and target == "random":
        os.kill(os.getpid(), signal.SIGKILL)
    return real_job(target, *args, **kwargs)

def stopping(self):  # the random target's worker asks the parent to stop (as a user's SIGTERM)
    stats = real_iterate(self)
    if MODE == "stop" and self.settings.opponents[0][0] == "random" and self.steps == 1024:
        os.kill(os.getppid(), signal.SIGTERM)
    return stats

jobs.exploitability_of, Learner.iterate = dying, stopping

if __name__ == "__main__":
    from tests.helpers import FAST_TINY
    from hoity_env.evaluation.workers import WorkerDied
    from hoity_env.strength import exploitability
    try:
        exploitability(["thief", "random"], budget=4096, games=4, curve_points=0, runs_dir=RUNS,
                       ppo=FAST_TINY, learner="fast", workers=2, progress=False)
    except WorkerDied as exc:
        print(exc)
        sys.exit(1)
    except jobs.Interrupted as exc:
        print(exc.stopped)
        sys.exit(128 + exc.signum)
"""


def _run_script(tmp_path: Path, mode: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(_WORKER_SCRIPT, encoding="utf-8")
    here = str(Path(__file__).resolve().parents[2])  # the repository: the script imports tests.*
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, str(script), here, mode, str(tmp_path / "runs")]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)


def test_a_dead_best_response_worker_is_an_error_naming_it(tmp_path: Path) -> None:
    done = _run_script(tmp_path, "die")
    assert done.returncode == 1, done.stderr
    assert "best-response worker 1 (pid " in done.stdout and "was killed by signal 9" in done.stdout
    assert "while training task 1 (best response to random, fast, seed 0, budget 4,096, in " in done.stdout


def test_a_stop_reaches_the_workers_which_checkpoint_and_resume(tmp_path: Path) -> None:
    done = _run_script(tmp_path, "stop")
    assert done.returncode == 143, done.stderr
    runs = tmp_path / "runs"
    # the worker that asked stopped after its iteration in progress; the other finished or stopped too
    steps = json.loads((runs / "random" / "stopped.json").read_text())["steps"]
    assert 1024 <= steps < 4096 and f"(PosixPath('{runs / 'random'}'), {steps})" in done.stdout
    assert (runs / "thief" / "stopped.json").is_file() != (runs / "thief" / "exploit.json").is_file()
    kw: dict[str, Any] = {"budget": 4096, "games": 4, "curve_points": 0, "workers": 1}
    resumed = exploitability(["thief", "random"], resume=True, **kw, **tiny_training(runs))
    whole = exploitability(["thief", "random"], **kw, **tiny_training(tmp_path / "whole"))
    assert _plain(resumed, runs) == _plain(whole, tmp_path / "whole")


def test_stopped_runs_are_only_continued_with_the_same_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    _signal_after(monkeypatch, 512)
    with pytest.raises(Interrupted):
        exploitability("thief", budget=2048, games=4, curve_points=0, **tiny_training(runs))
    monkeypatch.undo()
    other = exploitability(
        "thief", resume=True, budget=2048, games=4, seed=1, curve_points=0, **tiny_training(runs)
    )
    assert other.entries[0].run_dir == str(runs / "thief_2")  # another seed: another best response
    assert (runs / "thief" / "stopped.json").is_file()  # the stopped one is left for its own resume


def test_one_call_never_gives_two_best_responses_one_folder(tmp_path: Path) -> None:
    """With ``resume``, a folder placed for this call's first job (its ``response.json`` written,
    nothing trained yet) looks like a stopped run of the second, identical job: it is not shared."""
    result = exploitability(
        ["thief", "thief"], resume=True, budget=512, games=4, curve_points=0, **tiny_training(tmp_path)
    )
    assert [e.run_dir for e in result.entries] == [str(tmp_path / "thief"), str(tmp_path / "thief_2")]


# ------------------------------------------------------------------ issue 44 items 6 and 10
def _strength_argv(command: str, runs: str) -> list[str]:
    """A tiny ``exploit`` or ``ladder`` command line writing best responses under ``runs``."""
    argv = [command, "--games", "4", "--curve-points", "0", "--workers", "1", "--runs-dir", runs]
    if command == "exploit":
        return [*argv, "--target", "random"]
    return [*argv, "--agents", "random,thief", "--exploit-games", "4"]


@pytest.mark.parametrize(("command", "where"), [("exploit", "proc"), ("exploit", "file"), ("ladder", "proc")])
def test_a_runs_dir_that_cannot_be_made_is_one_error_line(
    command: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44, 6: ``--runs-dir /proc/x`` (``FileNotFoundError``) and ``--runs-dir afile/x``
    (``NotADirectoryError``) were tracebacks."""
    if where == "proc" and not Path("/proc/self").is_dir():
        pytest.skip("needs /proc")
    (tmp_path / "afile").write_text("not a folder")
    runs = "/proc/hoity-x" if where == "proc" else str(tmp_path / "afile" / "x")
    assert main([*_strength_argv(command, runs), "--budget", "512"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "Traceback" not in err
    assert f"cannot create the run folder {runs}/" in err
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]


@pytest.mark.parametrize("command", ["exploit", "ladder"])
@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--budget", "99999999999999999999"], "budget must be an integer in [1, 9,007,199,254,740,992]"),
        (["--budgets", "512,99999999999999999999"], "budget must be an integer in"),
        (["--budget", "512", "--seeds", "0,4294967296"], "seed"),
    ],
    ids=["budget", "budgets", "seeds"],
)
def test_a_refused_budget_or_seed_leaves_no_folder_behind(
    command: str, flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44, 10: ``exploit --budget 99999999999999999999`` was refused only after making
    ``RUNS/random/`` (``settings.json``, ``response.json``, ``checkpoints/``), so the next sane run
    went to ``random_2``.  Now every budget and seed is checked first: nothing exists, and the next
    run takes the first name."""
    runs = tmp_path / "runs"
    assert main([*_strength_argv(command, str(runs)), *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "Traceback" not in err and message in err
    assert not runs.exists()
