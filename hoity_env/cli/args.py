"""What the command lines (``hoity-eval``, ``hoity-play``, ``hoity-replay``) share.

Argument types that turn a bad value into argparse's one-line usage error (exit
status 2), the warning every command that loads checkpoints carries, parsing
into an exit status instead of ``SystemExit``, and ``--blas-threads`` (every command
that plays numpy policies runs under it: :mod:`hoity_env.threads`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import FrameType
from typing import Any

from hoity_env.threads import DEFAULT_BLAS_THREADS

__all__ = [
    "CHECKPOINT_WARNING",
    "Terminated",
    "add_blas_threads",
    "add_rules",
    "add_settings_flags",
    "fail",
    "given_dests",
    "non_negative",
    "non_negative_real",
    "parse",
    "parse_and_log",
    "positive",
    "sigterm_raises",
    "specs",
]

CHECKPOINT_WARNING = (
    "ppo:PATH and ppo-sample:PATH load a MaskablePPO checkpoint (.zip), rllib:PATH a saved RLlib "
    "module: both are pickles that can run code when loaded, so load only files you trust"
)


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | int:
    """The parsed arguments, or the exit status of ``--help`` (0) or a usage error (2, already printed)."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2


def parse_and_log(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | int:
    """:func:`parse`, then the library's INFO messages on stderr (the training commands' progress)."""
    args = parse(parser, argv)
    if not isinstance(args, int):
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    return args


def given_dests(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> set[str]:
    """The destinations of the flags ``argv`` gives (not those left at their defaults).

    Parses ``argv`` again with every default suppressed (argparse then sets only what is
    given): how ``--resume`` tells a flag the user typed from one that kept its default.
    """
    saved = {action: action.default for action in parser._actions}
    defaults = dict(parser._defaults)
    try:
        for action in parser._actions:
            action.default = argparse.SUPPRESS
        parser._defaults.clear()
        return set(vars(parser.parse_args(argv)))
    finally:
        for action, default in saved.items():
            action.default = default
        parser._defaults.update(defaults)


def non_negative_real(text: str) -> float:
    """A finite number >= 0 (minutes, seconds)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def specs(text: str) -> list[str]:
    """Comma-separated agent specs; empty items are an error, not silently dropped."""
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise argparse.ArgumentTypeError(f"expected comma-separated agent specs, got {text!r}")
    return items


def _integer(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def positive(text: str) -> int:
    """An integer >= 1."""
    return _integer(text, 1, "a positive integer")


def non_negative(text: str) -> int:
    """An integer >= 0 (a seed, a count that may be zero)."""
    return _integer(text, 0, "an integer >= 0")


def add_rules(p: argparse.ArgumentParser, choices: Sequence[str], what: str = "") -> None:
    """``--rules``: one of ``choices`` (the presets a command plays), ``standard`` by default."""
    p.add_argument(
        "--rules",
        default="standard",
        choices=choices,
        help=f"rules preset{what}: {' | '.join(choices)} (default standard)",
    )


def add_blas_threads(p: argparse.ArgumentParser) -> None:
    """``--blas-threads N``: numpy's BLAS threads for the whole command (:mod:`hoity_env.threads`)."""
    p.add_argument(
        "--blas-threads",
        type=positive,
        default=DEFAULT_BLAS_THREADS,
        metavar="N",
        help="threads of numpy's matrix products (the named agents' and populations' networks), here "
        f"and in each worker; more only contend for cores on a busy machine (default {DEFAULT_BLAS_THREADS})",
    )


def fail(prog: str, message: object, status: int = 2, kind: str = "error") -> int:
    """Print ``PROG: error: MESSAGE`` (one line, on stderr) and return the exit status."""
    print(f"{prog}: {kind}: {message}", file=sys.stderr)
    return status


def add_settings_flags(
    p: argparse.ArgumentParser | Any,
    flags: Mapping[str, tuple[str, Callable[[str], Any], str]],
    defaults: object,
    prefix: str = "",
) -> None:
    """One flag per settings field: ``flags[field] = (flag, type, help)``, its default the field's
    in ``defaults``; the value lands in ``args.<prefix><field>`` (how ``hoity-learn`` and
    ``hoity-league`` turn a settings dataclass into flags without a keyword ladder)."""
    for name, (flag, kind, text) in flags.items():
        p.add_argument(
            flag, dest=prefix + name, type=kind, default=getattr(defaults, name), help=f"{text} (%(default)s)"
        )


class Terminated(BaseException):
    """SIGTERM arrived: unwind, so that locks and scratch files are cleaned up on the way (not an
    ``Exception``: no ``except Exception`` on the way may take it for a failure of its own)."""


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` while the block runs (the main thread only); the
    previous handler comes back after."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Terminated

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
