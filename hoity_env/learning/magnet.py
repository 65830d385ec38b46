"""The magnet: the reference policy the loss's KL term pulls the learner toward (see :mod:`.loss`).

The pull is magnetic mirror descent's regulariser: it keeps self-play from collapsing onto a
predictable, exploitable policy.  The magnet is uniform over the legal actions, a frozen copy of
the policy, or a moving average of its weights.  See docs/learning.md.
"""

from __future__ import annotations

import copy
from typing import Any

import torch

from hoity_env.engine.errors import ConfigError
from hoity_env.learning.loss import uniform_log_probs
from hoity_env.learning.policy import MaskedPolicy
from hoity_env.learning.settings import LearnerSettings


class Magnet:
    """The magnet of one run; :meth:`log_probs` is what the loss compares the policy with.

    ``uniform``: uniform over the legal actions (no network); ``frozen``: a copy of the policy,
    refreshed every ``magnet_refresh`` updates (0: never); ``ema``: ``μ ← (1 - rate) μ + rate π``
    after every update.
    """

    def __init__(self, settings: LearnerSettings, policy: MaskedPolicy) -> None:
        self.kind = settings.magnet
        self.coef = settings.magnet_coef
        """The coefficient of the next update (see :meth:`anneal`)."""
        self.start, self.final = settings.magnet_coef, settings.magnet_final_coef
        self.total = settings.total_steps
        self.refresh = settings.magnet_refresh
        self.rate = settings.magnet_rate
        self.network: MaskedPolicy | None = None
        if self.kind in ("frozen", "ema"):
            self.network = frozen_copy(policy)

    @property
    def active(self) -> bool:
        return self.kind != "none"

    def anneal(self, steps: int) -> float:
        """Set (and return) :attr:`coef` for an update after ``steps`` learner steps.

        With ``magnet_final_coef`` set, a linear anneal from ``magnet_coef`` at step 0 to it at
        ``total_steps``; steps alone decide, so a resumed run anneals as the uninterrupted one.
        """
        if self.final is not None and self.total:
            fraction = min(max(steps / self.total, 0.0), 1.0)
            self.coef = self.start + (self.final - self.start) * fraction
        return self.coef

    @torch.no_grad()
    def log_probs(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor | None:
        """``(R, A)`` masked log-probabilities of the magnet, or None without one."""
        if self.kind == "none":
            return None
        if self.network is None:
            return uniform_log_probs(mask)
        logp, _ = self.network(obs, mask)
        return logp  # type: ignore[no-any-return]

    @torch.no_grad()
    def after_update(self, policy: MaskedPolicy, updates: int) -> None:
        """Move the magnet after update number ``updates`` (1-based)."""
        if self.network is None:
            return
        if self.kind == "ema":
            for mine, theirs in zip(self.network.parameters(), policy.parameters(), strict=True):
                mine.lerp_(theirs, self.rate)
        elif self.refresh and updates % self.refresh == 0:
            self.network.load_state_dict(policy.state_dict())

    def state_dict(self) -> dict[str, Any]:
        """What changes as the run goes (plain data): the coefficient and a network magnet's weights."""
        network = None if self.network is None else self.network.state_dict()
        return {"coef": self.coef, "network": network}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take back :meth:`state_dict` (a magnet built from the same settings)."""
        self.coef = float(state["coef"])
        if (state["network"] is None) != (self.network is None):
            raise ConfigError(
                f"a saved {self.kind!r} magnet {'has' if self.network is None else 'lacks'} a network"
            )
        if self.network is not None:
            self.network.load_state_dict(state["network"])


def frozen_copy(policy: MaskedPolicy) -> MaskedPolicy:
    """A copy of ``policy`` that never trains (no gradients, eval mode)."""
    twin = copy.deepcopy(policy)
    twin.requires_grad_(False)
    return twin.eval()


__all__ = ["Magnet", "frozen_copy"]
