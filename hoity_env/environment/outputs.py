"""Where the action mask and the events go: the env's output format (docs/design.md §2).

Multi-agent libraries disagree on where they look for the legal actions.
PettingZoo's classic games (and TorchRL, Tianshou, our own agents) read
``obs["action_mask"]`` beside ``obs["observation"]``; AgileRL and RLlib-style
pipelines want a flat ``Box`` observation and the mask in ``infos``.  And most of
them store every info value in a tensor or a replay buffer, so an info may hold
only fixed-shape values.  :class:`OutputFormat` is that choice, made once per env
from three constructor arguments and applied to whatever observation space the
ruleset's observer has, so every observer gets every format.

Infos always hold ``phase`` (int: 0 = location step next, 1 = action step, as
the batched env's ``infos["phase"]``) and ``illegal_action`` (bool); ``action_mask``
when the mask goes to infos; ``events`` (variable-length public event records,
not tensor-friendly) only with ``info_events=True``: otherwise read them from
``env.last_events``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from hoity_env.engine.errors import ConfigError

MASK_PLACES = ("observation", "infos", "both")
OBSERVATION_FORMATS = ("dict", "flat")


@dataclass(frozen=True)
class OutputFormat:
    """Where the mask goes, whether the observation is a dict, and whether infos carry events."""

    action_mask: str = "observation"
    observation_format: str = "dict"
    info_events: bool = False

    @classmethod
    def from_args(cls, action_mask: str | None, observation_format: str, info_events: bool) -> OutputFormat:
        """Validate the constructor arguments; ``action_mask=None`` picks the place the format allows."""
        if observation_format not in OBSERVATION_FORMATS:
            raise ConfigError(
                f"observation_format must be one of {OBSERVATION_FORMATS}, got {observation_format!r}"
            )
        flat = observation_format == "flat"
        if action_mask is None:
            action_mask = "infos" if flat else "observation"
        if action_mask not in MASK_PLACES:
            raise ConfigError(f"action_mask must be None or one of {MASK_PLACES}, got {action_mask!r}")
        if flat and action_mask != "infos":
            raise ConfigError(
                f"observation_format='flat' has no room for the mask: use action_mask='infos' "
                f"(or leave it None), got action_mask={action_mask!r}"
            )
        if not isinstance(info_events, bool):
            raise ConfigError(f"info_events must be a bool, got {info_events!r}")
        return cls(action_mask, observation_format, info_events)

    @property
    def flat(self) -> bool:
        """The observation is the bare vector (a ``Box``), not a dict."""
        return self.observation_format == "flat"

    @property
    def mask_in_observation(self) -> bool:
        """``obs["action_mask"]`` exists."""
        return self.action_mask in ("observation", "both")

    @property
    def mask_in_infos(self) -> bool:
        """``infos[agent]["action_mask"]`` exists."""
        return self.action_mask in ("infos", "both")

    def observation_space(self, vector: spaces.Box, mask: spaces.Box) -> spaces.Space[Any]:
        """The per-agent observation space built from the observer's vector space and the mask's."""
        if self.flat:
            return vector
        parts: dict[str, spaces.Space[Any]] = {"observation": vector}
        if self.mask_in_observation:
            parts["action_mask"] = mask
        return spaces.Dict(parts)

    def observation(self, vector: np.ndarray, mask: np.ndarray) -> Any:
        """One agent's observation in this format (the arrays are used as they are)."""
        if self.flat:
            return vector
        if self.mask_in_observation:
            return {"observation": vector, "action_mask": mask}
        return {"observation": vector}

    def split(self, observation: Any, info: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """``(vector, mask)`` of one agent from its observation and info, whatever the format.

        For code that must run on every format (scripted agents on a flat env, tests).
        """
        vector = observation if self.flat else observation["observation"]
        mask = observation["action_mask"] if self.mask_in_observation else info["action_mask"]
        return vector, mask
