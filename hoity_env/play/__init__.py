"""Human play in the terminal (``hoity-play``): a person against agents, recorded as a replay."""

from __future__ import annotations

from hoity_env.play.session import Outcome, play

__all__ = ["Outcome", "play"]
