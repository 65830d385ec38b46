"""``hoity-learn`` keeps the promises of docs/guarantees.md (issue 37, round three of hardening);
where ``hoity-league`` shares the code path (signals, folders, disks), the test runs for it too.

Resume with the run's own settings, signals, diverging settings, the folder's kind, damaged
files, folders that cannot be made, checkpoints kept, and what a resume cleans up.  Each
run is a few iterations of 8 games × 4 steps (128 learner steps) on the numpy engine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
import torch

from hoity_env.agents import make
from hoity_env.cli.learn import main
from hoity_env.engine.errors import ConfigError
from hoity_env.learning import Learner, LearnerSettings, load_policy
from hoity_env.learning.runs.folder import RunFolder
from hoity_env.learning.runs.session import new_run
from tests.learning.stops import signal_at_update

COMMANDS = ["learn", "league"]
"""Where both commands share a code path (signals, folders, disks), each test runs for both."""

TINY = [
    "--games",
    "8",
    "--rollout-steps",
    "4",
    "--hidden",
    "8x8",
    "--minibatch",
    "64",
]
ITERATION = 8 * 4 * 4  # learner steps per iteration (self-play: every seat is the learner)


def command_main(command: str) -> Any:
    """The ``main`` of ``hoity-learn`` or ``hoity-league``."""
    from hoity_env.cli.league import main as league_main

    return main if command == "learn" else league_main


def listing(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its bytes (to show that nothing changed)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def finished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], iterations: int = 3) -> Path:
    """A finished run with a checkpoint after each iteration."""
    run = tmp_path / "run"
    steps = str(iterations * ITERATION)
    assert main([*TINY, "--steps", steps, "--checkpoint-every", "1", "--out", str(run)]) == 0
    capsys.readouterr()
    return run


def unfinished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A run stopped by its time limit after its first iteration (a checkpoint, status 0)."""
    run = tmp_path / "run"
    flags = ["--steps", "100000", "--time-limit-minutes", "1e-9", "--out", str(run)]
    assert main([*TINY, *flags]) == 0
    assert "stopped by --time-limit-minutes" in capsys.readouterr().err
    assert RunFolder(run).complete() == [ITERATION]
    return run


def check_nothing_half_written(run: Path) -> None:
    """No temporary file, every checkpoint file part of a complete checkpoint, whole progress lines."""
    assert not list(run.rglob("*.partial"))
    folder = RunFolder(run)
    tags = {folder.tag(steps) for steps in folder.complete()}
    assert all(p.stem.split("_")[1] in tags for p in folder.checkpoints.iterdir()), list(
        folder.checkpoints.iterdir()
    )
    for line in (run / "progress.jsonl").read_text().splitlines():
        json.loads(line)


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ------------------------------------------------------------------ 1. resume keeps the run's settings
def check_resume_flags(
    main: Any, run: Path, changed: list[list[str]], same: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each of ``changed`` beside ``--resume`` is one error line naming its flag and writes nothing;
    the run's own values (``same``) and the session's flags resume, printed and recorded."""
    before = listing(run)
    for flags in changed:
        assert main(["--resume", str(run), *flags]) == 2, flags
        assert flags[0] in one_error_line(capsys.readouterr().err)
    assert listing(run) == before
    session = ["--workers", "2", "--time-limit-minutes", "1e-9", "--blas-threads", "2"]
    assert main(["--resume", str(run), *same, *session]) == 0
    out = capsys.readouterr().out
    assert "this session: --workers 2" in out and "with the run's own settings" in out
    record = json.loads((run / "resumes.jsonl").read_text().splitlines()[-1])
    assert record["session"] == {"time_limit_minutes": 1e-9, "workers": 2, "blas_threads": 2}


def check_final(main: Any, run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A finished run's resume says so and writes nothing."""
    before = listing(run)
    assert main(["--resume", str(run)]) == 0
    assert "is finished" in capsys.readouterr().out
    assert listing(run) == before


def test_resume_refuses_a_flag_that_differs_from_the_runs_settings_and_records_the_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = unfinished_run(tmp_path, capsys)
    changed = [["--lr", "0.5"], ["--steps", "7"], ["--games", "64"], ["--hidden", "16x16"]]
    changed += [["--against", "expert"], ["--pool", "self,random"], ["--keep-checkpoints", "1"]]
    changed += [["--padded"], ["--out", str(tmp_path / "elsewhere")]]
    check_resume_flags(main, run, changed, ["--lr", "0.001", "--hidden", "8x8", "--out", str(run)], capsys)
    assert not (tmp_path / "elsewhere").exists()


def test_a_finished_run_is_final_and_its_resume_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_final(main, finished_run(tmp_path, capsys, iterations=1), capsys)


# ------------------------------------------------------------------ 2. signals
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_saves_exits_128_plus_it_with_the_resume_command_and_scores_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    signum: int,
    status: int,
) -> None:
    def no_games(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("--eval-games scored a half-trained policy")

    monkeypatch.setattr("hoity_env.evaluation.evaluate", no_games)
    signal_at_update(monkeypatch, 2, signum)
    run = tmp_path / "run"
    assert main([*TINY, "--steps", "100000", "--eval-games", "8", "--out", str(run)]) == status
    captured = capsys.readouterr()
    assert "fast learner:" not in captured.out and "policy:" not in captured.out  # no summary as if done
    assert f"continue with: hoity-learn --resume {run}" in captured.err
    assert RunFolder(run).complete() == [2 * ITERATION]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_second_signal_aborts_with_one_line_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    signal_at_update(monkeypatch, 2, signal.SIGINT, signal.SIGINT)  # Ctrl-C twice
    run = tmp_path / "run"
    assert (
        command_main(command)([*TINY, "--steps", "100000", "--checkpoint-every", "1", "--out", str(run)])
        == 130
    )
    line = one_error_line(capsys.readouterr().err)
    assert "aborted by a second signal" in line and f"--resume {run}" in line
    assert RunFolder(run).complete() == [ITERATION]  # the first iteration's checkpoint, intact


# ------------------------------------------------------------------ 3. settings that diverge
def test_a_diverging_update_stops_with_one_error_line_and_keeps_the_last_finite_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import hoity_env.learning.update as update

    real, calls = update.ppo_loss, {"n": 0}

    def nan_from_the_third_update(*args: Any, **kwargs: Any) -> Any:
        terms = real(*args, **kwargs)
        calls["n"] += 1  # two minibatches of 64 rows per update
        if calls["n"] > 4:
            return dataclasses.replace(terms, total=terms.total * float("nan"))
        return terms

    monkeypatch.setattr(update, "ppo_loss", nan_from_the_third_update)
    run = tmp_path / "run"
    assert main([*TINY, "--steps", "100000", "--checkpoint-every", "1", "--out", str(run)]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "diverged in update 3" in line and f"keeps its checkpoint at {2 * ITERATION:,}" in line
    assert RunFolder(run).complete() == [ITERATION, 2 * ITERATION]
    for path in [run / "policy.zip", *(run / "checkpoints").glob("policy_*.zip")]:
        assert all(torch.isfinite(p).all() for p in load_policy(path).parameters()), path


def test_a_checkpoint_with_non_finite_weights_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sb3_contrib import MaskablePPO

    from hoity_env.cli.eval import main as eval_main

    learner = Learner(LearnerSettings(num_games=4, rollout_steps=4, minibatch_size=16, hidden=(8, 8)))
    model = MaskablePPO.load(str(learner.save_policy(tmp_path / "fine.zip")), device="cpu")
    with torch.no_grad():
        next(iter(model.policy.parameters())).fill_(float("nan"))  # what a diverged run used to save
    model.save(tmp_path / "nan.zip")
    for spec in (f"ppo:{tmp_path / 'nan.zip'}", f"ppo-sample:{tmp_path / 'nan.zip'}"):
        with pytest.raises(ConfigError, match="non-finite weights"):
            make(spec)
    with pytest.raises(ConfigError, match="non-finite weights"):
        load_policy(tmp_path / "nan.zip")
    assert (
        eval_main(["--agents", f"ppo-sample:{tmp_path / 'nan.zip'},random,random,random", "--games", "4"])
        == 2
    )
    assert "non-finite weights" in one_error_line(capsys.readouterr().err)


# ------------------------------------------------------------------ 9, 16. refused before any folder exists
@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--players", "9"], "num_players"),
        (["--rules", "bogus"], "rules"),
        (["--reward", "money"], "reward"),
        (["--against", "wizard"], "unknown agent 'wizard'"),
        (["--pool", "self,wizard@2"], "unknown agent 'wizard'"),
        (["--pool", "self@1e308,random@1e308"], "weight"),
        (["--threads", "100000"], "threads"),
        (["--hidden", "100000000x100000000"], "hidden"),
        (["--seed", str(2**64 - 2)], "seed"),
        (["--ent-coef", "1e39"], "ent_coef"),
        (["--lr", "nan"], "learning_rate"),
        (["--eval-games", "-1"], "--eval-games"),
        (["--time-limit-minutes", "inf"], "--time-limit-minutes"),
    ],
)
def test_bad_values_are_one_error_line_before_any_folder_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    assert main([*TINY, *flags, "--out", str(tmp_path / "runs" / "x")]) == 2
    assert message in one_error_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", COMMANDS)
def test_an_out_that_cannot_be_made_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    (tmp_path / "file").write_text("not a folder")
    for out in (tmp_path / "file" / "run", Path("/proc/hoity-run")):
        assert command_main(command)([*TINY, "--steps", "128", "--out", str(out)]) == 2
        assert f"cannot create the run folder {out}" in one_error_line(capsys.readouterr().err)
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_disk_is_one_error_line_and_leaves_nothing_half_written(
    small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    run_main = command_main(command)
    flags = ["--steps", str(40 * ITERATION), "--checkpoint-every", "1", "--keep-checkpoints", "0"]
    assert run_main([*TINY, *flags, "--out", str(small_disk)]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "No space left on device" in line and f"--resume {small_disk}" in line
    check_nothing_half_written(small_disk)
    assert RunFolder(small_disk).complete(), "no checkpoint fitted: the disk is too small for this test"
    moved = shutil.copytree(small_disk, tmp_path / "moved")  # room again: the run resumes and ends
    assert run_main(["--resume", str(moved)]) == 0
    assert RunFolder(moved).complete()[-1] == 40 * ITERATION


# ------------------------------------------------------------------ 5. each command's own folders
def test_each_command_refuses_the_others_run_folders_by_their_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hoity_env.cli.league import main as league_main
    from hoity_env.league.members import LeagueSettings
    from hoity_env.league.run import League

    settings = LearnerSettings(num_games=4, rollout_steps=4, minibatch_size=16, hidden=(8, 8))
    learn, _ = new_run(settings, tmp_path / "learn")
    league = League.start(LeagueSettings(main=settings), tmp_path / "league").path
    (tmp_path / "recipe").mkdir()
    (tmp_path / "recipe" / "args.json").write_text("{}")
    before = {p: listing(p) for p in (learn.path, league, tmp_path / "recipe")}
    for older in (False, True):  # folders of versions before run.json are told by their files
        if older:
            (learn.path / "run.json").unlink()
            (league / "run.json").unlink()
            before = {p: listing(p) for p in before}
        assert main(["--resume", str(league)]) == 2
        assert f"resume it with hoity-league --resume {league}" in one_error_line(capsys.readouterr().err)
        assert main(["--resume", str(tmp_path / "recipe")]) == 2
        assert "run folder of a training recipe" in one_error_line(capsys.readouterr().err)
        assert league_main(["--resume", str(learn.path)]) == 2
        assert f"resume it with hoity-learn --resume {learn.path}" in one_error_line(capsys.readouterr().err)
        assert league_main(["--resume", str(tmp_path / "recipe")]) == 2
        assert "run folder of a training recipe" in one_error_line(capsys.readouterr().err)
        assert {p: listing(p) for p in before} == before


@pytest.mark.parametrize("command", COMMANDS)
def test_a_run_folder_of_an_older_format_is_one_error_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Issue 43, item 7: hoity_env 0.1 pickled live objects into ``state_<steps>.pt`` and wrote no
    format; such a folder is refused with its format named, never a traceback, and nothing changes."""
    run = tmp_path / "run"
    flags = ["--steps", "100000", "--time-limit-minutes", "1e-9", "--out", str(run)]
    assert command_main(command)([*TINY, *flags]) == 0
    kind = json.loads((run / "run.json").read_text())["kind"]
    (run / "run.json").write_text(json.dumps({"kind": kind}))  # as 0.1 wrote it
    before = listing(run)
    assert command_main(command)(["--resume", str(run)]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"run folder {run} was written by hoity_env 0.1 (run folder format 1)" in line
    assert "this version reads format 2: start a new run" in line
    assert listing(run) == before


# ------------------------------------------------------------------ 7. damaged files
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[: len(text) // 2], "truncated?"),
        (
            lambda text: text.replace('"learning_rate": 0.001', '"learning_rate": 0.5'),
            "differs from the settings",
        ),
        (lambda text: text.replace('"epochs"', '"epoch"'), "unknown learner settings: epoch"),
        (lambda text: "[" * 100_000 + "]" * 100_000, "nested too deeply"),  # issue 44, 7
        (lambda text: "[1, 2]", "does not hold valid learner settings"),
    ],
    ids=["truncated", "edited", "misspelt", "nested", "not-an-object"],
)
def test_a_damaged_settings_json_is_one_error_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Any, message: str
) -> None:
    run = finished_run(tmp_path, capsys, iterations=1)
    path = run / "settings.json"
    path.write_text(damage(path.read_text()))
    before = listing(run)
    assert main(["--resume", str(run)]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert str(path) in line and message in line
    assert listing(run) == before


def test_a_damaged_checkpoint_falls_back_to_the_one_before_and_ends_as_the_whole_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    run = finished_run(tmp_path, capsys)
    (run / "finished.json").unlink()  # not finished yet (a finished run is final: it trains nothing)
    last = run / "checkpoints" / f"state_{3 * ITERATION:012d}.pt"
    whole = load_policy(run / "policy.zip").state_dict()
    last.write_bytes(last.read_bytes()[:1000])  # truncated (a disk that failed, a copy cut short)
    assert main(["--resume", str(run)]) == 0
    assert f"{last} is damaged" in caplog.text and "falling back to the previous checkpoint" in caplog.text
    assert last.with_name(last.name + ".damaged").is_file()  # set aside, not read again
    resumed = load_policy(run / "policy.zip").state_dict()
    assert all(torch.equal(resumed[k], whole[k]) for k in whole)  # retrained to the same weights
    for path in (run / "checkpoints").glob("state_*.pt"):
        path.write_bytes(b"")  # every checkpoint damaged: nothing to fall back to
    assert main(["--resume", str(run)]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "is damaged" in line and "no earlier complete checkpoint" in line


# ------------------------------------------------------------------ 16. what a resume cleans, what is kept
def test_resume_removes_partial_files_incomplete_checkpoints_and_torn_or_later_progress_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = finished_run(tmp_path, capsys)
    checkpoints = run / "checkpoints"
    # What a kill -9 during the last checkpoint's state write, mid-way through a progress line, leaves
    # (the run never reached its end, finished.json):
    (run / "finished.json").unlink()
    (checkpoints / f"state_{3 * ITERATION:012d}.pt").unlink()
    (checkpoints / f".state_{3 * ITERATION:012d}.pt.x1y2.partial").write_bytes(b"half")
    with (run / "progress.jsonl").open("a") as fh:
        fh.write('{"steps": 51')
    assert main(["--resume", str(run)]) == 0
    assert not list(run.rglob("*.partial"))
    rows = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert [r["steps"] for r in rows] == [ITERATION, 2 * ITERATION, 3 * ITERATION]  # each once, none torn
    record = json.loads((run / "resumes.jsonl").read_text())
    assert record["steps"] == 2 * ITERATION and record["partial_files_removed"]
    assert record["incomplete_checkpoint_files_removed"] == [f"policy_{3 * ITERATION:012d}.zip"]
    assert len(record["progress_lines_dropped"]) == 2  # the third iteration's line and the torn one


def test_checkpoints_are_pruned_to_the_newest_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert LearnerSettings().keep_checkpoints == 5
    run = tmp_path / "run"
    flags = ["--steps", str(5 * ITERATION), "--checkpoint-every", "1", "--keep-checkpoints", "2"]
    assert main([*TINY, *flags, "--out", str(run)]) == 0
    assert RunFolder(run).complete() == [4 * ITERATION, 5 * ITERATION]  # the latest, which is the final
    assert len(list((run / "checkpoints").iterdir())) == 4  # a policy and a state each
