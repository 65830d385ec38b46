"""Training runs lose nothing: checked arguments, resume in place, atomic saves, Ctrl-C (issue 9, items 1-5).

Fault injection: ``MaskablePPO.train`` raising ``KeyboardInterrupt`` stands in for
Ctrl-C in the middle of training; the run must save, exit 130 and resume in
place with a curve free of duplicate rows.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import sb3_contrib
from test_training import ROOT, TINY, _load

from hoity_env import ConfigError

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
    from test_policy_agent import save_tiny_model

    return save_tiny_model(tmp_path / "good.zip")


# ------------------------------------------------------------- item 2: atomic saves
def test_a_truncated_checkpoint_is_a_one_line_error_and_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _checkpoint(tmp_path)
    bad = tmp_path / "truncated.zip"
    bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    runs = tmp_path / "runs"
    train, run_folder = _load("train_ppo"), _load("run_folder")
    argv = [*_tiny_run(runs, "t", 64), "--resume", str(bad)]
    # What ``python training/train_ppo.py ...`` runs: main under run_cli.
    assert run_folder.run_cli(lambda: train.main(argv), "train_ppo.py") == 2
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


# ------------------------------------------------------------- item 1: resume in place
def test_resume_continues_in_the_checkpoints_own_run_and_touches_no_other(tmp_path: Path) -> None:
    train = _load("train_ppo")
    train.main(_tiny_run(tmp_path, "t", 64))
    train.main(_tiny_run(tmp_path, "t", 64))  # the second run goes to t_2
    first, second = tmp_path / "t", tmp_path / "t_2"
    before_first = _digests(first)
    args_second = (second / "args.json").read_bytes()
    # The learning curve's snapshot is the checkpoint at 64 (no second copy is saved).
    checkpoint = second / "checkpoints" / "curve_64.zip"
    with pytest.raises(ConfigError, match="t_2"):
        train.main([*_tiny_run(tmp_path, "other", 128), "--resume", str(checkpoint)])
    # Default --name: the run folder follows the checkpoint.
    train.main([*_tiny_run(tmp_path, "t", 128)[2:], "--resume", str(checkpoint)])
    assert _digests(first) == before_first
    assert (second / "args.json").read_bytes() == args_second
    (record,) = [json.loads(line) for line in (second / "resumes.jsonl").read_text().splitlines()]
    assert record["checkpoint"] == str(checkpoint) and record["timesteps"] == 64
    assert json.loads((second / "evaluation.json").read_text())["meta"]["timesteps"] == 128
    assert not list(tmp_path.glob("t_3"))


# ------------------------------------------------------- items 3 and 4: Ctrl-C, resume
def test_interrupt_saves_exits_130_and_resume_completes_the_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    train = _load("train_ppo")
    real_train = sb3_contrib.MaskablePPO.train
    calls = []

    def interrupted_train(self: Any) -> None:
        calls.append(self.num_timesteps)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_train(self)

    monkeypatch.setattr(sb3_contrib.MaskablePPO, "train", interrupted_train)
    run = tmp_path / "c"
    with pytest.raises(SystemExit) as stop:
        train.main(_tiny_run(tmp_path, "c", 256))
    assert stop.value.code == 130
    checkpoint = run / "checkpoints" / "c_128_steps.zip"
    assert checkpoint.is_file()
    assert f"--resume {checkpoint}" in capsys.readouterr().err
    assert {t for t, _ in _curve(run)} == {64, 128}
    args_json = (run / "args.json").read_bytes()
    monkeypatch.setattr(sb3_contrib.MaskablePPO, "train", real_train)

    train.main([*_tiny_run(tmp_path, "c", 256), "--resume", str(checkpoint)])
    rows = _curve(run)
    assert len(rows) == len(set(rows)), "duplicate curve rows"
    assert {t for t, _ in rows} == {64, 128, 192, 256}
    report = json.loads((run / "evaluation.json").read_text())
    assert report["meta"]["timesteps"] == 256  # a total, not 256 more
    assert (run / "args.json").read_bytes() == args_json
    assert len((run / "resumes.jsonl").read_text().splitlines()) == 1
    assert not list(tmp_path.glob("c_2"))
