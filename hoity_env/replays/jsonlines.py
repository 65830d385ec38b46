"""Strict, bounded reading of JSON lines from a file nobody vouches for.

A replay may come from anywhere (a colleague, a bug report, a fuzzer), so the reader assumes nothing:
it reads one line at a time, at most :data:`MAX_LINE_BYTES` of it, refuses JSON this package never
writes (``NaN``, a key named twice, which would hide an edit), and turns whatever Python's ``json``
raises on hostile input into one :class:`~hoity_env.replays.errors.ReplayError` naming the line.
See docs/replays.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hoity_env.engine.errors import FileFormatError
from hoity_env.files import open_file
from hoity_env.replays.errors import ReplayError

__all__ = ["MAX_LINE_BYTES", "json_lines", "parse_line"]

MAX_LINE_BYTES = 1 << 20
"""Longest line read (1 MiB): far above any line this package writes, far below a memory problem."""
MAX_FILE_BYTES = 1 << 40
"""No bound in practice: the file is streamed; only its kind is checked before it is opened."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"key {key!r} appears twice in one object")
        seen.add(key)
    return dict(pairs)


_DECODER = json.JSONDecoder(parse_constant=_no_constant, object_pairs_hook=_unique_keys)


def parse_line(text: str, where: str) -> Any:
    """One line's JSON value; anything that is not plain, finite JSON raises :class:`ReplayError`.

    Refused too, as one error naming the line: nesting deeper than the decoder recurses and integers
    of more digits than ``sys.get_int_max_str_digits()``.
    """
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ReplayError(f"{where}: JSON nested too deeply to be a replay line") from None
    except ValueError as exc:  # a huge integer, NaN/Infinity, a repeated key
        raise ReplayError(f"{where}: not a replay line: {exc}") from None


def json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of ``path``, read and parsed one at a time.

    A line over :data:`MAX_LINE_BYTES`, text that is not UTF-8 or a file that cannot be read raises
    one :class:`ReplayError` naming the line (or the file).
    """
    try:  # a FIFO or a device is refused before it is opened (opening a FIFO would block)
        handle = open_file(path, f"cannot read {path}", max_bytes=MAX_FILE_BYTES)
    except FileFormatError as exc:
        raise ReplayError(str(exc)) from None
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise ReplayError(f"cannot read {path}: {exc}") from exc
            if not raw:
                return
            number += 1
            where = f"{path}:{number}"
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise ReplayError(f"{where}: line longer than {MAX_LINE_BYTES} bytes, not a replay line")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ReplayError(f"{where}: not UTF-8 text ({exc.reason})") from None
            if text.strip():
                yield number, parse_line(text, where)
