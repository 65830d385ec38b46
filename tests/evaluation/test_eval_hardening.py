"""hoity-eval, hardening round two (issue 21 items 4, 10), its logging (issue 20 item 4), and its
workers stopped by a second signal (issue 44 item 9).

Each test here failed before its fix: ``-q`` and ``-v`` did not exist and every message
went straight to stderr; a second run with the same ``--out`` played all its games
before it was refused; ``ppo:`` alone said "not found: ."; the help did not say that
checkpoints are pickles; every game's record was kept, so memory grew with ``--games``.
"""

from __future__ import annotations

import ast
import io
import logging
import os
import re
import signal
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import hoity_env
from hoity_env.cli.eval import build_parser, main
from hoity_env.evaluation import chunks, evaluate
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.reports.output import LOCK_FILE, claim
from hoity_env.evaluation.workers import run_in_order

PACKAGE = Path(hoity_env.__file__).resolve().parent
TINY = ["--agents", "random,random", "--games", "4", "--no-progress"]


# ------------------------------------------------------------------ logging: -q, -v, silence
def test_quiet_leaves_stderr_empty_and_stdout_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(TINY) == 0
    assert "4 games in" in capsys.readouterr().err  # the timing line, by default
    assert main([*TINY, "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "| `random` |" in captured.out


def test_verbose_shows_the_debug_messages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*TINY, "--verbose"]) == 0
    assert "tasks on" in capsys.readouterr().err  # the harness's plan, a debug message


class _Terminal(io.StringIO):
    """A stream that says it is a terminal, as a user's stderr is (the bar shows only there)."""

    def isatty(self) -> bool:
        return True


def test_quiet_also_hides_the_progress_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["--agents", "random,random", "--games", "4"]
    for extra, shown in (([], True), (["-q"], False)):
        stream = _Terminal()
        monkeypatch.setattr(sys, "stderr", stream)
        assert main([*argv, *extra]) == 0
        assert ("4/4" in stream.getvalue()) is shown, (extra, stream.getvalue())
        if not shown:
            assert stream.getvalue() == ""
    with pytest.raises(SystemExit):  # one or the other
        build_parser("evaluate").parse_args(["--agents", "random,random", "-q", "-v"])


def test_the_cli_leaves_a_callers_logging_as_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger("hoity_env")
    before = (list(root.handlers), root.level, root.propagate)
    assert main([*TINY, "-q"]) == 0
    assert (list(root.handlers), root.level, root.propagate) == before


def test_a_library_user_can_see_and_silence_hoity_env_messages(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="hoity_env"):
        evaluate(["random", "random"], num_players=2, games=2, progress=False)
    assert any(r.name.startswith("hoity_env.evaluation") for r in caplog.records)
    caplog.clear()
    library = logging.getLogger("hoity_env")
    old = library.level
    try:
        with caplog.at_level(logging.DEBUG):  # the root logger listens to everything ...
            library.setLevel(logging.CRITICAL)  # ... and the user silences the package
            evaluate(["random", "random"], num_players=2, games=2, progress=False)
    finally:
        library.setLevel(old)
    assert not [r for r in caplog.records if r.name.startswith("hoity_env")]


def _library_modules() -> list[Path]:
    files = sorted((PACKAGE / "evaluation").rglob("*.py")) + sorted((PACKAGE / "strength").rglob("*.py"))
    return [p for p in files if not p.name.endswith("cli.py")]  # the command lines (cli.py, league_cli.py)


@pytest.mark.parametrize("path", _library_modules(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_library_modules_neither_print_nor_write_to_stderr(path: Path) -> None:
    # Only the command lines print; the library logs (logging.getLogger(__name__)).  The one
    # stream a library module names is the progress bar's (tqdm on stderr).
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "print", where
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sys":
            assert node.attr not in ("stderr", "stdout") or path.name == "progress.py", where


# ------------------------------------------------------------------ --out is taken at start
def _no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("games were played although --out was taken")

    monkeypatch.setattr("hoity_env.cli.evaluate.run", refuse)


def test_a_second_run_with_the_same_out_is_refused_before_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results"
    with claim(out):  # the first run, still playing
        _no_games(monkeypatch)
        assert main([*TINY, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert str(out) in err and "hoity-eval" in err  # it names the folder and who holds it
        assert (out / LOCK_FILE).is_file()  # the first run's lock is left alone
    assert not out.exists()  # the first run wrote nothing: its folder is gone again


def test_a_lock_left_by_a_killed_run_does_not_block_the_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results"
    out.mkdir()
    (out / LOCK_FILE).write_text("12345\n", encoding="utf-8")  # kill -9: the file stays, its lock went
    assert main([*TINY, "--out", str(out)]) == 0
    assert (out / "result.json").is_file() and not (out / LOCK_FILE).exists()


def test_a_failed_run_leaves_no_folder_behind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "new" / "results"
    assert main(["--agents", "random,wizard", "--games", "2", "--out", str(out)]) == 2
    assert "unknown agent 'wizard'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ checkpoints: messages and help
@pytest.mark.parametrize("spec", ["ppo:", "ppo-sample:", "rllib:", "ppo:  "])
def test_a_checkpoint_prefix_without_a_path_is_one_clear_line(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--agents", f"{spec},random", "--games", "2"]) == 2
    prefix = spec.strip()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err  # one line, no traceback
    assert repr(prefix) in err and f"{prefix}PATH" in err  # names the spec and the form that works


@pytest.mark.parametrize("command", ["evaluate", "tournament", "h2h", "exploit", "ladder"])
def test_the_help_warns_that_checkpoints_are_pickles(command: str) -> None:
    text = " ".join(build_parser(command).format_help().split())
    assert "rllib:PATH" in text and "pickle" in text and "trust" in text  # the risk, where the formats are


# ------------------------------------------------------------------ memory does not grow with games
def _fake_chunk(task: chunks.Task, on_game: Any = None) -> list[GameRecord]:
    """Records as a chunk would return them, made in no time (the harness cannot tell)."""
    k = task.num_players
    return [
        GameRecord(
            d,
            r,
            d,
            tuple(task.specs[(s - r) % k] for s in range(k)),
            (r,),
            tuple(1 + (s - r) % k for s in range(k)),
            (30,) * k,
            20,
            False,
        )
        for d in range(task.start, task.stop)
        for r in range(k)
    ]


def _peak(games: int) -> int:
    tracemalloc.start()
    try:
        result = evaluate(["random", "random"], num_players=2, games=games, progress=False, engine="one-game")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.games == games and result.records == ()
    return peak


def test_memory_does_not_grow_with_the_number_of_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "_play_task", _fake_chunk)
    _peak(200)  # warm: caches, imports
    small, large = _peak(2_000), _peak(40_000)
    # Keeping every record costs about 0.5 kB a game (20 MB here); summing them costs nothing.
    assert large < small + 1_000_000, (small, large)


def test_records_are_kept_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "_play_task", _fake_chunk)
    result = evaluate(["random", "random"], num_players=2, games=40, progress=False, records=True)
    assert len(result.records) == 40 and result.records[1].rotation == 1


# ------------------------------------------ issue 44 item 9: a second signal, one line a worker
class _Aborted(KeyboardInterrupt):
    """As a best response's second signal raises it (its constructor takes the signal number)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"aborted by signal {signum}")


def _mark_then_wait_for_abort(marker: str) -> None:
    """A task that says when it has started, then waits; SIGTERM aborts it (spawn workers import it)."""

    def abort(signum: int, frame: Any) -> None:
        raise _Aborted(signum)

    signal.signal(signal.SIGTERM, abort)
    Path(marker).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(60)


def test_an_aborted_task_ends_its_worker_with_one_line_and_no_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Each ``exploit --workers 2`` worker printed a 47-line traceback on the second Ctrl-C (its
    job's ``Aborted`` left the worker loop), and the command waited on them for seconds."""
    markers = [str(tmp_path / str(i)) for i in range(2)]
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt, match="aborted by signal 15"):
        list(
            run_in_order(
                _mark_then_wait_for_abort,
                markers,
                workers=2,
                stop=lambda: all(Path(m).exists() for m in markers),  # then SIGTERM to each busy worker
            )
        )
    pids = [int(Path(m).read_text(encoding="utf-8")) for m in markers]
    err = capfd.readouterr().err
    assert "Traceback" not in err, err
    lines = sorted(line for line in err.splitlines() if line.strip())
    assert len(lines) == 2 and all(
        re.fullmatch(r"evaluation worker [01] \(pid \d+\): aborted by signal 15", x) for x in lines
    ), err
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]  # none left running
    assert time.monotonic() - started < 50  # the tasks did not run their minute out
