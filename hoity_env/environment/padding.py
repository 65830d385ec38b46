"""The padded observation: one layout for every player count of a ruleset.

An observation's length depends on the player count, so a network trained on one count cannot read
another's.  The padded layout puts every value of the env's ``n``-player observation at a place
independent of ``n``: the global and own fields where the env puts them, ``num_players`` (one-hot), then six
seat blocks ``player0`` … ``player5`` (seat-relative, each led by ``present``; absent seats all zero).
Nothing is rescaled.  A policy trained on it says so in its file (:class:`PaddedInputs`).
See docs/environment.md (Padded observations).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, RULESET_NAMES, RulesConfig, resolve_rules
from hoity_env.engine.errors import AgentInputError, ConfigError
from hoity_env.engine.registry import RULESETS, Field, Fields

__all__ = [
    "MAX_SEATS",
    "PLAYER_COUNTS",
    "PaddedInputs",
    "Padder",
    "padded_dim",
    "padded_layout_markdown",
    "padded_obs_layout",
    "padder",
    "ruleset_name",
    "unpadded_dim",
]

MAX_SEATS = MAX_PLAYERS
"""Seat blocks in a padded observation."""
PLAYER_COUNTS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
"""The player counts a padded observation encodes (``num_players`` is one-hot over them)."""
COUNT_FIELD: Field = ("num_players", len(PLAYER_COUNTS), "one-hot player count: 2, 3, 4, 5, 6")
PRESENT_FIELD: Field = ("present", 1, "1 if this seat is at the table (K < n); an absent seat's block is 0")


def ruleset_name(rules: str | RulesConfig) -> str:
    """``"standard"`` or ``"original"``: the ruleset (the field set) of a preset name or rules object."""
    return resolve_rules(rules).ruleset


def _fields(ruleset: str, n: int) -> tuple[Fields, Fields, Fields]:
    """Global, own and per-player fields of ``ruleset``'s ``n``-player observation (its registry record)."""
    if ruleset not in RULESETS:
        raise ConfigError(f"no observation layout for ruleset {ruleset!r}")
    return RULESETS[ruleset].observation_fields(n)


def _width(fields: Fields) -> int:
    return sum(w for _, w, _ in fields)


def unpadded_dim(ruleset: str, n: int) -> int:
    """Length of the env's observation of an ``n``-player game of ``ruleset``."""
    g, o, p = _fields(ruleset, n)
    return _width(g) + _width(o) + n * _width(p)


def padded_obs_layout(ruleset: str) -> dict[str, slice]:
    """Name → slice of the padded observation of ``ruleset``: the env's names for K in 0 … 5, plus
    ``num_players`` and ``playerK.present`` (a fresh dict).
    """
    return dict(_layout(ruleset))


@functools.cache
def _layout(ruleset: str) -> dict[str, slice]:
    g, o, p = _fields(ruleset, MAX_SEATS)
    out: dict[str, slice] = {}
    at = 0
    for prefix, fields in (("", g), ("own.", o), ("", (COUNT_FIELD,))):
        for name, width, _ in fields:
            out[prefix + name] = slice(at, at + width)
            at += width
    for k in range(MAX_SEATS):
        for name, width, _ in (PRESENT_FIELD, *p):
            out[f"player{k}.{name}"] = slice(at, at + width)
            at += width
    return out


def padded_dim(ruleset: str) -> int:
    """Length of a padded observation of ``ruleset`` (176 standard, 350 original)."""
    return int(max(s.stop for s in _layout(ruleset).values()))


def padded_layout_markdown(ruleset: str) -> str:
    """The padded layout of ``ruleset`` as a Markdown table (docs/environment.md embeds both)."""
    g, o, p = _fields(ruleset, MAX_SEATS)
    rows = ["| field | width | meaning |", "|---|---|---|"]
    for prefix, fields in (("", g), ("own.", o), ("", (COUNT_FIELD,)), ("playerK.", (PRESENT_FIELD, *p))):
        rows += [f"| `{prefix}{name}` | {width} | {doc} |" for name, width, doc in fields]
    return "\n".join(rows)


class Padder:
    """Pads ``n``-player observations of one ruleset to the padded layout: a precomputed gather, so
    padding a batch costs one write of the padded rows."""

    def __init__(self, ruleset: str, num_players: int) -> None:
        if num_players not in PLAYER_COUNTS:
            raise ConfigError(f"num_players must be one of {PLAYER_COUNTS}, got {num_players!r}")
        g, o, p = _fields(ruleset, num_players)
        self.ruleset, self.num_players = ruleset, num_players
        self.obs_dim = unpadded_dim(ruleset, num_players)
        """Length of the env's observation (the input)."""
        layout = _layout(ruleset)
        self.padded_dim = padded_dim(ruleset)
        """Length of the padded observation (the output)."""
        head = _width(g) + _width(o)
        columns = [np.arange(head)]  # global and own fields: where the env puts them
        for k in range(num_players):
            start = layout[f"player{k}.present"].stop  # the env's player fields follow the flag
            columns.append(start + np.arange(_width(p)))  # the original `checks` field is last: a prefix
        self.columns = np.concatenate(columns)
        """Padded column of each of the env's columns, in order (every env column is kept)."""
        template = np.zeros(self.padded_dim, dtype=np.float32)
        template[layout["num_players"].start + PLAYER_COUNTS.index(num_players)] = 1.0
        for k in range(num_players):
            template[layout[f"player{k}.present"]] = 1.0
        self.template = template
        """The padded row before the env's values are written: the count and the presence flags."""
        # The gather as two strided copies: the head, then the n seat blocks at a fixed stride.
        self._head = head
        self._seats = layout["player0.present"].start
        self._stride = layout["player1.present"].start - self._seats
        self._seat_width = _width(p)

    def pad(self, observations: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``(..., padded_dim)`` float32 padded rows of ``(..., obs_dim)`` observations, written into
        ``out`` (a C-contiguous float32 array of that shape) when given.
        """
        obs = np.asarray(observations)
        if obs.shape[-1] != self.obs_dim:
            raise ConfigError(
                f"a {self.num_players}-player {self.ruleset} observation has length {self.obs_dim}, "
                f"got {obs.shape[-1]}"
            )
        rows = obs.reshape(-1, self.obs_dim)
        shape = (*obs.shape[:-1], self.padded_dim)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ConfigError(f"out must be a C-contiguous float32 array of shape {shape}")
        flat = out.reshape(-1, self.padded_dim)  # a view: out is C-contiguous
        n, width = self.num_players, self._seat_width
        flat[:] = self.template
        flat[:, : self._head] = rows[:, : self._head]
        seats = flat[:, self._seats :].reshape(-1, MAX_SEATS, self._stride)
        seats[:, :n, 1 : 1 + width] = rows[:, self._head :].reshape(-1, n, width)
        return out


@functools.cache
def padder(ruleset: str, num_players: int) -> Padder:
    """The (shared, immutable) :class:`Padder` of ``(ruleset, num_players)``."""
    return Padder(ruleset, num_players)


@dataclass(frozen=True)
class PaddedInputs:
    """What a padded policy reads: the padded layout of ``rules``, for the counts it was trained on.

    A policy says so in its file, never by its input width: ``{"padded": true, "rules": "standard",
    "player_counts": [2, 3, 4]}`` in a ``MaskablePPO`` zip's ``hoity_env.json`` entry or an ``.npz``
    export's metadata.  At play time it pads the env's observations of the table it is told
    (:meth:`pad`) and refuses a count it was not trained for.
    """

    rules: str
    """The rules preset it was trained on (its ruleset gives the layout)."""
    player_counts: tuple[int, ...]
    where: str = "policy"
    """What to call the policy in errors (its file)."""

    def __post_init__(self) -> None:
        counts = self.player_counts
        if not counts or any(n not in PLAYER_COUNTS for n in counts) or len(set(counts)) != len(counts):
            raise ConfigError(f"{self.where}: player_counts must be distinct counts in 2..6, got {counts!r}")
        if self.rules not in RULESET_NAMES:
            raise ConfigError(f"{self.where}: rules {self.rules!r} is not one of {', '.join(RULESET_NAMES)}")

    @property
    def ruleset(self) -> str:
        return ruleset_name(self.rules)

    @property
    def obs_dim(self) -> int:
        """The width of the network's input (the padded layout's)."""
        return padded_dim(self.ruleset)

    def describe(self) -> str:
        """``"2, 3 or 4 players of the standard rules"``: the tables it plays, for errors."""
        counts = [str(n) for n in self.player_counts]
        listed = counts[0] if len(counts) == 1 else f"{', '.join(counts[:-1])} or {counts[-1]}"
        return f"{listed} players of the {self.rules} rules"

    def check_table(self, num_players: int | None) -> None:
        """Refuse a game of ``num_players`` (None: not known yet) that the policy was not trained for."""
        if num_players is not None and num_players not in self.player_counts:
            raise ConfigError(f"{self.where} was trained for {self.describe()}, not {num_players} players")

    def check_rules(self, rules: str | RulesConfig) -> None:
        """Refuse a game of another ruleset (the layouts differ; a changed preset keeps its layout)."""
        if ruleset_name(rules) != self.ruleset:
            raise ConfigError(
                f"{self.where} was trained for {self.describe()}, not the {ruleset_name(rules)} rules"
            )

    def pad(self, observations: np.ndarray, num_players: int) -> np.ndarray:
        """``(B, padded_dim)`` float32 rows of the env's ``(B, D)`` observations of a ``num_players``
        game, one of the counts it was trained for (padded rows pass as they are)."""
        obs = np.asarray(observations)
        width = int(obs.shape[-1]) if obs.ndim else -1
        if width == self.obs_dim:
            return obs
        self.check_table(num_players)
        expected = unpadded_dim(self.ruleset, num_players)
        if width != expected:
            raise AgentInputError(
                f"{self.where} plays {num_players} players of the {self.rules} rules (observations of "
                f"length {expected}), got observations of length {width}"
            )
        return padder(self.ruleset, num_players).pad(obs)

    def to_dict(self) -> dict[str, Any]:
        """The keys a file records (see the class docstring)."""
        return {"padded": True, "rules": self.rules, "player_counts": list(self.player_counts)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> PaddedInputs | None:
        """The padded inputs a file's keys describe; None for a policy that reads the env's observations."""
        if not data.get("padded"):
            return None
        counts = data.get("player_counts")
        if not isinstance(counts, list) or not all(isinstance(n, int) for n in counts):
            raise ConfigError(f"{where}: player_counts must be a list of player counts, got {counts!r}")
        return cls(str(data.get("rules")), tuple(counts), where)
