"""JSON-safe save and restore of a NumPy ``Generator`` (the game's only source of randomness)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.errors import StateError


def rng_to_dict(rng: np.random.Generator) -> dict[str, Any]:
    """JSON-safe bit-generator state of a PCG64 ``Generator``."""
    return _jsonable(rng.bit_generator.state)  # type: ignore[no-any-return]


_STATE_KEYS = frozenset({"bit_generator", "state", "has_uint32", "uinteger"})


def _exact_int(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value < high


def rng_from_dict(value: Any, field: str) -> np.random.Generator:
    """Inverse of :func:`rng_to_dict`, accepting only what NumPy itself writes (exact keys and int
    types: ``state``/``inc`` in [0, 2**128) with ``inc`` odd, ``has_uint32`` 0 or 1, ``uinteger`` in
    [0, 2**32)); anything else raises :class:`StateError` naming ``field``.
    """
    if not isinstance(value, dict) or value.get("bit_generator") != "PCG64":
        raise StateError(f"state field {field!r} must be a PCG64 bit-generator state dict")
    inner = value.get("state")
    if set(value) != _STATE_KEYS:
        raise StateError(f"state field {field!r} must have exactly the keys {sorted(_STATE_KEYS)}")
    if (
        not isinstance(inner, dict)
        or set(inner) != {"state", "inc"}
        or not _exact_int(inner["state"], 0, 2**128)
        or not _exact_int(inner["inc"], 0, 2**128)
        or inner["inc"] % 2 == 0
    ):
        raise StateError(
            f"state field {field!r}: 'state' must be {{'state': int, 'inc': odd int}}, "
            f"each in [0, 2**128), got {inner!r}"
        )
    if value["has_uint32"] not in (0, 1) or type(value["has_uint32"]) is not int:
        raise StateError(f"state field {field!r}: 'has_uint32' must be 0 or 1, got {value['has_uint32']!r}")
    if not _exact_int(value["uinteger"], 0, 2**32):
        raise StateError(f"state field {field!r}: 'uinteger' must be an int in [0, 2**32)")
    rng = np.random.Generator(np.random.PCG64(0))
    try:
        rng.bit_generator.state = value
    except (TypeError, ValueError, KeyError, OverflowError, IndexError) as exc:  # pragma: no cover
        raise StateError(f"state field {field!r} is not a valid PCG64 state: {exc}") from exc
    return rng


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    return value
