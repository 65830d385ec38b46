"""The standard ruleset (RULES S-1 … S-8): one-game rules (``rules``, ``auction``, ``castle``),
batched rules and kernels, and the observation encoders.
"""

from __future__ import annotations

from hoity_env.engine.standard.rules import StandardRuleset

__all__ = ["StandardRuleset"]
