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


def _run_table(num_series: int) -> np.ndarray:
    """``(2**S, S, S)`` 0/1: for each pattern of non-empty series (bit ``s`` = series ``s``),
    which series make up each of its runs of consecutive non-empty series (unused rows 0)."""
    table = np.zeros((1 << num_series, num_series, num_series), dtype=np.int64)
    for pattern in range(1 << num_series):
        run = -1
        for s in range(num_series):
            if pattern >> s & 1:
                if s == 0 or not pattern >> (s - 1) & 1:
                    run += 1
                table[pattern, s, run] = 1
    return table


_RUNS = _run_table(len(_COPIES))
_BITS = 1 << np.arange(len(_COPIES))
_LOT = np.vstack([np.eye(len(_COPIES), dtype=np.int64), np.zeros((1, len(_COPIES)), dtype=np.int64)])
"""Row ``s``: one card of series ``s``; row -1 (no lot): nothing."""
_SERIES = np.arange(len(_COPIES))
_NEAR = np.vstack(
    [
        (np.abs(_SERIES[:, None] - _SERIES[None, :]) <= 1).astype(np.int64),
        np.zeros((1, len(_COPIES)), dtype=np.int64),
    ]
)
"""Row ``s``: the series next to or equal to ``s``; row -1 (no lot): none."""


def best_run(counts: np.ndarray) -> np.ndarray:
    """Cards in the largest run of consecutive series (0 if below ``min_exhibition``, C-3).

    ``counts`` has the series on its last axis; the result has the leading axes.
    The pattern of non-empty series picks its runs from a table (no loop over
    series): each run's total is a sum over its series.
    """
    c = np.asarray(counts, dtype=np.int64)
    runs = _RUNS[(c > 0) @ _BITS]  # (..., S, S): series × run
    totals = (c[..., None, :] @ runs)[..., 0, :]
    out: np.ndarray = (totals * (totals >= MIN_EXHIBITION)).max(axis=-1)
    return out


def lot_gain(view: BatchObservationView, counts: np.ndarray) -> np.ndarray:
    """``(B,)``: how much the lot on display would grow our best exhibition (0 without a lot)."""
    both = best_run(np.concatenate([counts, counts + _LOT[view.lot_series]]))
    out: np.ndarray = both[len(counts) :] - both[: len(counts)]
    return out


def near_run(counts: np.ndarray, series: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: whether a card of ``series`` (-1: none) would touch our cards in its or a
    neighbouring series."""
    out: np.ndarray = (counts * _NEAR[series]).sum(axis=1) > 0
    return out
