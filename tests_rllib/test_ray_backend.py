"""``hoity-eval --backend ray``: the harness's chunks as Ray tasks on a local Ray instance.

Same seed, same records as the local backend (one-game and batched engines, a
tournament); an error inside a task comes back as itself; a Ray worker that dies
is :class:`WorkerDied`, never a hang.  Run by ``training/rllib_check.sh``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import ray

from hoity_env.cli.eval import main
from hoity_env.evaluation.harness import evaluate, play_tables
from hoity_env.evaluation.ray_backend import ray_session, run_on_ray
from hoity_env.evaluation.tournament import tournament
from hoity_env.evaluation.workers import WorkerDied


def test_cli_starts_and_stops_its_own_local_ray(capsys: pytest.CaptureFixture[str]) -> None:
    """First in the file: before the module's shared Ray session exists."""
    assert not ray.is_initialized()
    args = ["--agents", "expert,random", "--games", "6", "--seed", "5", "--no-progress"]
    assert main([*args, "--backend", "ray"]) == 0
    on_ray = capsys.readouterr().out
    assert not ray.is_initialized()
    assert main(args) == 0
    assert capsys.readouterr().out == on_ray
    local = evaluate(["expert", "random"], num_players=2, games=6, seed=5, progress=False)
    assert local.to_markdown().strip() in on_ray


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("engine", ["one-game", "batched"])
def test_ray_records_equal_the_local_backends(engine: str) -> None:
    tables = [["expert", "random", "thief"], ["collector", "detective", "random"]]
    kw = {"num_players": 3, "deals": 7, "seed": 11, "engine": engine, "progress": False}
    local = play_tables(tables, workers=2, **kw)  # type: ignore[arg-type]
    on_ray = play_tables(tables, backend="ray", **kw)  # type: ignore[arg-type]
    assert on_ray == local and sum(len(t) for t in on_ray) == 2 * 7 * 3
    assert ray.is_initialized()  # a session this process had is left open


@pytest.mark.usefixtures("local_ray")
def test_ray_tournament_equals_the_local_one() -> None:
    kw = {"num_players": 2, "games": 6, "seed": 3, "progress": False}
    pool = ["expert", "collector", "random"]
    assert tournament(pool, backend="ray", **kw) == tournament(pool, **kw)  # type: ignore[arg-type]


@pytest.mark.usefixtures("local_ray")
def test_an_error_in_a_task_comes_back_as_itself() -> None:
    with ray_session(None) as cpus:
        assert cpus == 2
        with pytest.raises(ValueError, match="invalid literal"):
            list(run_on_ray(int, ["1", "x", "3"], window=2))


@pytest.mark.usefixtures("local_ray")
def test_a_ray_worker_that_dies_is_an_error_not_a_hang() -> None:
    results = run_on_ray(os._exit, [3], window=1)  # the task ends its worker process
    with pytest.raises(WorkerDied, match=r"a Ray worker died while playing task 0 \(3\)"):
        next(results)
    # The session survives it: the next call plays normally.
    assert list(run_on_ray(abs, [-1, -2, 3], window=2)) == [1, 2, 3]
