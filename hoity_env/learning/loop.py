"""The learner: collect a rollout of B games, compute GAE, run the PPO epochs, repeat.

A step of the loop is array code only, which is where the speed comes from: the learner's seats of
all B games (of every player count, padded rows end to end) go through one forward pass, each
opponent decides all its seats with one ``act_batch`` call, and the env steps all games at once.
:meth:`Learner.state_dict` captures a run between iterations as plain data, so a resumed run
continues exactly as the uninterrupted one.  See docs/learning.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from hoity_env.engine.errors import ConfigError
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.files import write_atomically
from hoity_env.learning.buffer import RolloutBuffer
from hoity_env.learning.checkpoint import policy_bytes
from hoity_env.learning.gae import gae
from hoity_env.learning.magnet import Magnet
from hoity_env.learning.memory import PolicyInputs
from hoity_env.learning.plain import array, tensor
from hoity_env.learning.policy import MaskedPolicy
from hoity_env.learning.seats import Seating
from hoity_env.learning.settings import LearnerSettings
from hoity_env.learning.tables import Table, Tables
from hoity_env.learning.update import DivergenceError, check_finite_weights, ppo_update
from hoity_env.learning.warm import check_fits, copy_actor, init_policy

logger = logging.getLogger(__name__)

CPU_PARTS = ("env", "opponents", "policy", "learning")


class Learner:
    """Masked PPO on the batched engine: everything a run changes, seeded from ``settings.seed``.

    It owns the policy and its optimizer, the :class:`~hoity_env.learning.tables.Tables` (a batched
    env and a seating per player count), the magnet, the rollout buffer and every generator.  Same
    settings, seed and thread count: the same run, weight for weight.  ``cpu`` splits the CPU
    time (``time.process_time``) into ``env``, ``opponents``, ``policy`` (forward passes, padding,
    buffer writes) and ``learning`` (GAE and the update).

    With ``settings.init`` the actor is copied from that policy before anything reads it
    (:mod:`hoity_env.learning.warm`); a resumed run takes its weights from its state instead.  With
    ``settings.curriculum`` the seats switch to ``opponents`` at the end of the iteration that
    reaches ``curriculum_steps`` (step counts alone decide, so a resume switches at the same one).
    """

    def __init__(self, settings: LearnerSettings, *, initialise: bool = True) -> None:
        """A new run of ``settings``; ``initialise`` False leaves the actor as the seed made it, without
        reading ``settings.init`` (:meth:`from_state_dict` loads the run's own weights instead)."""
        self.settings = s = settings
        torch.set_num_threads(s.threads)
        first = s.replace(opponents=s.curriculum, curriculum=(), curriculum_steps=0) if s.curriculum else s
        self.tables = Tables(first)
        """The games: one batched env and seating per player count (:mod:`.tables`)."""
        self.num_players = s.num_players
        self.rows = self.tables.rows
        init = torch.Generator().manual_seed(s.seed)
        self.inputs = PolicyInputs(self.tables, s.memory)
        """The policy's input rows: the tables' observations, with ``settings.memory`` rounds of history."""
        obs_dim, num_actions = self.inputs.dim, self.tables.num_actions
        self.policy = MaskedPolicy(obs_dim, num_actions, s.hidden, s.activation, init)
        if s.init and initialise:  # before the optimizer, the magnet and the snapshots see the policy
            start = init_policy(s.init, s.rules, s.player_counts)
            check_fits(start, s, obs_dim, num_actions)
            copy_actor(self.policy, start)
            logger.info("actor initialised from %s (%s)", start.spec, start.where)
        # foreach: one kernel per step for all the weights, the same numbers as the loop over them
        # (tests/learning/test_learning.py), about a third less CPU per step at these sizes (issue 34).
        self.optimizer = torch.optim.Adam(
            self.policy.parameters(), lr=s.learning_rate, eps=1e-5, foreach=True
        )
        self.sampler = torch.Generator().manual_seed(s.seed + 1)
        self.shuffler = torch.Generator().manual_seed(s.seed + 2)
        self.magnet = Magnet(s, self.policy)
        self.tables.seat(self.policy)
        self.buffer = RolloutBuffer(s.rollout_steps, self.rows, obs_dim, num_actions)
        self.tables.reset()
        self.x = self.inputs.observe()
        """What the policy reads now: :attr:`obs`, with the history features of a memory run."""
        self.steps = 0
        """Learner steps so far (decisions of learner seats)."""
        self._rollout_start = 0
        """``steps`` when the last rollout began (the learning-rate schedule reads it)."""
        self.updates = 0
        self.cpu = dict.fromkeys(CPU_PARTS, 0.0)
        self._returns = np.zeros(self.rows, dtype=np.float64)

    @property
    def obs(self) -> np.ndarray:
        """The tables' rows now: the env's ``[B, n, D]`` observations, or padded ``[R, D]`` rows (what
        the policy reads, but for a memory run's history features: :attr:`x`)."""
        return self.tables.obs

    @property
    def masks(self) -> np.ndarray:
        """The masks beside :attr:`obs` (``[B, n, A]`` or ``[R, A]`` int8)."""
        return self.tables.masks

    @property
    def env(self) -> BatchedHoityEnv:
        """The batched env of a single-count run (several counts: ``tables.tables[k].env``)."""
        return self._single().env

    @property
    def seating(self) -> Seating:
        """The seating of a single-count run (several counts: ``tables.seatings()``)."""
        seating = self._single().seating
        assert seating is not None
        return seating

    def _single(self) -> Table:
        if len(self.tables.tables) != 1:
            raise ConfigError(
                f"this learner plays {self.settings.player_counts} players: one env and seating per "
                "count, in learner.tables"
            )
        return self.tables.tables[0]

    @property
    def observation_space(self) -> gym.spaces.Box:
        """The space of the policy's input rows (padded when ``settings.padded``)."""
        return self.tables.observation_space

    # ------------------------------------------------------------ rollout
    def collect(self) -> dict[str, float]:
        """Play ``rollout_steps`` steps of every game into the buffer; episode statistics."""
        buf, tables = self.buffer, self.tables
        finished: list[np.ndarray] = []
        finished_rows: list[np.ndarray] = []
        clock = time.process_time
        self._rollout_start = self.steps
        for t in range(buf.steps):
            start = clock()
            obs_t, mask_t = buf.store_inputs(t, self.x, tables.masks)
            rows = tables.learner_rows()
            joint = np.empty(self.rows, dtype=np.int64)
            if rows.shape[0] == self.rows:  # pure self-play: no gathers
                actions, logp, values = self.policy.act(obs_t, mask_t, self.sampler)
                buf.logp[t], buf.values[t] = logp, values
                buf.learner[t] = True
                joint[:] = actions.numpy()
            else:
                index = torch.from_numpy(rows)
                actions, logp, values = self.policy.act(obs_t[index], mask_t[index], self.sampler)
                buf.values[t].zero_()
                buf.learner[t].zero_()
                buf.logp[t, index], buf.values[t, index] = logp, values
                buf.learner[t, index] = True
                joint[rows] = actions.numpy()
            middle = clock()
            tables.act(joint)
            buf.actions[t].copy_(torch.from_numpy(joint))  # every seat's action (the tests replay them)
            before_env = clock()
            rewards, done, games_ended = tables.step(joint)
            after_env = clock()
            tables.refresh()
            self.x = self.inputs.observe(done)
            buf.store_outcome(t, rewards, done)
            self._returns += rewards
            if done.any():
                ended = np.flatnonzero(done)
                learner_ended = ended[np.isin(ended, rows, assume_unique=True)]
                finished.append(self._returns[learner_ended].copy())
                finished_rows.append(learner_ended)
                self._returns[ended] = 0.0
                tables.place(games_ended)
            self.steps += rows.shape[0]
            end = clock()
            self.cpu["policy"] += (middle - start) + (end - after_env)
            self.cpu["opponents"] += before_env - middle
            self.cpu["env"] += after_env - before_env
        returns = np.concatenate(finished) if finished else np.zeros(0)
        stats = episode_stats(returns)
        if len(tables.tables) > 1:  # and per player count
            counts = tables.counts_of(np.concatenate(finished_rows) if finished_rows else np.zeros(0, int))
            for n in self.settings.player_counts:
                stats.update(episode_stats(returns[counts == n], f"_{n}p"))
        return stats

    # ------------------------------------------------------------ update
    def update(self) -> dict[str, float]:
        """GAE over the buffer, then the PPO epochs on the learner's entries."""
        start = time.process_time()
        s, buf = self.settings, self.buffer
        with torch.no_grad():
            last = torch.zeros(self.rows)
            rows = self.tables.learner_rows()
            obs = torch.from_numpy(self.x).reshape(self.rows, -1)
            index = torch.from_numpy(rows)
            last[index] = self.policy.value(obs[index])
            advantages, returns = gae(buf.rewards, buf.values, buf.dones, last, s.gamma, s.gae_lambda)
        batch = buf.learner_batch(advantages, returns)
        if s.lr_schedule == "linear":
            rate = s.learning_rate * max(0.0, 1.0 - self._rollout_start / s.total_steps)
            for group in self.optimizer.param_groups:
                group["lr"] = rate
        self.magnet.anneal(self.steps)
        where = f"training diverged in update {self.updates + 1} (at {self.steps:,} learner steps)"
        try:
            stats = ppo_update(self.policy, self.optimizer, batch, s, self.magnet, self.shuffler)
        except DivergenceError as exc:
            raise DivergenceError(f"{where}: {exc}") from None
        check_finite_weights(self.policy, where)
        self.updates += 1
        self.magnet.after_update(self.policy, self.updates)
        if s.snapshot_every and self.updates % s.snapshot_every == 0:
            self.tables.add_snapshot(self.policy)
        if s.curriculum and self._rollout_start < s.curriculum_steps <= self.steps:
            self._end_curriculum()
        self.cpu["learning"] += time.process_time() - start
        if self.magnet.active:
            stats["magnet_coef"] = self.magnet.coef
        return stats

    def _end_curriculum(self) -> None:
        """Draw the seats from ``opponents`` from the next episodes on: each seating gets their entries
        (built from its own generator) and the curriculum's weights go to 0 (its games play on)."""
        pool = self.settings.opponents
        for seating in self.tables.seatings():
            before = len(seating.entries)
            for spec, weight in pool:
                seating.add_entry(spec, weight)
            seating.set_weights([0.0] * before + [weight for _, weight in pool])
        logger.info("curriculum over at %d learner steps: the seats are drawn from the opponents", self.steps)

    def iterate(self) -> dict[str, float]:
        """One rollout and one update; their statistics, with ``steps`` and ``updates``."""
        stats = self.collect()
        stats.update(self.update())
        stats.update(steps=float(self.steps), updates=float(self.updates))
        return stats

    def learn(
        self,
        total_steps: int | None = None,
        *,
        on_iteration: Callable[[Learner, dict[str, float]], bool | None] | None = None,
    ) -> MaskedPolicy:
        """Iterate until ``total_steps`` learner steps (default ``settings.total_steps``).

        ``on_iteration(learner, stats)`` runs after every iteration; returning True stops
        the run there (how the run folder saves checkpoints and answers Ctrl-C).
        """
        target = self.settings.total_steps if total_steps is None else total_steps
        while self.steps < target:
            stats = self.iterate()
            logger.debug("iteration %d: %s", self.updates, stats)
            if on_iteration is not None and on_iteration(self, stats):
                break
        return self.policy

    def policy_zip(self) -> bytes:
        """The policy as the bytes of a ``MaskablePPO`` zip: a ``ppo:PATH`` agent once written."""
        return policy_bytes(self.policy, self.settings, self.inputs.space(self.observation_space))

    def save_policy(self, path: str | Path) -> Path:
        """The policy as a ``MaskablePPO`` zip at ``path`` (atomic): a ``ppo:PATH`` agent."""
        return write_atomically(path, self.policy_zip())

    # ------------------------------------------------------------ resume
    def state_dict(self) -> dict[str, Any]:
        """Everything a run holds between two iterations, as plain data (numbers, strings, lists,
        dicts, tensors: :mod:`hoity_env.learning.plain`); :meth:`from_state_dict` continues it."""
        return {
            "settings": self.settings.to_dict(),
            "steps": self.steps,
            "updates": self.updates,
            "policy": self.policy.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "sampler": self.sampler.get_state(),
            "shuffler": self.shuffler.get_state(),
            "magnet": self.magnet.state_dict(),
            "tables": self.tables.state_dict(),
            "inputs": self.inputs.state_dict(),
            "x": tensor(self.x) if self.inputs.history is not None else None,
            "returns": tensor(self._returns),
        }

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> Learner:
        """The learner :meth:`state_dict` captured, ready to continue (a state that does not fit
        its own settings raises :class:`ConfigError`)."""
        learner = cls(LearnerSettings.from_dict(state["settings"]), initialise=False)
        learner.policy.load_state_dict(state["policy"])
        learner.optimizer.load_state_dict(state["optimizer"])
        learner.sampler.set_state(state["sampler"])
        learner.shuffler.set_state(state["shuffler"])
        learner.magnet.load_state_dict(state["magnet"])
        learner.tables.load_state_dict(state["tables"], learner.policy)
        learner.inputs.load_state_dict(state["inputs"])
        learner.x = learner.tables.obs if state["x"] is None else array(state["x"], "x", np.float32)
        learner._returns = array(state["returns"], "returns", np.float64).copy()
        learner.steps, learner.updates = int(state["steps"]), int(state["updates"])
        return learner


def episode_stats(returns: np.ndarray, suffix: str = "") -> dict[str, float]:
    """``episodes`` and ``episode_return`` (their mean) of the learner's finished episodes."""
    return {
        f"episodes{suffix}": float(returns.size),
        f"episode_return{suffix}": float(returns.mean()) if returns.size else 0.0,
    }


__all__ = ["CPU_PARTS", "Learner", "episode_stats"]
