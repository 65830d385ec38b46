"""``backend="ray"`` of the harness without Ray installed, and the backend arguments' checks.

The Ray backend itself (identical records to the local backend on a local Ray
instance, a dying Ray worker) is tested in ``tests_rllib/test_ray_backend.py``,
in the RLlib virtual environment: Ray is not installed here.  ``ray`` is hidden
from imports below, so these tests mean the same wherever Ray happens to be.
"""

from __future__ import annotations

import socket
import sys

import pytest

from hoity_env import ConfigError
from hoity_env.cli.eval import main
from hoity_env.evaluation.harness import evaluate
from hoity_env.evaluation.ray_backend import check_reachable
from hoity_env.evaluation.tournament import head_to_head


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError


@pytest.mark.usefixtures("no_ray")
def test_ray_backend_without_ray_names_the_rllib_extra() -> None:
    with pytest.raises(ConfigError, match=r"needs Ray, which is not installed: install the rllib extra"):
        evaluate(["random", "random"], num_players=2, games=2, backend="ray", progress=False)
    with pytest.raises(ConfigError, match="rllib extra"):
        head_to_head(["random", "collector"], num_players=2, games=2, backend="ray", progress=False)


@pytest.mark.usefixtures("no_ray")
def test_cli_ray_backend_without_ray_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--agents", "random,random", "--games", "2", "--backend", "ray", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("hoity-eval: error: backend 'ray' needs Ray") and "rllib" in err
    assert "Traceback" not in err


@pytest.mark.usefixtures("no_ray")
def test_local_backend_stays_the_default_and_needs_no_ray() -> None:
    result = evaluate(["random", "collector"], num_players=2, games=4, seed=1, progress=False)
    assert result.games == 4 and result == evaluate(
        ["random", "collector"], num_players=2, games=4, seed=1, progress=False, backend="local"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"backend": "dask"}, r"backend must be one of \('local', 'ray'\)"),
        ({"address": "auto"}, "an address is for backend 'ray'"),
        ({"backend": "ray", "workers": 2}, "the cluster's CPUs set it"),
    ],
)
def test_bad_backend_arguments_raise_before_any_game(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        evaluate(["random", "random"], num_players=2, games=2, progress=False, **kwargs)  # type: ignore[arg-type]


def test_cli_rejects_an_unknown_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--agents", "random,random", "--backend", "dask"]) == 2
    assert "invalid choice: 'dask'" in capsys.readouterr().err


def test_a_dead_ray_address_is_refused_at_once() -> None:
    """Ray retries an address where nothing listens for minutes; we check it first."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        check_reachable(f"127.0.0.1:{port}")  # something answers: no error
    with pytest.raises(ConfigError, match=rf"cannot connect to Ray at '127.0.0.1:{port}': nothing answers"):
        check_reachable(f"127.0.0.1:{port}", timeout_s=5)
    with pytest.raises(ConfigError, match="'auto' or HOST:PORT"):
        check_reachable("headnode")
    for left_to_ray in (None, "auto", "ray://head:10001"):
        check_reachable(left_to_ray)
