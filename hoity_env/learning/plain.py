"""Live objects as plain data: generators, arrays and the state an agent carries between decisions.

A run's resume state (:mod:`hoity_env.learning.runs.state`) holds no pickled object, so
``torch.load(..., weights_only=True)`` reads it without running code.  This module turns the live
parts a learner holds (numpy and torch generators, arrays, the agents of the pool) into numbers,
strings, lists, dicts and tensors, and back.  See docs/learning.md (run folders, checkpoints, resume).
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import numpy as np
import torch

from hoity_env.engine.errors import ConfigError

__all__ = [
    "array",
    "generator_state",
    "load_object_state",
    "numpy_generator",
    "object_state",
    "set_generator_state",
    "tensor",
]

_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
"""The numpy bit generators a saved state may name."""


def tensor(values: np.ndarray) -> torch.Tensor:
    """``values`` as a tensor of the same dtype and shape (a copy: the array may change later)."""
    return torch.from_numpy(np.array(values, copy=True))


def array(values: Any, where: str, dtype: Any = None) -> np.ndarray:
    """A saved tensor back as a numpy array (a :class:`ConfigError` naming ``where`` if it is none)."""
    if not isinstance(values, torch.Tensor):
        raise ConfigError(f"{where}: expected an array, found {type(values).__name__}")
    out = values.numpy()
    if dtype is not None and out.dtype != np.dtype(dtype):
        raise ConfigError(f"{where}: expected {np.dtype(dtype)} values, found {out.dtype}")
    return out


def generator_state(rng: np.random.Generator) -> dict[str, Any]:
    """A numpy generator's state (its bit generator's dict: names, integers)."""
    return dict(rng.bit_generator.state)


def set_generator_state(rng: np.random.Generator, state: Any, where: str) -> None:
    """Put a saved :func:`generator_state` into ``rng`` (a :class:`ConfigError` naming ``where``)."""
    try:
        rng.bit_generator.state = state
    except (TypeError, ValueError, KeyError) as exc:
        raise ConfigError(f"{where}: not a generator state ({exc})") from None


def numpy_generator(state: Any, where: str) -> np.random.Generator:
    """A new numpy generator in the saved state ``state``."""
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if name not in _BIT_GENERATORS:
        raise ConfigError(f"{where}: not a generator state (bit generator {name!r})")
    rng = np.random.Generator(getattr(np.random, name)())
    set_generator_state(rng, state, where)
    return rng


# ------------------------------------------------------------------ an agent's state
_SCALARS = (bool, int, float, str, type(None))


def _walked(value: object) -> bool:
    """Whether ``value`` is one of the package's mutable objects, whose attributes are walked."""
    cls = type(value)
    if not cls.__module__.startswith("hoity_env") or isinstance(value, (type, enum.Enum, torch.nn.Module)):
        return False
    if dataclasses.is_dataclass(value) and cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        return False
    return hasattr(value, "__dict__")


def object_state(obj: object) -> dict[str, Any]:
    """The generators, arrays and numbers ``obj`` holds, found by walking its attributes.

    An agent built from a spec is built again from the same spec on resume, then given back what
    changed while it played: :func:`load_object_state` puts this state back into an object built the
    same way.  The walk enters the package's own objects (a population's members, a memory agent's
    history); immutable ones (frozen dataclasses: the saved networks), torch modules (their weights
    come from the spec's file) and other libraries' objects (an SB3 model) are left out.
    """
    captured = _capture(obj, set())
    return dict(captured["object"]) if "object" in captured else {}  # another library's: nothing kept


def _capture(value: object, seen: set[int]) -> Any:
    """``value`` as plain data (tagged dicts for what is no JSON value), or ``None`` if skipped."""
    if isinstance(value, _SCALARS) and not isinstance(value, enum.Enum):
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, np.random.Generator):
        return {"numpy_generator": generator_state(value)}
    if isinstance(value, torch.Generator):
        return {"torch_generator": value.get_state()}
    if isinstance(value, np.ndarray):
        return {"array": tensor(value)} if value.dtype != object else {"skipped": "array"}
    if isinstance(value, (list, tuple)):
        return {"list": [_capture(v, seen) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: _capture(v, seen) for k, v in value.items()}}
    if _walked(value) and id(value) not in seen:
        seen.add(id(value))
        return {"object": {k: _capture(v, seen) for k, v in sorted(vars(value).items())}}
    return {"skipped": type(value).__name__}


def load_object_state(obj: object, state: Any, where: str) -> None:
    """Put :func:`object_state`'s ``state`` back into ``obj`` (built as the saved one was); a state
    that does not fit it is a :class:`ConfigError` naming ``where``."""
    if state:
        _restore(obj, {"object": state}, where)


def _restore(live: Any, saved: Any, where: str) -> Any:
    """The value ``saved`` describes, reusing ``live`` (the new object's) where it is mutable."""
    if not isinstance(saved, dict):
        return saved
    if len(saved) != 1:
        raise ConfigError(f"{where}: not a saved value ({sorted(saved)})")
    ((tag, value),) = saved.items()
    if tag == "skipped":
        return live
    if tag == "numpy_generator":
        if isinstance(live, np.random.Generator):
            set_generator_state(live, value, where)
            return live
        return numpy_generator(value, where)
    if tag == "torch_generator":
        out = live if isinstance(live, torch.Generator) else torch.Generator()
        try:
            out.set_state(value)
        except (TypeError, RuntimeError) as exc:
            raise ConfigError(f"{where}: not a generator state ({exc})") from None
        return out
    if tag == "array":
        return array(value, where).copy()
    if tag == "list":
        if not isinstance(value, list):
            raise ConfigError(f"{where}: not a saved list")
        olds = (
            list(live) if isinstance(live, (list, tuple)) and len(live) == len(value) else [None] * len(value)
        )
        items = [
            _restore(old, v, f"{where}[{i}]") for i, (old, v) in enumerate(zip(olds, value, strict=True))
        ]
        if isinstance(live, tuple):
            return type(live)(*items) if hasattr(live, "_fields") else tuple(items)
        return items
    if tag == "dict":
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: not a saved dict")
        old = live if isinstance(live, dict) else {}
        return {k: _restore(old.get(k), v, f"{where}[{k!r}]") for k, v in value.items()}
    if tag == "object":
        if not _walked(live) or not isinstance(value, dict):
            raise ConfigError(f"{where}: the state of a {type(live).__name__} that is not the saved object")
        for name, part in value.items():
            if not hasattr(live, name):
                raise ConfigError(
                    f"{where}: {type(live).__name__} has no {name!r} (another version's state?)"
                )
            setattr(live, name, _restore(getattr(live, name), part, f"{where}.{name}"))
        return live
    raise ConfigError(f"{where}: not a saved value (tag {tag!r})")
