"""A ``hoity-serve`` on a free port for the tests, and a small HTTP client for it (standard library)."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hoity_env.serve import ServeServer, ServeSettings, make_server


@contextmanager
def serving(settings: ServeSettings, **table: Any) -> Iterator[ServeServer]:
    """A server on 127.0.0.1 at a free port, serving on a thread until the block ends."""
    server = make_server(settings, "127.0.0.1", 0, **table)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def request(
    server: ServeServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """``(status, parsed JSON or text)``; ``body`` is sent as JSON, ``raw`` as it is."""
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    sent = {"Content-Type": "application/json"} if data is not None else {}
    sent.update(headers or {})
    try:
        conn.request(method, path, body=data, headers=sent)
        answer = conn.getresponse()
        text = answer.read().decode()
        kind = answer.getheader("Content-Type", "")
        return answer.status, json.loads(text) if kind.startswith("application/json") else text
    finally:
        conn.close()


def ok(server: ServeServer, method: str, path: str, body: Any = None) -> Any:
    """The JSON answer of a request that must succeed."""
    status, value = request(server, method, path, body)
    assert status in (200, 201), (status, value)
    return value
