"""The policy: an actor and a critic MLP, and the masked categorical they define.

Laid out as SB3's ``MlpPolicy`` so a trained policy's weights map one to one onto a ``MaskablePPO``
checkpoint (:mod:`hoity_env.learning.checkpoint`).  Illegal actions have probability exactly zero
and the entropy counts the legal actions only, so an illegal action never counts as "spread".
See docs/learning.md.
"""

from __future__ import annotations

import math

import torch
from torch import nn

MASKED_LOGIT = -1e9
"""The logit of an illegal action (its probability underflows to exactly 0; not ``-inf``, so no
``0 · inf`` NaN appears anywhere)."""


def mlp(n_in: int, hidden: tuple[int, ...], activation: str) -> nn.Sequential:
    """``Linear, act, Linear, act …`` with SB3's layout (indices 0, 2, … are the linears)."""
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(n_in, width), act()]
        n_in = width
    return nn.Sequential(*layers)


class MaskedPolicy(nn.Module):
    """Actor-critic MLP over flat observations: SB3 ``MlpPolicy``'s layout with ``net_arch=[h, h]``
    (separate actor and critic networks, no shared trunk).

    Initialised as SB3 initialises ``MlpPolicy`` (orthogonal, gain √2 for hidden
    layers, 0.01 for the action head, 1 for the value head; zero biases), from
    the torch generator given, so two policies built from the same seed are equal.
    """

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden: tuple[int, ...] = (128, 128),
        activation: str = "tanh",
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        self.obs_dim, self.num_actions = obs_dim, num_actions
        self.hidden, self.activation = tuple(hidden), activation
        self.actor_body = mlp(obs_dim, self.hidden, activation)
        self.critic_body = mlp(obs_dim, self.hidden, activation)
        self.action_head = nn.Linear(self.hidden[-1], num_actions)
        self.value_head = nn.Linear(self.hidden[-1], 1)
        with torch.no_grad():
            for body in (self.actor_body, self.critic_body):
                for layer in body:
                    if isinstance(layer, nn.Linear):
                        _orthogonal(layer, math.sqrt(2), generator)
            _orthogonal(self.action_head, 0.01, generator)
            _orthogonal(self.value_head, 1.0, generator)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked ``(R, A)`` logits."""
        return self.action_head(self.actor_body(obs))  # type: ignore[no-any-return]

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """``(R,)`` state values."""
        return self.value_head(self.critic_body(obs)).squeeze(-1)  # type: ignore[no-any-return]

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(masked log-probabilities (R, A), values (R,))``; ``mask`` is ``(R, A)`` bool."""
        return masked_log_probs(self.logits(obs), mask), self.value(obs)

    @torch.no_grad()
    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sampled ``(actions, their log-probabilities, values)`` for a batch of rows."""
        logp, values = self(obs, mask)
        actions = sample(masked_probs(logp, mask), generator)
        return actions, logp.gather(1, actions[:, None]).squeeze(1), values


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the categorical over the legal actions (illegal: ≈ -1e9)."""
    return torch.log_softmax(logits.masked_fill(~mask, MASKED_LOGIT), dim=-1)


def masked_probs(logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Probabilities from masked log-probabilities: exactly 0 off the mask.

    ``exp`` is taken of 0 where the mask is off, not of -1e9: an exponent that
    underflows takes a slow path in the CPU's vector math (8-20× slower per element).
    """
    return torch.where(mask, torch.where(mask, logp, 0.0).exp(), 0.0)


def masked_entropy(logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``(R,)`` entropy ``-Σ p log p`` over the legal actions only (``p`` is 0 elsewhere; a row with
    one legal action has entropy exactly 0)."""
    return -(masked_probs(logp, mask) * logp).sum(-1)


def sample(probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One action per row of ``probs`` (:func:`masked_probs`), by inverse CDF with one uniform per row.

    The uniforms come from ``generator`` only (never torch's global RNG), so the draw
    depends on its state alone.  An illegal action has an empty CDF interval (its
    probability is exactly 0), so the first index whose CDF exceeds ``u`` is legal.
    """
    cdf = probs.cumsum(-1)
    u = torch.rand((probs.shape[0], 1), generator=generator) * cdf[:, -1:]
    return (cdf <= u).sum(-1).clamp_(max=probs.shape[1] - 1)


def _orthogonal(layer: nn.Linear, gain: float, generator: torch.Generator | None) -> None:
    """Orthogonal weights (as ``nn.init.orthogonal_``, but from ``generator``) and zero bias."""
    rows, cols = layer.weight.shape
    flat = torch.randn(max(rows, cols), min(rows, cols), generator=generator)
    q, r = torch.linalg.qr(flat)
    q = q * torch.sign(torch.diagonal(r))
    layer.weight.copy_(gain * (q if rows >= cols else q.T)[:rows, :cols])
    layer.bias.zero_()


__all__ = [
    "MASKED_LOGIT",
    "MaskedPolicy",
    "masked_entropy",
    "masked_log_probs",
    "masked_probs",
    "mlp",
    "sample",
]
