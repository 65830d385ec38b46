"""Generalised advantage estimation over a rollout of many rows at once.

``dones[t]`` is true when step ``t`` ended its game: the row's next observation
then belongs to a new game (same-step autoreset), so nothing is bootstrapped
across it.  A game cut by the round limit has ended too (the limit is part of the
rules: no reward can follow), so truncation is treated as termination here.
"""

from __future__ import annotations

import torch


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    dones: torch.Tensor,
    last_values: torch.Tensor,
    gamma: float,
    lam: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(advantages, returns)``, each ``(T, R)``, for ``(T, R)`` rewards, values and dones.

    ``last_values`` ``(R,)`` are the values of the observations after the last step.
    ``A_t = δ_t + γλ(1 - d_t) A_{t+1}`` with ``δ_t = r_t + γ(1 - d_t) V_{t+1} - V_t``;
    returns are ``A + V`` (the critic's targets).
    """
    steps = rewards.shape[0]
    advantages = torch.empty_like(rewards)
    alive = 1.0 - dones.to(rewards.dtype)
    running = torch.zeros_like(last_values)
    next_values = last_values
    for t in range(steps - 1, -1, -1):
        delta = rewards[t] + gamma * next_values * alive[t] - values[t]
        running = delta + gamma * lam * alive[t] * running
        advantages[t] = running
        next_values = values[t]
    return advantages, advantages + values


__all__ = ["gae"]
