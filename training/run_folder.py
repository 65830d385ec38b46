"""Run folders that survive mistakes: one folder per run, resume in place with the run's own settings.

A training run is hours of compute, so the recipes promise (docs/design.md §4):

* a fresh run never writes into an older run's folder, and two runs started together
  never share one (:func:`run_directory`);
* ``--resume RUN_FOLDER`` (its latest complete checkpoint) or ``--resume CHECKPOINT``
  continues in the run folder the checkpoint belongs to, with the settings of that
  run's ``args.json``: a flag that contradicts them is refused, except the few of
  :data:`OVERRIDES`, which are printed at start (:func:`resume_settings`);
* a finished run (``final_model.zip`` and ``evaluation.json`` written) is final: a
  resume is refused and nothing in its folder changes;
* the original ``args.json`` stays as written; each resume appends a record to
  ``resumes.jsonl``, with the curve and log rows past the checkpoint (another
  future, which the resumed run replaces) moved into it (:func:`record_resume`);
* every file is written under a temporary name and renamed into place, so a kill
  mid-save never leaves a truncated checkpoint under its real name (:func:`save_model`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arg_checks import check_args, check_zip, flag

from hoity_env.engine.errors import ConfigError
from hoity_env.files import create_first_file, write_atomic

RESUMES = "resumes.jsonl"
"""One JSON line per resume of a run (the original ``args.json`` is never rewritten)."""

OVERRIDES = ("time_limit_minutes", "workers")
"""Settings a resume may change: how long this session trains and how many processes
evaluate (seeded games score the same with any worker count). Every other flag given
with ``--resume`` must equal the run's own ``args.json`` value."""

LEGACY = {"learner": "sb3"}
"""What an ``args.json`` written before a setting existed meant by leaving it out (runs made
before ``--learner`` trained with MaskablePPO, whatever today's default)."""

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


def finished(run: Path) -> bool:
    """A run is finished once its final model and its evaluation report are written."""
    return (run / "final_model.zip").is_file() and (run / "evaluation.json").is_file()


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


def _run_of(target: Path) -> tuple[Path | None, Path]:
    """``(run folder or None, checkpoint)`` of a ``--resume`` value; a folder gives its latest checkpoint."""
    if target.is_dir():
        if not (target / "args.json").is_file():
            raise ConfigError(f"--resume: {target} is not a run folder (it holds no args.json)")
        if finished(target):
            return target, target / "final_model.zip"
        checkpoint = latest_checkpoint(target)
        if checkpoint is None:
            raise ConfigError(
                f"--resume: {target} holds no complete checkpoint in checkpoints/ (it was stopped "
                "before its first one): start it again as a new run"
            )
        return target, checkpoint
    if not target.is_file():
        raise ConfigError(f"--resume: checkpoint file not found: {target}")
    here = target.resolve()
    run = next((d for d in (here.parent, here.parent.parent) if (d / "args.json").is_file()), None)
    return run, target


def resume_settings(cls: type[A], given: dict[str, Any]) -> tuple[A, Resume | None]:
    """The ``Args`` of a resume: the run's ``args.json``, with the flags ``given`` checked against it.

    A checkpoint outside any run folder starts a new run from its weights, with the
    settings given (``None`` for the resume). Raises :class:`ConfigError` when the
    run is finished, when an earlier checkpoint than the run's latest is named (its
    successors would be replaced), or when a flag contradicts the run's settings and
    is not one of :data:`OVERRIDES`; nothing has been written then.
    """
    run, checkpoint = _run_of(Path(given["resume"]))
    if run is None:
        return cls(**given), None
    if finished(run):
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
    saved = json.loads((run / "args.json").read_text(encoding="utf-8"))
    fields = {f.name: f.default for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(saved) - set(fields))
    if unknown:
        raise ConfigError(
            f"--resume: {run}/args.json has settings this recipe does not take ({', '.join(unknown)}): "
            "resume it with the recipe that made it"
        )
    values = {name: saved.get(name, LEGACY.get(name, default)) for name, default in fields.items()}
    overrides: dict[str, tuple[Any, Any]] = {}
    for name, value in given.items():
        if name == "resume" or value == values[name]:
            continue
        if name == "name" and value == run.name:
            continue
        if name == "runs_dir" and Path(value).resolve() == run.parent.resolve():
            continue
        if name in OVERRIDES:
            overrides[name] = (values[name], value)
            values[name] = value
            continue
        allowed = ", ".join(flag(o) for o in OVERRIDES)
        raise ConfigError(
            f"{flag(name)} {value!r}: the run in {run} was made with {flag(name)} {values[name]!r} "
            f"(its args.json); a resume keeps the run's own settings and may change only {allowed}: "
            "leave the flag out, or start a new run"
        )
    values["resume"] = str(checkpoint)
    return cls(**values), Resume(run, checkpoint, overrides)


def run_directory(runs_dir: str, name: str, args_json: str = "{}") -> Path:
    """The run folder ``runs_dir/name``, or ``name_2``, ``name_3``, … if that one is taken,
    claimed by creating its ``args.json`` (``args_json``) exclusively.

    A fresh run never writes into an older run's folder: its curve would be appended
    to the old one and ``--select-best`` could pick the old run's snapshots.  And two
    runs started together never share one: the folder is theirs who created its
    ``args.json`` first (:func:`hoity_env.files.create_first_file`; a look, then a
    ``mkdir`` and a write, let two runs take the same one).
    """
    base = Path(runs_dir) / name
    run_dir = create_first_file(base, "args.json", args_json)
    if run_dir != base:
        print(f"{base} holds an earlier run; writing to {run_dir}", flush=True)
    return run_dir


def start_run(args: Any, resume: Resume | None, *subdirs: str) -> Path:
    """Check the recipe's ``Args``, then make (or reopen) its run folder.

    Bad arguments (agent specs included) fail before any folder or worker process
    exists (``arg_checks.check_args``). A fresh run gets :func:`run_directory`'s
    folder, created with its ``args.json``, and ``checkpoints/`` and ``subdirs``
    inside; a resume continues in its own folder and leaves ``args.json`` as it was.
    """
    check_args(args)
    if resume is None:
        run_dir = run_directory(args.runs_dir, args.name, json.dumps(dataclasses.asdict(args), indent=1))
    else:
        run_dir = resume.run_dir
    for sub in ("checkpoints", *subdirs):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    if resume is None:
        return run_dir
    print(f"resuming {run_dir} from {resume.checkpoint} with the run's own settings (args.json)")
    for name, (old, new) in resume.overrides.items():
        print(f"  override {flag(name)}: {new!r} (the run's: {old!r})")
    return run_dir


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
    """Append a resume record; curve and log rows past the checkpoint move into it (another future).

    Without this the resumed run would log those timesteps again: duplicate rows.
    """
    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "checkpoint": str(resume.checkpoint),
        "timesteps": timesteps,
        "args": dataclasses.asdict(args),
        "overrides": {name: new for name, (_, new) in resume.overrides.items()},
        "curve_rows_after_checkpoint": trim_csv(run_dir / "curve.csv", "timesteps", timesteps),
        "progress_rows_after_checkpoint": trim_csv(
            run_dir / "progress.csv", "time/total_timesteps", timesteps
        ),
    }
    with (run_dir / RESUMES).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
