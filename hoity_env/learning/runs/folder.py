"""A run folder of ``hoity-learn`` or ``hoity-league``: whose it is, its one writer, its checkpoints.

A run folder holds::

    run.json                         {"kind": "hoity-learn"} (or "hoity-league"): the command that made it
    settings.json                    the run's LearnerSettings
    progress.jsonl                   one line of statistics per iteration
    resumes.jsonl                    one line per resume (what this session changed, what it dropped)
    checkpoints/policy_<steps>.zip   the policy at <steps> learner steps (MaskablePPO zip: ppo:PATH)
    checkpoints/state_<steps>.pt     everything else the run holds at that point (resume)
    policy.zip                       the latest policy (what to evaluate or play)
    .hoity-run.lock                  held (flock) by the one process writing here

**One writer.**  Every process that writes here holds the lock
(:func:`hoity_env.files.hold_lock`); a second one (a fresh run with the same
``--out``, a ``--resume`` of a live run) is refused at once and writes nothing.

**Complete checkpoints.**  A checkpoint's files are written each under a temporary name and
renamed, ``state_<steps>.pt`` last: a checkpoint is complete once that file exists.  A
kill -9 mid-checkpoint leaves an incomplete one (and ``.partial`` files), which
:meth:`RunFolder.repair` removes on resume.  After each checkpoint all but the newest
``keep_checkpoints`` are deleted (0: none).  A checkpoint that cannot be read (truncated,
edited) is renamed ``*.damaged`` on resume, which continues from the one before it.

**Kinds.**  ``run.json`` records the command that made the folder, so each command refuses the
other's folders.  Folders made before ``run.json`` existed are told by their files
(:func:`folder_kind`): ``league_settings.json`` is a league's, ``settings.json`` a learner's,
``args.json`` a training recipe's.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from hoity_env.engine.errors import ConfigError
from hoity_env.files import hold_lock, remove_partials, write_atomically

logger = logging.getLogger(__name__)

LEARN, LEAGUE = "hoity-learn", "hoity-league"
RECORD = "run.json"
SETTINGS = "settings.json"
PROGRESS = "progress.jsonl"
RESUMES = "resumes.jsonl"
CHECKPOINTS = "checkpoints"
LATEST = "policy.zip"
LOCK = ".hoity-run.lock"
DAMAGED = ".damaged"
STATE = "state"
"""The prefix of the file written last: a checkpoint is complete once ``state_<steps>.pt`` exists."""

_CHECKPOINT_FILE = re.compile(r"^[a-z]+_(\d+)\.[a-z]+$")
T = TypeVar("T")


def folder_kind(path: Path) -> str | None:
    """The command whose run folder ``path`` is (``run.json``'s kind), else what its files say.

    Folders of versions before ``run.json``: ``league_settings.json`` → ``hoity-league``;
    ``settings.json`` → ``hoity-learn``; ``args.json`` → ``"a training recipe"``; else ``None``.
    """
    record = path / RECORD
    if record.is_file():
        try:
            kind = json.loads(record.read_text(encoding="utf-8"))["kind"]
        except (OSError, ValueError, KeyError, TypeError):
            raise ConfigError(f"{record} is damaged (not the JSON this command writes)") from None
        return str(kind)
    if (path / "league_settings.json").is_file():
        return LEAGUE
    if (path / SETTINGS).is_file():
        return LEARN
    if (path / "args.json").is_file():
        return "a training recipe"
    return None


def read_json(path: Path) -> Any:
    """The JSON in ``path``; a missing, truncated or edited file is a :class:`ConfigError` naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} is damaged (truncated or edited?): {exc}") from None


class RunFolder:
    """One run's folder (see the module docstring); ``kind``: the command it belongs to."""

    def __init__(self, path: str | Path, kind: str = LEARN) -> None:
        self.path = Path(path)
        self.kind = kind
        self.checkpoints = self.path / CHECKPOINTS

    # ------------------------------------------------------------ whose, and who writes
    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold this folder's lock (a :class:`ConfigError` at once if another process holds it)."""

        def busy(pid: str) -> ConfigError:
            return ConfigError(
                f"another process (pid {pid}) is writing to the run folder {self.path}: wait for it to end"
            )

        with hold_lock(self.path / LOCK, busy):
            yield

    def check_kind(self) -> None:
        """A :class:`ConfigError` unless this folder is a run folder of :attr:`kind`."""
        if not self.path.is_dir():
            raise ConfigError(f"run folder not found: {self.path}")
        kind = folder_kind(self.path)
        if kind is None:
            raise ConfigError(f"{self.path} is not a run folder (it holds no {RECORD} or {SETTINGS})")
        if kind != self.kind:
            how = f"{kind} --resume {self.path}" if kind in (LEARN, LEAGUE) else "the tool that made it"
            raise ConfigError(
                f"{self.path} is a run folder of {kind}, not of {self.kind}: resume it with {how}"
            )

    @classmethod
    def create(cls, base: str | Path, kind: str, files: dict[str, str], *, next_free: bool) -> RunFolder:
        """Make the run folder ``base`` (empty or missing) holding ``run.json`` and ``files``.

        ``next_free``: a folder that holds anything already is passed over for ``base_2``, … (a
        fresh ``--out``); else it is refused.  A folder another process is writing is refused
        either way.  A folder that cannot be made is a :class:`ConfigError`, before anything exists.
        """
        base, k = Path(base), 1
        while True:
            path = base if k == 1 else base.with_name(f"{base.name}_{k}")
            k += 1
            folder = cls(path, kind)
            taken = path.exists() and (not path.is_dir() or any(p.name != LOCK for p in path.iterdir()))
            if taken and next_free:
                if (path / LOCK).is_file():
                    with folder.locked():  # a live run there is refused (same --out), a dead one passed over
                        pass
                continue
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(f"cannot create the run folder {path}: {exc.strerror or exc}") from None
            with folder.locked():
                if any(p.name != LOCK for p in path.iterdir()):
                    if next_free:
                        continue  # another run took it between our look and our lock
                    raise ConfigError(
                        f"run folder {path} is not empty; resume it, or choose a new folder "
                        "(hoity_env.files.fresh_folder finds a free name)"
                    )
                try:
                    folder.checkpoints.mkdir()
                    for name, text in {RECORD: json.dumps({"kind": kind}) + "\n", **files}.items():
                        write_atomically(path / name, text)
                except BaseException:
                    for name in (*files, RECORD):
                        (path / name).unlink(missing_ok=True)
                    if folder.checkpoints.is_dir():
                        folder.checkpoints.rmdir()
                    raise
            return folder

    # ------------------------------------------------------------ checkpoints
    def tag(self, steps: int) -> str:
        return f"{steps:012d}"

    def complete(self) -> list[int]:
        """The learner steps of the complete checkpoints, oldest first."""
        return sorted(int(p.stem.split("_")[1]) for p in self.checkpoints.glob(f"{STATE}_*.pt"))

    def files_of(self, steps: int) -> list[Path]:
        """Every file of the checkpoint at ``steps`` (``state_…`` first: removing it decommits)."""
        found = [p for p in self.checkpoints.glob(f"*_{self.tag(steps)}.*") if _CHECKPOINT_FILE.match(p.name)]
        return sorted(found, key=lambda p: not p.name.startswith(STATE))

    def save(self, learner: Any, first: dict[str, str] | None = None) -> Path:
        """Checkpoint ``learner``: the ``first`` files (name → text), its policy, its state (the
        commit), then ``policy.zip``; then prune.  A failure removes this checkpoint's files."""
        import io

        import torch

        tag = self.tag(learner.steps)
        written: list[Path] = []
        try:
            for name, text in (first or {}).items():
                written.append(write_atomically(self.checkpoints / name, text))
            policy: Path = learner.save_policy(self.checkpoints / f"policy_{tag}.zip")
            written.append(policy)
            buffer = io.BytesIO()
            torch.save(learner.state_dict(), buffer)
            written.append(write_atomically(self.checkpoints / f"{STATE}_{tag}.pt", buffer.getvalue()))
        except BaseException:
            for path in reversed(written):  # the state first: nothing half-written looks complete
                path.unlink(missing_ok=True)
            raise
        write_atomically(self.path / LATEST, policy.read_bytes())
        logger.info("checkpoint at %d learner steps: %s", learner.steps, policy)
        self.prune(learner.settings.keep_checkpoints)
        return policy

    def prune(self, keep: int) -> None:
        """Delete all but the newest ``keep`` complete checkpoints (0: keep all)."""
        if keep:
            for steps in self.complete()[:-keep]:
                for path in self.files_of(steps):
                    path.unlink(missing_ok=True)

    def latest(self, load: Callable[[int], T]) -> tuple[int, T, list[int]]:
        """``(steps, load(steps), damaged)``: the newest checkpoint ``load`` reads without a
        :class:`ConfigError`, and the newer ones it could not read (each logged as one line)."""
        steps = self.complete()
        if not steps:
            raise ConfigError(f"no complete checkpoint to resume in {self.checkpoints}")
        damaged: list[int] = []
        for at in reversed(steps):
            try:
                return at, load(at), damaged
            except ConfigError as exc:
                if at == steps[0]:
                    raise ConfigError(f"{exc}; no earlier complete checkpoint to fall back to") from None
                logger.warning("%s; falling back to the previous checkpoint", exc)
                damaged.append(at)
        raise AssertionError("unreachable")  # pragma: no cover

    # ------------------------------------------------------------ progress and resume
    def log(self, stats: dict[str, float]) -> None:
        """Append one iteration's statistics to ``progress.jsonl`` (a failed write is undone)."""
        append_line(self.path / PROGRESS, json.dumps(stats))

    def repair(self, steps: int, damaged: list[int]) -> dict[str, Any]:
        """Before a resume from ``steps`` (holding the lock): set the ``damaged`` checkpoints aside,
        remove ``.partial`` files and incomplete checkpoints, and take the progress lines past
        ``steps`` (another future, which the resumed run writes again) or torn ones out of
        ``progress.jsonl``.  Returns what was done, for the resume record."""
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
            (kept if row is not None and row.get("steps", 0) <= steps else dropped).append(line)
        if dropped:
            write_atomically(progress, "".join(f"{line}\n" for line in kept))
        return {
            "damaged_checkpoints": damaged,
            "partial_files_removed": partials,
            "incomplete_checkpoint_files_removed": sorted(removed),
            "progress_lines_dropped": dropped,
        }

    def record_resume(self, record: dict[str, Any]) -> None:
        """Append one line to ``resumes.jsonl``."""
        append_line(self.path / RESUMES, json.dumps(record))


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
    except ValueError:
        return None
    return row if isinstance(row, dict) else None


__all__ = [
    "CHECKPOINTS",
    "LATEST",
    "LEAGUE",
    "LEARN",
    "PROGRESS",
    "RESUMES",
    "SETTINGS",
    "RunFolder",
    "folder_kind",
    "read_json",
]
