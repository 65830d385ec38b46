"""Saved policies that read padded observations: which ones do, for which tables, and the padding.

A policy trained on padded observations (:mod:`hoity_env.environment.padding`; the fast
learner with ``padded`` or several ``num_players``) plays every player count it was trained
on with one network.  Its file says so explicitly, never by its input width: a
``MaskablePPO`` zip carries a ``hoity_env.json`` entry (:data:`ZIP_ENTRY`), a numpy ``.npz``
export the same keys in its metadata (:mod:`hoity_env.agents.policies.mlp`)::

    {"padded": true, "rules": "standard", "player_counts": [2, 3, 4, 5, 6]}

At play time the agent gets the env's own observations of the table it is told and pads
them itself (:meth:`PaddedInputs.pad`), so ``ppo:``, ``ppo-sample:`` and a named agent play
such a file as any other.  A table whose count it was not trained for is refused up front
(:meth:`PaddedInputs.check_table`), and rows of another table with one :class:`AgentInputError`.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.view import AgentInputError
from hoity_env.engine.config import RULESET_NAMES, RulesConfig
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.padding import PLAYER_COUNTS, padded_dim, padder, ruleset_name, unpadded_dim

__all__ = ["ZIP_ENTRY", "PaddedInputs", "read_zip_entry"]

ZIP_ENTRY = "hoity_env.json"
"""The entry of a ``MaskablePPO`` zip that marks a padded policy (SB3 ignores entries it does not know)."""


@dataclass(frozen=True)
class PaddedInputs:
    """What a padded policy reads: the padded layout of ``rules``, for the counts it was trained on."""

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
        """The keys a file records (see the module docstring)."""
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


def read_zip_entry(path: Path) -> PaddedInputs | None:
    """The padded inputs recorded in the ``MaskablePPO`` zip at ``path`` (None without the entry)."""
    try:
        with zipfile.ZipFile(path) as archive:
            if ZIP_ENTRY not in archive.namelist():
                return None
            data = json.loads(archive.read(ZIP_ENTRY).decode("utf-8"))
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"checkpoint {path}: unreadable {ZIP_ENTRY} ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"checkpoint {path}: {ZIP_ENTRY} must hold a JSON object")
    return PaddedInputs.from_dict(data, f"checkpoint {path}")
