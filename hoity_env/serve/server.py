"""The HTTP side of ``hoity-serve``: routes, request checks and JSON answers.

Built on :mod:`http.server` (``ThreadingHTTPServer``), so ``hoity-serve`` needs no dependency; the module
never parses HTTP by hand.  Every request is checked before anything happens, and each refusal is
``{"error": message}`` with a 4xx status that changes nothing; a client that stalls or goes away costs
a log line, not a thread or a traceback.  See docs/serve.md (Safety, Why the standard library).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from hoity_env.replays.html import viewer_policy
from hoity_env.serve.games import GameTable
from hoity_env.serve.page import PAGE_POLICY, STATIC, static_file
from hoity_env.serve.replay_list import replays_page
from hoity_env.serve.settings import (
    BadRequest,
    ForeignHost,
    NotFound,
    RequestError,
    ServeSettings,
    TooLarge,
)

__all__ = ["ServeServer", "make_server"]

logger = logging.getLogger(__name__)
DIGITS = re.compile(r"[0-9]+", re.ASCII)
GAME = re.compile(r"/api/games/([0-9a-f]{16})(/action|/hint|/leave)?")
REPLAY = re.compile(r"/replays/([^/]+)")


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
"""The host names a browser on this machine can send when the server is bound to loopback."""


class ServeServer(ThreadingHTTPServer):
    """A threading HTTP server that holds one :class:`GameTable`.

    Its listen queue is long (the standard library's is 5): connections that arrive
    together wait to be accepted instead of being reset, so a burst of requests all
    get answers (``429`` once the table is full).
    """

    daemon_threads = True
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], table: GameTable) -> None:
        super().__init__(address, Handler)
        self.table = table
        settings = table.settings
        self.ladder: bytes | None = settings.ladder.read_bytes() if settings.ladder is not None else None

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed outside the handler's own answers: one log line, not a traceback on
        stderr for a client that went away; a traceback in the log for anything else (a bug)."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            logger.info("%s: connection ended: %s", client_address[0], error)
        else:
            logger.exception("%s: the request failed", client_address[0])

    @property
    def url(self) -> str:
        """The address the page is served at."""
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        return f"http://{name}:{port}/"


def make_server(
    settings: ServeSettings, host: str = "127.0.0.1", port: int = 8000, **table: Any
) -> ServeServer:
    """A server for ``settings`` on ``host:port`` (port 0: any free one); ``table``: GameTable keywords."""
    return ServeServer((host, port), GameTable(settings, **table))


class Handler(BaseHTTPRequestHandler):
    """One request: route it, check it, answer JSON or a page.

    Unknown paths get 404 and methods 405; a body must be declared JSON (so a cross-site form post
    needs a CORS preflight this server never grants), at most ``max_body_bytes`` long (413, unread;
    ``Content-Length`` read as plain ASCII digits) and a JSON object, nested no deeper than the
    decoder recurses; then :mod:`hoity_env.serve.games` checks the fields.
    """

    server: ServeServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        """Time out reads (and writes) on this connection: a stalled client does not keep its thread."""
        super().setup()
        self.connection.settimeout(self.server.table.settings.read_timeout_s)

    def log_message(self, format: str, *args: Any) -> None:
        logger.info("%s %s", self.address_string(), format % args)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own refusals (a bad request line, headers too long, an unknown
        method) as JSON too, ``{"error": message}``, like every other refusal."""
        self.log_error("code %d, message %s", code, message)
        self.close_connection = True
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = f"status {code}"
        self._json(code, {"error": (message or phrase)[:200]})

    # ------------------------------------------------------------ answers
    def _send(self, status: int, body: bytes, kind: str, policy: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        if policy:
            self.send_header("Content-Security-Policy", policy)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value, separators=(",", ":")).encode(), "application/json")

    def _html(self, text: str, policy: str = PAGE_POLICY) -> None:
        self._send(200, text.encode(), "text/html; charset=utf-8", policy)

    def _body(self) -> dict[str, Any]:
        length = (self.headers.get("Content-Length") or "").strip()
        limit = self.server.table.settings.max_body_bytes
        if not DIGITS.fullmatch(length):  # ASCII digits only: str.isdigit takes "²", which int() refuses
            self.close_connection = True
            raise BadRequest("a POST needs a Content-Length header giving the body's size in bytes")
        digits = length.lstrip("0") or "0"
        if len(digits) > len(str(limit)) or int(digits) > limit:  # int() of 5,000 digits would raise
            self.close_connection = True  # the body is never read
            shown = digits if len(digits) <= 12 else f"a {len(digits)}-digit number of"
            raise TooLarge(f"the body is {shown} bytes; at most {limit} are accepted")
        raw = self.rfile.read(int(digits))
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise BadRequest(
                f"the body must be sent as Content-Type: application/json, got {kind[:40] or 'none'!r}"
            )
        try:
            value = json.loads(raw.decode("utf-8")) if raw.strip() else {}
        except (UnicodeDecodeError, ValueError) as exc:
            raise BadRequest(f"the body is not JSON: {exc}") from None
        except RecursionError:  # 16 KiB of brackets nest deeper than the JSON decoder recurses
            raise BadRequest("the body is not JSON this server reads: it nests too deep") from None
        if not isinstance(value, dict):
            raise BadRequest(f"the body must be a JSON object, got {type(value).__name__}")
        return value

    def _check_host(self) -> None:
        """On a loopback bind, only requests that name a loopback host are served.

        A web page elsewhere can make its own host name resolve to 127.0.0.1 (DNS
        rebinding) and then script requests to this server as same-origin; its requests
        still carry that other name in ``Host``. A server bound to another address
        (``--host``, an explicit choice) serves whatever name reaches it."""
        bound = self.server.server_address[0]
        if bound not in ("127.0.0.1", "::1"):
            return
        host = self.headers.get("Host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name.lower() not in LOOPBACK_NAMES:
            raise ForeignHost(f"this server answers requests to 127.0.0.1 or localhost, not {host[:80]!r}")

    def _run(self, method: str) -> None:
        try:
            self._check_host()
            self.server.table.sweep()
            self._route(method, self.path.split("?", 1)[0])
        except RequestError as exc:
            self.close_connection = True  # a refused request's body may be unread
            self._json(exc.status, {"error": str(exc)})
        except (ConnectionError, TimeoutError):  # the client went away or stalled: nobody to answer
            raise
        except Exception:  # a bug: the client still gets JSON, the log gets the traceback
            logger.exception("%s %s failed", method, self.path[:80])
            self.close_connection = True
            self._json(500, {"error": "the server failed on this request; its log says why"})

    def do_GET(self) -> None:
        """Pages, views and the replays."""
        self._run("GET")

    def do_POST(self) -> None:
        """New games, actions, hints, leaving."""
        self._run("POST")

    def _refuse(self) -> None:
        self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{self.command} is not served; use GET or POST"})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    # ------------------------------------------------------------- routes
    def _route(self, method: str, path: str) -> None:
        table = self.server.table
        game = GAME.fullmatch(path)
        replay = REPLAY.fullmatch(path)
        static = path.removeprefix("/static/")  # a name of STATIC, or anything else: 404
        if method == "GET" and path == "/":
            self._html(static_file("play.html"))
        elif method == "GET" and static in STATIC:
            self._send(200, static_file(static).encode(), STATIC[static])
        elif method == "GET" and path == "/favicon.ico":  # asked by the browser itself: no icon, no error
            self.send_response(HTTPStatus.NO_CONTENT)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif method == "GET" and path == "/rules":
            self._html(static_file("rules.html"))
        elif method == "GET" and path == "/api/setup":
            self._json(200, self._setup())
        elif method == "POST" and path == "/api/games":
            created = table.create(self._body())
            with created.lock:
                self._json(201, created.view())
        elif game is not None:
            self._game(method, game.group(1), game.group(2) or "")
        elif method == "GET" and path == "/api/replays":
            self._json(200, {"replays": table.replays.names()})
        elif method == "GET" and path == "/replays":
            self._html(replays_page(table.replays.rows(), self.server.ladder is not None))
        elif method == "GET" and replay is not None:
            self._html(table.replays.viewer(replay.group(1)), viewer_policy())  # one file: inline parts
        elif method == "GET" and path == "/ladder" and self.server.ladder is not None:
            self._send(200, self.server.ladder, "text/plain; charset=utf-8")
        else:
            raise NotFound(f"nothing at {method} {path[:80]!r}")

    def _game(self, method: str, game_id: str, action: str) -> None:
        table = self.server.table
        if (method, action) == ("GET", ""):
            self._json(200, table.view(game_id))
            return
        if method != "POST" or not action:
            raise NotFound(f"nothing at {method} {self.path[:80]!r}")
        body = self._body()
        if action == "/leave":
            self._json(200, {"replay": table.leave(game_id)})
        elif action == "/hint":
            self._json(200, table.hint(game_id, body))
        else:
            self._json(200, table.act(game_id, body))

    def _setup(self) -> dict[str, Any]:
        settings = self.server.table.settings
        return {
            "agents": list(settings.agents),
            "rules": sorted(PRESETS),
            "players": [MIN_PLAYERS, MAX_PLAYERS],
            "ladder": self.server.ladder is not None,
        }
