"""Run folders that survive mistakes: checked arguments, resume in place, atomic writes, Ctrl-C.

A training run is hours of compute, so the recipes promise (docs/design.md §4):

* every argument is checked before any folder, worker process or model exists,
  so a typo costs a second and leaves nothing behind (:func:`check_args`);
* ``--resume CHECKPOINT`` continues in the run folder the checkpoint belongs to,
  never in another run's; the original ``args.json`` stays as written and each
  resume appends a record to ``resumes.jsonl`` (:func:`resume_folder`,
  :func:`record_resume`); ``--total-timesteps`` stays a total;
* every file is written under a temporary name and renamed into place, so a kill
  mid-save never leaves a truncated checkpoint under its real name (:func:`save_model`);
* Ctrl-C saves a checkpoint, prints how to resume and exits with status 130
  (:func:`interrupted`).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import shlex
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from hoity_env.agents import make
from hoity_env.engine.batched import BATCHED_RULESETS
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.rewards import REWARD_MODES
from hoity_env.files import write_atomic

RESUMES = "resumes.jsonl"
"""One JSON line per resume of a run (the original ``args.json`` is never rewritten)."""

_AT_LEAST_ONE = (
    "total_timesteps",
    "n_envs",
    "num_games",
    "n_steps",
    "n_epochs",
    "net_width",
    "eval_every",
    "eval_games",
    "final_eval_games",
    "validation_games",
    "checkpoint_every",
    "workers",
    "gate_every",
    "gate_games",
    "max_snapshots",
    "snapshot_weight",
)
_SPEC_FIELDS = ("opponents", "zoo", "eval_opponents")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _default(args: Any, name: str) -> Any:
    return next(f.default for f in dataclasses.fields(args) if f.name == name)


def check_args(args: Any, specs: Callable[[str], list[str]], vec_envs: Sequence[str]) -> None:
    """Raise :class:`ConfigError` naming the first bad ``--flag`` of a recipe's ``Args``.

    Checks ranges, names, the agent specs (each built once, so a bad checkpoint
    fails here) and the checkpoint to resume from; creates nothing.
    """
    values = dataclasses.asdict(args)
    for name in _AT_LEAST_ONE:
        if name in values and (not isinstance(values[name], int) or values[name] < 1):
            raise ConfigError(f"{_flag(name)} must be an integer >= 1, got {values[name]!r}")
    for name in ("select_best",):
        if name in values and values[name] < 0:
            raise ConfigError(f"{_flag(name)} must be >= 0, got {values[name]}")
    if not MIN_PLAYERS <= args.num_players <= MAX_PLAYERS:
        raise ConfigError(f"--num-players must be in [{MIN_PLAYERS}, {MAX_PLAYERS}], got {args.num_players}")
    if args.reward not in REWARD_MODES:
        raise ConfigError(f"--reward must be one of {REWARD_MODES}, got {args.reward!r}")
    if "vec_env" in values and args.vec_env not in vec_envs:  # shared_ppo.py has the batched one only
        raise ConfigError(f"--vec-env must be one of {tuple(vec_envs)}, got {args.vec_env!r}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    _check_real(args, "learning_rate", 0.0, math.inf, low_open=True)
    _check_real(args, "final_lr_fraction", 0.0, 1.0)
    _check_real(args, "gamma", 0.0, 1.0, low_open=True)
    _check_real(args, "gae_lambda", 0.0, 1.0)
    _check_real(args, "ent_coef", 0.0, math.inf)
    _check_real(args, "time_limit_minutes", 0.0, math.inf)
    if "gate_win_rate" in values:  # above 1 closes the gate: a legitimate "never admit"
        _check_real(args, "gate_win_rate", 0.0, math.inf)
    # SB3 envs: --n-envs, or every seat of every game with parameter sharing (shared_ppo.py).
    envs = values["n_envs"] if "n_envs" in values else args.num_games * args.num_players
    rollout = args.n_steps * envs
    if not 2 <= args.batch_size <= rollout:
        raise ConfigError(
            f"--batch-size must be in [2, n_steps * envs = {rollout}] (PPO needs 2 samples), "
            f"got {args.batch_size}"
        )
    if not args.name or args.name in (".", "..") or any(c in args.name for c in "/\\"):
        raise ConfigError(f"--name must be a plain folder name, got {args.name!r}")
    if not args.runs_dir:
        raise ConfigError("--runs-dir must not be empty")
    rules = getattr(args, "rules", "standard")
    if rules not in PRESETS:
        raise ConfigError(f"--rules must be one of {sorted(PRESETS)}, got {rules!r}")
    if "vec_env" not in values and PRESETS[rules].ruleset not in BATCHED_RULESETS:
        raise ConfigError(
            f"--rules {rules}: this recipe trains on the batched engine, which plays the rulesets "
            f"{BATCHED_RULESETS}; use training/train_ppo.py or training/selfplay.py for {rules!r}"
        )
    num_actions = _num_actions(args.num_players, rules)
    for name in _SPEC_FIELDS:
        if name in values:
            agents = specs(values[name])
            if not agents:
                raise ConfigError(f"{_flag(name)} names no agent: {values[name]!r}")
            for spec in dict.fromkeys(agents):
                try:
                    make(spec, num_players=args.num_players, num_actions=num_actions)
                except ConfigError as exc:
                    raise ConfigError(f"{_flag(name)}: {exc}") from exc
    if args.resume:
        check_checkpoint(args.resume, args.num_players, num_actions)


def _check_real(args: Any, name: str, low: float, high: float, *, low_open: bool = False) -> None:
    value = getattr(args, name)
    ok = (
        isinstance(value, (int, float))
        and math.isfinite(value)
        and (low < value if low_open else low <= value)
    )
    if not ok or value > high:
        bounds = f"{'(' if low_open else '['}{low}, {high}{']' if math.isfinite(high) else ')'}"
        raise ConfigError(f"{_flag(name)} must be in {bounds}, got {value!r}")


def _num_actions(num_players: int, rules: str = "standard") -> int:
    from hoity_env.engine.game import Game

    return Game(rules, num_players).num_actions


def check_checkpoint(path: str, num_players: int, num_actions: int) -> None:
    """A checkpoint to resume from: an intact MaskablePPO zip for this game, else :class:`ConfigError`."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"--resume: checkpoint file not found: {path}")
    try:
        with zipfile.ZipFile(file) as archive:
            damaged = archive.testzip()
            members = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise ConfigError(
            f"--resume: {path} is not an intact checkpoint zip (truncated or corrupt): {exc}"
        ) from exc
    if damaged is not None or not {"data", "policy.pth"} <= members:
        raise ConfigError(f"--resume: {path} is damaged or not a MaskablePPO checkpoint")
    try:
        make(f"ppo:{path}", num_players=num_players, num_actions=num_actions)
    except ConfigError as exc:
        raise ConfigError(f"--resume: {exc}") from exc


def resume_folder(args: Any) -> Path | None:
    """The run folder ``args.resume`` belongs to (it holds ``args.json``), or ``None``.

    A checkpoint sits in ``<run>/checkpoints/``, ``<run>/league/`` or ``<run>/`` itself.
    ``--name``/``--runs-dir`` left at their defaults follow the checkpoint; set to
    name another folder they are refused, so a resume never writes into another run.
    """
    if not args.resume:
        return None
    checkpoint = Path(args.resume).resolve()
    run = next(
        (d for d in (checkpoint.parent, checkpoint.parent.parent) if (d / "args.json").is_file()), None
    )
    if run is None:
        return None
    if args.name != _default(args, "name") and args.name != run.name:
        raise ConfigError(
            f"--resume {args.resume} belongs to run folder {run}; a resume continues there, "
            f"so --name must be {run.name!r} (or left out), not {args.name!r}"
        )
    if args.runs_dir != _default(args, "runs_dir") and Path(args.runs_dir).resolve() != run.parent:
        raise ConfigError(
            f"--resume {args.resume} belongs to run folder {run}; "
            f"--runs-dir must be {run.parent} (or left out)"
        )
    return run


# ------------------------------------------------------------------ atomic writes
SAVE_EXCLUDE = ("tensorboard_log",)
"""Left out of every saved model: the TensorBoard folder is an absolute path when
``--runs-dir`` is, and a model we publish must carry no path of the machine that made it.
Resuming sets it again (``common.build_model``)."""


def save_model(model: Any, path: Path) -> None:
    """Atomic ``model.save(path)`` without the machine-specific fields of :data:`SAVE_EXCLUDE`:
    a kill mid-save leaves the old file (or none), never half a zip."""
    write_atomic(path, lambda fh: model.save(fh, exclude=list(SAVE_EXCLUDE)), binary=True)


def copy_file(source: Path, path: Path) -> None:
    """Atomic copy of ``source`` to ``path``."""
    write_atomic(path, lambda fh: fh.write(source.read_bytes()), binary=True)


# ------------------------------------------------------------------ resume records
def curve_timesteps(csv_path: Path) -> set[int]:
    """Timesteps already on the learning curve."""
    if not csv_path.is_file():
        return set()
    with csv_path.open(newline="") as fh:
        return {int(row["timesteps"]) for row in csv.DictReader(fh)}


def record_resume(run_dir: Path, args: Any, timesteps: int) -> None:
    """Append a resume record; curve rows past the checkpoint move into it (they were another future).

    Without this the resumed run would score those timesteps again: duplicate rows.
    """
    csv_path = run_dir / "curve.csv"
    dropped: list[dict[str, str]] = []
    if csv_path.is_file():
        with csv_path.open(newline="") as fh:
            reader = csv.DictReader(fh)
            fields = list(reader.fieldnames or [])
            rows = list(reader)
        kept = [r for r in rows if int(r["timesteps"]) <= timesteps]
        dropped = [r for r in rows if int(r["timesteps"]) > timesteps]
        if dropped:

            def write(fh: Any) -> None:
                writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
                writer.writeheader()
                writer.writerows(kept)

            write_atomic(csv_path, write)
    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "checkpoint": args.resume,
        "timesteps": timesteps,
        "args": dataclasses.asdict(args),
        "curve_rows_after_checkpoint": dropped,
    }
    with (run_dir / RESUMES).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def interrupted(model: Any, args: Any, run_dir: Path, script: str) -> NoReturn:
    """Ctrl-C: save a checkpoint, say how to resume, exit with status 130."""
    path = run_dir / "checkpoints" / f"{args.name}_{model.num_timesteps}_steps.zip"
    save_model(model, path)
    skip = {"resume", "name", "runs_dir"}
    flags = [
        f"{_flag(f.name)} {shlex.quote(str(getattr(args, f.name)))}"
        for f in dataclasses.fields(args)
        if f.name not in skip and getattr(args, f.name) != f.default and not isinstance(f.default, bool)
    ]
    print(
        f"\ninterrupted at {model.num_timesteps:,} timesteps; saved {path} "
        f"(curve and args are in {run_dir})\n"
        f"resume with: python {script} --resume {shlex.quote(str(path))} {' '.join(flags)}".rstrip(),
        file=sys.stderr,
        flush=True,
    )
    raise SystemExit(130)


def run_cli(main: Callable[[], object], prog: str) -> int:
    """Run a recipe's ``main``; a :class:`ConfigError` becomes one line on stderr and status 2."""
    try:
        main()
    except ConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    return 0
