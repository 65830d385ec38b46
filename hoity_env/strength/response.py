"""What a best response is trained with: the learner, its settings, its budget and curve, its checks.

:class:`BestResponse` holds everything about a best response's training that is not how its evaluation
games are played (that is :class:`~hoity_env.evaluation.MatchSettings`); both are checked when built,
before any folder or model exists.  A best response's **estimator** (learner, settings preset, memory,
start: :mod:`hoity_env.strength.start`) is named in every report beside the seed and budget.
See docs/evaluation.md (approximate exploitability, the default best response).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoity_env.agents.policies.sb3 import TRAIN_EXTRA
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.registry import BATCHED_RULESETS
from hoity_env.evaluation.harness import check_specs
from hoity_env.evaluation.settings import MatchSettings
from hoity_env.learning.bounds import MAX_STEPS
from hoity_env.strength.start import (
    CURRICULUM_FRACTION,
    DEFAULT_START,
    check_start,
    start_label,
    start_settings,
)

if TYPE_CHECKING:  # torch only when a fast learner is built
    from hoity_env.learning import LearnerSettings

__all__ = [
    "DEFAULT_PRESET",
    "FAST_SETTINGS",
    "LEARNERS",
    "PPO_SETTINGS",
    "PRESETS",
    "STRONG_SETTINGS",
    "BestResponse",
    "caveat",
    "check_targets",
    "learner_settings",
    "maskable_ppo",
    "run_folder_name",
]

LEARNERS = ("fast", "sb3")
"""Who trains a best response: the fast learner on the batched engine (the default) or SB3's
MaskablePPO on the batched vector env (the reference recipes' learner; docs/evaluation.md)."""

PPO_SETTINGS: dict[str, Any] = {
    "n_envs": 16,
    "n_steps": 256,
    "batch_size": 512,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "net_width": 128,
    "reward": "progress",
}
"""The best responder's settings: ``training/train_ppo.py``'s defaults (the learner that made the
reference agent), so a budget here means what it means there."""

FAST_SETTINGS: dict[str, Any] = {
    "num_games": 1024,
    "rollout_steps": 16,
    "epochs": 1,
    "minibatch_size": 1024,
    "learning_rate": 2e-3,
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "hidden": [64, 64],
    "activation": "relu",
    "reward": "progress",
}
"""The ``fast`` preset: the fast best responder's :class:`~hoity_env.learning.LearnerSettings` fields
(JSON form: ``hidden`` a list); the target, budget, players, rules and seed come from the call.
Chosen for speed on 2M-step best responses to ``expert`` (``benchmarks/tune_best_response.py``;
docs/learning.md, where it is used); the league's exploiters use it."""

STRONG_SETTINGS: dict[str, Any] = {
    **FAST_SETTINGS,
    "hidden": [256, 256],
    "epochs": 4,
    "learning_rate": 1e-3,
}
"""The ``strong`` preset, the default: :data:`FAST_SETTINGS` with a 256×256 network, four epochs per
update and rate 1e-3, chosen for strength at 2M learner steps against ``champion-mix`` and ``champion``
(docs/evaluation.md, the default best response), for several times the CPU of :data:`FAST_SETTINGS`."""

PRESETS: dict[str, dict[str, Any]] = {"strong": STRONG_SETTINGS, "fast": FAST_SETTINGS}
"""The fast learner's named settings."""
DEFAULT_PRESET = "strong"

_FAST_FROM_CALL = ("opponents", "total_steps", "num_players", "rules", "seed")
_FAST_FROM_START = ("init", "curriculum", "curriculum_steps")
"""Set by a best response's start (:mod:`hoity_env.strength.start`), never as a setting."""


def caveat(budget: int, trained: int | None = None) -> str:
    """The sentence every report carries: what the number is and is not (``trained``: the steps
    actually trained, the budget rounded up to whole rollouts, when they differ from it)."""
    steps = budget if trained is None or trained == budget else trained
    asked = "" if steps == budget else f" (a budget of {budget:,}, rounded up to whole rollouts)"
    return (
        f"An estimate from below after {steps:,} learner steps of training{asked}: a best response "
        "trained longer (or by a better learner) can only win more often."
    )


def learner_settings(
    ppo: dict[str, Any] | None, learner: str = "fast", preset: str | None = None
) -> dict[str, Any]:
    """The ``learner``'s defaults with ``ppo``'s overrides: the fast learner's ``preset`` (one of
    :data:`PRESETS`, default :data:`DEFAULT_PRESET`), or SB3's :data:`PPO_SETTINGS` (no preset).

    An unknown key or preset, or a value the fast learner refuses, is a :class:`ConfigError`.
    """
    if learner not in LEARNERS:
        raise ConfigError(f"learner must be one of {LEARNERS}, got {learner!r}")
    if learner == "sb3" and preset is not None:
        raise ConfigError(
            f"presets name the fast learner's settings; sb3 has one (PPO_SETTINGS), got {preset!r}"
        )
    if preset is not None and preset not in PRESETS:
        raise ConfigError(f"preset must be one of {tuple(PRESETS)}, got {preset!r}")
    defaults = PPO_SETTINGS if learner == "sb3" else PRESETS[preset or DEFAULT_PRESET]
    known = set(defaults)
    if learner == "fast":
        from hoity_env.learning import LearnerSettings

        known = {f.name for f in dataclasses.fields(LearnerSettings)} - {*_FAST_FROM_CALL, *_FAST_FROM_START}
    settings = {**defaults, **(ppo or {})}
    unknown = set(settings) - known
    if unknown:
        raise ConfigError(f"unknown {learner} learner settings {sorted(unknown)}; known: {sorted(known)}")
    if learner == "fast":
        fast_learner_settings(settings, "standard", 4, 0, 1, "random")  # checked now, before training
    return settings


def fast_learner_settings(
    settings: dict[str, Any], rules: str, num_players: int, seed: int, steps: int, target: str
) -> LearnerSettings:
    """The :class:`~hoity_env.learning.LearnerSettings` of a fast best response to ``target``."""
    from hoity_env.learning import LearnerSettings

    values = {**settings, "hidden": tuple(settings["hidden"])} if "hidden" in settings else dict(settings)
    return LearnerSettings(
        **values,
        opponents=((target, 1.0),),
        total_steps=steps,
        num_players=num_players,
        rules=rules,
        seed=seed,
    )


def maskable_ppo(env: Any, ppo: dict[str, Any], seed: int) -> Any:
    """SB3's MaskablePPO on ``env`` with ``ppo``'s hyperparameters (:data:`PPO_SETTINGS` keys), on the CPU."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=ppo["learning_rate"],
        n_steps=ppo["n_steps"],
        batch_size=ppo["batch_size"],
        n_epochs=ppo["n_epochs"],
        gamma=ppo["gamma"],
        gae_lambda=ppo["gae_lambda"],
        ent_coef=ppo["ent_coef"],
        seed=seed,
        device="cpu",
        policy_kwargs={"net_arch": [ppo["net_width"], ppo["net_width"]]},
    )


def run_folder_name(spec: str) -> str:
    """A folder name for an agent spec (``ppo:runs/a/final_model.zip`` → ``ppo-final_model``)."""
    name = spec.split(":", 1)
    text = name[0] if len(name) == 1 else f"{name[0]}-{Path(name[1]).stem}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "target"


@dataclasses.dataclass(frozen=True)
class BestResponse:
    """How each best response is trained (checked when built).

    Attributes:
        budget: learner steps (rounded up to whole rollouts: ``n_envs × n_steps`` for SB3,
            ``num_games × rollout_steps`` for the fast learner).
        curve_points: learning-curve points, evenly spaced over the budget (the last at
            its end), each ``curve_games`` games on seed ``seed + 1``; 0 = none.
        runs_dir: each target's run folder is ``runs_dir/<target>`` (``_2``, … when taken).
        ppo: the learner's settings: its defaults (the preset's, or :data:`PPO_SETTINGS`) with
            these overrides (the fast learner's ``memory`` among them).
        learner: ``"fast"`` (the fast learner, the default) or ``"sb3"`` (MaskablePPO).
        preset: the fast learner's settings to start from, a key of :data:`PRESETS` (``None``:
            :data:`DEFAULT_PRESET`); SB3 has none.
        start: how the fast learner starts, one of :data:`~hoity_env.strength.start.STARTS`:
            ``fresh`` (the default), ``warm`` (the actor from the target's weights) or
            ``curriculum`` (against ``expert`` first); MaskablePPO starts fresh.
        curriculum: the fraction of the budget a ``curriculum`` start plays ``expert``.
    """

    budget: int
    curve_points: int = 4
    curve_games: int = 200
    runs_dir: Path = Path("runs/exploit")
    ppo: dict[str, Any] | None = None
    learner: str = "fast"
    preset: str | None = None
    start: str = DEFAULT_START
    curriculum: float = CURRICULUM_FRACTION

    def __post_init__(self) -> None:
        if (
            not isinstance(self.budget, int)
            or isinstance(self.budget, bool)
            or not 1 <= self.budget <= MAX_STEPS
        ):
            raise ConfigError(
                f"budget must be an integer in [1, {MAX_STEPS:,}] (learner steps), got {self.budget!r}"
            )
        for name, least in (("curve_points", 0), ("curve_games", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ConfigError(f"{name} must be an integer >= {least}, got {value!r}")
        object.__setattr__(self, "runs_dir", Path(self.runs_dir))
        check_start(self.start, self.curriculum, self.learner)
        object.__setattr__(self, "ppo", learner_settings(self.ppo, self.learner, self.preset))

    @property
    def settings(self) -> dict[str, Any]:
        """The learner's full settings (what ``settings.json`` holds; a ladder reuses a run only
        with equal ones).  SB3's are :attr:`ppo` alone; the fast learner's name it, and a start
        other than ``fresh`` (a fresh start adds no key)."""
        assert self.ppo is not None  # filled in by __post_init__
        if self.learner == "sb3":
            return self.ppo
        start: dict[str, Any] = {} if self.start == DEFAULT_START else {"start": self.start}
        if self.start == "curriculum":
            start["curriculum"] = self.curriculum
        return {"learner": self.learner, **start, **self.ppo}

    @property
    def start_label(self) -> str:
        """The start as results record it: ``fresh``, ``warm`` or ``curriculum 0.25``."""
        return start_label(self.start, self.curriculum)

    def fast_settings(self, target: str, match: MatchSettings, steps: int) -> LearnerSettings:
        """The fast learner's :class:`~hoity_env.learning.LearnerSettings` of this best response to
        ``target`` at ``match``'s table and seed for ``steps`` learner steps, its start applied (a
        warm start reads the target's file: a scripted target is refused here)."""
        assert self.ppo is not None
        values = start_settings(
            self.ppo,
            self.start,
            self.curriculum,
            target=target,
            rules=match.rules_name,
            num_players=match.num_players,
            total=steps,
            preset=PRESETS[self.preset or DEFAULT_PRESET],
        )
        return fast_learner_settings(values, match.rules_name, match.num_players, match.seed, steps, target)

    @property
    def memory(self) -> int:
        """Rounds of public history the best response reads (the fast learner's ``memory``; 0: none)."""
        assert self.ppo is not None
        return int(self.ppo.get("memory", 0))

    @property
    def settings_name(self) -> str:
        """The settings' name in reports: the preset (``train_ppo`` for SB3's :data:`PPO_SETTINGS`),
        with ``+`` and the names of the settings changed from it (``memory`` is reported apart)."""
        assert self.ppo is not None
        name = "train_ppo" if self.learner == "sb3" else self.preset or DEFAULT_PRESET
        base = PPO_SETTINGS if self.learner == "sb3" else PRESETS[name]
        changed = [k for k, v in self.ppo.items() if k != "memory" and _plain(v) != _plain(base.get(k))]
        return f"{name}+{','.join(sorted(changed))}" if changed else name

    def estimator(self) -> dict[str, Any]:
        """``learner``, ``settings`` (:attr:`settings_name`), ``memory`` and ``start``
        (:attr:`start_label`): what a result records of who trained a best response."""
        return {
            "learner": self.learner,
            "settings": self.settings_name,
            "memory": self.memory,
            "start": self.start_label,
        }


def _plain(value: Any) -> Any:
    """A settings value as JSON has it (tuples are lists), so equal settings compare equal."""
    return list(value) if isinstance(value, tuple) else value


def check_targets(targets: Sequence[str], settings: MatchSettings) -> None:
    """Every target and the rules, before any folder or model exists."""
    if not isinstance(settings.rules, str) or settings.rules not in BATCHED_RULESETS:
        raise ConfigError(
            f"exploitability trains on the batched engine, which plays {', '.join(BATCHED_RULESETS)}; "
            f"got rules {settings.rules!r}"
        )
    if not targets:
        raise ConfigError("name at least one target agent")
    for spec in targets:
        check_specs([spec] * settings.num_players, settings.num_players, settings.rules)
    try:
        import sb3_contrib  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError(
            f"exploitability trains a MaskablePPO learner and needs the train extra: {TRAIN_EXTRA}"
        ) from exc
