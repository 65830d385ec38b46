"""The run folder every training command shares (``hoity_env.learning.runs``): its fresh names, its
lock, its kind and format, its bounded reads, the finished rule, the resume rule, and the resume
state as plain data read without running code.

The commands' own tests (``test_learn_hardening.py``, ``tests/league``, ``tests/strength``,
``tests/training``) check the same rules through each command line.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
import torch

from hoity_env.engine.errors import ConfigError
from hoity_env.learning import Learner, LearnerSettings
from hoity_env.learning.runs import folder as folders
from hoity_env.learning.runs.folder import (
    FORMAT,
    LEAGUE,
    LEARN,
    RECIPE,
    RESPONSE,
    FolderBusy,
    FormatError,
    RunFolder,
    refuse_changes,
)
from hoity_env.learning.runs.state import load_learner, read_state, state_bytes

SMALL = LearnerSettings(num_games=2, rollout_steps=4, minibatch_size=16, hidden=(8, 8), total_steps=64)


# ------------------------------------------------------------------ one way to a fresh name
def test_a_new_run_takes_the_first_free_name_and_never_an_earlier_runs_folder(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    assert (
        RunFolder.create(tmp_path / "x", RECIPE, {"args.json": "{}"}, next_free=True).path == tmp_path / "x"
    )
    assert (tmp_path / "x" / "args.json").read_text() == "{}"  # claimed as it is chosen
    assert json.loads((tmp_path / "x" / "run.json").read_text()) == {"kind": RECIPE, "format": FORMAT}
    assert RunFolder.create(tmp_path / "x", RECIPE, next_free=True).path == tmp_path / "x_2"
    (tmp_path / "x_3").mkdir()
    (tmp_path / "x_3" / "curve.csv").write_text("old")
    assert RunFolder.create(tmp_path / "x", RECIPE, next_free=True).path == tmp_path / "x_4"
    assert (tmp_path / "x_3" / "curve.csv").read_text() == "old" and not (
        tmp_path / "x_3" / "run.json"
    ).exists()
    with pytest.raises(ConfigError, match="is not empty"):  # a named folder is never passed over
        RunFolder.create(tmp_path / "x_3", LEARN, next_free=False)


def test_two_runs_started_together_never_share_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: a folder chosen by a look, then made and written, let a second run between the
    two take it.  Here the other run claims the folder right after ours looked at it."""
    real = folders.looks_free
    other = tmp_path / "x" / "args.json"

    def look_then_lose_the_race(path: Path) -> bool:
        free = real(path)
        if not other.exists():  # the other run writes its args.json between our look and our lock
            other.parent.mkdir(parents=True, exist_ok=True)
            other.write_text('{"the": "other run"}')
        return free

    monkeypatch.setattr(folders, "looks_free", look_then_lose_the_race)
    made = RunFolder.create(tmp_path / "x", RECIPE, {"args.json": "{}"}, next_free=True)
    assert made.path == tmp_path / "x_2"
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == ["args.json"]  # the other run's, untouched


def test_one_writer_a_live_runs_folder_is_refused_and_a_dead_ones_lock_passed(tmp_path: Path) -> None:
    live = RunFolder.create(tmp_path / "run", LEARN, next_free=False)
    with live.locked():
        with pytest.raises(FolderBusy, match=f"pid {os.getpid()}"):
            RunFolder.create(tmp_path / "run", LEARN, next_free=True)  # a fresh run given the same --out
        with pytest.raises(FolderBusy):
            RunFolder.open(tmp_path / "run", LEARN)  # a resume of a live run
    assert not (tmp_path / "run_2").exists()
    (tmp_path / "run" / ".hoity-run.lock").write_text("4242\n")  # left by a kill -9: no one holds it
    assert RunFolder.open(tmp_path / "run", LEARN).path == tmp_path / "run"


@pytest.mark.parametrize("where", ["file", "proc"])
def test_a_folder_that_cannot_be_made_is_one_error_and_nothing_exists(tmp_path: Path, where: str) -> None:
    (tmp_path / "file").write_text("not a folder")
    base = tmp_path / "file" / "run" if where == "file" else Path("/proc/hoity-run/x")
    if where == "proc" and not Path("/proc/self").is_dir():
        pytest.skip("needs /proc")
    with pytest.raises(ConfigError, match=f"cannot create the run folder {base}"):
        RunFolder.create(base, LEARN, next_free=True)
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


# ------------------------------------------------------------------ kind and format
def test_each_kind_refuses_the_others_folders_and_an_older_format_is_named(tmp_path: Path) -> None:
    league = RunFolder.create(tmp_path / "league", LEAGUE, next_free=False).path
    with pytest.raises(
        ConfigError,
        match=f"of hoity-league, not of hoity-learn: resume it with hoity-league --resume {league}",
    ):
        RunFolder.open(league, LEARN)
    old = tmp_path / "old"  # hoity_env 0.1: no run.json, told by its files
    old.mkdir()
    (old / "settings.json").write_text("{}")
    with pytest.raises(
        FormatError, match=r"written by hoity_env 0\.1 \(run folder format 1\); this version reads format 2"
    ):
        RunFolder.open(old, LEARN)
    (league / "run.json").write_text(json.dumps({"kind": LEAGUE, "format": 3}))
    with pytest.raises(FormatError, match=r"by another version of hoity_env \(run folder format 3\)"):
        RunFolder.open(league, LEAGUE)
    (league / "run.json").write_text("[" * 100_000)
    with pytest.raises(ConfigError, match=r"run\.json: is 100,000 bytes, more than"):
        RunFolder.open(league, LEAGUE)


# ------------------------------------------------------------------ finished, resume rule
def test_finished_is_final_once_its_record_is_written(tmp_path: Path) -> None:
    run = RunFolder.create(tmp_path / "run", RESPONSE, next_free=False)
    assert not run.finished
    run.finish({"steps": 12})
    assert run.finished and json.loads((run.path / "finished.json").read_text())["steps"] == 12


def test_the_resume_rule_refuses_the_first_setting_that_differs(tmp_path: Path) -> None:
    refuse_changes([("--lr", 0.001, 0.001)], tmp_path, "settings.json", "--workers")
    with pytest.raises(
        ConfigError,
        match=r"--steps 7: the run in .* was made with --steps 64 \(its settings.json\); a resume keeps "
        r"the run's own settings and may change only --workers",
    ):
        refuse_changes([("--lr", 0.001, 0.001), ("--steps", 7, 64)], tmp_path, "settings.json", "--workers")


# ------------------------------------------------------------------ resume state as plain data
class _Trap:
    """A pickled object that would run code when loaded (``os.system``), as a hostile file holds."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch hacked",))


def test_the_resume_state_is_plain_data_read_without_running_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    learner = Learner(SMALL)
    learner.learn()
    path = tmp_path / "state.pt"
    path.write_bytes(state_bytes(learner))
    back = load_learner(path)
    assert back.steps == learner.steps
    assert all(
        torch.equal(a, b) for a, b in zip(back.policy.parameters(), learner.policy.parameters(), strict=True)
    )
    monkeypatch.chdir(tmp_path)
    buffer = io.BytesIO()
    torch.save({"format": FORMAT, "learner": {"magnet": _Trap()}}, buffer)
    path.write_bytes(buffer.getvalue())
    with pytest.raises(ConfigError, match=f"{path} is damaged"):  # refused, and nothing ran
        read_state(path)
    assert not (tmp_path / "hacked").exists()


def test_a_resume_state_of_an_older_format_is_named_and_never_set_aside(tmp_path: Path) -> None:
    run = RunFolder.create(tmp_path / "run", LEARN, next_free=False)
    learner = Learner(SMALL)
    buffer = io.BytesIO()
    torch.save({"settings": SMALL.to_dict(), "magnet": learner.magnet}, buffer)  # format 1: live objects
    run.commit(8, {}, buffer.getvalue())
    with pytest.raises(
        FormatError,
        match=r"state_000000000008.pt was written by hoity_env 0\.1 \(resume state format 1\); "
        r"this version reads format 2",
    ):
        run.latest(lambda at: load_learner(run.state_file(at)))
    assert run.complete() == [8]  # whole, only not this version's: not set aside as damaged
    run.commit(9, {}, b"")  # a damaged newer one is passed over for 8, which is of another format:
    with pytest.raises(FormatError):  # one error, not a fall-back past it
        run.latest(lambda at: load_learner(run.state_file(at)))
    for data, message in ((b"", "is damaged"), (b"PK\x03\x04 half", "is damaged")):
        run.state_file(8).write_bytes(data)
        with pytest.raises(ConfigError, match=message):
            read_state(run.state_file(8))
