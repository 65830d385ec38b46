"""The fast learner: masked PPO in plain torch on the batched engine (docs/learning.md).

Every seat of B games goes through one forward pass (parameter sharing); the
other seats are the learner itself, frozen snapshots of it, or any agent spec,
drawn per game from a weighted pool.  Its policies are ``MaskablePPO`` zips, so
they load wherever ``ppo:PATH`` / ``ppo-sample:PATH`` is accepted.

One call each::

    from hoity_env.learning import LearnerSettings, best_response, league, train

    # self-play, parameter sharing (the default pool is ``(("self", 1.0),)``)
    learner = train(LearnerSettings(total_steps=2_000_000), run_dir="runs/fast")

    # a best response: the learner in one seat, copies of the target in the others
    learner = best_response("expert", steps=2_000_000)
    learner.save_policy("br_expert.zip")         # then: hoity-eval --agents ppo:br_expert.zip ...

    # a league: self-play, snapshots of itself and the zoo, with weights
    learner = league({"self": 2, "snapshot": 1, "expert": 1, "thief": 0.5}, steps=5_000_000)

Each takes ``settings=`` (a :class:`LearnerSettings` whose other fields are kept) and
``run_dir=`` (a run folder with checkpoints, progress and resume, see
:mod:`hoity_env.learning.runs.session`; without it nothing is written).  The parts, one
module each: :mod:`.settings` (and :mod:`.bounds`, their limits), :mod:`.policy` (masked
categorical), :mod:`.buffer`, :mod:`.gae`, :mod:`.loss` (with the magnet KL), :mod:`.magnet`,
:mod:`.update`, :mod:`.tables` and :mod:`.seats` (the games, who plays which seat),
:mod:`.memory` (the policy's inputs), :mod:`.loop` (the learner), :mod:`.checkpoint` (policy
zips), :mod:`.plain` (live objects as plain data) and :mod:`.runs` (THE run folder: its
lock, resume state, checkpoints and the finished rule, shared by every command that trains).
The command line is ``hoity-learn`` (:mod:`hoity_env.cli.learn`).
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
    """Train with ``settings`` to ``settings.total_steps``; in ``run_dir`` when given."""
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
    """Train against copies of agent ``target`` (any agent spec) for ``steps`` learner steps."""
    base = settings or LearnerSettings()
    return train(base.replace(opponents=((target, 1.0),), total_steps=steps), run_dir)


def league(
    pool: Mapping[str, float],
    steps: int,
    settings: LearnerSettings | None = None,
    run_dir: str | Path | None = None,
) -> Learner:
    """Train against a weighted pool (``"self"``, ``"snapshot"`` and agent specs) for ``steps``."""
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
