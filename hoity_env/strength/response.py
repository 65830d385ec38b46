"""What a best response is trained with: the learner's settings, its budget and curve, its checks.

A best response is a fresh ``MaskablePPO`` learner trained against copies of a
target for a fixed **budget** of learner steps (:mod:`hoity_env.strength.exploit`).
:class:`BestResponse` holds everything about that training which is not how the
evaluation games are played (that is :class:`~hoity_env.evaluation.MatchSettings`):
the budget, the learning-curve points, where the run folders go and the PPO
settings.  Both are checked when built, before any folder or model exists.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hoity_env.agents.policy import TRAIN_EXTRA
from hoity_env.engine.batched import BATCHED_RULESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import check_specs
from hoity_env.evaluation.settings import MatchSettings

__all__ = ["PPO_SETTINGS", "BestResponse", "caveat", "check_targets", "learner_settings", "run_folder_name"]

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


def caveat(budget: int) -> str:
    """The sentence every report carries: what the number is and is not."""
    return (
        f"An estimate from below at a budget of {budget:,} learner steps: a best response "
        "trained longer (or by a better learner) can only win more often."
    )


def learner_settings(ppo: dict[str, Any] | None) -> dict[str, Any]:
    """:data:`PPO_SETTINGS` with ``ppo``'s overrides; an unknown key is a :class:`ConfigError`."""
    settings = {**PPO_SETTINGS, **(ppo or {})}
    unknown = set(settings) - set(PPO_SETTINGS)
    if unknown:
        raise ConfigError(f"unknown PPO settings {sorted(unknown)}; known: {sorted(PPO_SETTINGS)}")
    return settings


def run_folder_name(spec: str) -> str:
    """A folder name for an agent spec (``ppo:runs/a/final_model.zip`` → ``ppo-final_model``)."""
    name = spec.split(":", 1)
    text = name[0] if len(name) == 1 else f"{name[0]}-{Path(name[1]).stem}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "target"


@dataclasses.dataclass(frozen=True)
class BestResponse:
    """How each best response is trained (checked when built).

    Attributes:
        budget: learner steps (rounded up to whole rollouts of ``n_envs × n_steps``).
        curve_points: learning-curve points, evenly spaced over the budget (the last at
            its end), each ``curve_games`` games on seed ``seed + 1``; 0 = none.
        runs_dir: each target's run folder is ``runs_dir/<target>`` (``_2``, … when taken).
        ppo: the learner's settings, :data:`PPO_SETTINGS` with these overrides.
    """

    budget: int
    curve_points: int = 4
    curve_games: int = 200
    runs_dir: Path = Path("runs/exploit")
    ppo: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.budget, int) or isinstance(self.budget, bool) or self.budget < 1:
            raise ConfigError(f"budget must be an integer >= 1 (learner steps), got {self.budget!r}")
        for name, least in (("curve_points", 0), ("curve_games", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ConfigError(f"{name} must be an integer >= {least}, got {value!r}")
        object.__setattr__(self, "runs_dir", Path(self.runs_dir))
        object.__setattr__(self, "ppo", learner_settings(self.ppo))

    @property
    def learner(self) -> dict[str, Any]:
        """The learner's full settings (what ``settings.json`` holds)."""
        assert self.ppo is not None  # filled in by __post_init__
        return self.ppo


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
