"""Checks of what a user hands the engines and envs: seeds, game slots, action arrays, numbers.

One place, so every env and engine refuses the same inputs with the same error before anything
changes.  An integer is a Python or NumPy integer, never a bool or a ``timedelta64``; a seed is
non-negative; slots are distinct and in ``[0, B)``; a batch holds 1 to :data:`MAX_BATCH` games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from hoity_env.engine.errors import ConfigError, HoityError, IllegalActionError

__all__ = [
    "MAX_BATCH",
    "check_action_array",
    "check_batch_size",
    "check_finite",
    "check_open",
    "check_seed",
    "check_seeds",
    "check_slots",
    "is_integer",
]

MAX_BATCH = 1_000_000
"""Most games one batch may hold (a million four-player games already need several GB)."""


def is_integer(value: Any) -> bool:
    """A Python or NumPy integer that is neither a bool nor a ``timedelta64``."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, np.integer) and not isinstance(value, np.timedelta64)


def check_seed(value: Any, what: str = "seed") -> int:
    """``value`` as a non-negative Python int, or :class:`ConfigError` naming ``what``."""
    if not is_integer(value) or value < 0:
        raise ConfigError(f"{what} must be a non-negative int, got {value!r} ({type(value).__name__})")
    return int(value)


def _int_items(values: Any, what: str, error: type[HoityError]) -> list[int]:
    """A one-dimensional sequence or array of integers as Python ints (nothing converted silently)."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise error(f"{what} must be one-dimensional, got shape {values.shape}")
        if values.size and values.dtype.kind not in "iu":
            raise error(f"{what} must be integers, got an array of dtype {values.dtype}")
        return [int(v) for v in values.tolist()]
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, range)):
        raise error(f"{what} must be a sequence of ints, got {type(values).__name__}")
    for v in values:
        if not is_integer(v):
            raise error(f"{what} must hold ints, got {v!r} ({type(v).__name__})")
    return [int(v) for v in values]


def check_seeds(values: Any, what: str = "seeds") -> list[int]:
    """A sequence of game seeds (each as :func:`check_seed`), at most :data:`MAX_BATCH` of them."""
    seeds = _int_items(values, what, ConfigError)
    if len(seeds) > MAX_BATCH:
        raise ConfigError(f"{what}: {len(seeds)} games exceed the largest batch, {MAX_BATCH}")
    for s in seeds:
        if s < 0:
            raise ConfigError(f"{what} must be non-negative ints, got {s}")
    return seeds


def check_slots(values: Any, batch_size: int, what: str = "games") -> np.ndarray:
    """Distinct game slots in ``[0, batch_size)`` as an ``intp`` array."""
    slots = _int_items(values, what, ConfigError)
    for s in slots:
        if not 0 <= s < batch_size:
            raise ConfigError(
                f"{what}: slot {s} is outside [0, {batch_size}) (the batch has {batch_size} games)"
            )
    if len(set(slots)) != len(slots):
        raise ConfigError(f"{what}: a slot appears twice in {slots}")
    return np.array(slots, dtype=np.intp)


def check_batch_size(value: Any, what: str = "num_envs") -> int:
    """A number of games in ``[1, MAX_BATCH]``."""
    if not is_integer(value) or not 1 <= value <= MAX_BATCH:
        raise ConfigError(f"{what} must be an int in [1, {MAX_BATCH}], got {value!r}")
    return int(value)


def check_finite(value: Any, what: str) -> float:
    """A finite real number (``int`` or ``float``, NumPy's too; not a bool) as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(f"{what} must be a finite number, got {value!r}")
    if not math.isfinite(float(value)):
        raise ConfigError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def check_open(closed: bool) -> None:
    """Refuse a call on an env whose ``close()`` ran (a closed env stays closed)."""
    if closed:
        raise IllegalActionError("the env is closed: close() ends an env for good, make a new one")


def check_action_array(actions: Any, shape: tuple[int, ...], what: str = "actions") -> np.ndarray:
    """``actions`` as an integer array of ``shape``, or :class:`IllegalActionError`."""
    try:
        arr = np.asarray(actions)
    except (TypeError, ValueError) as exc:  # ragged nesting, objects NumPy cannot hold
        raise IllegalActionError(f"{what} must be an integer array of shape {shape}: {exc}") from None
    if arr.dtype.kind not in "iu":
        raise IllegalActionError(f"{what} must be an integer array of shape {shape}, got dtype {arr.dtype}")
    if arr.shape != shape:
        raise IllegalActionError(f"{what} must have shape {shape}, got {arr.shape}")
    return arr
