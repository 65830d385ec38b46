"""The files the package writes and reads: atomic writes, fresh run folders, folder locks, validating readers.

Results are written under a temporary name and renamed whole (:func:`write_atomic`,
:func:`folder_atomically`), so a kill never leaves half a file, and :func:`hold_lock` keeps one writer per
folder.  Every file read may be truncated, edited or hostile, so each format has one validating reader
built on the checks here (:func:`check_file`, :func:`read_json`, :class:`JsonObject`, :func:`read_npz`):
a damaged file is one :class:`~hoity_env.engine.errors.FileFormatError` naming the file and the field,
never a traceback, a hang or a huge allocation.  See docs/guarantees.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import shutil
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, NoReturn

import numpy as np

from hoity_env.engine.errors import FileFormatError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the lock file alone (created exclusively) is the lock
    fcntl = None  # type: ignore[assignment]

PARTIAL = ".partial"


def _umask() -> int:
    mask = os.umask(0)  # reading the umask means setting it; put it back at once
    os.umask(mask)
    return mask


def _default_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0666 less the umask."""
    return 0o666 & ~_umask()


def temporary_beside(path: Path, suffix: str = PARTIAL) -> Path:
    """A fresh, empty, hidden file ``.<name>.<random>.partial`` in ``path``'s folder (so the final rename is
    atomic), with the mode a plain ``open`` gives (``mkstemp``'s own, 0600, would make a result private)."""
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

    The one-writer rule of every folder a long command writes: an exclusive ``flock``, which the
    operating system lets go when the process ends, even by ``kill -9``.

    Another process holding it: ``busy(its pid)`` is raised at once (each caller's own error,
    naming what is busy).  The file
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


SCRATCH = ".scratch"
"""The suffix of the hidden folder :func:`folder_atomically` writes in before renaming it."""


@contextlib.contextmanager
def folder_atomically(target: Path) -> Iterator[Path]:
    """A new hidden folder beside ``target`` to write in, renamed to ``target`` (which must not
    exist) when the block ends normally, and removed on any exception, Ctrl-C included: a
    folder of results appears whole or not at all.

    The folder gets the permissions ``mkdir`` would give (``tempfile.mkdtemp`` makes it private).
    A process killed by a signal it cannot catch leaves it as ``.<name>.<random>.scratch``:
    :func:`scratch_folders` finds such leftovers (remove them only while no process writes
    ``target``, e.g. holding its lock).
    """
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=SCRATCH, dir=target.parent))
    try:
        os.chmod(scratch, 0o777 & ~_umask())  # the mode mkdir gives
        yield scratch
        if target.exists() or target.is_symlink():
            raise FileExistsError(f"{target} appeared while it was being written; nothing was replaced")
        os.rename(scratch, target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def scratch_folders(target: Path) -> list[Path]:
    """The hidden folders :func:`folder_atomically` left beside ``target`` (their writer was killed)."""
    # exactly mkdtemp's names (8 random characters): ".out.v2.<random>.scratch" is another target's
    name = re.compile(re.escape(f".{target.name}.") + r"[a-z0-9_]{8}" + re.escape(SCRATCH))
    try:
        found = [p for p in target.parent.iterdir() if name.fullmatch(p.name)]
    except OSError:
        return []
    return sorted(p for p in found if p.is_dir() and not p.is_symlink())


# ----------------------------------------------------------------------------- reading
MAX_JSON_BYTES = 16 << 20
"""The default bound of a JSON file (16 MiB): far above any this package writes."""
MAX_JSON_DEPTH = 32
"""The default nesting bound of a JSON value: the package's formats nest a few levels."""
MAX_INT_BITS = 128
"""The largest integer a JSON file may hold: 128 bits (a PCG64 generator's state is one)."""
MAX_NPZ_BYTES = 1 << 30
"""The default bound of an ``.npz`` file (1 GiB)."""
MAX_ARRAY_ELEMENTS = 1 << 28
"""The default bound of one array's values (2^28: 1 GiB of float32), checked on its header."""
MAX_NPZ_ARRAYS = 1024
"""The most arrays an ``.npz`` archive may hold."""
MAX_TEXT_CHARS = 1 << 20
"""The longest text array (a 0-d string, such as a policy's JSON metadata) read from an ``.npz``."""

_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _os_problem(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "not found"
    if isinstance(exc, NotADirectoryError):
        return "not found (a part of its path is a file)"
    if isinstance(exc, PermissionError):
        return "cannot be read (permission denied)"
    return f"cannot be read ({exc.strerror or exc})"


def _checked_stat(path: Path, where: str, links: bool) -> os.stat_result:
    """``path``'s status, following a last symbolic link only if ``links``."""
    try:
        status = os.lstat(path)
    except ValueError:  # an embedded NUL: no file has such a name
        raise FileFormatError(where, "not found (the path holds a NUL character)") from None
    except OSError as exc:
        raise FileFormatError(where, _os_problem(exc)) from None
    if not stat.S_ISLNK(status.st_mode):
        return status
    if not links:
        raise FileFormatError(where, "is a symbolic link, which this file is never read through")
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise FileFormatError(where, "is a symbolic link to nothing") from None
    except OSError as exc:
        raise FileFormatError(where, _os_problem(exc)) from None


def check_file(
    path: str | Path,
    where: str | None = None,
    *,
    max_bytes: int,
    inside: str | Path | None = None,
    links: bool = True,
) -> os.stat_result:
    """The status of the regular file at ``path``, checked without opening it.

    Refused with one :class:`FileFormatError` (``where`` names the file in it; default: the
    path): a missing file, a folder, a FIFO, a device or a socket (opening a FIFO blocks, and
    opening a device can act on it), a file over ``max_bytes``, a symbolic link unless
    ``links``, and, with ``inside``, a file whose real path (links and ``..`` resolved) is
    outside that folder.
    """
    path = Path(path)
    where = where or str(path)
    status = _checked_stat(path, where, links)
    if inside is not None:
        try:
            folder = Path(inside).resolve()
            real = path.resolve()
        except (OSError, RuntimeError) as exc:  # a loop of links
            raise FileFormatError(where, f"cannot be resolved ({exc})") from None
        if not real.is_relative_to(folder):
            raise FileFormatError(where, f"lies outside {folder} (through ../ or a symbolic link); not read")
    if not stat.S_ISREG(status.st_mode):
        kind = next((name for test, name in _KINDS if test(status.st_mode)), "not a regular file")
        raise FileFormatError(where, f"is {kind}, not a regular file; it was not opened")
    if status.st_size > max_bytes:
        raise FileFormatError(where, f"is {status.st_size:,} bytes, more than the {max_bytes:,} it may be")
    return status


def open_file(
    path: str | Path,
    where: str | None = None,
    *,
    max_bytes: int,
    inside: str | Path | None = None,
    links: bool = True,
) -> IO[bytes]:
    """The regular file at ``path`` (checked as :func:`check_file` does), open for binary reading.

    It is opened without blocking and checked again once open (the same file, still a
    regular one), so a file swapped for a FIFO in between is refused, never waited on.
    """
    path = Path(path)
    where = where or str(path)
    before = check_file(path, where, max_bytes=max_bytes, inside=inside, links=links)
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    )
    if not links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileFormatError(where, _os_problem(exc)) from None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
            raise FileFormatError(where, "was replaced while it was being opened; nothing was read")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(
    path: str | Path,
    where: str | None = None,
    *,
    max_bytes: int,
    inside: str | Path | None = None,
    links: bool = True,
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` (see :func:`open_file`)."""
    where = where or str(path)
    with open_file(path, where, max_bytes=max_bytes, inside=inside, links=links) as fh:
        try:
            data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise FileFormatError(where, _os_problem(exc)) from None
    if len(data) > max_bytes:
        raise FileFormatError(where, f"grew past the {max_bytes:,} bytes it may be while it was read")
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, refusing a key named twice (it would hide an edit)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


_DECODER = json.JSONDecoder(parse_constant=float, object_pairs_hook=_unique_keys)
"""``NaN`` and ``Infinity`` parse (to be refused by the walk, which names their field)."""


def json_kind(value: Any) -> str:
    """What a JSON value is, in words (for errors): ``an object``, ``a list``, ``a string``, …"""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    return "a number"


def _member(field: str, key: str) -> str:
    return f"{field}.{key}" if field else key


def _check_values(
    value: Any, where: str, field: str, max_depth: int, max_int_bits: int, finite: bool
) -> None:
    """Walk a parsed value (without recursion): depth, NUL characters, integer sizes, finiteness."""
    stack: list[tuple[Any, str, int]] = [(value, field, 0)]
    while stack:
        item, name, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= max_depth:
                short = name if len(name) <= 60 else f"{name[:60]}…"
                raise FileFormatError(where, f"JSON nested too deeply (more than {max_depth} levels)", short)
            if isinstance(item, dict):
                for key, child in item.items():
                    if "\0" in key:
                        raise FileFormatError(where, f"the key {key!r:.60} holds a NUL character", name)
                    stack.append((child, _member(name, key), depth + 1))
            else:
                stack.extend((child, f"{name}[{i}]", depth + 1) for i, child in enumerate(item))
        elif isinstance(item, str):
            if "\0" in item:
                raise FileFormatError(where, f"holds a NUL character: {item!r:.60}", name)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if item.bit_length() > max_int_bits:
                digits = len(str(abs(item)))
                raise FileFormatError(
                    where, f"an integer of {digits} digits, far past any this file holds", name
                )
        elif isinstance(item, float) and finite and not math.isfinite(item):
            raise FileFormatError(where, f"{item} is not a finite number", name)


def parse_json(
    text: str | bytes,
    where: str,
    *,
    field: str = "",
    max_depth: int = MAX_JSON_DEPTH,
    max_int_bits: int = MAX_INT_BITS,
    finite: bool = True,
) -> Any:
    """The JSON value of ``text`` (UTF-8 bytes or text), strictly checked; a :class:`FileFormatError`
    naming ``where`` (the file) and the field otherwise (``field``: where ``text`` sits in the file).

    Refused: not UTF-8, empty, not JSON (truncated included), a key named twice, nested deeper
    than ``max_depth`` (never a ``RecursionError``), a NUL character in a string or key, an
    integer of more than ``max_int_bits`` bits, and (``finite``) ``NaN``, ``Infinity`` or ``1e999``.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FileFormatError(where, f"is not UTF-8 text (byte {exc.start})", field) from None
    if not text.strip():
        raise FileFormatError(where, "is empty (no JSON value)", field)
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        ends = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        cut = " (the file ends too early: truncated?)" if ends else ""
        problem = f"is not JSON ({exc.msg}: line {exc.lineno}, column {exc.colno}){cut}"
        raise FileFormatError(where, problem, field) from None
    except RecursionError:
        raise FileFormatError(
            where, f"JSON nested too deeply (more than {max_depth} levels)", field
        ) from None
    except ValueError as exc:  # a key named twice; an integer past Python's digit limit
        raise FileFormatError(where, f"is not plain JSON ({exc})", field) from None
    _check_values(value, where, field, max_depth, max_int_bits, finite)
    return value


def read_json(
    path: str | Path,
    where: str | None = None,
    *,
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
    max_int_bits: int = MAX_INT_BITS,
    finite: bool = True,
    inside: str | Path | None = None,
    links: bool = True,
) -> Any:
    """The JSON value in the file at ``path``: :func:`read_bytes`, then :func:`parse_json`."""
    where = where or str(path)
    data = read_bytes(path, where, max_bytes=max_bytes, inside=inside, links=links)
    return parse_json(data, where, max_depth=max_depth, max_int_bits=max_int_bits, finite=finite)


_MISSING: Any = object()


class JsonObject:
    """A JSON object of a file, read field by field with its type and bounds checked.

    Every refusal is one :class:`FileFormatError` naming the file and the field
    (``members[0].weight``).  A format's reader builds one on the value :func:`read_json`
    returned (``JsonObject(data, where)``), reads what it knows, and calls :meth:`only` to
    refuse fields it does not.
    """

    def __init__(self, value: Any, where: str, field: str = "") -> None:
        if not isinstance(value, dict):
            raise FileFormatError(where, f"must be a JSON object, not {json_kind(value)}", field)
        self.data: dict[str, Any] = value
        self.where, self.field = where, field

    def name(self, key: str) -> str:
        """The field's name in errors (``members[0].weight``)."""
        return _member(self.field, key)

    def refuse(self, key: str, problem: str) -> NoReturn:
        """Raise the :class:`FileFormatError` of field ``key``."""
        raise FileFormatError(self.where, problem, self.name(key))

    def get(self, key: str, default: Any = _MISSING) -> Any:
        """The raw value of ``key`` (missing and no ``default``: refused)."""
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            self.refuse(key, "is missing")
        return default

    def integer(self, key: str, low: int, high: int, default: Any = _MISSING) -> int:
        """An integer in ``[low, high]`` (``true``/``false`` and ``1.0`` are not integers)."""
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value  # type: ignore[no-any-return]
        if not isinstance(value, int) or isinstance(value, bool):
            self.refuse(key, f"must be an integer, not {json_kind(value)} ({value!r:.60})")
        if not low <= value <= high:
            self.refuse(key, f"must be in [{low}, {high}], got {value!r:.60}")
        return value

    def number(self, key: str, low: float, high: float, default: Any = _MISSING) -> float:
        """A finite number in ``[low, high]`` (an integer too large for a float is refused)."""
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value  # type: ignore[no-any-return]
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            self.refuse(key, f"must be a number, not {json_kind(value)} ({value!r:.60})")
        try:
            number = float(value)
        except OverflowError:
            self.refuse(key, f"must be in [{low}, {high}], got an integer of {len(str(abs(value)))} digits")
        if not math.isfinite(number) or not low <= number <= high:
            self.refuse(key, f"must be a finite number in [{low}, {high}], got {value!r:.60}")
        return number

    def string(
        self,
        key: str,
        *,
        choices: Collection[str] | None = None,
        max_chars: int = 4096,
        default: Any = _MISSING,
    ) -> str:
        """A string of at most ``max_chars`` characters (one of ``choices`` if given)."""
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value  # type: ignore[no-any-return]
        if not isinstance(value, str):
            self.refuse(key, f"must be a string, not {json_kind(value)} ({value!r:.60})")
        if len(value) > max_chars:
            self.refuse(key, f"is {len(value):,} characters long, more than {max_chars:,}")
        if choices is not None and value not in choices:
            self.refuse(key, f"must be one of {', '.join(sorted(choices))}, got {value!r:.60}")
        return value

    def boolean(self, key: str, default: Any = _MISSING) -> bool:
        """``true`` or ``false``."""
        value = self.get(key, default)
        if not isinstance(value, bool):
            self.refuse(key, f"must be true or false, not {json_kind(value)} ({value!r:.60})")
        return value

    def array(self, key: str, *, max_items: int, default: Any = _MISSING) -> list[Any]:
        """A list of at most ``max_items`` values (each still to be checked)."""
        value = self.get(key, default)
        if not isinstance(value, list):
            self.refuse(key, f"must be a list, not {json_kind(value)} ({value!r:.60})")
        if len(value) > max_items:
            self.refuse(key, f"holds {len(value):,} items, more than {max_items:,}")
        return value

    def mapping(self, key: str, default: Any = _MISSING) -> JsonObject:
        """A nested object, as a :class:`JsonObject` whose errors name ``key.FIELD``."""
        return JsonObject(self.get(key, default), self.where, self.name(key))

    def only(self, *keys: str) -> None:
        """Refuse any field not in ``keys`` (nothing unknown is dropped silently)."""
        unknown = sorted(set(self.data) - set(keys))
        if unknown:
            raise FileFormatError(self.where, f"unknown fields {unknown}", self.field)


@dataclasses.dataclass(frozen=True)
class ArrayHeader:
    """One array of an ``.npz`` archive as its ``.npy`` header declares it (nothing read yet)."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    fortran: bool
    offset: int
    """Where its data starts in its member of the archive (the header's length)."""

    @property
    def size(self) -> int:
        """How many values it holds."""
        return math.prod(self.shape)


_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError)
"""What reading a damaged zip member raises (a bad CRC, a cut stream, an unknown method)."""


def _dtype_problem(dtype: np.dtype[Any], text: bool) -> str | None:
    """Why an array of ``dtype`` is refused (None: a real number type, or text where allowed)."""
    kind = dtype.kind
    if dtype.fields is not None or kind == "V":
        return f"has a structured dtype ({dtype}), not numbers"
    if kind == "c":
        return f"holds complex numbers ({dtype}); only real numbers are read"
    if kind == "O":
        return "holds Python objects (reading them would run a pickle); only numbers are read"
    if kind in "US":
        return None if text and kind == "U" else f"holds text ({dtype}), not numbers"
    if kind not in "biuf" or dtype.itemsize > 8:
        return f"has dtype {dtype}, not a real number type"
    return None


class NpzArchive:
    """An open ``.npz`` archive whose every array header is read and checked; arrays read on demand.

    Built by :func:`open_npz`.  :attr:`headers` tells each array's shape and dtype before any
    is read, so a format's reader can bound the shapes by its own metadata first.
    """

    def __init__(
        self, archive: zipfile.ZipFile, where: str, entries: dict[str, tuple[zipfile.ZipInfo, ArrayHeader]]
    ):
        self._archive, self.where, self._entries = archive, where, entries
        self.headers: Mapping[str, ArrayHeader] = {name: header for name, (_, header) in entries.items()}

    def array(self, name: str) -> np.ndarray:
        """The array ``name`` (its header's shape and dtype, native byte order, writable)."""
        if name not in self._entries:
            raise FileFormatError(self.where, "is missing", f"array {name!r}")
        info, header = self._entries[name]
        nbytes = header.size * header.dtype.itemsize
        try:
            with self._archive.open(info) as member:
                member.read(header.offset)
                data = member.read(nbytes)
                extra = member.read(1)  # reads to the end: the CRC is checked there
        except _ZIP_ERRORS as exc:
            raise FileFormatError(self.where, f"cannot be read ({exc})", f"array {name!r}") from None
        if len(data) != nbytes or extra:
            raise FileFormatError(
                self.where, "holds another length of data than its header says", f"array {name!r}"
            )
        flat = np.frombuffer(data, dtype=header.dtype)
        out: np.ndarray = flat.reshape(header.shape, order="F" if header.fortran else "C").astype(
            header.dtype.newbyteorder("="), order="C", copy=True
        )
        return out

    def text(self, name: str) -> str:
        """The text of the 0-d string array ``name`` (one opened with it in ``text_arrays``)."""
        header = self.headers.get(name)
        if header is None or header.dtype.kind != "U":
            raise FileFormatError(self.where, "is missing or is not text", f"array {name!r}")
        return str(self.array(name).item())


def _header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, name: str) -> ArrayHeader:
    """The checked-for-form ``.npy`` header of one member (its data is not read)."""
    field = f"array {name!r}"
    problem = ""
    try:
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
            else:
                problem = f"has .npy format version {version}, not 1.0 or 2.0"
            offset = member.tell()
    except (*_ZIP_ERRORS, ValueError, SyntaxError) as exc:
        problem = f"is not a readable .npy array ({exc})"
    if problem:
        raise FileFormatError(where, problem, field)
    return ArrayHeader(tuple(shape), np.dtype(dtype), bool(fortran), offset)


def _check_header(
    header: ArrayHeader, info: zipfile.ZipInfo, where: str, name: str, max_elements: int, text: bool
) -> None:
    field = f"array {name!r}"
    problem = _dtype_problem(header.dtype, text)
    if problem:
        raise FileFormatError(where, problem, field)
    if len(header.shape) > 32 or any(not isinstance(d, int) or d < 0 for d in header.shape):
        raise FileFormatError(where, f"declares the shape {header.shape!r:.80}, which no array has", field)
    if header.dtype.kind == "U":
        if header.shape != () or header.dtype.itemsize // 4 > MAX_TEXT_CHARS:
            raise FileFormatError(
                where, f"must be one string of at most {MAX_TEXT_CHARS:,} characters", field
            )
    elif header.size > max_elements:
        raise FileFormatError(
            where,
            f"declares the shape {header.shape} ({header.size:,} values), more than the "
            f"{max_elements:,} an array may hold here; nothing was allocated",
            field,
        )
    if header.offset + header.size * header.dtype.itemsize != info.file_size:
        raise FileFormatError(where, "holds another length of data than its header says", field)


def _npz_entries(
    archive: zipfile.ZipFile, where: str, max_elements: int, text_arrays: Collection[str]
) -> dict[str, tuple[zipfile.ZipInfo, ArrayHeader]]:
    infos = archive.infolist()
    if len(infos) > MAX_NPZ_ARRAYS:
        raise FileFormatError(where, f"holds {len(infos):,} arrays, more than {MAX_NPZ_ARRAYS:,}")
    entries: dict[str, tuple[zipfile.ZipInfo, ArrayHeader]] = {}
    for info in infos:
        name = info.filename.removesuffix(".npy")
        if name == info.filename or not name:
            raise FileFormatError(where, f"holds {info.filename!r:.80}: not an .npz file of .npy arrays")
        if name in entries:
            raise FileFormatError(
                where, "is stored twice (which one numpy reads is not defined)", f"array {name!r}"
            )
        if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise FileFormatError(
                where, "is encrypted or compressed in a way numpy never writes", f"array {name!r}"
            )
        header = _header(archive, info, where, name)
        _check_header(header, info, where, name, max_elements, name in text_arrays)
        entries[name] = (info, header)
    return entries


@contextlib.contextmanager
def open_npz(
    source: str | Path | IO[bytes],
    where: str | None = None,
    *,
    max_bytes: int = MAX_NPZ_BYTES,
    max_elements: int = MAX_ARRAY_ELEMENTS,
    text_arrays: Collection[str] = (),
    inside: str | Path | None = None,
    links: bool = True,
) -> Iterator[NpzArchive]:
    """The ``.npz`` archive at ``source`` (a path, checked as :func:`open_file` does, or an open
    binary file such as package data), its headers checked, for the block's length.

    Every member must be a ``.npy`` array of a real numeric dtype with at most ``max_elements``
    values; ``text_arrays`` names those that may instead be one string.  Nothing is unpickled,
    and no array is read before every header passed.  Anything else is one
    :class:`FileFormatError` naming the file and the array.
    """
    where = where or str(source)
    if isinstance(source, (str, os.PathLike)):
        handle: IO[bytes] = open_file(Path(source), where, max_bytes=max_bytes, inside=inside, links=links)
    else:
        handle = source
    try:
        try:
            archive = zipfile.ZipFile(handle)
        except (*_ZIP_ERRORS, ValueError) as exc:
            empty = handle.seek(0, os.SEEK_END) == 0
            problem = (
                "is empty (0 bytes)"
                if empty
                else f"is not an .npz file (a zip of .npy arrays), or is cut short ({exc})"
            )
            raise FileFormatError(where, problem) from None
        with archive:
            yield NpzArchive(archive, where, _npz_entries(archive, where, max_elements, text_arrays))
    finally:
        if handle is not source:
            handle.close()


def read_npz(
    source: str | Path | IO[bytes],
    where: str | None = None,
    *,
    max_bytes: int = MAX_NPZ_BYTES,
    max_elements: int = MAX_ARRAY_ELEMENTS,
    inside: str | Path | None = None,
    links: bool = True,
) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive at ``source``, each checked as :func:`open_npz` says."""
    with open_npz(
        source, where, max_bytes=max_bytes, max_elements=max_elements, inside=inside, links=links
    ) as npz:
        return {name: npz.array(name) for name in npz.headers}


__all__ = [
    "MAX_ARRAY_ELEMENTS",
    "MAX_INT_BITS",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_NPZ_BYTES",
    "PARTIAL",
    "SCRATCH",
    "ArrayHeader",
    "JsonObject",
    "NpzArchive",
    "check_file",
    "create_first_file",
    "folder_atomically",
    "fresh_folder",
    "hold_lock",
    "json_kind",
    "open_file",
    "open_npz",
    "parse_json",
    "read_bytes",
    "read_json",
    "read_npz",
    "remove_partials",
    "scratch_folders",
    "temporary_beside",
    "write_atomic",
    "write_atomically",
]
