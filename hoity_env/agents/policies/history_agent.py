"""A saved policy with memory of the game, played as an agent: it tracks each game's public history.

The fast learner with ``memory = K`` trains a policy whose input is the observation followed by every
seat's reveals in the ``K`` rounds before last (:mod:`hoity_env.environment.history`); its checkpoint
records ``K``.  ``ppo:PATH`` and ``ppo-sample:PATH`` load such a checkpoint as a :class:`HistoryAgent`,
which rebuilds those rows from the observations it is shown, one history per game.
See docs/evaluation.md (A best response with memory of the game).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hoity_env.agents.batch import check_batch, one_row
from hoity_env.agents.policies.sb3 import PolicyAgent
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.history import History, observation_layout

__all__ = ["HistoryAgent"]


class HistoryAgent:
    """Plays a :class:`~hoity_env.agents.policies.sb3.PolicyAgent` whose checkpoint has ``memory`` > 0.

    ``policy`` decides from the augmented rows; this agent keeps one
    :class:`~hoity_env.environment.history.History` row per game, fed only by the observations it is shown:

    * one game (``hoity-play``, ``hoity-serve``, the one-game harness): ``reset(seed)`` starts it and every
      ``act`` is its next observation, so one object plays one seat (a spec string gives each its own);
    * many games: the game hooks of :mod:`hoity_env.agents.batch` (``start_games(labels)`` clears those
      rows, ``act_games(labels, …)`` plays them);
    * a plain ``act_batch`` of ``B`` rows plays games ``0 … B-1``, begun by the last ``reset``.

    A greedy one decides alike on the one-game and the batched path.  Its ``name``, ``obs_dim`` (the
    observation's), ``num_actions`` and ``table`` (the game it plays) are the policy's.
    """

    def __init__(self, policy: PolicyAgent) -> None:
        if not policy.memory or policy.padded is not None:  # a padded policy has no memory
            raise ConfigError(f"checkpoint {policy.path} reads no history; play it as a PolicyAgent")
        self.policy = policy
        self.name = policy.name
        self.obs_dim, self.num_actions = policy.obs_dim, policy.num_actions
        self.table = table = policy.table
        self.history = History(observation_layout(table.ruleset, table.num_players), policy.memory)
        if policy.obs_dim + self.history.width != policy.input_dim:
            raise ConfigError(
                f"checkpoint {policy.path}: a policy input of {policy.input_dim} values is not a "
                f"{table.ruleset} observation of {policy.obs_dim} and {policy.memory} rounds of history"
            )

    @property
    def memory(self) -> int:
        """Rounds of history the policy reads."""
        return self.history.memory

    def reset(self, seed: int | None = None) -> None:
        """Start anew: every row's history cleared; ``seed`` reseeds the policy's generator."""
        self.policy.reset(seed)
        self.history.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The next decision of the game begun by the last :meth:`reset` (its row 0)."""
        return int(self.act_batch(*one_row(observation, action_mask))[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B,)`` actions; row ``i`` is the next observation of game ``i`` begun by the last reset."""
        return self.act_games(np.arange(len(observations)), observations, action_masks)

    # ------------------------------------------------------- the game hooks
    def start_games(self, games: np.ndarray, seeds: Sequence[int] | None = None) -> None:
        """Games labelled ``games`` begin: their rows start with an empty history.

        ``seeds`` are accepted as every agent with the game hooks accepts them; a saved
        policy draws from its own generator, so they change nothing here.
        """
        self.history.reset(np.asarray(games, dtype=np.int64))

    def act_games(
        self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray, *, checked: bool = False
    ) -> np.ndarray:
        """``(B,)`` actions for rows labelled by game: one forward pass over the augmented rows."""
        obs, masks = check_batch(
            observations, action_masks, obs_dim=self.obs_dim, num_actions=self.num_actions
        )
        inputs = self.history.augment(np.asarray(games, dtype=np.int64), obs)
        return self.policy.choose(self.policy.action_probabilities(inputs, masks), masks)
