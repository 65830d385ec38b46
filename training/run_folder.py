"""The recipes' run folders: the package's one run folder, with a recipe's settings and checkpoints.

A recipe's run folder is a :class:`hoity_env.learning.runs.folder.RunFolder` of kind
``training-recipe``, so it keeps that module's rules (docs/guarantees.md): a fresh run gets
``runs/<name>`` or the first free ``<name>_2``, … (never an earlier run's, never another
run's started together), one process at a time writes it (its lock is held while the recipe
runs: :func:`run_folder`), a folder of another kind or format is refused, and a finished
run (``finished.json``, written after ``final_model.zip`` and ``evaluation.json``) is final.
What is the recipe's own:

* its settings are ``args.json``, the recipe's ``Args`` as written (never rewritten);
  ``--resume RUN_FOLDER`` (its latest complete checkpoint) or ``--resume CHECKPOINT``
  continues in the run folder the checkpoint belongs to with those settings: a flag that
  contradicts them is refused by the run folder's resume rule, except the few of
  :data:`OVERRIDES`, which are printed at start (:func:`resume_settings`);
* its checkpoints are SB3 zips (``curve_<N>.zip``, ``<name>_<N>_steps.zip``), saved
  atomically (:func:`save_model`); the latest intact one resumes, and an earlier one than
  the run's latest is refused (what came after it would be replaced);
* each resume appends a record to ``resumes.jsonl``, with the curve and log rows past the
  checkpoint (another future, which the resumed run replaces) moved into it
  (:func:`record_resume`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arg_checks import check_args, check_zip, flag

from hoity_env.engine.errors import ConfigError
from hoity_env.files import read_json, write_atomic
from hoity_env.learning.runs.folder import RECIPE, RunFolder, refuse_changes

ARGS = "args.json"
"""The recipe's settings, as the run was started with them."""

OVERRIDES = ("time_limit_minutes", "workers")
"""Settings a resume may change: how long this session trains and how many processes
evaluate (seeded games score the same with any worker count). Every other flag given
with ``--resume`` must equal the run's own ``args.json`` value."""

A = TypeVar("A")

_STEP = re.compile(r"^(?:curve_(\d+)|.+_(\d+)_steps)\.zip$")


@dataclass(frozen=True)
class Resume:
    """Where a resumed run continues: its folder, the checkpoint, and the overrides given."""

    run_dir: Path
    checkpoint: Path
    overrides: dict[str, tuple[Any, Any]]
    """``field -> (the run's value, this session's value)`` for each of :data:`OVERRIDES` changed."""


def checkpoint_step(path: Path) -> int | None:
    """The timestep count in a checkpoint's name (``curve_N.zip``, ``NAME_N_steps.zip``), else ``None``."""
    match = _STEP.match(path.name)
    return None if match is None else int(match.group(1) or match.group(2))


def _intact(path: Path) -> bool:
    try:
        check_zip(str(path))
    except ConfigError:
        return False
    return True


def latest_checkpoint(run: Path) -> Path | None:
    """The checkpoint of ``run/checkpoints/`` with the most timesteps that is an intact zip."""
    steps = {p: checkpoint_step(p) for p in (run / "checkpoints").glob("*.zip")}
    found = [(step, p) for p, step in steps.items() if step is not None]
    # At one step count the curve snapshot and a checkpoint hold the same model: either will do.
    for _, path in sorted(found, key=lambda sp: (sp[0], sp[1].name), reverse=True):
        if _intact(path):
            return path
    return None


def _run_of(target: Path) -> tuple[RunFolder | None, Path]:
    """``(run folder or None, checkpoint)`` of a ``--resume`` value; a folder gives its latest checkpoint.

    The run folder is checked (a recipe's, of this format, no live run writing it); a checkpoint
    outside any run folder starts a new run from its weights.
    """
    if target.is_dir():
        if not (target / ARGS).is_file():
            raise ConfigError(f"--resume: {target} is not a run folder (it holds no {ARGS})")
        folder = RunFolder.open(target, RECIPE)
        checkpoint = latest_checkpoint(target)
        if checkpoint is None and not folder.finished:
            raise ConfigError(
                f"--resume: {target} holds no complete checkpoint in checkpoints/ (it was stopped "
                "before its first one): start it again as a new run"
            )
        return folder, checkpoint or target / "final_model.zip"
    if not target.is_file():
        raise ConfigError(f"--resume: checkpoint file not found: {target}")
    here = target.resolve()
    run = next((d for d in (here.parent, here.parent.parent) if (d / ARGS).is_file()), None)
    return (None if run is None else RunFolder.open(run, RECIPE)), target


def read_args(run: Path) -> dict[str, Any]:
    """The run's ``args.json`` (its one reader): a JSON object, else a :class:`ConfigError` naming it."""
    saved = read_json(run / ARGS)
    if not isinstance(saved, dict):
        raise ConfigError(f"{run / ARGS} is damaged (not a JSON object of settings)")
    return saved


def resume_settings(cls: type[A], given: dict[str, Any]) -> tuple[A, Resume | None]:
    """The ``Args`` of a resume: the run's ``args.json``, with the flags ``given`` checked against it.

    A checkpoint outside any run folder starts a new run from its weights, with the
    settings given (``None`` for the resume). Raises :class:`ConfigError` when the
    run is finished, when an earlier checkpoint than the run's latest is named (its
    successors would be replaced), or when a flag contradicts the run's settings and
    is not one of :data:`OVERRIDES`; nothing has been written then.
    """
    folder, checkpoint = _run_of(Path(given["resume"]))
    if folder is None:
        return cls(**given), None
    run = folder.path
    if folder.finished:
        raise ConfigError(
            f"--resume: the run in {run} is finished (final_model.zip and evaluation.json are written); "
            "a finished run is final and nothing in it is replaced: train on as a new run (a checkpoint "
            "copied out of the folder and --resume'd starts one from its weights)"
        )
    step, latest = checkpoint_step(checkpoint), latest_checkpoint(run)
    latest_step = checkpoint_step(latest) if latest is not None else None
    if step is not None and latest_step is not None and step < latest_step:
        raise ConfigError(
            f"--resume {checkpoint}: the run in {run} has a later checkpoint, {latest}; resuming an "
            f"earlier one would replace what came after it: resume the latest (--resume {run})"
        )
    saved = read_args(run)
    fields = {f.name: f.default for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(saved) - set(fields))
    if unknown:
        raise ConfigError(
            f"--resume: {run / ARGS} has settings this recipe does not take ({', '.join(unknown)}): "
            "resume it with the recipe that made it"
        )
    values = {name: saved.get(name, default) for name, default in fields.items()}

    def agrees(name: str, value: Any) -> bool:  # the run's own value, its own name or runs folder
        if name == "name" and value == run.name:
            return True
        return value == values[name] or (name == "runs_dir" and Path(value).resolve() == run.parent.resolve())

    overrides = {n: (values[n], v) for n, v in given.items() if n in OVERRIDES and v != values[n]}
    changes = [
        (flag(n), v, values[n])
        for n, v in given.items()
        if n not in (*OVERRIDES, "resume") and not agrees(n, v)
    ]
    refuse_changes(changes, run, ARGS, ", ".join(flag(o) for o in OVERRIDES))
    values.update({name: new for name, (_, new) in overrides.items()}, resume=str(checkpoint))
    return cls(**values), Resume(run, checkpoint, overrides)


@contextmanager
def run_folder(args: Any, resume: Resume | None, *subdirs: str) -> Iterator[Path]:
    """Check the recipe's ``Args``, then make (or reopen) its run folder and hold its lock.

    Bad arguments (agent specs included) fail before any folder or worker process exists
    (``arg_checks.check_args``). A fresh run gets ``runs_dir/name`` or the first free
    ``name_2``, … (``RunFolder.create``), made with its ``args.json`` and ``checkpoints/``;
    a resume continues in its own folder and leaves ``args.json`` as it was. ``subdirs``
    are made inside.  The lock is held until the block ends (the recipe's whole run).
    """
    check_args(args)
    if resume is None:
        text = json.dumps(dataclasses.asdict(args), indent=1)
        base = Path(args.runs_dir) / args.name
        folder = RunFolder.create(base, RECIPE, {ARGS: text}, next_free=True)
        if folder.path != base:
            print(f"{base} holds an earlier run; writing to {folder.path}", flush=True)
    else:
        folder = RunFolder(resume.run_dir, RECIPE)
    with folder.locked():
        for sub in ("checkpoints", *subdirs):
            (folder.path / sub).mkdir(parents=True, exist_ok=True)
        if resume is not None:
            print(f"resuming {folder.path} from {resume.checkpoint} with the run's own settings ({ARGS})")
            for name, (old, new) in resume.overrides.items():
                print(f"  override {flag(name)}: {new!r} (the run's: {old!r})")
        yield folder.path


def mark_finished(run_dir: Path, timesteps: int) -> None:
    """The run reached its end (``final_model.zip`` and ``evaluation.json`` written): it is final."""
    RunFolder(run_dir, RECIPE).finish({"timesteps": timesteps})


# ------------------------------------------------------------------ atomic writes
SAVE_EXCLUDE = ("tensorboard_log",)
"""Left out of every saved model: a model we publish must carry no path of the machine
that made it (the recipes log through their own logger, ``model_setup.run_logger``)."""


def save_model(model: Any, path: Path) -> None:
    """Atomic ``model.save(path)`` without the machine-specific fields of :data:`SAVE_EXCLUDE`:
    a kill mid-save leaves the old file (or none), never half a zip."""
    write_atomic(path, lambda fh: model.save(fh, exclude=list(SAVE_EXCLUDE)), binary=True)


def copy_file(source: Path, path: Path) -> None:
    """Atomic copy of ``source`` to ``path``."""
    write_atomic(path, lambda fh: fh.write(source.read_bytes()), binary=True)


# ------------------------------------------------------------------ resume records
def trim_csv(path: Path, column: str, timesteps: int) -> list[dict[str, str]]:
    """Drop the rows of ``path`` whose ``column`` exceeds ``timesteps`` (atomically); returns them."""
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields = list(reader.fieldnames or [])
        rows = list(reader)

    def late(row: dict[str, str]) -> bool:
        value = row.get(column) or ""
        return bool(value) and float(value) > timesteps

    dropped = [r for r in rows if late(r)]
    if dropped:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(r for r in rows if not late(r))
        write_atomic(path, lambda fh: fh.write(out.getvalue()))
    return dropped


def curve_timesteps(csv_path: Path) -> set[int]:
    """Timesteps already on the learning curve."""
    if not csv_path.is_file():
        return set()
    with csv_path.open(newline="") as fh:
        return {int(row["timesteps"]) for row in csv.DictReader(fh)}


def record_resume(run_dir: Path, args: Any, timesteps: int, resume: Resume) -> None:
    """Append the run folder's resume record; curve and log rows past the checkpoint move into it
    (another future). Without this the resumed run would log those timesteps again: duplicate rows."""
    RunFolder(run_dir, RECIPE).record_resume(
        timesteps,
        {name: new for name, (_, new) in resume.overrides.items()},
        checkpoint=str(resume.checkpoint),
        args=dataclasses.asdict(args),
        curve_rows_after_checkpoint=trim_csv(run_dir / "curve.csv", "timesteps", timesteps),
        progress_rows_after_checkpoint=trim_csv(run_dir / "progress.csv", "time/total_timesteps", timesteps),
    )
