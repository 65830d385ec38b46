"""Temporary files for atomic writes: write beside the target, then rename into place.

``tempfile.mkstemp`` creates its file readable by the owner only (mode 0600), and a
rename keeps that mode, so a result written this way would be private where a plain
``open(path, "w")`` gives the usual permissions.  :func:`temporary_beside` sets the
mode a normal ``open`` would (0666 less the process umask) before anything is written.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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


def write_atomically(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file and a rename.

    A reader sees the old file or the whole new one, never a half-written file;
    on any failure the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    tmp = temporary_beside(path)
    try:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


__all__ = ["temporary_beside", "write_atomically"]
