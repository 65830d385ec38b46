"""The PPO loss: clipped policy loss, value loss, entropy bonus and a KL term toward a magnet.

The magnet is a reference policy the learner is pulled toward with strength
``magnet_coef`` (magnetic mirror descent's regulariser, also what keeps a best
response or a league member from drifting into a degenerate corner):
``KL(π ‖ μ) = Σ_legal π (log π − log μ)``, which is zero exactly when ``π = μ`` on
the legal actions, and whose gradient moves ``π`` toward ``μ``.  ``μ`` is uniform
over the legal actions, or a frozen / moving-average copy of the policy
(:mod:`hoity_env.learning.magnet`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from hoity_env.learning.policy import masked_entropy, masked_probs


@dataclass(frozen=True)
class LossTerms:
    """The parts of one minibatch's loss (tensors, so ``total`` can be back-propagated)."""

    total: torch.Tensor
    policy: torch.Tensor
    value: torch.Tensor
    entropy: torch.Tensor
    kl_magnet: torch.Tensor
    approx_kl: torch.Tensor
    clip_fraction: torch.Tensor


def uniform_log_probs(mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the uniform policy over each row's legal actions (illegal: -1e9)."""
    count = mask.sum(-1, keepdim=True).to(torch.float32)
    return torch.where(mask, -torch.log(count), torch.full_like(count, -1e9))


def kl_to_magnet(logp: torch.Tensor, magnet_logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``(R,)`` ``KL(π ‖ μ)`` summed over each row's legal actions."""
    return (masked_probs(logp, mask) * (logp - magnet_logp)).sum(-1)


def normalize(advantages: torch.Tensor) -> torch.Tensor:
    """Advantages shifted and scaled to mean 0, std 1 (a single row is only centred)."""
    centred = advantages - advantages.mean()
    if advantages.numel() < 2:
        return centred
    return centred / (advantages.std() + 1e-8)


def ppo_loss(
    logp: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor,
    actions: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    returns: torch.Tensor,
    *,
    clip: float,
    vf_coef: float,
    ent_coef: float,
    normalize_advantages: bool = True,
    magnet_logp: torch.Tensor | None = None,
    magnet_coef: float = 0.0,
) -> LossTerms:
    """PPO's clipped surrogate (as SB3 / CleanRL compute it) plus the optional magnet term.

    ``logp`` ``(R, A)`` masked log-probabilities and ``values`` ``(R,)`` come from the
    current policy; ``old_logp``, ``advantages``, ``returns`` are the rollout's.
    """
    new_logp = logp.gather(1, actions[:, None]).squeeze(1)
    log_ratio = new_logp - old_logp
    ratio = log_ratio.exp()
    adv = normalize(advantages) if normalize_advantages else advantages
    policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()
    value_loss = ((values - returns) ** 2).mean()  # SB3's mse (CleanRL halves it)
    entropy = masked_entropy(logp, mask).mean()
    kl_magnet = kl_to_magnet(logp, magnet_logp, mask).mean() if magnet_logp is not None else torch.zeros(())
    total = policy_loss + vf_coef * value_loss - ent_coef * entropy + magnet_coef * kl_magnet
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()  # the "k3" estimator CleanRL logs
        clip_fraction = ((ratio - 1).abs() > clip).float().mean()
    return LossTerms(total, policy_loss, value_loss, entropy, kl_magnet, approx_kl, clip_fraction)


__all__ = ["LossTerms", "kl_to_magnet", "normalize", "ppo_loss", "uniform_log_probs"]
