"""Plain-numpy MLP policies: the ``.npz`` format of the shipped models and its forward pass.

Why numpy: the champion and the reference agent must play in the core install,
which has no torch.  Their networks are small multilayer perceptrons (SB3's
``MlpPolicy``: an actor MLP, then a linear action head), so a numpy forward pass
gives the torch policy's logits (to float rounding; a test holds it to 1e-5) at
no dependency cost.

The format (``FORMAT``), one ``.npz`` file, nothing pickled (``np.load`` with
``allow_pickle=False``), so any MLP policy over hoity_env's flat observations can
be written to it (an SB3 checkpoint with :mod:`hoity_env.agents.policies.export`, or any
other trainer's weights with :func:`save_policy`):

* ``w0, b0, w1, b1, …, wL, bL``: float32 arrays in torch's ``nn.Linear`` layout
  (``w_i`` is ``(out, in)``, ``b_i`` is ``(out,)``); layers ``0 … L-1`` are the
  hidden layers, layer ``L`` the action head.  The logits of an observation
  ``x`` (length ``obs_dim``) are ``h_0 = x``, ``h_{i+1} = f(w_i h_i + b_i)`` for
  ``i < L`` and ``logits = w_L h_L + b_L`` (length ``num_actions``), where ``f``
  is the ``activation``.
* ``metadata``: a 0-d string array holding one JSON object with at least
  ``format`` (``"hoity_env.mlp_policy/1"``), ``obs_dim``, ``num_actions``,
  ``num_players``, ``rules`` (the preset it was trained on) and ``activation``
  (one of ``ACTIVATIONS``).  Other keys record where the weights came from
  (``name``, ``source`` with the checkpoint's ``sha256``, ``training_args``)
  and are kept as they are.

A policy that reads padded observations (:mod:`hoity_env.agents.policies.padded`: one network for
several player counts) is written as ``format`` ``"hoity_env.mlp_policy/2"``
(:data:`PADDED_FORMAT`), whose metadata has ``padded`` (true) and ``player_counts`` (the
counts it plays) instead of ``num_players``, and ``obs_dim`` the padded layout's; the agent
pads the env's observations before the forward pass.  Every ``/1`` file reads as before;
a reader that knows only ``/1`` refuses a ``/2`` file by its format, never misreads it.

Actions are chosen from the masked softmax of the logits, as sb3-contrib's
``MaskableCategorical`` does (illegal actions get probability 0).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from hoity_env.agents.policies.padded import PaddedInputs
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, RULESET_NAMES
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.padding import unpadded_dim
from hoity_env.files import write_atomic

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "PADDED_FORMAT",
    "MlpPolicy",
    "load_policy",
    "masked_softmax",
    "save_policy",
]

FORMAT = "hoity_env.mlp_policy/1"
"""The ``format`` value of the metadata; a later, incompatible layout gets a new number."""
PADDED_FORMAT = "hoity_env.mlp_policy/2"
"""The ``format`` of a policy over padded observations (see the module docstring)."""

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
"""Hidden-layer activations by name (SB3's ``activation_fn`` ``nn.Tanh`` / ``nn.ReLU``)."""

REQUIRED = ("format", "obs_dim", "num_actions", "num_players", "rules", "activation")
PADDED_REQUIRED = ("format", "obs_dim", "num_actions", "padded", "player_counts", "rules", "activation")


@dataclass(frozen=True)
class MlpPolicy:
    """An MLP policy's layers and metadata, checked consistent when built."""

    weights: tuple[np.ndarray, ...]
    """``w0 … wL``, float32 ``(out, in)``."""
    biases: tuple[np.ndarray, ...]
    """``b0 … bL``, float32 ``(out,)``."""
    metadata: Mapping[str, Any]
    """The JSON metadata (see the module docstring)."""
    where: str = "MLP policy"
    """What to call it in error messages (its file)."""
    _layers: tuple[tuple[np.ndarray, np.ndarray], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check(self)
        # float64 copies for the forward pass: the logits then carry float32 weights' values exactly.
        layers = tuple(
            (w.astype(np.float64), b.astype(np.float64))
            for w, b in zip(self.weights, self.biases, strict=True)
        )
        object.__setattr__(self, "_layers", layers)

    @property
    def obs_dim(self) -> int:
        return int(self.weights[0].shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.weights[-1].shape[0])

    @property
    def num_players(self) -> int | None:
        """The player count it plays; None for a padded policy (see :attr:`padded`)."""
        return None if self.padded is not None else int(self.metadata["num_players"])

    @property
    def padded(self) -> PaddedInputs | None:
        """What a padded policy reads (its rules and counts); None for one of the env's layout."""
        if self.metadata["format"] != PADDED_FORMAT:
            return None
        return PaddedInputs.from_dict(self.metadata, self.where)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """``(B, num_actions)`` float64 logits of ``(B, obs_dim)`` observations."""
        activation = ACTIVATIONS[self.metadata["activation"]]
        h = np.asarray(observations, dtype=np.float64)
        for w, b in self._layers[:-1]:
            h = activation(h @ w.T + b)
        w, b = self._layers[-1]
        out: np.ndarray = h @ w.T + b
        return out


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(B, A)`` probabilities: the softmax of ``logits`` over each row's legal actions, 0 elsewhere."""
    z = np.where(masks, logits, -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    out: np.ndarray = z / z.sum(axis=1, keepdims=True)
    return out


def _check(policy: MlpPolicy) -> None:
    """Refuse an inconsistent policy with one :class:`ConfigError` naming the field."""
    meta, where = policy.metadata, policy.where
    if meta.get("format") not in (FORMAT, PADDED_FORMAT):
        raise ConfigError(f"{where}: format {meta.get('format')!r} is not {FORMAT!r} or {PADDED_FORMAT!r}")
    missing = [
        key for key in (PADDED_REQUIRED if meta["format"] == PADDED_FORMAT else REQUIRED) if key not in meta
    ]
    if missing:
        raise ConfigError(f"{where}: metadata lacks {', '.join(missing)}")
    if meta["activation"] not in ACTIVATIONS:
        raise ConfigError(
            f"{where}: activation {meta['activation']!r} is not one of {', '.join(ACTIVATIONS)}"
        )
    if not policy.weights or len(policy.weights) != len(policy.biases):
        raise ConfigError(f"{where}: needs as many biases as weights, at least one layer")
    width = int(meta["obs_dim"])
    for i, (w, b) in enumerate(zip(policy.weights, policy.biases, strict=True)):
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise ConfigError(
                f"{where}: layer {i} has shapes {w.shape} and {b.shape}, expected (out, {width})"
            )
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise ConfigError(f"{where}: layer {i} holds non-finite weights")
        width = w.shape[0]
    if width != int(meta["num_actions"]):
        raise ConfigError(
            f"{where}: the action head has {width} outputs, metadata says {meta['num_actions']}"
        )
    padded = policy.padded
    if padded is not None:
        if meta["padded"] is not True or policy.obs_dim != padded.obs_dim:
            raise ConfigError(
                f"{where}: obs_dim {policy.obs_dim} is not the padded layout's {padded.obs_dim}"
            )
        return
    players = int(meta["num_players"])  # told by the file: its width must be such a game's
    if not MIN_PLAYERS <= players <= MAX_PLAYERS or policy.obs_dim not in {
        unpadded_dim(ruleset, players) for ruleset in RULESET_NAMES
    }:
        raise ConfigError(
            f"{where}: obs_dim {policy.obs_dim} is not a {meta['num_players']}-player observation"
        )


def save_policy(
    path: str | Path, weights: Sequence[np.ndarray], biases: Sequence[np.ndarray], metadata: Mapping[str, Any]
) -> Path:
    """Check and write an MLP policy to ``path`` in the ``.npz`` format, atomically; returns ``path``."""
    path = Path(path)
    policy = MlpPolicy(
        tuple(np.asarray(w, dtype=np.float32) for w in weights),
        tuple(np.asarray(b, dtype=np.float32) for b in biases),
        dict(metadata),
        where=str(path),
    )
    arrays: dict[str, np.ndarray] = {"metadata": np.array(json.dumps(policy.metadata, sort_keys=True))}
    for i, (w, b) in enumerate(zip(policy.weights, policy.biases, strict=True)):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b

    def write(fh: IO[bytes]) -> None:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]

    write_atomic(path, write, binary=True)
    return path


def load_policy(source: str | Path | IO[bytes], where: str | None = None) -> MlpPolicy:
    """Read an MLP policy written by :func:`save_policy` (a path or an open binary file)."""
    where = where or str(source)
    try:
        with np.load(source, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{where} is not an MLP policy .npz file: {exc}") from exc
    try:
        metadata = json.loads(str(arrays.pop("metadata")))
    except (KeyError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{where}: no readable metadata: {exc}") from exc
    count = sum(1 for key in arrays if key.startswith("w"))
    try:
        weights = tuple(arrays[f"w{i}"] for i in range(count))
        biases = tuple(arrays[f"b{i}"] for i in range(count))
    except KeyError as exc:
        raise ConfigError(f"{where}: layer array {exc} is missing") from exc
    return MlpPolicy(weights, biases, metadata, where=where)
