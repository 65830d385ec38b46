"""What ``hoity-learn`` and ``hoity-league`` share on the command line: resumes, sessions, endings.

Both commands train in a run folder, so they keep the same promises: ``--resume DIR`` continues with the
run's own settings (:func:`refuse_changes`; only the :data:`SESSION_FLAGS` may change), Ctrl-C, SIGTERM
and the time limit end with a checkpoint and the resume command (:func:`stopped`), and every failure is
one ``error:`` line (:func:`guarded`).  See docs/guarantees.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from hoity_env.cli.args import fail, non_negative_real, parse_and_log, positive
from hoity_env.engine.errors import ConfigError
from hoity_env.learning.runs import folder
from hoity_env.learning.runs.session import Aborted, Stop
from hoity_env.learning.update import DivergenceError
from hoity_env.threads import limit_blas

SESSION_FLAGS = ("time_limit_minutes", "workers", "blas_threads")
"""Flags a resume may change: how long this session trains, how many processes score it, how
many threads numpy's matrix products take (the settings hold none of them)."""

ALLOWED = "--time-limit-minutes, --workers, --blas-threads and the --eval-* flags"


def add_session_flags(p: argparse.ArgumentParser) -> None:
    """``--time-limit-minutes`` and ``--workers`` (see :data:`SESSION_FLAGS`; ``--blas-threads`` is
    :func:`hoity_env.cli.args.add_blas_threads`'s)."""
    p.add_argument(
        "--time-limit-minutes",
        type=non_negative_real,
        default=0.0,
        help="stop with a checkpoint after this many minutes of wall time; --resume continues (0: no limit)",
    )
    p.add_argument("--workers", type=positive, default=1, help="worker processes of the --eval-games games")


def session_of(args: argparse.Namespace) -> dict[str, Any]:
    """This session's :data:`SESSION_FLAGS` values (what a resume records)."""
    return {name: getattr(args, name) for name in SESSION_FLAGS}


def refuse_changes(changes: Iterable[tuple[str, Any, Any]], run: Path, record: str) -> None:
    """The run folder's resume rule (:func:`hoity_env.learning.runs.folder.refuse_changes`) with
    these commands' session flags."""
    folder.refuse_changes(changes, run, record, ALLOWED)


def check_out(given: set[str], out: Path, run: Path) -> None:
    """``--out`` beside ``--resume`` must name the run's own folder."""
    if "out" in given and out.resolve() != run.resolve():
        raise ConfigError(f"--out {out}: a resume continues in its own folder, {run}: leave --out out")


def announce(prog: str, run: Path, steps: int, total: int, session: dict[str, Any]) -> None:
    """The first lines of a resume: where it continues, and what this session sets."""
    print(f"{prog}: resuming {run} at {steps:,} of {total:,} learner steps with the run's own settings")
    for name, value in session.items():
        print(f"  this session: --{name.replace('_', '-')} {value}")


def stopped(prog: str, run: Path, stop: Stop, steps: int, total: int) -> int | None:
    """How a stopped run ends (the resume command, and its status); ``None`` if it was not stopped.

    A signal: status 130 (Ctrl-C) or 143 (SIGTERM), after the checkpoint, with no summary and no
    ``--eval-games`` scoring of the half-trained policy; the time limit: status 0.
    """
    again = f"continue with: {prog} --resume {run}"
    if stop.signum:
        where = f"signal {stop.signum} at {steps:,} of {total:,} learner steps"
        print(f"{prog}: stopped by {where} (checkpoint saved); {again}", file=sys.stderr)
        return 128 + stop.signum
    if stop.timed_out and steps < total:
        where = f"--time-limit-minutes at {steps:,} of {total:,} learner steps"
        print(f"{prog}: stopped by {where} (checkpoint saved); {again}", file=sys.stderr)
        return 0
    return None


Body = Callable[[argparse.ArgumentParser, argparse.Namespace, Sequence[str] | None, list[Path]], int]
"""A command's work: ``(parser, args, argv, where)`` → exit status; it appends its run folder to
``where`` once it is known (for the hints of :func:`guarded`)."""


def command(prog: str, parser: argparse.ArgumentParser, argv: Sequence[str] | None, body: Body) -> int:
    """Parse ``argv`` (usage errors and ``--help`` end here), then run ``body`` :func:`guarded`."""
    args = parse_and_log(parser, argv)
    if isinstance(args, int):
        return args
    where: list[Path] = []
    with limit_blas(args.blas_threads):  # the pool's members may be numpy networks
        return guarded(prog, lambda: body(parser, args, argv, where), lambda: where[-1] if where else None)


def guarded(prog: str, body: Callable[[], int], run: Callable[[], Path | None]) -> int:
    """``body()``'s status, with every way it can fail as one ``error:`` line (``run()``: the run
    folder, once known, for the resume hint).

    A mistake is status 2, before any folder exists; a failure while training (a full disk, a
    diverging update) is status 1, the last complete checkpoint intact; a second signal aborts
    at once, with no checkpoint and the signal's status.
    """
    try:
        return body()
    except DivergenceError as exc:
        return fail(prog, exc, 1)
    except ConfigError as exc:
        return fail(prog, exc, 2)
    except Aborted as exc:
        where = run()
        hint = f"; continue from its last complete checkpoint with: {prog} --resume {where}" if where else ""
        return fail(prog, f"aborted by a second signal (no checkpoint taken now){hint}", 128 + exc.signum)
    except KeyboardInterrupt:
        return fail(prog, "interrupted", 130)
    except OSError as exc:  # a full disk, a folder made read-only under a running run
        what = f"{exc.filename}: {exc.strerror}" if exc.filename else (exc.strerror or str(exc))
        where = run()
        then = f"; continue from its last complete checkpoint with: {prog} --resume {where}" if where else ""
        return fail(prog, f"cannot write ({what}): the run stopped{then}", 1)


__all__ = [
    "SESSION_FLAGS",
    "add_session_flags",
    "announce",
    "check_out",
    "command",
    "guarded",
    "refuse_changes",
    "session_of",
    "stopped",
]
