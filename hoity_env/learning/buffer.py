"""The rollout buffer: one preallocated ``(T, R, …)`` tensor per quantity, reused every rollout.

``R = B · n`` rows: seat ``i`` of game ``b`` is row ``b · n + i``, the layout of
the batched env's ``[B, n, …]`` arrays flattened, so a step's observations and
masks are copied in with one ``copy_`` each from ``torch.from_numpy`` views (no
intermediate copies, whatever the arrays' strides; int8 masks are viewed as bool).  Every row is stored, the
learner's and the opponents' alike, and :attr:`RolloutBuffer.learner` says which
entries are the learner's: only those are trained on (:meth:`learner_batch`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class Batch:
    """The learner's entries of one rollout, flattened: what the PPO epochs sample minibatches from."""

    obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logp: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor

    def __len__(self) -> int:
        return int(self.actions.shape[0])


class RolloutBuffer:
    """``steps × rows`` transitions; see the module docstring."""

    def __init__(self, steps: int, rows: int, obs_dim: int, num_actions: int) -> None:
        self.steps, self.rows = steps, rows
        self.obs = torch.zeros(steps, rows, obs_dim)
        self.masks = torch.zeros(steps, rows, num_actions, dtype=torch.bool)
        self.actions = torch.zeros(steps, rows, dtype=torch.int64)
        self.logp = torch.zeros(steps, rows)
        self.values = torch.zeros(steps, rows)
        self.rewards = torch.zeros(steps, rows)
        self.dones = torch.zeros(steps, rows, dtype=torch.bool)
        self.learner = torch.zeros(steps, rows, dtype=torch.bool)

    def store_inputs(self, t: int, obs: np.ndarray, masks: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """Copy step ``t``'s ``[B, n, D]`` observations and ``[B, n, A]`` int8 masks in; return the rows."""
        # copy_ reads any strides (the env's arrays may not be C-contiguous): still one copy.
        self.obs[t].view(obs.shape).copy_(torch.from_numpy(obs))
        self.masks[t].view(masks.shape).copy_(torch.from_numpy(masks).view(torch.bool))
        return self.obs[t], self.masks[t]

    def store_outcome(self, t: int, rewards: np.ndarray, done: np.ndarray) -> None:
        """Step ``t``'s ``[B, n]`` rewards and ``[B]`` game-ended flags (all seats of a game end with it)."""
        self.rewards[t].copy_(torch.from_numpy(rewards).view(self.rows))
        self.dones[t].view(done.shape[0], -1).copy_(torch.from_numpy(done)[:, None])

    def learner_batch(self, advantages: torch.Tensor, returns: torch.Tensor) -> Batch:
        """The learner's entries only (all of them in pure self-play: then no gather is needed)."""
        keep = self.learner.view(-1)
        index = None if bool(keep.all()) else keep.nonzero().squeeze(1)

        def pick(values: torch.Tensor) -> torch.Tensor:
            flat = values.reshape(keep.shape[0], *values.shape[2:])
            return flat if index is None else flat.index_select(0, index)

        return Batch(
            obs=pick(self.obs),
            masks=pick(self.masks),
            actions=pick(self.actions),
            logp=pick(self.logp),
            advantages=pick(advantages),
            returns=pick(returns),
        )


__all__ = ["Batch", "RolloutBuffer"]
