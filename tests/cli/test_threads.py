"""numpy's BLAS threads (issue 34): the command lines and the harness's workers run one, the library
changes nothing on import, and a limit is undone when its call ends.

Each test first gives numpy two threads itself, so what it checks does not depend on the
machine's core count.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from threadpoolctl import threadpool_limits

from hoity_env.cli import eval as eval_cli
from hoity_env.cli import evaluate as match_cli
from hoity_env.cli import learn as learn_cli
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation import MatchSettings, chunks
from hoity_env.evaluation.workers import run_in_order
from hoity_env.threads import blas_threads, limit_blas


@pytest.fixture()
def two_threads() -> Iterator[None]:
    """numpy's BLAS on two threads for the test (restored after it)."""
    if not blas_threads():  # pragma: no cover - a numpy without a BLAS threadpoolctl knows
        pytest.skip("numpy's BLAS is not one threadpoolctl controls")
    with threadpool_limits(limits=2, user_api="blas"):
        assert set(blas_threads()) == {2}
        yield


def test_limit_blas_limits_inside_and_restores_after(two_threads: None) -> None:
    with limit_blas(1):
        assert set(blas_threads()) == {1}
    assert set(blas_threads()) == {2}
    with limit_blas(None):
        assert set(blas_threads()) == {2}


def test_importing_the_library_leaves_numpys_threads_alone() -> None:
    code = (
        "from threadpoolctl import threadpool_limits, threadpool_info\n"
        "import numpy\n"
        "threadpool_limits(limits=2, user_api='blas')\n"
        "import hoity_env, hoity_env.agents, hoity_env.evaluation, hoity_env.cli.args, hoity_env.cli.eval\n"
        "hoity_env.agents.make('champion').act_batch\n"
        "print(sorted({lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[2]"


def test_match_settings_take_a_positive_thread_count_or_none() -> None:
    assert MatchSettings().blas_threads is None
    assert MatchSettings(blas_threads=3).blas_threads == 3
    for bad in (0, -1, 1.5, "1", True):
        with pytest.raises(ConfigError, match="blas_threads"):
            MatchSettings(blas_threads=bad)


def test_evaluate_limits_its_own_games_only_when_asked(
    two_threads: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[int]] = []
    play = chunks._play_task

    def spy(task: chunks.Task, on_game: Any = None) -> Any:
        seen.append(sorted(set(blas_threads())))
        return play(task, on_game)

    monkeypatch.setattr(chunks, "_play_task", spy)
    from hoity_env.evaluation import evaluate

    evaluate(["random"] * 4, games=4, progress=False, blas_threads=1)
    evaluate(["random"] * 4, games=4, progress=False)
    assert [set(s) for s in seen] == [{1}, {2}]
    assert set(blas_threads()) == {2}


def _threads_in_worker(_: int) -> list[int]:
    return blas_threads()


@pytest.mark.parametrize(("asked", "expected"), [(None, 1), (2, 2)])
def test_workers_run_the_settings_threads(asked: int | None, expected: int, two_threads: None) -> None:
    # The worker initializer of the harness (numpy is loaded before it runs, so an
    # environment variable alone would come too late).
    init = chunks.worker_initializer(MatchSettings(blas_threads=asked))
    assert set(next(iter(run_in_order(_threads_in_worker, [0], workers=1, initializer=init)))) == {expected}


def test_hoity_eval_plays_under_its_flag(two_threads: None, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[list[int], int | None]] = []
    real = match_cli.run

    def spy(command: str, args: argparse.Namespace) -> Any:
        seen.append((sorted(set(blas_threads())), match_cli.match_settings_of(args, 4).blas_threads))
        return real(command, args)

    monkeypatch.setattr(match_cli, "run", spy)
    agents = ["--agents", "random,random,random,random", "--games", "4", "-q"]
    assert eval_cli.main(agents) == 0
    assert eval_cli.main([*agents, "--blas-threads", "2"]) == 0
    assert seen == [([1], 1), ([2], 2)]
    assert set(blas_threads()) == {2}


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_a_bad_thread_count_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert eval_cli.main(["--agents", "random,random", "--blas-threads", value]) == 2
    assert "--blas-threads" in capsys.readouterr().err


def test_hoity_learn_trains_under_its_flag(
    two_threads: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    seen: list[list[int]] = []

    def spy(parser: argparse.ArgumentParser, args: argparse.Namespace, *rest: Any) -> int:
        seen.append(sorted(set(blas_threads())))
        return 0

    monkeypatch.setattr(learn_cli, "_main", spy)
    assert learn_cli.main(["--out", str(tmp_path / "run")]) == 0
    assert learn_cli.main(["--out", str(tmp_path / "run"), "--blas-threads", "2"]) == 0
    assert seen == [[1], [2]]


def test_hoity_play_plays_under_its_flag(two_threads: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from hoity_env.cli import play as play_cli

    seen: list[list[int]] = []
    monkeypatch.setattr(play_cli, "play", lambda *args, **kwargs: seen.append(sorted(set(blas_threads()))))
    assert play_cli.main(["--opponents", "random"]) == 0
    assert play_cli.main(["--opponents", "random", "--blas-threads", "2"]) == 0
    assert seen == [[1], [2]]


def test_hoity_serve_serves_under_its_flag(
    two_threads: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from hoity_env.cli import serve as serve_cli

    seen: list[list[int]] = []

    class Server:
        url = "http://127.0.0.1:1/"

        def __init__(self, *args: Any) -> None:
            self.table = self

        def serve_forever(self) -> None:
            seen.append(sorted(set(blas_threads())))

        def sweep(self) -> None: ...

        def server_close(self) -> None: ...

        def __len__(self) -> int:  # the open games (server.table is this object too)
            return 0

        def close(self) -> list[str]:  # the games that could not be saved
            return []

    monkeypatch.setattr(serve_cli, "make_server", Server)
    base = ["--agents", "random", "--replays", str(tmp_path)]
    assert serve_cli.main(base) == 0
    assert serve_cli.main([*base, "--blas-threads", "2"]) == 0
    assert seen == [[1], [2]]
