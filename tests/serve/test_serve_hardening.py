"""``hoity-serve`` under hostile or heavy use (issue 37): odd bodies, a full game table, bursts, slow clients.

Each refusal is a JSON ``4xx`` with no traceback in the server's log or on stderr, and
changes nothing; slots are freed when a game ends; ``max_games`` holds under concurrency.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hoity_env.cli import serve as cli
from hoity_env.replays import read_replay
from hoity_env.serve import ServeSettings, games
from hoity_env.serve import server as serve_server
from hoity_env.serve.games import GameTable
from hoity_env.serve.settings import TooManyGames
from tests.serve_client import ok, request, serving

FAST = ("random", "detective")
BODY = {"players": 2, "opponents": ["detective"], "seed": 2}
"""A new game whose play-out (the first choice each time) is ~20 steps."""


def settings(tmp_path: Path, **kw: Any) -> ServeSettings:
    return ServeSettings(agents=FAST, replays=tmp_path / "replays", **kw)


def play_out(server: Any, view: dict[str, Any]) -> dict[str, Any]:
    while not view["done"]:
        view = ok(server, "POST", f"/api/games/{view['id']}/action", {"action": view["choices"][0]["action"]})
    return view


def _raw(server: Any, data: bytes, timeout: float = 30) -> bytes:
    """Send ``data`` as it is on one connection and read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=timeout) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


def _status_and_json(answer: bytes) -> tuple[int, Any]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


NESTED = b"[" * 8000 + b"]" * 8000  # 16,000 bytes, under the 16 KiB limit: deeper than json's recursion


@pytest.mark.parametrize(
    "body",
    [
        {**BODY, "rules": []},
        {**BODY, "rules": {}},
        {**BODY, "players": []},
        {**BODY, "opponents": [[]]},
        {**BODY, "opponents": [{}]},
        {**BODY, "seat": {}},
        {**BODY, "seed": [1]},
    ],
    ids=lambda b: json.dumps(b)[-32:],
)
def test_unhashable_fields_get_a_json_400(
    tmp_path: Path, body: dict[str, Any], capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO), serving(settings(tmp_path)) as server:
        status, answer = request(server, "POST", "/api/games", body)
        assert status == 400 and answer["error"], answer
        assert len(server.table) == 0
    assert "Traceback" not in capfd.readouterr().err
    assert not any(r.exc_info or r.levelno >= logging.ERROR for r in caplog.records)


@pytest.mark.parametrize(
    ("head", "body", "want"),
    [
        ("Content-Length: 16000", NESTED, 400),
        ("Content-Length: 16000", NESTED.replace(b"[", b'{"a":[', 1), 400),
        ("Content-Length: " + "9" * 5000, b"", 413),
        ("Content-Length: 1" + "0" * 4999, b"", 413),
        ("Content-Length: \u00b2", b"{}", 400),  # a digit to str.isdigit, not to int()
        ("Content-Length: -1", b"{}", 400),
        ("Content-Length: 2, 2", b"{}", 400),
    ],
    ids=["nested-list", "nested-object", "5000-nines", "5000-digits", "superscript", "negative", "two"],
)
def test_hostile_bodies_and_lengths_get_a_json_4xx(
    tmp_path: Path,
    head: str,
    body: bytes,
    want: int,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO), serving(settings(tmp_path)) as server:
        data = (
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + head.encode()
            + b"\r\nConnection: close\r\n\r\n"
            + body
        )
        status, answer = _status_and_json(_raw(server, data))
        assert status == want and answer["error"], answer
        assert len(server.table) == 0
    assert "Traceback" not in capfd.readouterr().err
    assert not any(r.exc_info or r.levelno >= logging.ERROR for r in caplog.records)


@pytest.mark.parametrize(
    ("data", "want"),
    [
        (b"BREW / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501),  # a method nobody serves
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),  # a request line over 64 KiB
        (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"y" * 70_000 + b"\r\n\r\n", 431),
    ],
    ids=["method", "long-line", "long-header"],
)
def test_the_standard_librarys_own_refusals_are_json_too(
    tmp_path: Path,
    data: bytes,
    want: int,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO), serving(settings(tmp_path)) as server:
        status, answer = _status_and_json(_raw(server, data))
        assert status == want and answer["error"], answer
    assert "Traceback" not in capfd.readouterr().err
    assert not any(r.exc_info or r.levelno >= logging.ERROR for r in caplog.records)


def test_finished_games_free_their_slots_and_stay_visible(tmp_path: Path) -> None:
    with serving(settings(tmp_path, max_games=1)) as server:
        first = ok(server, "POST", "/api/games", BODY)
        status, answer = request(server, "POST", "/api/games", BODY)
        assert status == 429 and "1 games are open" in answer["error"]
        end = play_out(server, first)
        assert end["done"] and end["replay"]
        second = ok(server, "POST", "/api/games", BODY)  # the finished game's slot is free
        assert ok(server, "GET", f"/api/games/{first['id']}") == end  # and it can still be seen
        status, answer = request(server, "POST", f"/api/games/{first['id']}/action", {"action": 0})
        assert status == 409 and "over" in answer["error"]
        status, answer = request(server, "POST", f"/api/games/{first['id']}/hint", {"agent": "random"})
        assert status == 409 and "over" in answer["error"]
        assert ok(server, "POST", f"/api/games/{first['id']}/leave", {}) == {"replay": end["replay"]}
        assert len(server.table) == 1 and ok(server, "GET", f"/api/games/{second['id']}")["done"] is False
    assert [p.name for p in (tmp_path / "replays").iterdir()] == [end["replay"]]  # saved once


def test_max_games_is_a_hard_limit_under_concurrency(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = GameTable(settings(tmp_path, max_games=3))
    building, lock, crowd = [0], threading.Lock(), threading.Event()

    class Slow(games.ServedGame):  # each game waits while others are admitted (1 s at most), so that
        def __init__(self, *args: Any) -> None:  # a check made before building lets them all in
            with lock:
                building[0] += 1
                if building[0] > 3:  # more than the limit are being built: over-admitted
                    crowd.set()
            crowd.wait(1.0)
            super().__init__(*args)

    monkeypatch.setattr(games, "ServedGame", Slow)
    start = threading.Barrier(16)
    made: list[str] = []
    refused: list[str] = []

    def create() -> None:
        start.wait()
        try:
            made.append(table.create(BODY).id)
        except TooManyGames as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=create) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(made) == 3 and len(refused) == 13 and len(table) == 3


def test_a_burst_of_new_games_is_answered_without_resets(tmp_path: Path) -> None:
    answers: list[int] = []
    failures: list[str] = []
    with serving(settings(tmp_path, max_games=4)) as server:
        start = threading.Barrier(200)

        def ask() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
            start.wait()
            try:
                conn.request("POST", "/api/games", json.dumps(BODY), {"Content-Type": "application/json"})
                answers.append(conn.getresponse().status)
            except OSError as exc:
                failures.append(repr(exc))
            finally:
                conn.close()

        threads = [threading.Thread(target=ask) for _ in range(200)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert failures == [] and sorted(set(answers)) == [201, 429], failures[:3]
        assert answers.count(201) == 4 == len(server.table)


def test_a_slow_client_is_dropped_after_the_read_timeout(tmp_path: Path) -> None:
    with serving(settings(tmp_path, read_timeout_s=0.5)) as server:
        stalled = b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"
        assert _raw(server, stalled, timeout=20) == b""  # closed unanswered; 20 s is only a hang guard
        assert _raw(server, b"GET /api/setup HTTP/1.1\r\nHost: 127.0", timeout=20) == b""
        assert ok(server, "GET", "/api/setup")["agents"] == list(FAST)  # the server goes on serving


@contextmanager
def full_disk(folder: Path) -> Iterator[Path]:
    """``folder`` as a 64 KiB tmpfs filled to the last byte; yields the filler (delete it to make room)."""
    folder.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"a full disk is a small tmpfs, and mount is not permitted here: {mounted.stderr}")
    try:
        filler = folder / "filler"
        with filler.open("wb", buffering=0) as fh, contextlib.suppress(OSError):  # ENOSPC: full
            while True:
                fh.write(b"x" * 512)
        yield filler
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_keeps_the_ended_game_and_its_end(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "replays"
    with full_disk(folder) as filler, caplog.at_level(logging.INFO), serving(settings(tmp_path)) as server:
        going = ok(server, "POST", "/api/games", BODY)
        end = play_out(server, ok(server, "POST", "/api/games", BODY))  # the game-ending request is answered
        assert end["done"] and end["replay"] is None and "winners" in end
        assert end["replay_error"] == "the replay could not be saved: No space left on device"
        assert sorted(p.name for p in folder.iterdir()) == ["filler"]  # nothing half-written is left
        for game in (end, going):
            status, answer = request(server, "POST", f"/api/games/{game['id']}/leave", {})
            assert status == 507 and "No space left on device" in answer["error"], answer
            assert str(tmp_path) not in answer["error"]  # the reason, not our paths
        assert ok(server, "GET", f"/api/games/{end['id']}") == end  # kept as it ended
        going = ok(
            server, "POST", f"/api/games/{going['id']}/action", {"action": going["choices"][0]["action"]}
        )
        assert going["step"] == 1 and not going["done"]  # a failed leave changed nothing
        assert sorted(p.name for p in folder.iterdir()) == ["filler"]
        filler.unlink()  # room again: leaving saves each game as it is
        saved = {
            g["id"]: ok(server, "POST", f"/api/games/{g['id']}/leave", {})["replay"] for g in (end, going)
        }
        ended, left = (read_replay(folder / saved[g["id"]]) for g in (end, going))
        assert ended.end is not None and ended.end["reason"] in ("terminated", "truncated")  # never "quit"
        assert ended.end["winners"] == end["winners"] and len(ended.steps) == end["step"]
        assert left.end is not None and left.end["reason"] == "quit" and len(left.steps) == 1
        assert sorted(p.name for p in folder.iterdir()) == sorted(saved.values())
    assert "Traceback" not in capfd.readouterr().err
    assert not any(r.exc_info for r in caplog.records)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 3 and all("No space left on device" in e for e in errors), errors


def test_games_that_cannot_be_saved_at_stop_are_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with full_disk(tmp_path / "replays") as filler, caplog.at_level(logging.ERROR):
        table = GameTable(settings(tmp_path))
        game = table.create(BODY)
        assert table.close() == [game.id] and len(table) == 0
        assert sorted(p.name for p in filler.parent.iterdir()) == ["filler"]
    reason = "the replay could not be saved: No space left on device"
    assert [r.getMessage() for r in caplog.records] == [
        f"game {game.id} not saved as the server stops: {reason}"
    ]


def test_the_stop_saves_what_it_can_ignores_signals_meanwhile_and_names_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[str] = []

    def make(settings: ServeSettings, host: str, port: int) -> Any:
        server = serve_server.make_server(settings, "127.0.0.1", 0)
        close = server.table.close

        def interrupted_close() -> list[str]:  # Ctrl-C and SIGTERM again while the games are saved
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGTERM)
            return close()

        def serve_forever() -> None:
            opened.append(server.table.create(BODY).id)
            raise KeyboardInterrupt

        server.serve_forever = serve_forever  # type: ignore[method-assign]
        server.table.close = interrupted_close  # type: ignore[method-assign]
        return server

    monkeypatch.setattr(cli, "make_server", make)
    with full_disk(tmp_path / "replays"):
        assert cli.main(["--agents", "random,detective", "--replays", str(tmp_path / "replays")]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"hoity-serve: error: 1 open game(s) could not be saved: {opened[0]}"
    assert "stopped by SIGINT; 0 open game(s) saved" in err and "Traceback" not in err
