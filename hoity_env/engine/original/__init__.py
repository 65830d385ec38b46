"""The original (1990) ruleset (RULES O-1 … O-9): one-game rules and state, batched rules and
kernels, and the observation encoders.  Steps the two rulesets share are imported from
:mod:`hoity_env.engine.standard`, never copied.
"""

from __future__ import annotations

from hoity_env.engine.original.rules import OriginalRuleset
from hoity_env.engine.original.state import OriginalState

__all__ = ["OriginalRuleset", "OriginalState"]
