"""Training runs lose nothing: checked arguments, resume in place with the run's own settings,
atomic saves, Ctrl-C and SIGTERM, finished runs kept (issues 9 and 21).

Fault injection: ``MaskablePPO.train`` raising ``KeyboardInterrupt`` (or sending this
process SIGTERM) stands in for a signal in the middle of training; the run must
save, exit 130 (143) and resume in place with a curve free of duplicate rows.
The kill test for real processes is ``test_training_kills.py``.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sb3_contrib
import torch

from hoity_env import ConfigError
from hoity_env.learning.runs.folder import RECIPE, FormatError, RunFolder
from tests.training.test_training import ROOT, TINY, _load

pytestmark = pytest.mark.slow


def _tiny_run(tmp_path: Path, name: str, total: int, *extra: str, recipe: str = "train_ppo") -> list[str]:
    return [
        "--name",
        name,
        "--runs-dir",
        str(tmp_path),
        "--total-timesteps",
        str(total),
        "--eval-every",
        "64",
        "--checkpoint-every",
        "64",
        "--eval-opponents" if recipe == "train_ppo" else "--zoo",
        "random",
        "--vec-env",
        "dummy",
        *TINY,
        *extra,
    ]


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _curve(run: Path) -> list[tuple[int, str]]:
    with (run / "curve.csv").open(newline="") as fh:
        return [(int(r["timesteps"]), r["opponent"]) for r in csv.DictReader(fh)]


# ------------------------------------------------------------- item 5: early checks
BAD_ARGS: list[tuple[str, list[str], str]] = [
    ("train_ppo", ["--eval-every", "0"], "--eval-every"),
    ("train_ppo", ["--n-envs", "0"], "--n-envs"),
    ("train_ppo", ["--batch-size", "0"], "--batch-size"),
    ("train_ppo", ["--batch-size", "4096"], "--batch-size"),
    ("train_ppo", ["--final-eval-games", "0"], "--final-eval-games"),
    ("train_ppo", ["--validation-games", "0"], "--validation-games"),
    ("train_ppo", ["--eval-games", "0"], "--eval-games"),
    ("train_ppo", ["--eval-opponents", "bogus"], "--eval-opponents.*bogus"),
    ("train_ppo", ["--opponents", "nobody"], "--opponents.*nobody"),
    ("train_ppo", ["--resume", "nope.zip"], "not found: nope.zip$"),
    ("train_ppo", ["--num-players", "7"], "--num-players"),
    ("train_ppo", ["--reward", "gold"], "--reward"),
    ("train_ppo", ["--learning-rate", "0"], "--learning-rate"),
    ("train_ppo", ["--gamma", "1.5"], "--gamma"),
    ("train_ppo", ["--name", "../elsewhere"], "--name"),
    ("train_ppo", ["--total-timesteps", "0"], "--total-timesteps"),
    ("selfplay", ["--gate-every", "0"], "--gate-every"),
    ("selfplay", ["--gate-games", "0"], "--gate-games"),
    ("selfplay", ["--max-snapshots", "0"], "--max-snapshots"),
    ("selfplay", ["--zoo", "bogus"], "--zoo.*bogus"),
    ("selfplay", ["--eval-every", "0"], "--eval-every"),
    ("selfplay", ["--final-eval-games", "0"], "--final-eval-games"),
]


@pytest.mark.parametrize(("recipe", "flags", "match"), BAD_ARGS, ids=[" ".join(b[1]) for b in BAD_ARGS])
def test_bad_arguments_fail_before_any_folder_or_worker(
    tmp_path: Path, recipe: str, flags: list[str], match: str
) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(ConfigError, match=match):  # a tiny budget first: a missed check fails fast
        _load(recipe).main([*_tiny_run(runs, "bad", 64, recipe=recipe), *flags])
    assert not runs.exists()


def _checkpoint(tmp_path: Path) -> Path:
    from tests.agents.test_policy_agent import save_tiny_model

    return save_tiny_model(tmp_path / "good.zip")


# ------------------------------------------------------------- item 2: atomic saves
def test_a_truncated_checkpoint_is_a_one_line_error_and_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "environ", dict(os.environ))  # run_cli's portable-math settings stay in this test
    good = _checkpoint(tmp_path)
    bad = tmp_path / "truncated.zip"
    bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    runs = tmp_path / "runs"
    train, run_training = _load("train_ppo"), _load("run_training")
    argv = [*_tiny_run(runs, "t", 64), "--resume", str(bad)]
    # What ``python training/train_ppo.py ...`` runs: main under run_cli.
    assert run_training.run_cli(lambda: train.main(argv), "train_ppo.py") == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert (
        len(lines) == 1 and lines[0].startswith("train_ppo.py: error: --resume") and "truncated" in lines[0]
    )
    assert not runs.exists()
    assert "run_cli(main" in (ROOT / "training" / "train_ppo.py").read_text()


class _DyingModel:
    """A model whose ``save`` writes half a file, then dies (a kill mid-save)."""

    def save(self, fh: Any, **kwargs: Any) -> None:
        fh.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt


def test_a_save_killed_midway_leaves_the_previous_file_and_no_debris(tmp_path: Path) -> None:
    run_folder = _load("run_folder")
    path = tmp_path / "ppo_64_steps.zip"
    path.write_bytes(b"the previous checkpoint")
    with pytest.raises(KeyboardInterrupt):
        run_folder.save_model(_DyingModel(), path)
    assert path.read_bytes() == b"the previous checkpoint"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    fresh = tmp_path / "new.zip"
    with pytest.raises(KeyboardInterrupt):
        run_folder.save_model(_DyingModel(), fresh)
    assert not fresh.exists()


def _interrupt_training(monkeypatch: pytest.MonkeyPatch, at_call: int, stop: Callable[[], None]) -> None:
    """``MaskablePPO.train`` calls ``stop()`` on its ``at_call``-th call (a signal mid-training)."""
    real_train = sb3_contrib.MaskablePPO.train
    calls = []

    def interrupted_train(self: Any) -> None:
        calls.append(self.num_timesteps)
        if len(calls) == at_call:
            stop()
        real_train(self)

    monkeypatch.setattr(sb3_contrib.MaskablePPO, "train", interrupted_train)


def _ctrl_c() -> None:
    raise KeyboardInterrupt


def _interrupted_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, *extra: str) -> Path:
    """A tiny run of 256 steps stopped by Ctrl-C in its second update (at 128 steps)."""
    with monkeypatch.context() as patch:
        _interrupt_training(patch, 2, _ctrl_c)
        with pytest.raises(SystemExit) as stop:
            _load("train_ppo").main(_tiny_run(tmp_path, name, 256, *extra))
    assert stop.value.code == 130
    return tmp_path / name


def _progress_steps(run: Path) -> list[int]:
    with (run / "progress.csv").open(newline="") as fh:
        return [int(float(r["time/total_timesteps"])) for r in csv.DictReader(fh)]


# ------------------------------------------------------------- resume in place (issue 9, item 1)
def test_resume_continues_in_the_checkpoints_own_run_and_touches_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = _load("train_ppo")
    train.main(_tiny_run(tmp_path, "t", 64))
    _interrupted_run(tmp_path, monkeypatch, "t")  # "t" is taken: this run goes to t_2
    first, second = tmp_path / "t", tmp_path / "t_2"
    before_first = _digests(first)
    args_second = (second / "args.json").read_bytes()
    checkpoint = second / "checkpoints" / "t_128_steps.zip"
    with pytest.raises(ConfigError, match="t_2"):
        train.main([*_tiny_run(tmp_path, "other", 256), "--resume", str(checkpoint)])
    train.main(["--resume", str(checkpoint)])
    assert _digests(first) == before_first
    assert (second / "args.json").read_bytes() == args_second
    (record,) = [json.loads(line) for line in (second / "resumes.jsonl").read_text().splitlines()]
    assert record["checkpoint"] == str(checkpoint) and record["steps"] == 128
    assert json.loads((second / "evaluation.json").read_text())["meta"]["timesteps"] == 256
    assert not list(tmp_path.glob("t_3"))


# ------------------------------------------------------- items 3 and 4: Ctrl-C, resume
def test_interrupt_saves_exits_130_and_resume_completes_the_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    train = _load("train_ppo")
    run = _interrupted_run(tmp_path, monkeypatch, "c")
    checkpoint = run / "checkpoints" / "c_128_steps.zip"
    assert checkpoint.is_file()
    err = capsys.readouterr().err
    assert str(checkpoint) in err and f"--resume {run}" in err
    assert {t for t, _ in _curve(run)} == {64, 128}
    args_json = (run / "args.json").read_bytes()

    train.main([*_tiny_run(tmp_path, "c", 256), "--resume", str(checkpoint)])
    rows = _curve(run)
    assert len(rows) == len(set(rows)), "duplicate curve rows"
    assert {t for t, _ in rows} == {64, 128, 192, 256}
    report = json.loads((run / "evaluation.json").read_text())
    assert report["meta"]["timesteps"] == 256  # a total, not 256 more
    assert (run / "args.json").read_bytes() == args_json
    assert len((run / "resumes.jsonl").read_text().splitlines()) == 1
    assert not list(tmp_path.glob("c_2"))


# ------------------------------------------- issue 21, items 1 and 10: the run's own settings
def test_resume_alone_takes_the_runs_own_settings_and_checkpoint_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run: 2 envs against random only, checkpoints every 64 steps, curve every 128, named "k".
    flags = ["--opponents", "random", "--n-envs", "2", "--n-steps", "32", "--eval-every", "128"]
    run = _interrupted_run(tmp_path, monkeypatch, "k", *flags)
    assert (run / "checkpoints" / "k_64_steps.zip").is_file()
    real_learn = sb3_contrib.MaskablePPO.learn
    seen: list[tuple[int, int]] = []

    def learn(self: Any, total_timesteps: int, **kwargs: Any) -> Any:
        seen.append((self.n_envs, total_timesteps))
        assert (self.n_envs, total_timesteps) == (2, 256 - 128), "trained with settings not the run's"
        return real_learn(self, total_timesteps, **kwargs)

    monkeypatch.setattr(sb3_contrib.MaskablePPO, "learn", learn)
    # Nothing but the checkpoint: the issue's failing command (it trained 250,000 default steps).
    _load("train_ppo").main(["--resume", str(run / "checkpoints" / "k_128_steps.zip")])
    assert seen == [(2, 128)]
    report = json.loads((run / "evaluation.json").read_text())["meta"]
    assert report["timesteps"] == 256 and report["games_per_opponent"] == 4
    names = sorted(p.name for p in (run / "checkpoints").glob("*_steps.zip"))
    assert names == ["k_128_steps.zip", "k_192_steps.zip", "k_64_steps.zip"], names
    assert {t for t, _ in _curve(run)} == {128, 256}


def _fake_run(tmp_path: Path, recipe: str = "train_ppo", **settings: Any) -> Path:
    """A run folder as ``recipe`` leaves it after its first checkpoint (no training needed)."""
    args = _load(recipe).Args(name="f", runs_dir=str(tmp_path), **settings)
    text = json.dumps(dataclasses.asdict(args), indent=1)
    run = RunFolder.create(tmp_path / "f", RECIPE, {"args.json": text}, next_free=False).path
    _checkpoint(tmp_path).rename(run / "checkpoints" / "curve_64.zip")
    return run


def test_a_resume_flag_that_contradicts_the_run_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    run = _fake_run(tmp_path, n_envs=2, opponents="random", total_timesteps=128)
    before = _digests(run)
    for flags, match in (
        (["--n-envs", "4"], "--n-envs 4: the run in .* was made with --n-envs 2"),
        (["--opponents", "zoo"], "--opponents 'zoo'.*'random'.*--time-limit-minutes, --workers"),
        (["--total-timesteps", "999"], "--total-timesteps 999"),
    ):
        with pytest.raises(ConfigError, match=match):
            _load("train_ppo").main(["--resume", str(run), *flags])
        assert _digests(run) == before


@pytest.mark.parametrize(
    ("recipe", "flags"),
    [
        ("selfplay", ["--gate-every", "7"]),
        ("selfplay", ["--zoo", "random"]),
        ("shared_ppo", ["--num-games", "3"]),
        ("shared_ppo", ["--seed", "5"]),
    ],
)
def test_every_recipe_resumes_with_its_runs_own_settings(
    tmp_path: Path, recipe: str, flags: list[str]
) -> None:
    run = _fake_run(tmp_path, recipe)
    with pytest.raises(ConfigError, match=f"{flags[0]} .*: the run in .* was made with {flags[0]}"):
        _load(recipe).main(["--resume", str(run), *flags])
    cls = _load(recipe).Args
    args, resume = _load("recipe_args").parse_args(cls, ["--resume", str(run), "--workers", "3"], "")
    assert resume is not None and resume.overrides == {"workers": (cls().workers, 3)}
    assert args.workers == 3 and args.name == "f" and args.resume == str(run / "checkpoints" / "curve_64.zip")


def test_resume_overrides_are_printed_and_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _fake_run(tmp_path, n_envs=2, n_steps=64, batch_size=64, workers=1)

    class Started(Exception):
        pass

    def learn(self: Any, total_timesteps: int, **kwargs: Any) -> Any:
        raise Started

    monkeypatch.setattr(sb3_contrib.MaskablePPO, "learn", learn)
    with pytest.raises(Started):  # equal flags pass, the two overrides change
        _load("train_ppo").main(
            ["--resume", str(run), "--n-envs", "2", "--workers", "2", "--time-limit-minutes", "5"]
        )
    out = capsys.readouterr().out
    assert "override --workers: 2 (the run's: 1)" in out and "override --time-limit-minutes: 5.0" in out
    (record,) = [json.loads(line) for line in (run / "resumes.jsonl").read_text().splitlines()]
    assert record["session"] == {"workers": 2, "time_limit_minutes": 5.0}
    assert json.loads((run / "args.json").read_text())["workers"] == 1


# -------------------------------------------------- issue 21, item 2: a finished run is final
@pytest.mark.parametrize("target", ["folder", "checkpoint", "final model"])
def test_resuming_a_finished_run_is_refused_and_replaces_nothing(tmp_path: Path, target: str) -> None:
    run = _fake_run(tmp_path, n_envs=1, n_steps=64, batch_size=64, total_timesteps=128)
    (run / "final_model.zip").write_bytes((run / "checkpoints" / "curve_64.zip").read_bytes())
    (run / "evaluation.json").write_text('{"meta": {}, "scores": {}}')
    RunFolder(run, RECIPE).finish()  # what the recipe writes last
    before = _digests(run)
    path = {"folder": run, "checkpoint": run / "checkpoints" / "curve_64.zip"}.get(target)
    with pytest.raises(ConfigError, match=r"is finished .* a finished run is final"):
        _load("train_ppo").main(["--resume", str(path or run / "final_model.zip")])
    assert _digests(run) == before


def test_resuming_an_earlier_checkpoint_than_the_latest_is_refused(tmp_path: Path) -> None:
    run = _fake_run(tmp_path, n_envs=1, n_steps=64, batch_size=64, total_timesteps=256)
    (run / "checkpoints" / "f_128_steps.zip").write_bytes((run / "checkpoints" / "curve_64.zip").read_bytes())
    with pytest.raises(ConfigError, match=r"later checkpoint.*f_128_steps\.zip"):
        _load("train_ppo").main(["--resume", str(run / "checkpoints" / "curve_64.zip")])
    # The folder picks the latest complete one; a damaged later file is passed over.
    (run / "checkpoints" / "f_192_steps.zip").write_bytes(b"PK\x03\x04 half a zip")
    args, resume = _load("recipe_args").parse_args(_load("train_ppo").Args, ["--resume", str(run)], "")
    assert resume is not None and resume.checkpoint == run / "checkpoints" / "f_128_steps.zip"
    assert args.resume == str(resume.checkpoint) and args.n_envs == 1


# ---------------------------------------------------------- issue 21, item 3: SIGTERM
class _Unhandled(Exception):
    """What SIGTERM raises in this test when the recipe does not handle it (it would kill pytest)."""


def _exits_143_on_sigterm(recipe: Callable[[], object]) -> None:
    """Run ``recipe`` (it sends itself a SIGTERM midway): it exits 143 and puts our handler back.

    Our handler stands in for the default one, which would kill pytest if the recipe
    did not handle the signal.
    """

    def guard(signum: int, frame: object) -> None:
        raise _Unhandled

    previous = signal.signal(signal.SIGTERM, guard)
    try:
        with pytest.raises(SystemExit) as stop:
            recipe()
        assert stop.value.code == 143
        assert signal.getsignal(signal.SIGTERM) is guard  # the recipe put the handler back
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_sigterm_saves_a_checkpoint_exits_143_and_the_run_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with monkeypatch.context() as patch:
        _interrupt_training(patch, 2, lambda: os.kill(os.getpid(), signal.SIGTERM))
        _exits_143_on_sigterm(lambda: _load("train_ppo").main(_tiny_run(tmp_path, "s", 256)))
    run = tmp_path / "s"
    assert (run / "checkpoints" / "s_128_steps.zip").is_file()
    err = capsys.readouterr().err
    assert "terminated (SIGTERM) at 128 timesteps" in err and f"--resume {run}" in err
    _load("train_ppo").main(["--resume", str(run)])
    rows = _curve(run)
    assert len(rows) == len(set(rows)) and {t for t, _ in rows} == {64, 128, 192, 256}
    steps = _progress_steps(run)
    assert steps == sorted(steps) and steps[-1] == 256, "progress.csv repeats steps after the resume"
    assert json.loads((run / "evaluation.json").read_text())["meta"]["timesteps"] == 256


# ------------------------------------------------ issue 22: the same rules on the fast learner
FAST = [
    "--learner", "fast", "--num-games", "1", "--n-steps", "16", "--batch-size", "32", "--net-width", "16",
    "--eval-every", "64", "--checkpoint-every", "64", "--eval-opponents", "random",
    "--eval-games", "4", "--final-eval-games", "4", "--workers", "1", "--total-timesteps", "256",
]  # fmt: skip
"""shared_ppo.py on the fast learner: 1 game x 4 seats x 16 steps = 64 learner steps per iteration."""


def test_fast_recipe_sigterm_saves_exits_143_and_resumes_to_the_uninterrupted_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hoity_env.learning import load_policy
    from hoity_env.learning.loop import Learner

    shared = _load("shared_ppo")
    shared.main(["--name", "u", "--runs-dir", str(tmp_path), *FAST])  # uninterrupted, for comparison

    real_update, calls = Learner.update, []

    def update(self: Any) -> dict[str, float]:
        calls.append(self.steps)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)  # mid-iteration: it finishes, then the run stops
        return real_update(self)

    with monkeypatch.context() as patch:
        patch.setattr(Learner, "update", update)
        _exits_143_on_sigterm(lambda: shared.main(["--name", "s", "--runs-dir", str(tmp_path), *FAST]))
    run = tmp_path / "s"
    assert (run / "checkpoints" / "s_128_steps.zip").is_file()
    assert (run / "checkpoints" / "state_128.pt").is_file()
    assert not (run / "final_model.zip").exists()
    err = capsys.readouterr().err
    assert "terminated (SIGTERM) at 128 timesteps" in err and f"--resume {run}" in err
    kept = _digests(run / "checkpoints")
    shared.main(["--resume", str(run)])
    assert all(_digests(run / "checkpoints")[name] == digest for name, digest in kept.items())
    rows = _curve(run)
    assert len(rows) == len(set(rows)) and {t for t, _ in rows} == {64, 128, 192, 256}
    assert _progress_steps(run) == [64, 128, 192, 256]
    report = json.loads((run / "evaluation.json").read_text())["meta"]
    assert report["timesteps"] == 256 and report["learner"] == "fast"
    # stop + resume is the uninterrupted run, weight for weight
    resumed = load_policy(run / "final_model.zip").state_dict()
    straight = load_policy(tmp_path / "u" / "final_model.zip").state_dict()
    assert all(torch.equal(resumed[k], straight[k]) for k in straight)
    with pytest.raises(ConfigError, match="is finished"):  # and a finished run is final
        shared.main(["--resume", str(run)])


def test_a_run_folder_of_an_older_format_is_refused_naming_its_format(tmp_path: Path) -> None:
    run = _fake_run(tmp_path, "shared_ppo")
    (run / "run.json").unlink()  # a folder of hoity_env 0.1: no run.json, told by its args.json
    before = _digests(run)
    with pytest.raises(FormatError, match=r"written by hoity_env 0\.1 \(run folder format 1\).* format 2"):
        _load("recipe_args").parse_args(_load("shared_ppo").Args, ["--resume", str(run)], "")
    assert _digests(run) == before
