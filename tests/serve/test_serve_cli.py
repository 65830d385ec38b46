"""``hoity-serve`` on the command line: it serves, warns off loopback, saves open games on Ctrl-C."""

from __future__ import annotations

import io
import json
import logging
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from hoity_env.cli import serve as cli
from hoity_env.replays import read_replay
from hoity_env.serve.server import make_server


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_stop_signal_saves_the_open_games_and_exits_0(tmp_path: Path, stop: str) -> None:
    replays = tmp_path / "r"
    command = [sys.executable, "-m", "hoity_env.cli.serve", "--port", "0", "--replays", str(replays)]
    # The child gets Ctrl-C as a shell's command would: SIGINT at its default and unblocked,
    # whatever this test process inherited or was left with.
    proc = subprocess.Popen(
        [*command, "--agents", "random,detective"],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    try:
        assert proc.stderr is not None
        url = cli.wait_until_serving(proc.stderr)
        # Drain the rest of stderr meanwhile: a child blocked on a full pipe could never exit.
        rest: list[str] = []
        drain = threading.Thread(target=lambda: rest.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
        drain.start()
        body = {"players": 2, "opponents": ["detective"], "seed": 2}
        view = _post(url + "api/games", body)
        _post(url + f"api/games/{view['id']}/action", {"action": view["choices"][0]["action"]})
        proc.send_signal(getattr(signal, stop))
        # Generous: on a loaded CI machine the child's shutdown can take a while.
        assert proc.wait(timeout=120) == 0, "".join(rest)
        drain.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = "".join(rest)
    assert f"stopped by {stop}; 1 open game(s) saved" in log and "Traceback" not in log
    (saved,) = replays.iterdir()
    replay = read_replay(saved)
    assert replay.end is not None and replay.end["reason"] == "quit" and len(replay.steps) == 1


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def test_another_address_is_served_with_a_warning_and_open_games_are_saved_on_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    asked: list[str] = []

    def on_loopback(settings: Any, host: str, port: int) -> Any:
        asked.append(host)  # the test listens on loopback whatever is asked
        server = make_server(settings, "127.0.0.1", 0)

        def serve_forever() -> None:
            server.table.create({"players": 3, "opponents": ["random", "thief"], "seed": 1})
            raise KeyboardInterrupt

        server.serve_forever = serve_forever  # type: ignore[method-assign]
        return server

    monkeypatch.setattr(cli, "make_server", on_loopback)
    with caplog.at_level(logging.WARNING, logger="hoity_env.cli.serve"):
        assert cli.main(["--host", "0.0.0.0", "--replays", str(tmp_path / "r")]) == 0
    assert asked == ["0.0.0.0"]
    assert any("not only here" in r.getMessage() for r in caplog.records)
    (saved,) = (tmp_path / "r").iterdir()
    end = read_replay(saved).end
    assert end is not None and end["reason"] == "quit"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ladder", "missing.md"], "no such file"),
        (["--replays", "afile"], "not a folder"),
        (["--agents", "expert,nobody"], "unknown agent 'nobody'"),
        (["--agents", "expert,"], "comma-separated"),
        (["--idle-timeout", "0"], "idle_timeout_s must be at least 1 second"),
        (["--idle-timeout", "0.001"], "idle_timeout_s must be at least 1 second"),  # would spin the sweeper
        (["--idle-timeout", "nan"], "idle_timeout_s must be at least 1 second"),
        (["--port", "65536"], "expected a port from 0 to 65535, got 65536"),
        (["--port", "-1"], "expected a port from 0 to 65535, got -1"),
        (["--port", "99999999999999999999"], "expected a port from 0 to 65535"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")

    def never(*a: Any) -> Any:
        raise AssertionError("the server was made although the arguments were bad")

    monkeypatch.setattr(cli, "make_server", never)
    assert cli.main(["--port", "0", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert [line for line in err.splitlines() if "error:" in line] == [err.splitlines()[-1]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # no replays folder made


def test_the_sweeper_wakes_at_most_once_a_second_and_at_least_once_a_minute() -> None:
    periods = [cli.sweep_period(t) for t in (1.0, 2.5, 60.0, 3600.0, float("inf"))]
    assert periods == [1.0, 2.5, 60.0, 60.0, 60.0]
    waits: list[float] = []

    class Clock(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            waits.append(float(timeout or 0))
            return len(waits) > 3

    swept: list[int] = []
    server = type("S", (), {"table": type("T", (), {"sweep": lambda self: swept.append(1)})()})()
    cli._sweeper(server, cli.sweep_period(1.0), Clock())
    assert waits == [1.0] * 4 and len(swept) == 3


def test_waiting_for_the_server_fails_clearly_when_it_exits_first() -> None:
    with pytest.raises(RuntimeError, match="exited before serving"):
        cli.wait_until_serving(io.StringIO("hoity-serve: error: --port must be >= 0\n"))
    line = "hoity-serve: serving http://127.0.0.1:8123/ (replays in r); Ctrl-C stops\n"
    assert cli.wait_until_serving(io.StringIO("starting\n" + line)) == "http://127.0.0.1:8123/"


def test_an_agent_registered_only_at_other_tables_is_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: the start-up check asks for a table the agent plays, not only the default one."""
    from hoity_env.engine.errors import ConfigError

    asked: list[tuple[str, int]] = []

    def three_players_only(spec: str, *, num_players: int, rules: str) -> object:
        asked.append((rules, num_players))
        if num_players != 3 or rules != "original":
            raise ConfigError(f"{spec} has no agent for {num_players} players, {rules} rules")
        return object()

    monkeypatch.setattr(cli, "make", three_players_only)
    cli.check_offered("trio")
    assert asked[0] == ("standard", 4) and asked[-1] == ("original", 3)

    def nowhere(spec: str, *, num_players: int, rules: str) -> object:
        raise ConfigError(f"unknown agent {spec!r} at {num_players}, {rules}")

    monkeypatch.setattr(cli, "make", nowhere)
    with pytest.raises(ConfigError, match="unknown agent 'nobody' at 4, standard"):  # the default table's
        cli.check_offered("nobody")
