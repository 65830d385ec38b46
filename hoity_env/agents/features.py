"""What the scripted styles read off a batch of observations: own series counts, runs, the lot's worth.

Every function works on a whole batch (leading ``B`` axis) with numpy, looping
only over the six series; the one-game agents call them at ``B = 1``.  They
assume the standard rules' ``min_exhibition`` (3), which the observation does
not carry.
"""

from __future__ import annotations

import numpy as np

from hoity_env.agents.view import BatchObservationView
from hoity_env.engine.config import STANDARD

__all__ = ["MIN_EXHIBITION", "best_run", "copies_of", "lot_gain", "near_run", "series_counts"]

MIN_EXHIBITION = STANDARD.min_exhibition
_COPIES = np.asarray(STANDARD.series_copies)
_COPIES_SIX = np.asarray(STANDARD.series_copies_six)


def copies_of(num_players: int) -> np.ndarray:
    """Copies of each series in the deck of a ``num_players`` game (six players use the big deck)."""
    return _COPIES_SIX if num_players >= 6 else _COPIES


def series_counts(view: BatchObservationView) -> np.ndarray:
    """``(B, 6)`` int64: own cards per series (integers), from the normalized observation."""
    counts: np.ndarray = np.rint(view.hand * copies_of(view.n)).astype(np.int64)
    return counts


def best_run(counts: np.ndarray) -> np.ndarray:
    """Cards in the largest run of consecutive series (0 if below ``min_exhibition``, C-3).

    ``counts`` has the series on its last axis; the result has the leading axes.
    A run's running total only grows, so its largest value is its total.
    """
    c = np.asarray(counts)
    run = np.zeros(c.shape[:-1], dtype=np.int64)
    best = np.zeros_like(run)
    for s in range(c.shape[-1]):
        run = np.where(c[..., s] > 0, run + c[..., s], 0)
        best = np.maximum(best, np.where(run >= MIN_EXHIBITION, run, 0))
    return best


def lot_gain(view: BatchObservationView, counts: np.ndarray) -> np.ndarray:
    """``(B,)``: how much the lot on display would grow our best exhibition (0 without a lot)."""
    series = view.lot_series
    has = series >= 0
    more = counts.copy()
    rows = np.flatnonzero(has)
    more[rows, series[rows]] += 1
    out: np.ndarray = np.where(has, best_run(more) - best_run(counts), 0)
    return out


def near_run(counts: np.ndarray, series: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: whether a card of ``series`` (-1: none) would touch our cards in its or a
    neighbouring series."""
    padded = np.pad(counts, ((0, 0), (1, 1)))  # series s sits at s + 1
    s = np.maximum(series, 0)
    rows = np.arange(counts.shape[0])
    near = padded[rows, s] + padded[rows, s + 1] + padded[rows, s + 2]
    out: np.ndarray = (series >= 0) & (near > 0)
    return out
