"""Where the action mask and the events go: the env's output format (docs/environment.md).

Libraries disagree on where they look for the legal actions: PettingZoo's classic games read
``obs["action_mask"]`` beside ``obs["observation"]``, RLlib's action-masking module
``obs["observations"]`` (``observation_keys="rllib"``), AgileRL-style pipelines a flat ``Box``
and the mask in ``infos``; and infos must hold fixed-shape values only.  Infos always hold
``phase`` (0: location step next, 1: action step) and ``illegal_action``; ``events`` only with
``info_events=True`` (else read ``env.last_events``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from hoity_env.engine.errors import ConfigError

MASK_PLACES = ("observation", "infos", "both")
OBSERVATION_FORMATS = ("dict", "flat")
OBSERVATION_KEYS = {"pettingzoo": "observation", "rllib": "observations"}
"""``observation_keys`` → the dict key of the vector (the mask's key is ``action_mask`` in both)."""


@dataclass(frozen=True)
class OutputFormat:
    """Where the mask goes, whether the observation is a dict (and its keys), whether infos carry events."""

    action_mask: str = "observation"
    observation_format: str = "dict"
    info_events: bool = False
    observation_keys: str = "pettingzoo"

    @classmethod
    def from_args(
        cls,
        action_mask: str | None,
        observation_format: str,
        info_events: bool,
        observation_keys: str = "pettingzoo",
    ) -> OutputFormat:
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
        if not isinstance(observation_keys, str) or observation_keys not in OBSERVATION_KEYS:
            raise ConfigError(
                f"observation_keys must be one of {tuple(OBSERVATION_KEYS)}, got {observation_keys!r}"
            )
        if observation_keys == "rllib" and (flat or action_mask == "infos"):
            # RLlib's masking module reads both keys from the observation dict.
            raise ConfigError(
                "observation_keys='rllib' names the keys of the observation dict with its mask: it needs "
                f"observation_format='dict' and the mask in the observation, got observation_format="
                f"{observation_format!r}, action_mask={action_mask!r}"
            )
        return cls(action_mask, observation_format, info_events, observation_keys)

    @property
    def flat(self) -> bool:
        """The observation is the bare vector (a ``Box``), not a dict."""
        return self.observation_format == "flat"

    @property
    def vector_key(self) -> str:
        """The dict key of the observation vector: ``observation``, or ``observations`` for RLlib."""
        return OBSERVATION_KEYS[self.observation_keys]

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
        parts: dict[str, spaces.Space[Any]] = {self.vector_key: vector}
        if self.mask_in_observation:
            parts["action_mask"] = mask
        return spaces.Dict(parts)

    def observation(self, vector: np.ndarray, mask: np.ndarray) -> Any:
        """One agent's observation in this format (the arrays are used as they are)."""
        if self.flat:
            return vector
        if self.mask_in_observation:
            return {self.vector_key: vector, "action_mask": mask}
        return {self.vector_key: vector}

    def split(self, observation: Any, info: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """``(vector, mask)`` of one agent from its observation and info, whatever the format."""
        vector = observation if self.flat else observation[self.vector_key]
        mask = observation["action_mask"] if self.mask_in_observation else info["action_mask"]
        return vector, mask
