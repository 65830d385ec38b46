"""A warm start: the learner's actor begins as a saved policy's (``LearnerSettings.init``).

A best response that starts from its target's own weights already plays the game, so its budget goes
to finding the target's weaknesses instead of learning the rules first.  Only the actor is copied (an
exported ``.npz`` holds no critic): the critic starts fresh, from the run's seed.
See docs/evaluation.md (how a best response starts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from hoity_env.agents import HistoryAgent, NumpyPolicyAgent, PolicyAgent, PopulationAgent, make
from hoity_env.agents.policies.export import policy_layers
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.padding import PaddedInputs
from hoity_env.learning.policy import MaskedPolicy
from hoity_env.learning.settings import LearnerSettings

__all__ = ["InitPolicy", "check_fits", "copy_actor", "init_policy", "network_text"]


@dataclass(frozen=True)
class InitPolicy:
    """The actor a warm start copies: its layers and the network they need."""

    spec: str
    """The agent spec the weights are from (a population's heaviest member is named as such)."""
    where: str
    """Its file."""
    weights: tuple[np.ndarray, ...]
    """``w0 … wL`` (float32, ``(out, in)``): the hidden layers, then the action head."""
    biases: tuple[np.ndarray, ...]
    activation: str
    padded: PaddedInputs | None
    """What a padded policy reads (None: the table's own observations)."""
    memory: int
    """Rounds of history the policy reads beside the observation (0: none)."""

    @property
    def hidden(self) -> tuple[int, ...]:
        """The hidden layers' widths."""
        return tuple(int(w.shape[0]) for w in self.weights[:-1])

    @property
    def input_dim(self) -> int:
        return int(self.weights[0].shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.weights[-1].shape[0])

    def describe(self) -> str:
        """``"128×128 relu, padded input, no memory"``: the network, for messages."""
        return network_text(self.hidden, self.activation, self.padded is not None, self.memory)


def network_text(hidden: tuple[int, ...], activation: str, padded: bool, memory: int) -> str:
    """A network's shape in words (:meth:`InitPolicy.describe`, and a learner's in the same terms)."""
    reads = "padded input" if padded else "the table's input"
    remembers = f"memory {memory}" if memory else "no memory"
    return f"{'×'.join(map(str, hidden))} {activation}, {reads}, {remembers}"


def init_policy(spec: str, rules: str, counts: tuple[int, ...]) -> InitPolicy:
    """The actor ``spec`` plays at ``rules`` with each of the player ``counts``.

    ``spec`` is a named agent (its shipped ``.npz`` for that table), ``npz:PATH``, ``ppo:PATH`` /
    ``ppo-sample:PATH`` (a memory policy's too) or a population (its heaviest member with weights,
    the first of equal weights; scripted members are passed over).  A scripted agent, a population
    of scripted agents only and ``rllib:PATH`` have no weights: each is a :class:`ConfigError`.

    A spec that plays another policy at one of the counts than at the first (a named agent
    registered with several files) is refused: a learner of several counts starts from one.
    """
    found = [_actor(make(spec, 0, num_players=n, rules=rules), spec) for n in counts]
    first = found[0]
    for n, other in zip(counts[1:], found[1:], strict=True):
        if other.where != first.where:
            raise ConfigError(
                f"init {spec} plays {first.where} at {counts[0]} players and {other.where} at {n}: "
                "a learner of several counts starts from one policy"
            )
    return first


def _actor(agent: object, named: str) -> InitPolicy:
    """The weights of the agent ``make`` built (``named``: its spec, or what to call a member); a
    population's heaviest member with weights."""
    if isinstance(agent, PopulationAgent):
        order = np.argsort(-agent.weights, kind="stable")  # the heaviest first, the first of equals
        for index in (int(i) for i in order):
            if _has_weights(agent.agents[index]):
                member = agent.specs[index]
                return _actor(agent.agents[index], f"{member} (the heaviest member of {named})")
        raise ConfigError(f"init {named} is a population of agents without policy weights to start from")
    if isinstance(agent, HistoryAgent):
        agent = agent.policy
    if isinstance(agent, NumpyPolicyAgent):
        policy = agent.policy
        return InitPolicy(
            named, policy.where, policy.weights, policy.biases, policy.metadata["activation"], agent.padded, 0
        )
    if isinstance(agent, PolicyAgent):
        weights, biases, activation = policy_layers(agent.model)
        return InitPolicy(
            named, str(agent.path), tuple(weights), tuple(biases), activation, agent.padded, agent.memory
        )
    raise ConfigError(
        f"init {named} has no policy weights to start from (a scripted or rllib: agent); a warm "
        "start needs a named agent, npz:PATH, ppo:PATH, ppo-sample:PATH or a population of them"
    )


def _has_weights(agent: object) -> bool:
    """Whether :func:`_actor` can read ``agent``'s weights."""
    return isinstance(agent, NumpyPolicyAgent | PolicyAgent | HistoryAgent)


def check_fits(init: InitPolicy, settings: LearnerSettings, input_dim: int, num_actions: int) -> None:
    """A :class:`ConfigError` naming both networks unless ``init``'s actor is the learner's: the same
    hidden widths, activation, padded input and memory, and the learner's ``input_dim`` and
    ``num_actions``."""
    s = settings
    mine = network_text(s.hidden, s.activation, s.padded, s.memory)
    same = (init.hidden, init.activation, init.padded is not None, init.memory) == (
        s.hidden,
        s.activation,
        s.padded,
        s.memory,
    )
    if not same or (init.input_dim, init.num_actions) != (input_dim, num_actions):
        raise ConfigError(
            f"init {init.spec}, read from {init.where}, is a {init.describe()} network reading "
            f"{init.input_dim} values into {init.num_actions} actions; this learner's is {mine} reading "
            f"{input_dim} into "
            f"{num_actions}: give the learner the file's hidden, activation, padded and memory"
        )


def copy_actor(policy: MaskedPolicy, init: InitPolicy) -> None:
    """Write ``init``'s layers into ``policy``'s actor (shapes checked by :func:`check_fits`)."""
    layers = [m for m in policy.actor_body if isinstance(m, nn.Linear)] + [policy.action_head]
    with torch.no_grad():
        for layer, w, b in zip(layers, init.weights, init.biases, strict=True):
            layer.weight.copy_(torch.from_numpy(np.asarray(w, dtype=np.float32)))
            layer.bias.copy_(torch.from_numpy(np.asarray(b, dtype=np.float32)))
