"""Atomic writes (write beside the target, then rename into place), fresh run folders, folder locks.

``tempfile.mkstemp`` creates its file readable by the owner only (mode 0600), and a
rename keeps that mode, so a result written this way would be private where a plain
``open(path, "w")`` gives the usual permissions.  :func:`temporary_beside` sets the
mode a normal ``open`` would (0666 less the process umask) before anything is written.

A temporary file is named ``.<name>.<random>.partial`` beside its target; a process
killed by SIGKILL mid-write leaves one behind, which :func:`remove_partials` clears
(the run folders do on resume, holding their lock, so no live writer owns one).

:func:`hold_lock` is the one-writer rule of every folder a long command writes
(``hoity-eval --out``, the ``hoity-learn`` and ``hoity-league`` run folders): an
exclusive ``flock`` on a lock file, which the operating system lets go when the
process ends, even by ``kill -9``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the lock file alone (created exclusively) is the lock
    fcntl = None  # type: ignore[assignment]

PARTIAL = ".partial"


def _default_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0666 less the umask."""
    mask = os.umask(0)  # reading the umask means setting it; put it back at once
    os.umask(mask)
    return 0o666 & ~mask


def temporary_beside(path: Path, suffix: str = PARTIAL) -> Path:
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


def remove_partials(folder: Path) -> list[Path]:
    """Delete the temporary files :func:`write_atomic` left anywhere under ``folder`` (a kill -9
    mid-write); call it only while no process writes there.  Returns what was removed."""
    removed = []
    for path in folder.rglob(f".*{PARTIAL}"):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    return removed


def create_first_file(base: Path, name: str, data: str | bytes) -> Path:
    """A fresh folder (``base``, else ``base_2``, … as :func:`fresh_folder`) claimed by creating its
    file ``name`` with ``data``, exclusively: two processes started together never share a folder.

    The file is written to a temporary name and hard-linked into place, which fails if the name
    exists (where a rename would replace it); the loser of a race moves on to the next name.
    """
    while True:
        folder = fresh_folder(base)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = temporary_beside(folder / name)
        try:
            tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
            os.link(tmp, folder / name)
        except FileExistsError:
            continue  # another process claimed this folder first: try the next free name
        finally:
            tmp.unlink(missing_ok=True)
        return folder


@contextlib.contextmanager
def hold_lock(path: Path, busy: Callable[[str], Exception]) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created; it holds our pid) until the block ends.

    Another process holding it: ``busy(its pid)`` is raised at once (the callers' ``ConfigError``:
    this module sits below the engine's errors).  The file
    is removed on the way out (while still held); a process that opened it just before is told
    apart by the file's inode and tries again, so two holders never coexist.
    """
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | (0 if fcntl else os.O_EXCL), 0o644)
        except FileExistsError:
            raise busy(_holder(path)) from None
        if fcntl is None:
            break
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise busy(_holder(path)) from None
        try:
            current = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            current = False
        if current:
            break
        os.close(fd)  # the previous holder removed the file after we opened it: take the new one
    try:
        with contextlib.suppress(OSError):  # the pid is for messages only (a full disk must not stop us)
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def _holder(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip() or "?"
    except OSError:
        return "?"


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


__all__ = [
    "PARTIAL",
    "create_first_file",
    "fresh_folder",
    "hold_lock",
    "remove_partials",
    "temporary_beside",
    "write_atomic",
    "write_atomically",
]
