"""The agent protocols, and the seeded base that gives every built-in agent both of them.

Every player in hoity_env (scripted bot, saved model, human) is an :class:`Agent`:
``act(observation, action_mask) -> int`` on the arrays the environment returns,
and ``reset(seed)`` at the start of each game.  Built-in agents are also
:class:`~hoity_env.agents.batch.BatchAgent` s (``act_batch`` over ``(B, D)``
observations), and their ``act`` is ``act_batch`` at ``B = 1``.  Every built-in agent
is told the table it plays (:class:`~hoity_env.agents.view.Table`); scripted agents decide
from the observation only, so they can never peek at hidden state.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from hoity_env.agents.batch import BatchAgent, GeneratorAgent, check_batch
from hoity_env.agents.view import AgentInputError, BatchObservationView, ObservationView, Table
from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.config import RulesConfig

__all__ = [
    "AUCTION",
    "BID0",
    "CASTLE",
    "DETECTIVE",
    "EXHIBIT",
    "THIEF",
    "Agent",
    "AgentInputError",
    "BatchAgent",
    "BatchObservationView",
    "ObservationView",
    "SeededAgent",
    "Table",
    "legal_actions",
]


@runtime_checkable
class Agent(Protocol):
    """Anything that plays a seat: scripted bots and saved policies alike."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Choose a legal action index for this observation (``action_mask[a] == 1``)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` reseeds the agent's own generator."""
        ...


@runtime_checkable
class PlayingAgent(Agent, BatchAgent, Protocol):
    """What :func:`hoity_env.agents.make` builds: an agent for one seat and for a batch of seats."""


class SeededAgent(GeneratorAgent):
    """Base of the scripted agents: the table it plays, a generator of its own and ``DRAWS``
    uniforms per decision.

    Subclasses write one rule, :meth:`decide`, over a whole batch; ``act_batch``
    checks the input (observations of another table than ``rules``/``num_players``,
    the package's defaults ``standard``/4 where none is given, are refused) and draws
    the uniforms; ``act`` is ``act_batch`` at ``B = 1``.
    """

    name = "seeded"
    DRAWS: ClassVar[int] = 1
    """Uniforms drawn per row and decision (whether or not a row's branch uses them)."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: str | RulesConfig | None = None,
        num_players: int | None = None,
    ) -> None:
        self.rng = np.random.default_rng(seed)
        self.table = Table.of(rules, num_players)
        """The game the agent plays."""

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 legal actions; draws ``(B, DRAWS)`` uniforms from the agent's generator."""
        return self.act_batch_checked(*check_batch(observations, action_masks))

    def act_batch_checked(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """:meth:`act_batch` for a batch known to be well formed (float32 ``(B, D)`` observations,
        bool ``(B, A)`` masks with a legal action per row), as hoity_env's envs hand out; the
        observations' length is still checked against the agent's table."""
        self.table.check_width(observations.shape[1], self.name)
        draws = self.rng.random((observations.shape[0], self.DRAWS))
        return self.decide(observations, action_masks, draws)

    @abstractmethod
    def decide(self, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """The decision rule: a pure function of checked ``(B, D)`` float32 observations,
        ``(B, A)`` bool masks and ``(B, DRAWS)`` uniforms in [0, 1); ``(B,)`` int64 legal actions."""


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """Indices where the mask is 1 (never empty, RULES C-6)."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise AgentInputError("the action mask is all zero; hoity_env never sends one (RULES C-6)")
    return legal
