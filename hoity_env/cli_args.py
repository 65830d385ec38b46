"""What the small command lines (``hoity-play``, ``hoity-replay``) share: parsing into an exit status."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

__all__ = ["parse"]


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | int:
    """The parsed arguments, or the exit status of ``--help`` (0) or a usage error (2, already printed)."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
