"""``hoity-eval``: the evaluation harness and the strength measurements on the command line.

This module picks the command (``evaluate``, the default, ``tournament`` and ``h2h``:
:mod:`hoity_env.cli.evaluate`; ``exploit`` and ``ladder``, which train: :mod:`hoity_env.cli.strength`;
``meta``: :mod:`hoity_env.cli.meta`), configures logging, takes the ``--out`` folder before anything is
played, runs the command under ``--blas-threads`` and writes the results, so every command shares one
set of output and failure rules.  See docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import shlex
import signal
import sys
import time
from collections.abc import Sequence

from hoity_env.cli import evaluate as match_cli
from hoity_env.cli import meta as meta_cli
from hoity_env.cli import strength as strength_cli
from hoity_env.cli.args import Terminated, add_blas_threads, fail, parse, sigterm_raises
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.replays import save_replays
from hoity_env.evaluation.reports.output import claim, write_results
from hoity_env.evaluation.reports.results import EvaluationResult
from hoity_env.evaluation.workers import WorkerDied
from hoity_env.strength.jobs import Interrupted
from hoity_env.threads import limit_blas

__all__ = ["PROG", "build_parser", "configure_logging", "main"]

PROG = "hoity-eval"
COMMANDS = (*match_cli.COMMANDS, *strength_cli.COMMANDS, meta_cli.COMMAND)
logger = logging.getLogger("hoity_env.cli.eval")


def build_parser(command: str) -> argparse.ArgumentParser:
    """The parser of one command (``evaluate`` is the default command), with ``-q`` and ``-v``."""
    if command in strength_cli.COMMANDS:
        p = strength_cli.build_parser(PROG, command)
    elif command == meta_cli.COMMAND:
        p = meta_cli.build_parser(PROG)
    else:
        p = match_cli.build_parser(PROG, command)
    loudness = p.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q", "--quiet", action="store_true", help="only warnings and errors on stderr (no progress bars)"
    )
    loudness.add_argument("-v", "--verbose", action="store_true", help="debug messages on stderr too")
    add_blas_threads(p)
    return p


def configure_logging(quiet: bool, verbose: bool) -> logging.Handler:
    """One stderr handler on the ``hoity_env`` logger at the level the flags ask for; returns it."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger("hoity_env")
    root.addHandler(handler)
    root.setLevel(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    root.propagate = False  # our messages once, on our handler, not again through the root logger's
    return handler


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``hoity-eval``; returns the exit status.

    0; 2 for a usage mistake, a bad agent name or checkpoint (one ``hoity-eval: error:`` line, no
    traceback); 1 when a worker dies; 130 for Ctrl-C and 143 for SIGTERM (the ``--out`` lock is
    removed either way; a stopped ``exploit`` or ``ladder`` prints the command that continues it).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv.pop(0) if argv and argv[0] in COMMANDS else "evaluate"
    parser = build_parser(command)
    args = parse(parser, argv)
    if isinstance(args, int):
        return args
    if args.quiet:
        args.no_progress = True
    root = logging.getLogger("hoity_env")
    saved = root.level, root.propagate
    handler = configure_logging(args.quiet, args.verbose)
    try:
        with sigterm_raises():
            if command == meta_cli.COMMAND:  # its own run folder, resumable: not the --out of the others
                return meta_cli.run(PROG, args, argv)
            return _run(parser.prog, command, args, argv)
    except Terminated:
        print(f"{parser.prog}: terminated (SIGTERM)", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:  # leave the logging of a caller (a test, a notebook) as it was
        root.removeHandler(handler)
        root.setLevel(saved[0])
        root.propagate = saved[1]


def _resume_command(prog: str, command: str, argv: Sequence[str]) -> str:
    """The command that continues an interrupted ``exploit`` (with ``--resume``) or ``ladder``."""
    extra = ["--resume"] if command == "exploit" and "--resume" not in argv else []
    return shlex.join([*prog.split(), *argv, *extra])


def _run(prog: str, command: str, args: argparse.Namespace, argv: Sequence[str]) -> int:
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        try:
            if getattr(args, "save_replays", None) is not None and args.out is None:
                raise ConfigError("--save-replays needs --out (the replays go to OUT/replays/)")
            if args.out is not None:  # before the games: a bad or busy destination must not cost them
                stack.enter_context(claim(args.out))
            run = strength_cli.run if command in strength_cli.COMMANDS else match_cli.run
            with limit_blas(args.blas_threads):
                result = run(command, args)
        except ConfigError as exc:
            return fail(prog, exc)
        except WorkerDied as exc:
            return fail(prog, exc, 1)
        except Interrupted as exc:
            print(f"{prog}: interrupted: {exc}", file=sys.stderr)
            print(f"continue with: {_resume_command(prog, command, argv)}", file=sys.stderr)
            return 128 + exc.signum
        except KeyboardInterrupt:
            print(f"{prog}: interrupted", file=sys.stderr)
            return 130
        elapsed = time.perf_counter() - start
        print(result.to_markdown())
        if args.out is not None:
            try:
                paths = write_results(result, args.out)
                if isinstance(result, EvaluationResult) and args.save_replays is not None:
                    paths += save_replays(
                        result.agents,
                        num_players=result.num_players,
                        rules=args.rules,
                        seed=args.seed,
                        count=args.save_replays,
                        folder=args.out / "replays",
                    )
            except ConfigError as exc:  # the destination changed while the games were played
                return fail(prog, exc)
            except OSError as exc:
                return fail(prog, f"cannot write results to {args.out}: {exc}")
            for path in paths:
                logger.info("wrote %s", path)
    if isinstance(result, EvaluationResult) or command not in strength_cli.COMMANDS:
        rate = result.games / max(elapsed, 1e-9)
        logger.info("%d games in %.1fs (%.0f games/s)", result.games, elapsed, rate)
    else:  # training and games: say which took what
        logger.info("%s", strength_cli.timing(result, elapsed))  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
