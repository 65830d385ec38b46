"""JSON-safe save and restore of a NumPy ``Generator`` (the game's only source of randomness)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.errors import StateError


def rng_to_dict(rng: np.random.Generator) -> dict[str, Any]:
    """JSON-safe bit-generator state of a PCG64 ``Generator``."""
    return _jsonable(rng.bit_generator.state)  # type: ignore[no-any-return]


def rng_from_dict(value: Any, field: str) -> np.random.Generator:
    """Inverse of :func:`rng_to_dict`; a bad value raises :class:`StateError` naming ``field``."""
    if not isinstance(value, dict) or value.get("bit_generator") != "PCG64":
        raise StateError(f"state field {field!r} must be a PCG64 bit-generator state dict")
    rng = np.random.Generator(np.random.PCG64(0))
    try:
        rng.bit_generator.state = value
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
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
