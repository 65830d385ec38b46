"""``hoity-serve``: play Hoity Toity in the browser against agents, with hints, and browse the replays.

A page can only pick among the ``--agents`` specs, so no request names a file, and the server listens on
127.0.0.1 unless ``--host`` says otherwise (with a warning).  Ctrl-C, SIGTERM and SIGHUP all stop it the
same way: the open games are saved (reason ``quit``; exit status 1 if one could not be), and signals
that arrive while it saves are ignored, so a second Ctrl-C cannot cut a save short.  See docs/serve.md.
"""

from __future__ import annotations

import argparse
import logging
import re
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any

from hoity_env.agents import SPEC_FORMS, make
from hoity_env.agents.policies.registry import DEFAULT_TABLE
from hoity_env.cli.args import CHECKPOINT_WARNING, add_blas_threads, fail, parse, specs
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.serve.server import make_server
from hoity_env.serve.settings import DEFAULT_AGENTS, MIN_IDLE_TIMEOUT_S, ServeSettings
from hoity_env.threads import limit_blas

__all__ = ["STOP_SIGNALS", "build_parser", "main", "port", "sweep_period", "wait_until_serving"]

PROG = "hoity-serve"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop the server cleanly (SIGHUP where the platform has it)."""
logger = logging.getLogger(__name__)


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``hoity-serve``."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Play Hoity Toity in the browser against agents, see an agent's hint for your move, "
        "and browse the saved games.",
        epilog=f"agents: {SPEC_FORMS}. {CHECKPOINT_WARNING}.",
    )
    p.add_argument(
        "--agents",
        type=specs,
        default=list(DEFAULT_AGENTS),
        metavar="SPECS",
        help="comma-separated agent specs a page may choose as opponents or hint givers "
        f"(default {','.join(DEFAULT_AGENTS)})",
    )
    p.add_argument("--port", type=port, default=8000, help="port to listen on, 0 = any free (default 8000)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1, this machine only); another one logs a warning",
    )
    p.add_argument(
        "--replays",
        type=Path,
        default=Path("replays"),
        metavar="DIR",
        help="folder of saved games (default ./replays)",
    )
    p.add_argument(
        "--ladder", type=Path, default=None, metavar="FILE", help="a ladder report to serve at /ladder"
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="drop (and save) a game idle this long, at least 1 (default 3600)",
    )
    add_blas_threads(p)
    return p


def wait_until_serving(stderr: IO[str]) -> str:
    """The address a ``hoity-serve`` started as a subprocess serves at, read from its stderr.

    Reads lines until the ``serving http://…/`` line :func:`main` writes once the
    server listens (with ``--port 0`` the port is only known then); a process that
    exits first is an error.
    """
    line = ""
    while "serving" not in line:
        line = stderr.readline()
        if not line:
            raise RuntimeError(f"{PROG} exited before serving")
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if found is None:
        raise RuntimeError(f"no loopback address in {PROG}'s line {line!r}")
    return found.group(0)


def sweep_period(idle_timeout_s: float) -> float:
    """How often the sweeper looks for idle games: the timeout, but once a second at most and once a
    minute at least (requests sweep too), so no timeout makes it spin."""
    return min(60.0, max(MIN_IDLE_TIMEOUT_S, idle_timeout_s))


def _sweeper(server: Any, every: float, stop: threading.Event) -> None:
    while not stop.wait(every):
        server.table.sweep()


class Stopped(Exception):
    """A stop signal arrived (raised by its handler inside ``serve_forever``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


def _handle(signals: Sequence[int], handler: Any) -> dict[int, Any]:
    """Install ``handler`` for ``signals``; the previous handlers (none off the main thread)."""
    try:
        return {sig: signal.signal(sig, handler) for sig in signals}
    except ValueError:  # not the main thread: signals stay as they are
        return {}


def _serve(server: Any, settings: ServeSettings) -> int:
    """Serve until a stop signal, then save the open games; the exit status."""
    stop = threading.Event()
    sweeper = threading.Thread(
        target=_sweeper, args=(server, sweep_period(settings.idle_timeout_s), stop), daemon=True
    )
    sweeper.start()
    previous = _handle(STOP_SIGNALS, _stop)
    why = "stopped"
    try:  # "serving" is announced once the signals are handled: a stop from then on saves the games
        print(
            f"{PROG}: serving {server.url} (replays in {settings.replays}); Ctrl-C stops",
            file=sys.stderr,
            flush=True,
        )
        server.serve_forever()
    except Stopped as exc:
        why = f"stopped by {signal.Signals(exc.signum).name}"
    except KeyboardInterrupt:
        why = "stopped by SIGINT"
    finally:
        _handle(STOP_SIGNALS, signal.SIG_IGN)  # saving the games is not to be cut short
        try:
            stop.set()
            server.server_close()
            open_games = len(server.table)
            unsaved = server.table.close()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    saved = open_games - len(unsaved)
    print(f"{PROG}: {why}; {saved} open game(s) saved in {settings.replays}", file=sys.stderr)
    if unsaved:
        return fail(PROG, f"{len(unsaved)} open game(s) could not be saved: {', '.join(unsaved)}", 1)
    return 0


def check_offered(spec: str) -> None:
    """Make ``spec`` at the default table, else at the first of the others where it plays.

    An agent registered only at other tables (a 3-player champion) is offered: a game at a
    table it does not play gets its error in words when the game is made.  One that plays
    nowhere raises the default table's :class:`ConfigError`.
    """
    tables = [(rules, n) for rules in PRESETS for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
    first: ConfigError | None = None
    for rules, n in sorted(tables, key=lambda t: t != DEFAULT_TABLE):
        try:
            make(spec, num_players=n, rules=rules)
            return
        except ConfigError as exc:
            first = first or exc
    assert first is not None
    raise first


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; serves until Ctrl-C, SIGTERM or SIGHUP, then saves the open games; the exit status."""
    args = parse(build_parser(), argv)
    if isinstance(args, int):
        return args
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        if args.ladder is not None and not args.ladder.is_file():
            raise ConfigError(f"--ladder {args.ladder}: no such file")
        if args.replays.exists() and not args.replays.is_dir():
            raise ConfigError(f"--replays {args.replays} is not a folder")
        settings = ServeSettings(
            agents=tuple(dict.fromkeys(args.agents)),
            replays=args.replays,
            idle_timeout_s=args.idle_timeout,
            ladder=args.ladder,
        )
        for spec in settings.agents:  # a misspelt name or a missing checkpoint fails now, not mid-game
            check_offered(spec)
        server = make_server(settings, args.host, args.port)
    except (ConfigError, OSError) as exc:
        return fail(PROG, exc)
    if args.host not in LOOPBACK:
        logger.warning(
            "listening on %s, not only here: anyone who reaches it can play and write replays into %s",
            args.host,
            settings.replays,
        )
    with limit_blas(args.blas_threads):  # process-wide: the handler threads' agents play under it
        return _serve(server, settings)


if __name__ == "__main__":
    sys.exit(main())
