"""Small statistics for evaluation reports: Wilson intervals, competition ranks, means.

Why Wilson: a win rate estimated from a few hundred games is often near 0 or 1
(a strong bot against ``random``), where the textbook normal interval
``p ± z·sqrt(p(1-p)/n)`` collapses to zero width or leaves [0, 1].  The Wilson
score interval stays inside [0, 1], keeps close to its nominal 95% coverage for
small ``n`` and extreme ``p``, and needs only the counts, so it is written out
here instead of pulling in scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

__all__ = ["Z95", "competition_ranks", "mean", "wilson_interval"]

Z95 = 1.959964
"""Two-sided 95% quantile of the standard normal distribution."""


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / trials``.

    ``trials == 0`` gives the uninformative ``(0.0, 1.0)``.  The bounds are clamped
    to [0, 1] so that rounding never pushes them an ulp outside.
    """
    if isinstance(successes, bool) or isinstance(trials, bool):
        raise TypeError("successes and trials must be integers, not bools")
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if z <= 0 or not math.isfinite(z):
        raise ValueError(f"z must be a positive finite number, got {z}")
    if trials == 0:
        return 0.0, 1.0
    n = float(trials)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


class Ordered(Protocol):
    """Anything with ``>`` (ints, the engine's rank-key tuples)."""

    def __gt__(self, other: Any, /) -> bool: ...


def competition_ranks(keys: Sequence[Ordered]) -> list[int]:
    """Standard competition ranks of ``keys`` where larger is better: 1 is best.

    Tied keys share the better rank and the next rank skips ("1224" ranking), so a
    two-way tie for first gives ranks ``[1, 1, 3, 4]``: a tie never costs a player.
    """
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; ``nan`` for an empty sequence (a report shows it as missing)."""
    if not values:
        return math.nan
    return math.fsum(values) / len(values)
