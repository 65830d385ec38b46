"""RLlib (new API stack): a ``MultiAgentEnv`` adapter for training with RLlib.

The classes live in the package, not in the training script, because RLlib pickles a module's class
by its import path: a module trained by ``training/rllib_ppo.py`` loads anywhere ``hoity_env`` is
installed.  :class:`MaskedPPOModule` and :class:`RLlibAgent` (:mod:`hoity_env.integrations.rllib.agent`)
are re-exported here for checkpoints that name this path.  Needs the ``rllib`` extra.
See docs/libraries.md (RLlib) and docs/scaling.md.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.env.multi_agent_env import MultiAgentEnv

from hoity_env.engine.errors import ConfigError
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.integrations.rllib.agent import MAIN, SHARED, MaskedPPOModule, RLlibAgent, module_folder


class HoityRLlibEnv(MultiAgentEnv):  # type: ignore[misc]
    """The parallel env as RLlib's ``MultiAgentEnv``; ``config`` holds the env's keyword arguments.

    Built with ``illegal_action="raise"`` unless told otherwise, so one illegal action anywhere stops
    training.  ``{"observation_keys": "rllib"}`` names the observation dict's keys as RLlib's own
    ``ActionMaskingTorchRLModule`` reads them (``observations``, ``action_mask``)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        kwargs = {"illegal_action": "raise", **dict(config or {})}
        self.env = HoityParallelEnv(**kwargs)
        if not self.env.output_format.mask_in_observation:
            raise ConfigError(
                "HoityRLlibEnv needs the mask in the observation dict (action_mask='observation')"
            )
        self.possible_agents = list(self.env.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game (see :meth:`HoityParallelEnv.reset`)."""
        obs, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        return obs, infos

    def step(self, action_dict: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        """One joint step; ``"__all__"`` is every seat's flag (they end together)."""
        obs, rewards, terms, truncs, infos = self.env.step(action_dict)
        self.agents = list(self.env.agents)
        terms["__all__"] = all(terms.values())
        truncs["__all__"] = all(truncs.values())
        return obs, rewards, terms, truncs, infos


__all__ = ["MAIN", "SHARED", "HoityRLlibEnv", "MaskedPPOModule", "RLlibAgent", "module_folder"]
