"""How a best response starts: fresh, warm from its target's own weights, or after a curriculum.

A best response that has not learned the game by the end of its budget says little about its target,
so the fast learner can start from a policy that already plays (``warm``) or against ``expert`` first
(``curriculum``); each start is an estimator of its own, reported beside the learner, settings and
memory.  Everything is checked before any folder exists.  See docs/evaluation.md (how a best
response starts).
"""

from __future__ import annotations

from typing import Any

from hoity_env.engine.errors import ConfigError
from hoity_env.learning.bounds import is_number

__all__ = [
    "CURRICULUM_FRACTION",
    "CURRICULUM_OPPONENT",
    "DEFAULT_START",
    "NETWORK",
    "STARTS",
    "check_start",
    "start_label",
    "start_settings",
]

STARTS = ("fresh", "warm", "curriculum")
"""How a fast best response may start: ``fresh`` (a new actor and critic, against copies of the target
throughout), ``warm`` (the actor starts as the target's own policy, :mod:`hoity_env.learning.warm`;
the critic fresh) or ``curriculum`` (a fraction of the budget against :data:`CURRICULUM_OPPONENT`
first, then the target)."""
DEFAULT_START = "fresh"
CURRICULUM_OPPONENT = "expert"
"""Who a curriculum plays first: the strongest scripted agent, which any table seats."""
CURRICULUM_FRACTION = 0.25
"""The part of the budget a curriculum plays :data:`CURRICULUM_OPPONENT` by default."""
NETWORK = ("hidden", "activation", "padded")
"""The fast learner's settings a warm start takes from the target's file."""


def check_start(start: str, curriculum: float, learner: str) -> None:
    """A :class:`ConfigError` for a start that is not one of :data:`STARTS`, one the ``learner`` does
    not have (MaskablePPO starts fresh), or a ``curriculum`` fraction outside (0, 1) or given
    without a curriculum."""
    if start not in STARTS:
        raise ConfigError(f"start must be one of {', '.join(STARTS)}, got {start!r}")
    if start != DEFAULT_START and learner != "fast":
        raise ConfigError(f"start {start!r} is the fast learner's: MaskablePPO (sb3) starts fresh")
    if not is_number(curriculum) or not 0 < curriculum < 1:
        raise ConfigError(
            f"curriculum must be a fraction of the budget in (0, 1) (the part played against "
            f"{CURRICULUM_OPPONENT}), got {curriculum!r}"
        )
    if start != "curriculum" and curriculum != CURRICULUM_FRACTION:
        raise ConfigError(f"a curriculum fraction needs start 'curriculum', not {start!r}")


def start_label(start: str, curriculum: float) -> str:
    """``fresh``, ``warm`` or ``curriculum 0.25``: the start as results record it."""
    return f"curriculum {curriculum:g}" if start == "curriculum" else start


def start_settings(
    values: dict[str, Any],
    start: str,
    curriculum: float,
    *,
    target: str,
    rules: str,
    num_players: int,
    total: int,
    preset: dict[str, Any],
) -> dict[str, Any]:
    """The fast learner's settings ``values`` (JSON form, ``preset`` with overrides) for a best
    response to ``target`` at the table that starts with ``start`` and trains ``total`` steps.

    A warm start takes the network's shape (:data:`NETWORK`) from the target's file whatever the
    preset says; the rest of the preset stays.  A setting given explicitly that differs from both the
    preset's and the file's, or a memory the file does not read, is a :class:`ConfigError`."""
    if start == "curriculum":
        steps = max(1, round(curriculum * total))
        return {**values, "curriculum": ((CURRICULUM_OPPONENT, 1.0),), "curriculum_steps": steps}
    if start != "warm":
        return dict(values)
    from hoity_env.learning.warm import init_policy

    try:
        init = init_policy(target, rules, (num_players,))
    except ConfigError as exc:
        raise ConfigError(f"a warm start begins from the target's own weights: {exc}") from None
    network: dict[str, Any] = {
        "hidden": list(init.hidden),
        "activation": init.activation,
        "padded": init.padded is not None,
    }
    for key, value in network.items():
        given, default = _plain(values.get(key)), _plain(preset.get(key, _default(key)))
        if key in values and given not in (default, value):
            raise ConfigError(
                f"a warm start takes {key} from the target's file ({value!r}, read from {init.where}); "
                f"drop the {key} {given!r} given"
            )
    memory = values.get("memory", 0)
    if memory != init.memory:
        raise ConfigError(
            f"a warm start from {init.spec}, read from {init.where}, has memory {init.memory}, not the "
            f"{memory} given: a best response starts from the network it copies"
        )
    return {**values, **network, "init": target}


def _default(name: str) -> Any:
    """``LearnerSettings``' default of field ``name`` (JSON form), for a preset without it."""
    from hoity_env.learning import LearnerSettings

    return LearnerSettings().to_dict()[name]


def _plain(value: Any) -> Any:
    """A settings value as JSON has it (tuples are lists)."""
    return list(value) if isinstance(value, tuple) else value
