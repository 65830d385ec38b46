"""The original (1990) ruleset's one-game engine (RULES O-1 … O-9).

``rules`` holds the ruleset (checks, two lots, thieves by number, jail, castle
rewards); ``state`` the state class with the original game's extra fields and
their restore checks.  It reuses the standard ruleset's steps where the two
games agree (the deal's shape, reveals, the end order), by importing them from
:mod:`hoity_env.engine.standard`, never by copying them.
"""

from __future__ import annotations

from hoity_env.engine.original.rules import OriginalRuleset
from hoity_env.engine.original.state import OriginalState

__all__ = ["OriginalRuleset", "OriginalState"]
