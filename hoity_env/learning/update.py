"""The PPO update: epochs of shuffled minibatches over the learner's part of a rollout.

Few, large minibatches keep torch's per-call overhead small next to the arithmetic; the shuffle
comes from the learner's own torch generator, so a run is reproducible.  A step is taken only with a
finite loss and gradient norm: otherwise :class:`DivergenceError` is raised before the optimizer
moves, so no checkpoint ever holds a diverged policy.  See docs/learning.md.
"""

from __future__ import annotations

import math
from collections import defaultdict

import torch
from torch import nn

from hoity_env.engine.errors import ConfigError
from hoity_env.learning.buffer import Batch
from hoity_env.learning.loss import ppo_loss
from hoity_env.learning.magnet import Magnet
from hoity_env.learning.policy import MaskedPolicy
from hoity_env.learning.settings import LearnerSettings


class DivergenceError(ConfigError):
    """Training produced a non-finite loss, gradient or weight (settings it cannot learn with)."""


def check_finite_weights(policy: nn.Module, where: str) -> None:
    """A :class:`DivergenceError` naming ``where`` unless every weight of ``policy`` is finite."""
    bad = [name for name, p in policy.named_parameters() if not bool(torch.isfinite(p).all())]
    if bad:
        raise DivergenceError(f"{where}: non-finite weights in {', '.join(bad)}")


def ppo_update(
    policy: MaskedPolicy,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    settings: LearnerSettings,
    magnet: Magnet,
    generator: torch.Generator,
) -> dict[str, float]:
    """``settings.epochs`` passes over ``batch`` in minibatches; the mean of each loss term.

    A non-finite loss or gradient norm raises :class:`DivergenceError` before the optimizer steps."""
    sums: dict[str, float] = defaultdict(float)
    count = 0
    size = len(batch)
    if size == 0:
        return {}
    for _ in range(settings.epochs):
        order = torch.randperm(size, generator=generator)
        # One gather per epoch into shuffled copies, then contiguous slices (views): cheaper
        # than an advanced-indexing gather per minibatch, and the same rows in the same order.
        shuffled = [
            t.index_select(0, order)
            for t in (batch.obs, batch.masks, batch.actions, batch.logp, batch.advantages, batch.returns)
        ]
        for start in range(0, size, settings.minibatch_size):
            obs, mask, actions, old_logp, advantages, returns = (
                t[start : start + settings.minibatch_size] for t in shuffled
            )
            logp, values = policy(obs, mask)
            terms = ppo_loss(
                logp,
                values,
                mask,
                actions,
                old_logp,
                advantages,
                returns,
                clip=settings.clip,
                vf_coef=settings.vf_coef,
                ent_coef=settings.ent_coef,
                normalize_advantages=settings.normalize_advantages,
                magnet_logp=magnet.log_probs(obs, mask),
                magnet_coef=magnet.coef,
            )
            loss = float(terms.total.detach())
            if not math.isfinite(loss):
                raise DivergenceError(f"the loss is {loss} (terms: {_terms(terms)})")
            optimizer.zero_grad(set_to_none=True)
            terms.total.backward()  # type: ignore[no-untyped-call]
            norm = float(nn.utils.clip_grad_norm_(policy.parameters(), settings.max_grad_norm))
            if not math.isfinite(norm):
                raise DivergenceError(f"the gradient norm is {norm} (loss {loss:.4g})")
            optimizer.step()
            for name in ("policy", "value", "entropy", "kl_magnet", "approx_kl", "clip_fraction"):
                sums[name] += float(getattr(terms, name).detach())
            count += 1
    return {f"loss/{name}": total / count for name, total in sums.items()}


def _terms(terms: object) -> str:
    names = ("policy", "value", "entropy", "kl_magnet")
    return ", ".join(f"{n} {float(getattr(terms, n).detach()):.4g}" for n in names)


__all__ = ["DivergenceError", "check_finite_weights", "ppo_update"]
