"""The joint action sent to ``HoityParallelEnv.step``: its form first, then its legality.

The one part of the adapter with a policy of its own (``illegal_action``), also used by the AEC
forms to check each agent's action.  Every function only reads: a bad action raises
:class:`~hoity_env.engine.errors.IllegalActionError` before the env changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hoity_env.engine.actions import Phase
from hoity_env.engine.errors import IllegalActionError
from hoity_env.engine.inputs import is_integer
from hoity_env.environment.codec import ActionCodec

__all__ = [
    "ILLEGAL_ACTION_MODES",
    "apply_illegal_policy",
    "as_action_int",
    "illegal_action_error",
    "joint_of",
]

ILLEGAL_ACTION_MODES = ("fallback", "penalize", "raise")
"""What a masked-out action does: play the lowest legal one, the same plus a penalty, or raise."""


def as_action_int(agent: str, raw: Any, size: int) -> int:
    """Accept Python/NumPy integers (and 0-d or 1-element integer arrays); reject the rest."""
    # NumPy counts timedelta64 as a signed integer type; a duration is no action index.
    if isinstance(raw, np.ndarray):
        if raw.size != 1 or raw.dtype.kind not in "iu":
            raise IllegalActionError(
                f"action for {agent} must be an integer, got array {raw!r} (dtype {raw.dtype})"
            )
        raw = raw.reshape(()).item()
    if not is_integer(raw):
        raise IllegalActionError(f"action for {agent} must be an integer, got {raw!r} ({type(raw).__name__})")
    a = int(raw)
    if not 0 <= a < size:
        raise IllegalActionError(f"action {a} for {agent} is out of range [0, {size})")
    return a


def illegal_action_error(
    action: int, agent: str, codec: ActionCodec, phase: Phase, mask_row: Sequence[int]
) -> IllegalActionError:
    """The error for a masked-out ``action`` of ``agent``, naming the step and the legal actions."""
    legal = [i for i, ok in enumerate(mask_row) if ok]
    return IllegalActionError(
        f"action {action} ({codec.describe(action)}) is illegal for {agent} in the "
        f"{phase.name.lower()} step; legal actions: {legal}"
    )


def joint_of(
    actions: Mapping[str, Any], index: Mapping[str, int], playing: list[str], size: int
) -> list[int]:
    """``actions`` (a dict of agent -> action) in seat order, each checked for form, not yet for legality."""
    if not isinstance(actions, Mapping):
        raise IllegalActionError(f"actions must be a dict of agent -> int, got {type(actions).__name__}")
    if len(actions) != len(index) or any(a not in index for a in actions):
        unknown = sorted(str(a) for a in actions if a not in index)
        if unknown:
            raise IllegalActionError(f"unknown agent(s) {unknown}; agents are {playing}")
        missing = sorted(set(playing) - set(actions))
        raise IllegalActionError(f"missing action(s) for {missing}: every agent acts every step")
    joint = [0] * len(index)
    for agent, raw in actions.items():
        # Fast path for the common case (a plain in-range int), full checks otherwise.
        joint[index[agent]] = raw if type(raw) is int and 0 <= raw < size else as_action_int(agent, raw, size)
    return joint


def apply_illegal_policy(
    joint: list[int],
    mask_rows: Sequence[Sequence[int]],
    agents: Sequence[str],
    codec: ActionCodec,
    phase: Phase,
    policy: str,
) -> tuple[list[int], list[bool], str | None]:
    """``(joint action played, illegal flag per seat, warning for the first illegal one or None)``.

    ``"raise"``: the first masked-out action raises; otherwise it is replaced by the seat's lowest
    legal action and flagged.  The warning is returned, so that the env shows it once.
    """
    played = list(joint)
    illegal = [False] * len(joint)
    warning = None
    for p, a in enumerate(joint):
        row = mask_rows[p]
        if row[a]:
            continue
        if policy == "raise":
            raise illegal_action_error(a, agents[p], codec, phase, row)
        illegal[p] = True
        played[p] = next(i for i, ok in enumerate(row) if ok)
        if warning is None:
            warning = (
                f"{agents[p]} sent masked-out action {a}; playing the lowest legal action "
                f"{played[p]} instead (illegal_action={policy!r}; "
                "infos[agent]['illegal_action'] flags each case; this warning is shown once)"
            )
    return played, illegal, warning
