"""The ruleset-neutral parts of the batched engine: B games as arrays (``state``), the deck as
arrays (``exhibitions``), the shared deal (``shared_steps``) and shared kernels (``kernels``).
"""

from __future__ import annotations

from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.state import BatchState

__all__ = ["BatchState", "CardTable"]
