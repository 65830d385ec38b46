"""The recipes' settings checked before anything exists: ranges, names, agent specs, checkpoints.

A training run is hours of compute, so every argument is checked before any
folder, worker process or model exists: a typo costs a second and leaves nothing
behind (docs/design.md §4).  Each failure is one :class:`ConfigError` that names
the ``--flag``.
"""

from __future__ import annotations

import dataclasses
import math
import zipfile
from pathlib import Path
from typing import Any

from hoity_env.agents import make
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.registry import BATCHED_RULESETS
from hoity_env.environment.rewards import REWARD_MODES

ZOO = ("expert", "collector", "thief", "detective", "random")
"""The scripted zoo: training opponents and evaluation yardsticks (``expert-v1``, the first
expert, is left out: name it to add it)."""

LEARNERS = ("fast", "sb3")
"""``--learner`` choices (selfplay.py, shared_ppo.py): the fast learner (``fast_run.py``) or MaskablePPO."""

VEC_ENVS = ("batched", "subproc", "dummy")
"""``--vec-env`` choices (``model_setup.make_vec_env``)."""


def specs(text: str) -> list[str]:
    """``"expert,random"`` → ``["expert", "random"]``; ``"zoo"`` → the scripted zoo."""
    out = [s.strip() for s in text.split(",") if s.strip()]
    return list(ZOO) if out == ["zoo"] else out


def flag(name: str) -> str:
    """The command-line flag of an ``Args`` field: ``n_envs`` → ``--n-envs``."""
    return "--" + name.replace("_", "-")


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


def check_args(args: Any) -> None:
    """Raise :class:`ConfigError` naming the first bad ``--flag`` of a recipe's ``Args``.

    Checks ranges, names, the agent specs (each built once, so a bad checkpoint
    fails here) and the checkpoint to resume from; creates nothing.
    """
    values = dataclasses.asdict(args)
    for name in _AT_LEAST_ONE:
        if name in values and (not isinstance(values[name], int) or values[name] < 1):
            raise ConfigError(f"{flag(name)} must be an integer >= 1, got {values[name]!r}")
    for name in ("select_best",):
        if name in values and values[name] < 0:
            raise ConfigError(f"{flag(name)} must be >= 0, got {values[name]}")
    if not MIN_PLAYERS <= args.num_players <= MAX_PLAYERS:
        raise ConfigError(f"--num-players must be in [{MIN_PLAYERS}, {MAX_PLAYERS}], got {args.num_players}")
    if args.reward not in REWARD_MODES:
        raise ConfigError(f"--reward must be one of {REWARD_MODES}, got {args.reward!r}")
    if "vec_env" in values and args.vec_env not in VEC_ENVS:  # shared_ppo.py has the batched one only
        raise ConfigError(f"--vec-env must be one of {VEC_ENVS}, got {args.vec_env!r}")
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
    if "learner" in values and args.learner not in LEARNERS:
        raise ConfigError(f"--learner must be one of {LEARNERS}, got {args.learner!r}")
    # SB3 envs: --n-envs, or every seat of every game with parameter sharing (shared_ppo.py).
    envs = values["n_envs"] if "n_envs" in values else args.num_games * args.num_players
    rollout = args.n_steps * envs
    if values.get("learner", "sb3") == "sb3" and not 2 <= args.batch_size <= rollout:
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
                raise ConfigError(f"{flag(name)} names no agent: {values[name]!r}")
            for spec in dict.fromkeys(agents):
                try:
                    make(spec, num_players=args.num_players, rules=rules, num_actions=num_actions)
                except ConfigError as exc:
                    raise ConfigError(f"{flag(name)}: {exc}") from exc
    if args.resume:
        check_checkpoint(args.resume, args.num_players, num_actions, rules)


def _check_real(args: Any, name: str, low: float, high: float, *, low_open: bool = False) -> None:
    value = getattr(args, name)
    ok = (
        isinstance(value, (int, float))
        and math.isfinite(value)
        and (low < value if low_open else low <= value)
    )
    if not ok or value > high:
        bounds = f"{'(' if low_open else '['}{low}, {high}{']' if math.isfinite(high) else ')'}"
        raise ConfigError(f"{flag(name)} must be in {bounds}, got {value!r}")


def _num_actions(num_players: int, rules: str = "standard") -> int:
    from hoity_env.engine.game import Game

    return Game(rules, num_players).num_actions


def check_zip(path: str) -> None:
    """A checkpoint file that is an intact MaskablePPO zip, else :class:`ConfigError` (nothing loaded)."""
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


def check_checkpoint(path: str, num_players: int, num_actions: int, rules: str = "standard") -> None:
    """A checkpoint to resume from: an intact MaskablePPO zip for this game, else :class:`ConfigError`."""
    check_zip(path)
    try:
        make(f"ppo:{path}", num_players=num_players, rules=rules, num_actions=num_actions)
    except ConfigError as exc:
        raise ConfigError(f"--resume: {exc}") from exc
