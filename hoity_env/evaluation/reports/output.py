"""Where ``hoity-eval --out`` writes: taken before any game is played, written atomically.

An evaluation can take hours, so a destination that cannot take its results is refused up front, and
:func:`claim` locks it for the run, so a second run with the same ``--out`` is refused before it plays
anything.  :func:`write_results` writes all result files or none.  See docs/evaluation.md.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.reports.plots import PLOTS_INSTALL, can_plot
from hoity_env.files import hold_lock, temporary_beside

__all__ = ["LOCK_FILE", "RESULT_FILES", "check_destination", "claim", "write_results"]

RESULT_FILES = ("result.json", "result.csv", "result.md", "result.png")
LOCK_FILE = ".hoity-eval.lock"
logger = logging.getLogger(__name__)


class _Writable(Protocol):
    def to_json(self) -> str: ...
    def to_csv(self) -> str: ...
    def to_markdown(self) -> str: ...
    def plot_png(self, path: str | Path) -> None: ...


def check_destination(out: Path) -> None:
    """Raise :class:`ConfigError` unless the results can be written to ``out`` without overwriting.

    Refused: a file, a folder that is not writable or cannot be created, one holding earlier results.
    """
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


@contextlib.contextmanager
def claim(out: Path) -> Iterator[None]:
    """Take ``out`` for this run (checked, created, locked); on the way out let it go.

    The lock is ``.hoity-eval.lock``, held with ``flock`` until the run ends (the operating
    system lets it go even after a ``kill -9``).  A :class:`ConfigError` if it cannot take the
    results or another run holds it.  Folders made here are removed again if the run leaves
    nothing in them.
    """
    check_destination(out)
    try:  # a folder the checks cannot foresee (under /proc, a read-only mount) fails here
        made = _make_folders(out)
    except OSError as exc:
        raise ConfigError(f"cannot write results to {out}: {exc.strerror or exc}") from None
    try:
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(hold_lock(out / LOCK_FILE, lambda pid: _taken(out, pid)))
            except OSError as exc:
                raise ConfigError(f"cannot write results to {out}: {exc.strerror or exc}") from None
            yield
    finally:
        _remove_empty(made)


def _taken(out: Path, pid: str) -> ConfigError:
    return ConfigError(
        f"cannot write results to {out}: another hoity-eval run (pid {pid}) is writing there; "
        "wait for it or choose another folder"
    )


def _remove_empty(made: list[Path]) -> None:
    """Remove the folders this run made, innermost first, where nothing was left in them."""
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def write_results(result: _Writable, out: Path) -> list[Path]:
    """Write ``result.{json,csv,md,png}`` into ``out`` (created if needed), all or nothing; the paths.

    The files are written under temporary names in ``out``, then renamed into place; if anything
    fails, what this call wrote (and the folders it made) is removed.  Without matplotlib (the
    ``plots`` extra) there is no ``result.png``: one warning says how to get it.
    """
    check_destination(out)
    made = _make_folders(out)
    writers: list[Callable[[Path], object]] = [
        lambda p: p.write_text(result.to_json() + "\n", encoding="utf-8"),
        lambda p: p.write_text(result.to_csv(), encoding="utf-8"),
        lambda p: p.write_text(result.to_markdown(), encoding="utf-8"),
        result.plot_png,
    ]
    names = list(RESULT_FILES)
    if not can_plot():  # result.png is the last one
        logger.warning("no result.png: charts need matplotlib (%s)", PLOTS_INSTALL)
        names, writers = names[:-1], writers[:-1]
    temporary: list[Path] = []
    final = [out / name for name in names]
    placed: list[Path] = []
    try:
        for name, write in zip(names, writers, strict=True):
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
        _remove_empty(made)
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
