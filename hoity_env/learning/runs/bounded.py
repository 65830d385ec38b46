"""A bounded JSON reader for the run folders' files: a regular file, a size limit, a depth limit.

Every JSON file of a run folder (``run.json``, ``settings.json``, ``league_settings.json``,
``checkpoints/league_<steps>.json``, a best response's records, a recipe's ``args.json``) is
read by one function of the module that owns its format, and each of those goes through
:func:`read_json`: the file must be a regular file (a FIFO would block, a folder is no
file) of at most ``max_bytes``, and the JSON at most :data:`MAX_DEPTH` arrays or objects
deep (checked before parsing: Python's parser recurses, and a deeply nested file ended in
``RecursionError``).  Anything else is one :class:`~hoity_env.engine.errors.ConfigError`
naming the file.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from hoity_env.engine.errors import ConfigError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "read_json", "read_json_text"]

MAX_BYTES = 64 * 1024 * 1024
"""The largest run-folder JSON file read (a league record grows with its events: 64 MiB is
decades of them)."""
MAX_DEPTH = 64
"""The deepest nesting of arrays and objects read (the package writes at most 6)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?')
_BRACKET = re.compile(r"[\[\]{}]")


def read_json(path: Path, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON value in ``path``; a missing, special, oversized, nested too deeply, truncated or
    otherwise unreadable file is a :class:`ConfigError` naming it."""
    text = read_json_text(path, max_bytes)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path} is damaged (truncated or edited?): {exc}") from None


def read_json_text(path: Path, max_bytes: int = MAX_BYTES) -> str:
    """The text of the JSON file ``path``, checked as :func:`read_json` checks it but not parsed
    (for a format whose own class parses it)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing") from None
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{path} is damaged (not a regular file)")
    if info.st_size > max_bytes:
        raise ConfigError(f"{path} is damaged ({info.st_size:,} bytes; at most {max_bytes:,} are read)")
    try:
        with open(path, "rb") as fh:
            text = fh.read(max_bytes + 1).decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is damaged (truncated or edited?): not UTF-8 text") from None
    depth = _depth(text)
    if depth > MAX_DEPTH:
        raise ConfigError(f"{path} is damaged (nested {depth} deep; at most {MAX_DEPTH} is read)")
    return text


def _depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in JSON ``text``, its strings left out."""
    deepest = depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest
