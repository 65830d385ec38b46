"""The harness fails fast and loses nothing (issue 9, items 6-8).

Fault injection: a worker killed with ``SIGKILL`` mid-evaluation, and a task
function that calls ``os._exit``, must raise ``WorkerDied`` naming the worker,
leave no worker process behind, and never hang (each run is guarded by a
generous join timeout that only a hang would reach).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hoity_env.cli.eval import main
from hoity_env.evaluation import chunks
from hoity_env.evaluation.harness import evaluate, play_tables
from hoity_env.evaluation.reports import output
from hoity_env.evaluation.workers import WorkerDied, run_in_order

_HANG_GUARD_S = 120


def _square_or_die(x: int) -> int:
    """Task function for the pool tests (module level, so spawn workers can import it)."""
    if x == 3:
        os._exit(7)  # an agent that ends its process
    return x * x


def _square_or_raise(x: int) -> int:
    if x == 2:
        raise ValueError(f"bad task {x}")
    return x * x


def test_results_come_back_in_task_order_from_a_lazy_source() -> None:
    consumed = []

    def source() -> Any:
        for x in range(40):
            consumed.append(x)
            yield x

    results = run_in_order(_square_or_raise, (x for x in source() if x != 2), workers=2, window=4)
    first = next(results)
    assert first == 0 and len(consumed) <= 4 + 2  # the source is read as needed, not up front
    assert [first, *results] == [x * x for x in range(40) if x != 2]
    assert not multiprocessing.active_children()


def test_an_exception_in_a_task_is_raised_in_the_caller_and_workers_stop() -> None:
    with pytest.raises(ValueError, match="bad task 2"):
        list(run_in_order(_square_or_raise, range(6), workers=2))
    assert not multiprocessing.active_children()


def test_a_worker_that_exits_raises_worker_died_naming_it() -> None:
    with pytest.raises(
        WorkerDied, match=r"evaluation worker \d \(pid \d+\) exited with code 7 while playing task 3"
    ):
        list(run_in_order(_square_or_die, range(8), workers=2))
    assert not multiprocessing.active_children()


def _run_in_thread(fn: Any) -> dict[str, Any]:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    box["thread"] = thread
    return box


def _kill_a_worker(box: dict[str, Any]) -> int:
    """SIGKILL the first worker process once one is playing; return its pid."""
    while box["thread"].is_alive():
        children = multiprocessing.active_children()
        if children:
            time.sleep(0.5)  # let it start playing
            pid = children[0].pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            return pid
        time.sleep(0.05)
    raise AssertionError(f"the evaluation ended before a worker could be killed: {box}")


def test_killing_a_worker_fails_the_evaluation_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "usable_cpus", lambda: 2)
    box = _run_in_thread(
        # The one-game engine: 4,000 games make many tasks for the pool (batched, one task).
        lambda: evaluate(
            ["expert", "random", "random", "random"], games=4000, workers=2, progress=False, engine="one-game"
        )
    )
    pid = _kill_a_worker(box)
    box["thread"].join(_HANG_GUARD_S)
    assert not box["thread"].is_alive(), "the evaluation hung after a worker died"
    error = box.get("error")
    assert isinstance(error, WorkerDied) and f"pid {pid}" in str(error) and "signal 9" in str(error)
    assert not multiprocessing.active_children()


def test_hoity_eval_reports_a_dead_worker_with_a_nonzero_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def dying(*args: Any, **kwargs: Any) -> Any:
        raise WorkerDied("evaluation worker 1 (pid 42) was killed by signal 9 while playing task 3")

    monkeypatch.setattr("hoity_env.cli.evaluate.evaluate", dying)
    assert main(["--agents", "random,random", "--games", "2", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert (
        err.strip()
        == "hoity-eval: error: evaluation worker 1 (pid 42) was killed by signal 9 while playing task 3"
    )


# ------------------------------------------------------------------ item 8: huge runs
def test_more_workers_than_cpus_are_capped_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "usable_cpus", lambda: 1)
    with pytest.warns(RuntimeWarning, match="workers=32 is more than the 1 usable CPU"):
        (records,) = play_tables(
            [["random", "random"]], num_players=2, deals=2, seed=0, workers=32, progress=False
        )
    assert len(records) == 4 and not multiprocessing.active_children()


def test_a_huge_game_count_does_not_build_its_task_list(monkeypatch: pytest.MonkeyPatch) -> None:
    # Stop after the first chunk: a task list of 10**10 games would exhaust memory before that.
    def first_chunk_only(task: Any, on_game: Any = None) -> Any:
        raise KeyboardInterrupt(f"stopped at deals {task.start}-{task.stop}")

    monkeypatch.setattr(chunks, "_play_task", first_chunk_only)
    with pytest.raises(KeyboardInterrupt, match="stopped at deals 0-25"):
        evaluate(
            ["random", "random"], num_players=2, games=10**10, workers=1, progress=False, engine="one-game"
        )
    with pytest.raises(KeyboardInterrupt, match="stopped at deals 0-2048"):  # batched chunks: 4,096 games
        evaluate(["random", "random"], num_players=2, games=10**10, workers=1, progress=False)


# ------------------------------------------------------------------ item 7: --out first
def _no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("games were played before --out was checked")

    monkeypatch.setattr("hoity_env.cli.evaluate.run", refuse)
    monkeypatch.setattr("hoity_env.cli.strength.run", refuse)


def test_out_that_is_a_file_is_refused_before_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_games(monkeypatch)
    blocker = tmp_path / "file"
    blocker.write_text("mine", encoding="utf-8")
    assert main(["--agents", "random,random", "--games", "2", "--no-progress", "--out", str(blocker)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert blocker.read_text(encoding="utf-8") == "mine"


def test_earlier_results_are_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_games(monkeypatch)
    (tmp_path / "result.csv").write_text("my earlier results", encoding="utf-8")
    assert main(["--agents", "random,random", "--games", "2", "--no-progress", "--out", str(tmp_path)]) == 2
    assert "already holds result.csv" in capsys.readouterr().err
    assert (tmp_path / "result.csv").read_text(encoding="utf-8") == "my earlier results"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_a_read_only_folder_is_refused_before_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_games(monkeypatch)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        argv = [
            "--agents",
            "random,random",
            "--games",
            "2",
            "--no-progress",
            "--out",
            str(locked / "results"),
        ]
        assert main(argv) == 2
        assert "cannot be created" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)


def test_a_failed_write_leaves_no_partial_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hoity_env.evaluation.reports.results import EvaluationResult

    def broken_plot(self: Any, path: Any) -> None:
        Path(path).write_bytes(b"half a png")
        raise OSError("disk full")

    monkeypatch.setattr(EvaluationResult, "plot_png", broken_plot)
    out = tmp_path / "new" / "results"
    assert main(["--agents", "random,random", "--games", "2", "--no-progress", "--out", str(out)]) == 2
    assert "disk full" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # neither files nor the folders this run made
    assert output.RESULT_FILES[0] == "result.json"


# ------------------------------------------- issue 21 item 9: workers never outlive their parent
def _mark_then_sleep(marker: str) -> None:
    """A long task (spawn workers import it from here) that says when it has started."""
    Path(marker).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(60)


_KILLED_PARENT = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.evaluation.test_eval_faults import _mark_then_sleep
from hoity_env.evaluation.workers import run_in_order
list(run_in_order(_mark_then_sleep, [sys.argv[2] + "/0", sys.argv[2] + "/1"], workers=2))
"""


def _children(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid``, from /proc."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_workers_exit_at_once_when_their_parent_is_killed(tmp_path: Path) -> None:
    # Each worker is a minute into a task when hoity-eval's process is killed: a worker that
    # noticed its parent only between tasks would outlive it by that minute.
    here = str(Path(__file__).resolve().parents[2])  # the repository: the script imports tests.*
    parent = subprocess.Popen([sys.executable, "-c", _KILLED_PARENT, here, str(tmp_path)])
    workers: list[int] = []
    try:
        deadline = time.monotonic() + _HANG_GUARD_S
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.05)
            workers = [int(p.read_text()) for p in tmp_path.glob("[01]") if p.read_text()]
        assert len(workers) == 2, "the workers never started their tasks"
        assert set(workers) <= set(_children(parent.pid))
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        gone_by = time.monotonic() + 2.0
        while any(_alive(p) for p in workers) and time.monotonic() < gone_by:
            time.sleep(0.05)
        left = sorted(p for p in workers if _alive(p))
    finally:
        if parent.poll() is None:
            parent.kill()
        for pid in workers:  # never leave them running, whatever the outcome
            if _alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    assert left == [], f"workers {left} outlived their killed parent by more than 2 s"
