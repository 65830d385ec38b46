"""RLlib league play: ``main`` against frozen snapshots of itself and our scripted bots (extra ``rllib``).

Everyone is an RLModule of one MultiRLModule and only ``main`` is in ``policies_to_train``, so bots and
snapshots are frozen by construction; this was simpler than an env-side opponent mechanism, since
RLlib's ``add_module`` ships each new snapshot to every env runner.  :class:`LeagueMapping` seats the
league per episode and :class:`WinRateGate` decides when a frozen copy of ``main`` joins it.
See docs/scaling.md.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from hoity_env.agents import AGENT_NAMES, make
from hoity_env.engine.errors import ConfigError
from hoity_env.integrations.rllib.env import MAIN

__all__ = [
    "MAIN",
    "LeagueMapping",
    "ScriptedBotModule",
    "WinRateGate",
    "bot_module_id",
    "snapshot_module_id",
]

DEFAULT_BOTS = ("collector", "thief", "detective", "random", "expert")
"""The scripted zoo a league starts with."""


def bot_module_id(name: str) -> str:
    """The module id of scripted bot ``name`` (``bot_expert``)."""
    if name not in AGENT_NAMES:
        raise ConfigError(f"unknown scripted bot {name!r}; choose from {', '.join(AGENT_NAMES)}")
    return f"bot_{name}"


def snapshot_module_id(number: int) -> str:
    """The module id of the ``number``-th frozen copy of ``main`` (``main_v1``, ``main_v2``...)."""
    return f"{MAIN}_v{number}"


def _stable_hash(text: str) -> int:
    """A hash that is the same in every process (``hash(str)`` is salted per process)."""
    return zlib.crc32(text.encode())


def seat_of(agent_id: str) -> int:
    """The seat number of ``player_N``."""
    prefix, _, number = str(agent_id).rpartition("_")
    if prefix != "player" or not number.isdigit():
        raise ConfigError(f"expected an agent id like 'player_0', got {agent_id!r}")
    return int(number)


@dataclass(frozen=True)
class LeagueMapping:
    """``policy_mapping_fn``: ``main`` in one seat per episode, league members in the others.

    ``opponents`` are module ids (bots and snapshots); a new instance is installed
    each time the league grows.  RLlib calls it once per seat when an episode starts: from the
    episode's id it puts ``main`` in one seat and draws each other seat's opponent independently
    (mixed tables), by a stable hash of ``(episode id, seat)``, so every seat agrees on ``main``'s.
    """

    num_players: int
    opponents: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.opponents:
            raise ConfigError("a league needs at least one opponent for main")
        if MAIN in self.opponents:
            raise ConfigError(f"{MAIN!r} cannot be its own opponent (snapshots have their own ids)")

    def main_seat(self, episode_id: str) -> int:
        """The seat ``main`` plays in this episode."""
        return _stable_hash(episode_id) % self.num_players

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        """The module that plays ``agent_id`` in ``episode`` (RLlib passes the episode, ``id_``)."""
        seat = seat_of(agent_id)
        if not 0 <= seat < self.num_players:
            raise ConfigError(f"{agent_id!r} is not a seat of a {self.num_players}-player game")
        episode_id = str(episode.id_)
        if seat == self.main_seat(episode_id):
            return MAIN
        return self.opponents[_stable_hash(f"{episode_id}/{seat}") % len(self.opponents)]


@dataclass
class WinRateGate:
    """Every ``every`` iterations, score ``main``; a mean win rate >= ``threshold`` freezes a copy.

    Pure bookkeeping (no Ray, no games): the training script scores ``main`` with our harness
    (duplicate format, greedy, as the ``rllib:PATH`` agent) against each member filling every other
    seat and passes the win rates in; ``history`` keeps every decision for the log.
    """

    every: int
    threshold: float
    history: list[tuple[int, float, bool]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if isinstance(self.every, bool) or not isinstance(self.every, int) or self.every < 1:
            raise ConfigError(f"the gate's period must be an int >= 1, got {self.every!r}")
        if not 0.0 <= self.threshold <= 1.0:
            raise ConfigError(f"the gate's threshold is a win rate in [0, 1], got {self.threshold!r}")

    def due(self, iteration: int) -> bool:
        """Whether ``main`` is scored after training iteration ``iteration`` (1-based)."""
        return iteration >= 1 and iteration % self.every == 0

    def passes(self, iteration: int, win_rates: Mapping[str, float]) -> bool:
        """Record the scores of one gate; ``True`` when their mean reaches the threshold."""
        if not win_rates:
            raise ConfigError("the gate needs main's win rate against at least one league member")
        rates = list(win_rates.values())
        if any(not 0.0 <= r <= 1.0 for r in rates):
            raise ConfigError(f"win rates must lie in [0, 1], got {dict(win_rates)}")
        mean = float(np.mean(rates))
        passed = mean >= self.threshold
        self.history.append((iteration, mean, passed))
        return passed


class ScriptedBotModule(RLModule):  # type: ignore[misc]
    """One of our scripted bots as a frozen RLModule; ``model_config``: ``{"agent": NAME, "seed": S,
    "num_players": N, "rules": R}`` (the game's table; the package's defaults where left out).

    It returns ``actions`` itself, so RLlib samples nothing for it; it has no
    weights and refuses to be trained (leave it out of ``policies_to_train``).
    """

    def setup(self) -> None:
        """Build the bot named in ``model_config`` (seeded: a bot's draws are reproducible)."""
        config = dict(self.model_config or {})
        name = config.get("agent")
        bot_module_id(str(name))  # a clear ConfigError for a name outside the zoo
        self.agent = make(
            str(name),
            seed=config.get("seed"),
            num_players=config.get("num_players"),
            rules=config.get("rules"),
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        vectors = np.asarray(_numpy(obs["observation"]), dtype=np.float32)
        masks = np.asarray(_numpy(obs["action_mask"])).astype(bool)
        return {Columns.ACTIONS: self.agent.act_batch(vectors, masks)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(
            "scripted bots are frozen: keep them out of policies_to_train (config.multi_agent)"
        )

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to compile (RLlib calls this on torch modules)."""


def _numpy(value: Any) -> np.ndarray:
    """A torch tensor (what RLlib's connectors hand a module) or an array, as a numpy array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def league_specs(bots: Sequence[str], snapshots: Sequence[str]) -> list[str]:
    """The league as harness agent specs: bot names, then ``rllib:PATH`` of each snapshot."""
    return [*bots, *(f"rllib:{path}" for path in snapshots)]
