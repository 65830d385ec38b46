"""The run folder: one per run of ``hoity-learn``, ``hoity-league``, a best response or a training recipe.

Every command that trains writes into a run folder with the same rules, so that a kill, a second
writer or a resume with other settings never mixes two runs: ``run.json`` names the kind and format,
a fresh run takes a free name, one process writes (a lock), checkpoints are complete or absent, a
resume keeps the run's own settings, and a finished run is final.  See docs/learning.md (run folders,
checkpoints, resume) and docs/guarantees.md.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from hoity_env.engine.errors import ConfigError
from hoity_env.files import hold_lock, read_json, remove_partials, write_atomically

logger = logging.getLogger(__name__)

LEARN, LEAGUE, RECIPE, RESPONSE = "hoity-learn", "hoity-league", "training-recipe", "best-response"
KINDS = {
    LEARN: "hoity-learn",
    LEAGUE: "hoity-league",
    RECIPE: "a training recipe",
    RESPONSE: "a best response (hoity-eval exploit, ladder, a league's exploiter)",
}
"""Each kind of run folder and how messages name the tool that made it."""
FORMAT = 2
"""The run folder's format: ``run.json`` records it, and the resume state (:mod:`.state`) too.
Format 1 (hoity_env 0.1) pickled live objects into its resume state and had no ``format``."""

RECORD = "run.json"
FINISHED = "finished.json"
PROGRESS = "progress.jsonl"
RESUMES = "resumes.jsonl"
CHECKPOINTS = "checkpoints"
LOCK = ".hoity-run.lock"
DAMAGED = ".damaged"
STATE = "state"
"""The prefix of the file written last: a checkpoint is complete once ``state_<steps>.pt`` exists."""

_CHECKPOINT_FILE = re.compile(r"^[a-z]+_(\d+)\.[a-z]+$")
_LEGACY_FILES = (("league_settings.json", LEAGUE), ("settings.json", LEARN), ("args.json", RECIPE))
"""How folders without ``run.json`` (hoity_env 0.1) are told, in this order."""
T = TypeVar("T")


class FormatError(ConfigError):
    """A run folder or resume state of another format: refused with its format named, never set
    aside as damaged (it is whole, only not this version's)."""


class FolderBusy(ConfigError):
    """Another process holds the run folder's lock."""


def read_record(path: Path) -> dict[str, Any]:
    """``run.json`` of the run folder ``path`` (``kind`` and ``format``, 1 when absent); a damaged
    one is a :class:`ConfigError` naming it."""
    record = read_json(path / RECORD, max_bytes=64 * 1024)
    if not isinstance(record, dict) or record.get("kind") not in KINDS:
        raise ConfigError(f"{path / RECORD} is damaged (not the JSON record a run folder holds)")
    version = record.get("format", 1)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ConfigError(f"{path / RECORD} is damaged (format {version!r})")
    return {"kind": record["kind"], "format": version}


def folder_kind(path: Path) -> str | None:
    """The kind of run folder ``path`` is (``run.json``'s), else what its files say (folders of
    hoity_env 0.1 hold no ``run.json``: ``league_settings.json``, ``settings.json``, ``args.json``),
    else ``None``."""
    if (path / RECORD).exists():
        return str(read_record(path)["kind"])
    return next((kind for name, kind in _LEGACY_FILES if (path / name).is_file()), None)


def looks_free(path: Path) -> bool:
    """Whether ``path`` is missing, or a folder holding nothing but a lock (a first look; a new run
    claims a folder only after looking again holding its lock)."""
    return not path.exists() or (path.is_dir() and all(p.name == LOCK for p in path.iterdir()))


class RunFolder:
    """One run's folder; ``kind``: the kind of run it belongs to (:data:`KINDS`).

    Made by :meth:`create` (a fresh name), written holding :meth:`locked` (one writer), checkpointed
    by :meth:`commit` (``state_<steps>.pt`` last: then it is complete), cleaned by :meth:`repair`
    after a kill, resumed from :meth:`latest` (a damaged checkpoint is set aside as ``*.damaged``),
    trimmed by :meth:`prune`, and closed by :meth:`finish` (nothing in a finished folder is
    replaced).  The resume rule is :func:`refuse_changes`.
    """

    def __init__(self, path: str | Path, kind: str = LEARN) -> None:
        self.path = Path(path)
        self.kind = kind
        self.checkpoints = self.path / CHECKPOINTS

    # ------------------------------------------------------------ whose, and who writes
    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold this folder's lock (:class:`FolderBusy` at once if another process holds it)."""

        def busy(pid: str) -> FolderBusy:
            return FolderBusy(
                f"another process (pid {pid}) is writing to the run folder {self.path}: wait for it to end"
            )

        with hold_lock(self.path / LOCK, busy):
            yield

    @classmethod
    def create(
        cls, base: str | Path, kind: str, files: Mapping[str, str] | None = None, *, next_free: bool
    ) -> RunFolder:
        """Make the run folder ``base`` holding ``run.json`` and ``files`` (name → text).

        ``next_free``: a folder that holds anything already, or that another process is claiming,
        is passed over for ``base_2``, … (a live run's folder is refused, as a second writer);
        else a folder that is not empty is refused.  A folder that cannot be made is a
        :class:`ConfigError` before anything exists.
        """
        base, k = Path(base), 1
        while True:
            path = base if k == 1 else base.with_name(f"{base.name}_{k}")
            k += 1
            folder = cls(path, kind)
            if not looks_free(path) and next_free:
                if (path / LOCK).is_file():
                    with folder.locked():  # a live run there is refused (same --out), a dead one passed over
                        pass
                continue
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(f"cannot create the run folder {path}: {exc.strerror or exc}") from None
            try:
                with folder.locked():
                    if not looks_free(path):
                        if next_free:
                            continue  # another run took it between our look and our lock
                        raise ConfigError(
                            f"run folder {path} is not empty; resume it, or choose a new folder"
                        )
                    folder._fill(files or {})
            except FolderBusy:
                if not next_free:
                    raise
                continue  # another run is claiming it now
            return folder

    def _fill(self, files: Mapping[str, str]) -> None:
        """Write ``run.json``, ``checkpoints/`` and ``files`` into the new folder (all or nothing)."""
        record = json.dumps({"kind": self.kind, "format": FORMAT}) + "\n"
        try:
            self.checkpoints.mkdir()
            for name, text in {RECORD: record, **files}.items():
                write_atomically(self.path / name, text)
        except BaseException:
            for name in (*files, RECORD):
                (self.path / name).unlink(missing_ok=True)
            if self.checkpoints.is_dir():
                self.checkpoints.rmdir()
            raise

    @classmethod
    def open(cls, path: str | Path, kind: str) -> RunFolder:
        """The run folder ``path`` of ``kind`` and of this :data:`FORMAT`, checked (nothing is
        written): not found, another kind's, another format's and a live run's are refused."""
        folder = cls(path, kind)
        folder.check_kind()
        folder.check_format()
        with folder.locked():  # a live run is refused now, before anything is loaded
            pass
        return folder

    def check_kind(self) -> None:
        """A :class:`ConfigError` unless this folder is a run folder of :attr:`kind`."""
        if not self.path.is_dir():
            raise ConfigError(f"run folder not found: {self.path}")
        kind = folder_kind(self.path)
        if kind is None:
            raise ConfigError(f"{self.path} is not a run folder (it holds no {RECORD})")
        if kind != self.kind:
            how = f"{kind} --resume {self.path}" if kind in (LEARN, LEAGUE) else "the tool that made it"
            mine, theirs = KINDS[self.kind], KINDS[kind]
            raise ConfigError(f"{self.path} is a run folder of {theirs}, not of {mine}: resume it with {how}")

    def check_format(self) -> None:
        """A :class:`FormatError` unless ``run.json`` records this :data:`FORMAT`."""
        version = read_record(self.path)["format"] if (self.path / RECORD).exists() else 1
        if version != FORMAT:
            which = "hoity_env 0.1" if version == 1 else "another version of hoity_env"
            raise FormatError(
                f"run folder {self.path} was written by {which} (run folder format {version}); this "
                f"version reads format {FORMAT}: start a new run"
            )

    # ------------------------------------------------------------ finished is final
    @property
    def finished(self) -> bool:
        """Whether the run reached its end (``finished.json`` written): nothing here is replaced."""
        return (self.path / FINISHED).is_file()

    def finish(self, record: Mapping[str, Any] | None = None) -> None:
        """Say the run reached its end: ``finished.json`` (with ``record``), the last file written."""
        when = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        write_atomically(self.path / FINISHED, json.dumps({"time": when, **(record or {})}) + "\n")

    # ------------------------------------------------------------ checkpoints
    def tag(self, steps: int) -> str:
        """The zero-padded step count in a checkpoint's file names."""
        return f"{steps:012d}"

    def state_file(self, steps: int) -> Path:
        """The ``state_<steps>.pt`` file of the checkpoint at ``steps`` (its commit)."""
        return self.checkpoints / f"{STATE}_{self.tag(steps)}.pt"

    def complete(self) -> list[int]:
        """The learner steps of the complete checkpoints, oldest first."""
        steps = (_CHECKPOINT_FILE.match(p.name) for p in self.checkpoints.glob(f"{STATE}_*.pt"))
        return sorted(int(m.group(1)) for m in steps if m)

    def files_of(self, steps: int) -> list[Path]:
        """Every file of the checkpoint at ``steps`` (``state_…`` first: removing it decommits)."""
        found = [p for p in self.checkpoints.glob(f"*_{self.tag(steps)}.*") if _CHECKPOINT_FILE.match(p.name)]
        return sorted(found, key=lambda p: not p.name.startswith(STATE))

    def commit(self, steps: int, files: Mapping[str, bytes | str], state: bytes) -> None:
        """Write the checkpoint at ``steps``: ``files`` (name → content) in order, each atomically,
        then ``state_<steps>.pt``, which makes it complete.  A failure removes what was written."""
        written: list[Path] = []
        try:
            for name, data in files.items():
                written.append(write_atomically(self.checkpoints / name, data))
            written.append(write_atomically(self.state_file(steps), state))
        except BaseException:
            for path in reversed(written):  # the state first: nothing half-written looks complete
                path.unlink(missing_ok=True)
            raise

    def prune(self, keep: int) -> None:
        """Delete all but the newest ``keep`` complete checkpoints (0: keep all)."""
        if keep:
            for steps in self.complete()[:-keep]:
                for path in self.files_of(steps):
                    path.unlink(missing_ok=True)

    def latest(self, load: Callable[[int], T]) -> tuple[int, T, list[int]]:
        """``(steps, load(steps), damaged)``: the newest checkpoint ``load`` reads without a
        :class:`ConfigError`, and the newer ones it could not read (each logged as one line).  A
        :class:`FormatError` is raised at once: an older run is refused, not set aside."""
        steps = self.complete()
        if not steps:
            raise ConfigError(f"no complete checkpoint to resume in {self.checkpoints}")
        damaged: list[int] = []
        for at in reversed(steps):
            try:
                return at, load(at), damaged
            except FormatError:
                raise
            except ConfigError as exc:
                if at == steps[0]:
                    raise ConfigError(f"{exc}; no earlier complete checkpoint to fall back to") from None
                logger.warning("%s; falling back to the previous checkpoint", exc)
                damaged.append(at)
        raise AssertionError("unreachable")  # pragma: no cover

    # ------------------------------------------------------------ progress and resume
    def log(self, stats: Mapping[str, float]) -> None:
        """Append one iteration's statistics to ``progress.jsonl`` (a failed write is undone)."""
        append_line(self.path / PROGRESS, json.dumps(dict(stats)))

    def repair(self, steps: int, damaged: Iterable[int]) -> dict[str, Any]:
        """Before a resume from ``steps`` (holding the lock): set the ``damaged`` checkpoints aside,
        remove ``.partial`` files and incomplete checkpoints, and take the progress lines past
        ``steps`` (another future, which the resumed run writes again) or torn ones out of
        ``progress.jsonl``.  Returns what was done, for the resume record."""
        damaged = list(damaged)
        for at in damaged:
            for path in self.files_of(at):
                os.replace(path, path.with_name(path.name + DAMAGED))
        partials = [str(p.relative_to(self.path)) for p in remove_partials(self.path)]
        complete = {self.tag(s) for s in self.complete()}
        removed = []
        for path in self.checkpoints.iterdir():
            match = _CHECKPOINT_FILE.match(path.name)
            if match and match.group(1).zfill(12) not in complete:
                path.unlink()
                removed.append(path.name)
        kept: list[str] = []
        dropped: list[str] = []
        progress = self.path / PROGRESS
        lines = progress.read_text(encoding="utf-8").splitlines() if progress.is_file() else []
        for line in lines:
            row = _row(line)
            done = None if row is None else row.get("steps", 0)
            (kept if isinstance(done, int | float) and done <= steps else dropped).append(line)
        if dropped:
            write_atomically(progress, "".join(f"{line}\n" for line in kept))
        return {
            "damaged_checkpoints": damaged,
            "partial_files_removed": partials,
            "incomplete_checkpoint_files_removed": sorted(removed),
            "progress_lines_dropped": dropped,
        }

    def record_resume(self, steps: int, session: Mapping[str, Any], **done: Any) -> None:
        """Append one line to ``resumes.jsonl``: when, from which steps, what this session set
        (its time limit, worker counts …), and what the resume did (``done``)."""
        when = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        record = {"time": when, "steps": steps, "session": dict(session), **done}
        append_line(self.path / RESUMES, json.dumps(record))


def refuse_changes(changes: Iterable[tuple[str, Any, Any]], run: Path, record: str, allowed: str) -> None:
    """The resume rule: a :class:`ConfigError` for the first ``(flag, given, the run's)`` whose values
    differ (``record``: the file holding the run's settings; ``allowed``: what a resume may change,
    such as a time limit or worker counts, recorded in ``resumes.jsonl``)."""
    for flag, given, saved in changes:
        if given != saved:
            raise ConfigError(
                f"{flag} {given!r}: the run in {run} was made with {flag} {saved!r} (its {record}); "
                f"a resume keeps the run's own settings and may change only {allowed}: "
                "leave the flag out, or start a new run"
            )


def append_line(path: Path, line: str) -> None:
    """Append ``line`` and a newline to ``path``; if the write fails (a full disk), the file is cut
    back to its old length, so no half line is left."""
    data = (line + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        size = os.fstat(fd).st_size
        try:
            done = 0
            while done < len(data):
                done += os.write(fd, data[done:])
        except BaseException:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def _row(line: str) -> dict[str, Any] | None:
    """A progress line as a dict; ``None`` if it is torn (a kill -9 mid-write)."""
    try:
        row = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return row if isinstance(row, dict) else None


__all__ = [
    "CHECKPOINTS",
    "FINISHED",
    "FORMAT",
    "KINDS",
    "LEAGUE",
    "LEARN",
    "PROGRESS",
    "RECIPE",
    "RESPONSE",
    "RESUMES",
    "FolderBusy",
    "FormatError",
    "RunFolder",
    "append_line",
    "folder_kind",
    "looks_free",
    "read_record",
    "refuse_changes",
]
