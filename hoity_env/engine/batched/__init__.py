"""The ruleset-neutral parts of the batched engine: B games as arrays, and the kernels they share.

* ``state``: :class:`BatchState`, the struct of arrays, and its derived fields.
* ``exhibitions``: :class:`CardTable`, the deck as arrays and the packed exhibition key.
* ``shared_steps``: the deal both rulesets share.
* ``kernels``: the compiled steps both rulesets' rounds share (numba).

Each ruleset's own arrays, masks and round are in its folder (``standard/batched.py``
and ``kernels.py``, ``original/batched*.py`` and ``kernels.py``);
:class:`~hoity_env.engine.game.BatchedGame` puts them together through the registry.
"""

from __future__ import annotations

from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.state import BatchState

__all__ = ["BatchState", "CardTable"]
