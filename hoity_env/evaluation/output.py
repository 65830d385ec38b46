"""Where ``hoity-eval --out`` writes: checked before any game is played, written atomically.

An evaluation can take hours, so a destination that cannot take its results
(an existing file, a folder without write permission, earlier results that
would be overwritten) is refused up front, not after the games.  The four
result files are first written under temporary names in the destination and
then renamed into place; if anything fails, whatever this call wrote (and the
folder, if it made it) is removed, so a failed write leaves no partial results.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from hoity_env.engine.errors import ConfigError
from hoity_env.files import temporary_beside

RESULT_FILES = ("result.json", "result.csv", "result.md", "result.png")


class _Writable(Protocol):
    def to_json(self) -> str: ...
    def to_csv(self) -> str: ...
    def to_markdown(self) -> str: ...
    def plot_png(self, path: str | Path) -> None: ...


def check_destination(out: Path) -> None:
    """Raise :class:`ConfigError` unless the results can be written to ``out`` without overwriting."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"cannot write results to {out}: it is a file, not a folder")
    if out.is_dir():
        taken = [name for name in RESULT_FILES if (out / name).exists()]
        if taken:
            raise ConfigError(
                f"cannot write results to {out}: it already holds {', '.join(taken)} "
                "(results never overwrite files): "
                "choose another folder or remove them"
            )
        if not os.access(out, os.W_OK | os.X_OK):
            raise ConfigError(f"cannot write results to {out}: the folder is not writable")
        return
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write results to {out}: it cannot be created, {parent} is not writable")


def write_results(result: _Writable, out: Path) -> list[Path]:
    """Write ``result.{json,csv,md,png}`` into ``out`` (created if needed), all or nothing."""
    check_destination(out)
    made = _make_folders(out)
    writers: list[Callable[[Path], object]] = [
        lambda p: p.write_text(result.to_json() + "\n", encoding="utf-8"),
        lambda p: p.write_text(result.to_csv(), encoding="utf-8"),
        lambda p: p.write_text(result.to_markdown(), encoding="utf-8"),
        result.plot_png,
    ]
    temporary: list[Path] = []
    final = [out / name for name in RESULT_FILES]
    placed: list[Path] = []
    try:
        for name, write in zip(RESULT_FILES, writers, strict=True):
            suffix = Path(name).suffix  # matplotlib picks the format from it
            tmp = temporary_beside(out / name, suffix)
            temporary.append(tmp)
            write(tmp)
        for tmp, path in zip(temporary, final, strict=True):
            os.replace(tmp, path)
            placed.append(path)
    except BaseException:
        for path in [*temporary, *placed]:
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return final


def _make_folders(out: Path) -> list[Path]:
    """Create ``out`` and its missing parents; return the ones this call created, outermost first."""
    missing = []
    folder = out
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    out.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))
