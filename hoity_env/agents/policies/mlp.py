"""Plain-numpy MLP policies: the ``.npz`` format of the shipped models and its forward pass.

Why numpy: the named agents must play in the core install, which has no torch.  Their networks are small
MLPs (SB3's ``MlpPolicy``: an actor MLP, then a linear action head), so a numpy forward pass gives the torch
policy's logits (to float rounding) at no dependency cost.  The format (:class:`MlpPolicy`) is one ``.npz``
file, nothing pickled, so any trainer's MLP weights can be written to it (:func:`save_policy`).  Actions are
drawn from the masked softmax of the logits, as sb3-contrib's ``MaskableCategorical`` does.
See docs/agents.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, RULESET_NAMES
from hoity_env.engine.errors import ConfigError, FileFormatError
from hoity_env.environment.padding import PaddedInputs, unpadded_dim
from hoity_env.files import JsonObject, NpzArchive, open_npz, parse_json, write_atomic

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "MAX_LAYERS",
    "MAX_WIDTH",
    "PADDED_FORMAT",
    "MlpPolicy",
    "check_metadata",
    "load_policy",
    "masked_softmax",
    "save_policy",
]

FORMAT = "hoity_env.mlp_policy/1"
"""The ``format`` value of the metadata; a later, incompatible layout gets a new number."""
PADDED_FORMAT = "hoity_env.mlp_policy/2"
"""The ``format`` of a policy over padded observations (see :class:`MlpPolicy`)."""

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
"""Hidden-layer activations by name (SB3's ``activation_fn`` ``nn.Tanh`` / ``nn.ReLU``)."""

REQUIRED = ("format", "obs_dim", "num_actions", "num_players", "rules", "activation")
PADDED_REQUIRED = ("format", "obs_dim", "num_actions", "padded", "player_counts", "rules", "activation")
MAX_WIDTH = 1 << 16
"""The widest layer (and observation, and action set) a policy file may declare."""
MAX_LAYERS = 64
"""The most layers a policy file may hold."""
MAX_PARAMETERS = 1 << 28
"""The most weights and biases a policy file may hold together (1 GiB of float32)."""
MAX_METADATA_CHARS = 1 << 20
"""The longest metadata text a policy file may hold."""


@dataclass(frozen=True)
class MlpPolicy:
    """An MLP policy's layers and metadata, checked consistent when built: what its ``.npz`` file holds.

    * ``w0, b0, w1, b1, …, wL, bL``: float arrays in torch's ``nn.Linear`` layout (``w_i`` is ``(out, in)``,
      ``b_i`` is ``(out,)``); layers ``0 … L-1`` are the hidden layers, layer ``L`` the action head:
      ``h_0 = x``, ``h_{i+1} = f(w_i h_i + b_i)`` for ``i < L``, ``logits = w_L h_L + b_L``.
    * ``metadata``: a 0-d string array holding one JSON object with at least ``format`` (:data:`FORMAT`),
      ``obs_dim``, ``num_actions``, ``num_players``, ``rules`` (the preset it was trained on) and
      ``activation`` (``f``, one of :data:`ACTIVATIONS`); other keys (``name``, ``source`` with the
      checkpoint's ``sha256``, ``training_args``) are kept as they are.  A policy over padded observations
      has ``format`` :data:`PADDED_FORMAT`, ``padded`` (true) and ``player_counts`` instead of
      ``num_players``, and the padded layout's ``obs_dim``; a reader of ``/1`` only refuses it by its format.
    """

    weights: tuple[np.ndarray, ...]
    """``w0 … wL``, float32 ``(out, in)``."""
    biases: tuple[np.ndarray, ...]
    """``b0 … bL``, float32 ``(out,)``."""
    metadata: Mapping[str, Any]
    """The JSON metadata (see the class docstring)."""
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


def check_metadata(meta: Any, where: str) -> None:
    """Refuse metadata that is not a JSON object of the format's fields with their types and ranges
    (:class:`MlpPolicy`), with one :class:`ConfigError` naming the field; other keys are kept as they are."""
    if not isinstance(meta, Mapping):
        raise ConfigError(f"{where}: metadata must be a JSON object, got {type(meta).__name__}")
    fields = JsonObject(dict(meta), where, "metadata")
    kind = fields.get("format", None)
    if kind not in (FORMAT, PADDED_FORMAT):
        raise ConfigError(f"{where}: format {kind!r:.80} is not {FORMAT!r} or {PADDED_FORMAT!r}")
    missing = [key for key in (PADDED_REQUIRED if kind == PADDED_FORMAT else REQUIRED) if key not in meta]
    if missing:
        raise ConfigError(f"{where}: metadata lacks {', '.join(missing)}")
    fields.integer("obs_dim", 1, MAX_WIDTH)
    fields.integer("num_actions", 1, MAX_WIDTH)
    activation = meta["activation"]
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ConfigError(f"{where}: activation {activation!r:.80} is not one of {', '.join(ACTIVATIONS)}")
    fields.string("rules", max_chars=256)
    if kind == FORMAT:
        fields.integer("num_players", MIN_PLAYERS, MAX_PLAYERS)
    else:
        fields.boolean("padded")
        fields.array("player_counts", max_items=MAX_PLAYERS)


def _check(policy: MlpPolicy) -> None:
    """Refuse an inconsistent policy with one :class:`ConfigError` naming the field."""
    meta, where = policy.metadata, policy.where
    check_metadata(meta, where)
    if not policy.weights or len(policy.weights) != len(policy.biases):
        raise ConfigError(f"{where}: needs as many biases as weights, at least one layer")
    width = int(meta["obs_dim"])
    for i, (w, b) in enumerate(zip(policy.weights, policy.biases, strict=True)):
        for name, array in ((f"w{i}", w), (f"b{i}", b)):
            if not isinstance(array, np.ndarray) or array.dtype.kind not in "fiu":
                kind = getattr(array, "dtype", type(array).__name__)
                raise ConfigError(f"{where}: {name} must be an array of real numbers, not {kind}")
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
    path: str | Path,
    weights: Sequence[np.ndarray],
    biases: Sequence[np.ndarray],
    metadata: Mapping[str, Any],
    *,
    half: bool = False,
) -> Path:
    """Check and write an MLP policy to ``path`` in the ``.npz`` format, atomically; returns ``path``.

    ``half`` stores the weights as float16: half the file, for the populations shipped in the
    wheel (docs/league.md measures that they play as their float32 originals).  The reader
    accepts any float width; the forward pass always runs in float64.
    """
    path = Path(path)
    try:  # numpy scalars (np.int64(117)) become the plain values they stand for
        text = json.dumps(dict(metadata), sort_keys=True, allow_nan=False, default=_plain)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: metadata must be plain JSON values ({exc})") from None
    policy = MlpPolicy(
        tuple(_real(w, f"{path}: w{i}") for i, w in enumerate(weights)),
        tuple(_real(b, f"{path}: b{i}") for i, b in enumerate(biases)),
        json.loads(text),
        where=str(path),
    )
    arrays: dict[str, np.ndarray] = {"metadata": np.array(text)}
    stored = np.float16 if half else np.float32
    for i, (w, b) in enumerate(zip(policy.weights, policy.biases, strict=True)):
        arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(stored), b.astype(stored)
        if half and not (np.isfinite(arrays[f"w{i}"]).all() and np.isfinite(arrays[f"b{i}"]).all()):
            raise ConfigError(f"{path}: layer {i} does not fit in float16")

    def write(fh: IO[bytes]) -> None:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]

    write_atomic(path, write, binary=True)
    return path


def _plain(value: Any) -> Any:
    """A numpy scalar or array as the plain JSON value it holds (``json.dumps``'s ``default``)."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def _real(values: Any, where: str) -> np.ndarray:
    """``values`` as float32, refused if not real numbers (a complex part is never dropped silently)."""
    array = np.asarray(values)
    if array.dtype.kind not in "fiu":
        raise ConfigError(f"{where} must hold real numbers, not {array.dtype}")
    return array.astype(np.float32)


def load_policy(source: str | Path | IO[bytes], where: str | None = None) -> MlpPolicy:
    """Read an MLP policy written by :func:`save_policy` (a path or an open binary file).

    The file is untrusted (:mod:`hoity_env.files`): the metadata is read and checked first, then every
    array's header against the shapes it implies (at most :data:`MAX_WIDTH` wide, :data:`MAX_LAYERS`
    deep), and only then are the weights read.  A FIFO, a folder, a truncated file, metadata that is not a
    JSON object of the fields with their types, or arrays other than float weights of those shapes are each
    one :class:`~hoity_env.engine.errors.FileFormatError` naming the file and the field.
    """
    where = where or str(source)
    with open_npz(source, where, text_arrays=("metadata",), max_elements=MAX_PARAMETERS) as npz:
        if "metadata" not in npz.headers:
            raise FileFormatError(where, "no readable metadata (not an MLP policy file)", "array 'metadata'")
        text = npz.text("metadata")
        if len(text) > MAX_METADATA_CHARS:
            raise FileFormatError(where, f"longer than {MAX_METADATA_CHARS:,} characters", "metadata")
        metadata = parse_json(text, where, field="metadata", max_depth=16)
        try:
            check_metadata(metadata, where)
            count = _check_headers(npz, metadata, where)
            weights = tuple(npz.array(f"w{i}") for i in range(count))
            biases = tuple(npz.array(f"b{i}") for i in range(count))
            return MlpPolicy(weights, biases, metadata, where=where)
        except FileFormatError:
            raise
        except ConfigError as exc:  # the checks every policy passes: here, the file is at fault
            raise FileFormatError(where, str(exc).removeprefix(f"{where}: ")) from None


def _check_headers(npz: NpzArchive, metadata: Mapping[str, Any], where: str) -> int:
    """The number of layers, once every array's header has the shape and dtype the metadata implies."""
    layers = [name for name in npz.headers if name != "metadata"]
    count = len(layers) // 2
    expected = {f"{kind}{i}" for i in range(count) for kind in "wb"}
    if not count or count > MAX_LAYERS or set(layers) != expected:
        raise FileFormatError(
            where,
            f"holds the arrays {sorted(layers)[:10]}, not w0, b0, …, wL, bL (1 to {MAX_LAYERS} layers)",
        )
    width, total = int(metadata["obs_dim"]), 0
    for i in range(count):
        w, b = npz.headers[f"w{i}"], npz.headers[f"b{i}"]
        for name, header in ((f"w{i}", w), (f"b{i}", b)):
            if header.dtype.kind != "f":
                raise FileFormatError(where, f"must hold floats, not {header.dtype}", f"array {name!r}")
        if (
            len(w.shape) != 2
            or w.shape[1] != width
            or not 1 <= w.shape[0] <= MAX_WIDTH
            or b.shape != w.shape[:1]
        ):
            raise FileFormatError(
                where,
                f"layer {i} has shapes {w.shape} and {b.shape}, expected (out, {width}) and (out,)"
                f" with out at most {MAX_WIDTH}",
            )
        width, total = w.shape[0], total + w.size + b.size
    if total > MAX_PARAMETERS:
        raise FileFormatError(where, f"holds {total:,} weights, more than {MAX_PARAMETERS:,}")
    if width != int(metadata["num_actions"]):
        raise FileFormatError(
            where, f"the action head has {width} outputs, metadata says {metadata['num_actions']}"
        )
    return count
