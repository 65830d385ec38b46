"""The fast learner: masked PPO in plain torch on the batched engine (self-play, best responses, leagues).

Every seat of B games goes through one forward pass (parameter sharing), with no Python per game;
the other seats are the learner, frozen snapshots of it, or any agent spec, drawn per game from a
weighted pool.  Policies are saved as ``MaskablePPO`` zips, so they load wherever ``ppo:PATH`` /
``ppo-sample:PATH`` is accepted.  :func:`train`, :func:`best_response` and :func:`league` are one call
each; the command line is ``hoity-learn``.  See docs/learning.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoity_env.learning.settings import LearnerSettings

if TYPE_CHECKING:
    from hoity_env.learning.checkpoint import load_policy, save_policy
    from hoity_env.learning.loop import Learner
    from hoity_env.learning.policy import MaskedPolicy
    from hoity_env.learning.runs.folder import RunFolder
    from hoity_env.learning.runs.session import resume

_LAZY = {
    "Learner": "hoity_env.learning.loop",
    "MaskedPolicy": "hoity_env.learning.policy",
    "RunFolder": "hoity_env.learning.runs.folder",
    "load_policy": "hoity_env.learning.checkpoint",
    "resume": "hoity_env.learning.runs.session",
    "save_policy": "hoity_env.learning.checkpoint",
}
"""Names loaded on first use: torch is imported only when something trains or loads a policy, so
the run folder (``hoity_env.learning.runs``) serves commands that never train (a finished best
response read back, ``hoity-eval`` without training)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hoity_env.learning' has no attribute {name!r}")


def train(settings: LearnerSettings, run_dir: str | Path | None = None) -> Learner:
    """Train with ``settings`` to ``settings.total_steps``.

    With ``run_dir`` it trains in that run folder (checkpoints, progress, resume:
    :mod:`hoity_env.learning.runs.session`); without it nothing is written.
    """
    from hoity_env.learning.loop import Learner
    from hoity_env.learning.runs.session import train_in_folder

    if run_dir is not None:
        return train_in_folder(settings, run_dir)
    learner = Learner(settings)
    learner.learn()
    return learner


def best_response(
    target: str,
    steps: int,
    settings: LearnerSettings | None = None,
    run_dir: str | Path | None = None,
) -> Learner:
    """Train against copies of agent ``target`` (any agent spec) for ``steps`` learner steps.

    ``settings``' other fields are kept; ``run_dir`` as for :func:`train`.
    """
    base = settings or LearnerSettings()
    return train(base.replace(opponents=((target, 1.0),), total_steps=steps), run_dir)


def league(
    pool: Mapping[str, float],
    steps: int,
    settings: LearnerSettings | None = None,
    run_dir: str | Path | None = None,
) -> Learner:
    """Train against a weighted pool (``"self"``, ``"snapshot"`` and agent specs) for ``steps``.

    ``settings``' other fields are kept; ``run_dir`` as for :func:`train`.
    """
    base = settings or LearnerSettings()
    entries = tuple((spec, float(weight)) for spec, weight in pool.items())
    return train(base.replace(opponents=entries, total_steps=steps), run_dir)


__all__ = [
    "Learner",
    "LearnerSettings",
    "MaskedPolicy",
    "RunFolder",
    "best_response",
    "league",
    "load_policy",
    "resume",
    "save_policy",
    "train",
]
