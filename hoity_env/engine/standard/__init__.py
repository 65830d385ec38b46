"""The standard ruleset's one-game engine (RULES S-1 … S-8): the readable reference.

``rules`` holds the ruleset (setup, legal actions, the two-step round, the end);
``auction`` and ``castle`` hold the resolutions of the Auction House (S-5) and the
Castle (S-6).  A new standard rule goes into the module of the step it changes,
cites its id, and gets a row in ``tests/engine/test_rules_standard.py``.
"""

from __future__ import annotations

from hoity_env.engine.standard.rules import StandardRuleset

__all__ = ["StandardRuleset"]
