"""Atomic writes (write beside the target, then rename into place) and fresh run folders.

``tempfile.mkstemp`` creates its file readable by the owner only (mode 0600), and a
rename keeps that mode, so a result written this way would be private where a plain
``open(path, "w")`` gives the usual permissions.  :func:`temporary_beside` sets the
mode a normal ``open`` would (0666 less the process umask) before anything is written.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def _default_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0666 less the umask."""
    mask = os.umask(0)  # reading the umask means setting it; put it back at once
    os.umask(mask)
    return 0o666 & ~mask


def temporary_beside(path: Path, suffix: str = ".partial") -> Path:
    """A fresh, empty, hidden file in ``path``'s folder (so the final rename is atomic)."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    try:
        os.fchmod(fd, _default_mode())
    finally:
        os.close(fd)
    return Path(name)


def write_atomic(path: Path, write: Callable[[Any], object], *, binary: bool = False) -> None:
    """Call ``write(file)`` on a temporary file, flush it to disk, then rename it to ``path``:
    a kill mid-write leaves the old file (or none), never half of one."""
    tmp = temporary_beside(path)
    try:
        handle: IO[Any] = tmp.open("wb") if binary else tmp.open("w", encoding="utf-8")
        with handle as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def fresh_folder(base: Path) -> Path:
    """``base`` if it is missing or empty, else the first free ``base_2``, ``base_3``, …

    A new run never writes into an earlier run's folder: its files would mix with
    the old ones (a curve appended to another, a snapshot chosen among another's).
    """
    folder, k = base, 1
    while folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        k += 1
        folder = base.with_name(f"{base.name}_{k}")
    return folder


def write_atomically(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` as :func:`write_atomic` does; returns ``path``."""
    path = Path(path)
    write_atomic(path, lambda fh: fh.write(data), binary=isinstance(data, bytes))
    return path


__all__ = ["fresh_folder", "temporary_beside", "write_atomic", "write_atomically"]
