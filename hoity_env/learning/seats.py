"""Who sits in every seat of the B games: the learner, frozen snapshots, or scripted agents.

Each game draws one entry of the weighted pool (``LearnerSettings.opponents``) per episode, and
every actor decides all the seats it plays in all games with one ``act_batch`` call, never a Python
call per game: that is what keeps opponents cheap in the batched learner.  See docs/learning.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from hoity_env.agents import make
from hoity_env.agents.batch import act_batch, plays_per_game, start_games
from hoity_env.engine.errors import ConfigError, StateError
from hoity_env.environment.padding import Padder
from hoity_env.learning.magnet import frozen_copy
from hoity_env.learning.plain import (
    array,
    generator_state,
    load_object_state,
    object_state,
    set_generator_state,
    tensor,
)
from hoity_env.learning.policy import MaskedPolicy, masked_probs, sample
from hoity_env.learning.settings import SELF, SNAPSHOT, LearnerSettings

LEARNER = -1
"""The :attr:`Seating.assignment` value of a learner seat."""


class SnapshotAgent:
    """A frozen copy of the policy playing seats by sampling (a batched ``no_grad`` forward pass)."""

    def __init__(
        self, policy: MaskedPolicy, seed: int, name: str = "snapshot", padder: Padder | None = None
    ) -> None:
        self.name = name
        self.policy = frozen_copy(policy)
        self.generator = torch.Generator().manual_seed(seed)
        self.padder = padder
        """Pads the env's rows for a policy that reads padded ones (None: it reads them as they are)."""

    def load(self, policy: MaskedPolicy) -> None:
        """Take ``policy``'s current weights."""
        self.policy.load_state_dict(policy.state_dict())

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.generator.manual_seed(seed)

    def state_dict(self) -> dict[str, Any]:
        """The snapshot as plain data: its name, weights and generator."""
        return {
            "name": self.name,
            "policy": self.policy.state_dict(),
            "generator": self.generator.get_state(),
        }

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 actions sampled from the snapshot for well-formed rows."""
        mask = torch.from_numpy(np.ascontiguousarray(action_masks).astype(bool, copy=False))
        if self.padder is not None:
            observations = self.padder.pad(observations)
        logp, _ = self.policy(torch.from_numpy(np.ascontiguousarray(observations)), mask)
        return sample(masked_probs(logp, mask), self.generator).numpy()


class Seating:
    """The seat assignment of B games and the actors of the non-learner seats.

    At the start of each episode a game draws one pool entry from the seating's own generator:
    ``self`` (all seats the learner's), ``snapshot`` (one learner seat, drawn; the others one frozen
    snapshot, drawn among those kept) or an agent spec (one learner seat; the others copies of it).
    :attr:`assignment` ``[B, n]`` holds ``-1`` per learner seat, else the index of its actor;
    :meth:`act` fills the other seats (snapshots: one ``no_grad`` forward pass).  Snapshots live
    in a ring of ``snapshots_kept`` slots: a new one overwrites the oldest, and a game in progress
    against that slot plays on against the newer weights.
    """

    def __init__(
        self,
        settings: LearnerSettings,
        num_actions: int,
        policy: MaskedPolicy,
        rng: np.random.Generator,
        *,
        num_players: int | None = None,
        padder: Padder | None = None,
    ) -> None:
        self.rng = rng
        self.num_games = settings.num_games
        self.num_players: int = num_players or settings.player_counts[0]
        """This seating's player count (one of ``settings.player_counts``)."""
        self.rules = settings.rules
        self.padder = padder
        """Given when the learner's policy reads padded observations: its snapshots pad theirs."""
        self.num_actions = num_actions
        self.entries = [spec for spec, _ in settings.opponents]
        weights = np.array([w for _, w in settings.opponents], dtype=np.float64)
        self.weights = weights / weights.sum()
        self.actors: list[object] = []
        self.entry_actor: list[int] = []
        for spec in self.entries:
            if spec in (SELF, SNAPSHOT):
                self.entry_actor.append(LEARNER)
                continue
            agent = self._make(spec)
            self.entry_actor.append(len(self.actors))
            self.actors.append(agent)
        self.first_snapshot = len(self.actors)
        self.snapshots = 0
        """How many snapshots were ever taken (slot ``k % snapshots_kept`` holds number ``k``)."""
        self.kept = settings.snapshots_kept
        if SNAPSHOT in self.entries and settings.snapshot_every:
            self.add_snapshot(policy)  # the untrained policy, until the first real snapshot
        self.assignment = np.full((self.num_games, self.num_players), LEARNER, dtype=np.int64)
        self.place(np.arange(self.num_games))

    def _seed(self) -> int:
        return int(self.rng.integers(2**62))

    def _make(self, spec: str, seed: int | None = None) -> object:
        """The agent of ``spec`` for this seating's table, seeded from the seating's generator
        (or with ``seed``: an agent whose state is then loaded draws nothing from it)."""
        n, size = self.num_players, self.num_actions
        seed = self._seed() if seed is None else seed
        return make(spec, seed=seed, num_players=n, rules=self.rules, num_actions=size)

    # -------------------------------------------------------------- snapshots
    def add_snapshot(self, policy: MaskedPolicy) -> None:
        """Freeze ``policy``'s weights into the next ring slot (a no-op without ``snapshot`` entries)."""
        if SNAPSHOT not in self.entries:
            return
        slot = self.snapshots % self.kept
        if self.first_snapshot + slot < len(self.actors):
            self.actors[self.first_snapshot + slot].load(policy)  # type: ignore[attr-defined]
        else:
            self.actors.append(SnapshotAgent(policy, self._seed(), f"snapshot-{self.snapshots}", self.padder))
        self.snapshots += 1

    def add_entry(self, spec: str, weight: float) -> int:
        """A new agent-spec entry in the pool (a league's new member); its index.

        Games already in progress keep their seats; the entry is drawn from the next
        episodes on, with ``weight`` beside the current (normalised) weights until
        :meth:`set_weights` sets them all.
        """
        if spec in (SELF, SNAPSHOT) or not isinstance(spec, str) or not spec:
            raise ConfigError(f"add_entry takes an agent spec, got {spec!r}")
        if not isinstance(weight, int | float) or not np.isfinite(weight) or weight <= 0:
            raise ConfigError(f"the weight of a new entry must be a number > 0, got {weight!r}")
        agent = self._make(spec)
        # Actors are indexed: scripted and added ones first, then the snapshot ring.
        self.actors.insert(self.first_snapshot, agent)
        self.assignment[self.assignment >= self.first_snapshot] += 1
        self.first_snapshot += 1
        self.entries.append(spec)
        self.entry_actor.append(self.first_snapshot - 1)
        self.weights = np.append(self.weights, float(weight))
        self.weights = self.weights / self.weights.sum()
        return len(self.entries) - 1

    def free_retired(self, entries: Sequence[int]) -> None:
        """Drop the actors of ``entries`` (weight 0: never drawn again) that no game still seats.

        A retired entry's games in progress play on; its agent is freed at the first call
        after they end, so a league's memory stays bounded however many members it retires.
        """
        in_use = set(np.unique(self.assignment).tolist())
        for entry in entries:
            if self.weights[entry] > 0:
                raise StateError(f"entry {entry} ({self.entries[entry]!r}) still has weight; retire it first")
            actor = self.entry_actor[entry]
            if actor != LEARNER and actor not in in_use:
                self.actors[actor] = None

    def set_weights(self, weights: Sequence[float]) -> None:
        """New draw weights, one per pool entry, for the episodes that start from now on."""
        values = np.asarray(weights, dtype=np.float64)
        if values.shape != (len(self.entries),) or not np.all(np.isfinite(values)) or values.min() < 0:
            raise ConfigError(
                f"weights must be {len(self.entries)} finite numbers >= 0, got {list(weights)!r}"
            )
        if values.sum() <= 0:
            raise ConfigError(f"weights must not all be 0, got {list(weights)!r}")
        self.weights = values / values.sum()

    # -------------------------------------------------------------- resume
    def state_dict(self) -> dict[str, Any]:
        """The seating as plain data: the pool, its generator, every game's seats, and each actor
        (a spec agent's own state, :func:`~hoity_env.learning.plain.object_state`; a snapshot's
        weights; ``None`` once freed)."""
        actors: list[dict[str, Any] | None] = []
        for index, actor in enumerate(self.actors):
            if actor is None:
                actors.append(None)
            elif isinstance(actor, SnapshotAgent):
                actors.append({"snapshot": actor.state_dict()})
            else:
                actors.append({"entry": self.entry_actor.index(index), "state": object_state(actor)})
        return {
            "rng": generator_state(self.rng),
            "entries": list(self.entries),
            "weights": tensor(self.weights),
            "entry_actor": list(self.entry_actor),
            "first_snapshot": self.first_snapshot,
            "snapshots": self.snapshots,
            "assignment": tensor(self.assignment),
            "actors": actors,
        }

    def load_state_dict(self, state: dict[str, Any], policy: MaskedPolicy) -> None:
        """Take back :meth:`state_dict` (a seating built from the same settings; ``policy``: the
        learner's, the shape of the snapshots).  The agents the settings' pool built are reused;
        an entry added later (a league's member) is built again from its spec."""
        where = f"the seating of the {self.num_players}-player games"
        built: dict[str, list[object]] = {}
        for spec, index in zip(self.entries, self.entry_actor, strict=True):
            if index != LEARNER:
                built.setdefault(spec, []).append(self.actors[index])
        entries = [str(spec) for spec in state["entries"]]
        actors: list[object] = []
        for k, saved in enumerate(state["actors"]):
            if saved is None:
                actors.append(None)
            elif "snapshot" in saved:
                snap = saved["snapshot"]
                snapshot = SnapshotAgent(policy, 0, str(snap["name"]), self.padder)
                snapshot.policy.load_state_dict(snap["policy"])
                snapshot.generator.set_state(snap["generator"])
                actors.append(snapshot)
            else:
                spec = entries[saved["entry"]]
                agent = built[spec].pop() if built.get(spec) else self._make(spec, seed=0)
                load_object_state(agent, saved["state"], f"{where}, actor {k} ({spec})")
                actors.append(agent)
        assignment = array(state["assignment"], f"{where}: assignment", np.int64)
        weights = array(state["weights"], f"{where}: weights", np.float64)
        entry_actor = [int(i) for i in state["entry_actor"]]
        if assignment.shape != self.assignment.shape or not len(entries) == len(entry_actor) == len(weights):
            raise ConfigError(f"{where} does not fit this run's games ({assignment.shape} seats)")
        set_generator_state(self.rng, state["rng"], f"{where}: generator")
        self.entries, self.entry_actor, self.actors = entries, entry_actor, actors
        self.weights, self.assignment = weights.copy(), assignment.copy()
        self.first_snapshot, self.snapshots = int(state["first_snapshot"]), int(state["snapshots"])

    # -------------------------------------------------------------- seats
    def place(self, games: np.ndarray) -> None:
        """Draw the entry, learner seat and snapshot of each game in ``games`` (new episodes)."""
        k = len(games)
        if not k:
            return
        weights = self.weights
        if not self.snapshots:  # none yet (snapshot_every=0): snapshot entries wait for the first
            weights = np.where([e == SNAPSHOT for e in self.entries], 0.0, weights)
            if weights.sum() <= 0:
                raise StateError("only 'snapshot' entries have weight, and no snapshot exists yet")
            weights = weights / weights.sum()
        entry = self.rng.choice(len(self.entries), size=k, p=weights)
        seat = self.rng.integers(0, self.num_players, size=k)
        slot = self.rng.integers(0, max(1, min(self.snapshots, self.kept)), size=k)
        actor = np.asarray(self.entry_actor, dtype=np.int64)[entry]
        is_snapshot = np.asarray([self.entries[e] == SNAPSHOT for e in entry])
        actor = np.where(is_snapshot, self.first_snapshot + slot, actor)
        rows = np.broadcast_to(actor[:, None], (k, self.num_players)).copy()
        rows[np.arange(k), seat] = LEARNER
        self.assignment[games] = rows  # a "self" entry's actor is LEARNER in every seat
        for index, agent in enumerate(self.actors):  # a population draws a member per seat it plays
            if plays_per_game(agent):
                g, s = np.nonzero(rows == index)
                start_games(agent, games[g] * self.num_players + s)

    def learner_rows(self) -> np.ndarray:
        """Flat row indices (``game * n + seat``) of the learner's seats now."""
        return np.flatnonzero(self.assignment.reshape(-1) == LEARNER)

    def act(self, obs: np.ndarray, masks: np.ndarray, joint: np.ndarray) -> None:
        """Write the actors' choices into the flat ``(B·n,)`` ``joint`` for every non-learner seat."""
        flat = self.assignment.reshape(-1)
        present = np.unique(flat)
        if present[-1] == LEARNER:
            return
        rows_obs = obs.reshape(flat.shape[0], -1)
        rows_mask = masks.reshape(flat.shape[0], -1)
        for index in present[present != LEARNER]:
            rows = np.flatnonzero(flat == index)
            joint[rows] = act_batch(
                self.actors[index], rows_obs[rows], rows_mask[rows], checked=True, games=rows
            )


__all__ = ["LEARNER", "Seating", "SnapshotAgent"]
