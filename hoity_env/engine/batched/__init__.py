"""The batched engine: B games as arrays, stepped by one call (numpy, optional numba kernels).

* ``game``: :class:`BatchedGame`, the public face (deal, masks, step, conversions).
* ``state``: :class:`BatchState`, the struct of arrays, and its derived fields.
* ``exhibitions`` and ``castle``: the vectorised rules the round needs.
* ``numba_kernels``: the compiled twins of the numpy functions above (the ``fast``
  extra); each kernel names the numpy function it mirrors.
* ``shared_steps``: the deal and the end of a round, which both rulesets share.
* ``original_state``, ``original_round``, ``original_game``, ``original_kernels``: the
  ``original`` ruleset (RULES O-1 … O-9): its arrays, its round (numpy), its game object
  (``BatchedGame(rules="original")``) and its numba kernels.

Both paths are held equal to the one-game engines by differential tests
(``tests/engine/test_batched_engine.py``, ``tests/test_batched_original*.py``,
``benchmarks/differential_batched.py``).
"""

from __future__ import annotations

from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.original.batched import OriginalBatchedGame
from hoity_env.engine.standard.batched import BATCHED_RULESETS, BatchedGame

__all__ = ["BATCHED_RULESETS", "BatchState", "BatchedGame", "OriginalBatchedGame"]
