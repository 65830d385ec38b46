"""The expert's role game, solved for many rows at once: rows are lanes of one vector.

The round's role game among the players at the Castle (each exhibits, steals or plays detective with a mix)
has as payoffs each player's gain in track spaces less the weighted gains of the others
(:func:`role_game_values`); regret matching (RM+) solves it as a restricted Nash response (:func:`solve`).
That is most of an ``expert`` decision and the same work for every row, so :data:`LANES` rows are solved
together, rows in the innermost axis of every array, which the compiler vectorizes; no ``fastmath``, so each
lane's numbers are those of solving its row alone.  See docs/agents.md (The expert) and docs/design.md §1.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from hoity_env.engine.jit import jit, jit_inline

__all__ = ["LANES", "Lanes", "lanes", "load", "solve"]

LANES = 128
"""Rows solved together: enough for the vector loops to pay off, and the working set (mostly
``rest``, 12·n²·64 doubles) stays in the level-2 cache."""
CARD_VALUE = 1.0
"""Track spaces a card taken from (or added to) an exhibition is worth."""


class Lanes(NamedTuple):
    """The role game of up to :data:`LANES` rows, each array's last axis the row (lane)."""

    trust: Any
    model: Any
    legal: Any
    mix: Any
    present: Any
    worth: Any
    beats: Any
    weights: Any
    regret: Any
    total: Any
    average: Any
    played: Any
    rest: Any
    values: Any
    sums: Any
    """``(12, LANES)``: each option's even and odd partial sums, the running products before and after,
    the expected value and the positive regret."""


@jit  # type: ignore[misc]
def lanes(n: int) -> Lanes:
    """Working arrays for ``n``-player rows."""
    per = (n, 3, LANES)
    return Lanes(
        np.empty((n, LANES)), np.empty(per), np.empty(per, dtype=np.bool_), np.empty(per),
        np.empty((n, LANES)), np.empty(per), np.empty((n, n, LANES)), np.empty((n, n, LANES)),
        np.empty(per), np.empty(per), np.empty(per), np.empty(per), np.empty((12, n, n, LANES)),
        np.empty((n, 4, LANES)), np.empty((12, LANES)),
    )  # fmt: skip


@jit_inline  # type: ignore[misc]
def load(
    lane: int, n: int, trust: Any, model: Any, legal: Any, mix: Any, present: Any, worth: Any, beats: Any,
    weights: Any, v: Lanes,
) -> None:  # fmt: skip
    """Put one row's game (its players' trust, model, legal roles, first mix, presence, worths,
    ``beats`` and race weights) into lane ``lane``; its regrets and totals start at 0."""
    for j in range(n):
        v.trust[j, lane] = trust[j]
        v.present[j, lane] = present[j]
        for c in range(3):
            v.model[j, c, lane] = model[j, c]
            v.legal[j, c, lane] = legal[j, c]
            v.mix[j, c, lane] = mix[j, c]
            v.worth[j, c, lane] = worth[j, c]
            v.regret[j, c, lane] = 0.0
            v.total[j, c, lane] = 0.0
        for k in range(n):
            v.beats[j, k, lane] = beats[j, k]
            v.weights[j, k, lane] = weights[j, k]


@jit  # type: ignore[misc]
def solve(v: Lanes, n: int, count: int, iterations: int, want_values: bool) -> None:
    """Regret matching for ``iterations`` rounds on lanes ``0 … count-1`` (each a loaded game, see
    :func:`load`): each lane's average mix into ``v.average`` and (``want_values``) player 0's
    option values (exhibit, thief, detective, away) against the final average mixes into
    ``v.values[0]``.

    RM+ with linear averaging, as a restricted Nash response: player ``j`` plays
    ``trust[j] · model[j] + (1 − trust[j]) · (its regret-matching mix)``.
    """
    mix, regret, values, sums = v.mix, v.regret, v.values, v.sums
    expected, positive = sums[10], sums[11]
    for it in range(iterations):
        _played(v, n, count, mix)
        role_game_values(v, n, count, n, 3)
        weight = np.float64(it + 1)
        for j in range(n):
            for r in range(count):
                expected[r] = values[j, 0, r] * mix[j, 0, r] + values[j, 1, r] * mix[j, 1, r]
                expected[r] = expected[r] + values[j, 2, r] * mix[j, 2, r]
                positive[r] = 0.0
            for c in range(3):
                for r in range(count):
                    gain = max(regret[j, c, r] + values[j, c, r] - expected[r], 0.0)
                    regret[j, c, r] = gain if v.legal[j, c, r] else 0.0
                    positive[r] += regret[j, c, r]
            for c in range(3):
                for r in range(count):
                    if positive[r] > 0:
                        mix[j, c, r] = regret[j, c, r] / positive[r]
                    v.total[j, c, r] += weight * mix[j, c, r]
    for j in range(n):
        for r in range(count):
            positive[r] = v.total[j, 0, r] + v.total[j, 1, r] + v.total[j, 2, r]
        for c in range(3):
            for r in range(count):
                v.average[j, c, r] = v.total[j, c, r] / positive[r]
    if want_values:
        _played(v, n, count, v.average)
        role_game_values(v, n, count, 1, 4)


@jit  # type: ignore[misc]
def _played(v: Lanes, n: int, count: int, mix: Any) -> None:
    """What each player plays in the restricted game: trust × model + the rest × mix, if present."""
    for j in range(n):
        for c in range(3):
            for r in range(count):
                t = v.trust[j, r]
                v.played[j, c, r] = (t * v.model[j, c, r] + (1.0 - t) * mix[j, c, r]) * v.present[j, r]


@jit  # type: ignore[misc]
def role_game_values(v: Lanes, n: int, count: int, players: int, options: int) -> None:
    """The payoffs of ``v.played`` (each player's mix times its presence) for players
    ``0 … players-1`` and options ``0 … options-1`` (exhibit, thief, detective, away) into
    ``v.values``: each player's own gain less the weighted gains of the others, its own action fixed.

    Gains are in track spaces, the others playing independently: an exhibition scores when no thief goes
    uncaught and no other exhibition beats it, and loses a card when robbed; a thief is caught by any
    detective, else takes a card when someone exhibits; a detective earns its reward when some thief comes.

    Six events make the gains, each a product over the players other than ``j`` of one factor
    per player; ``rest[f, i, j]`` is the product over ``k ∉ {i, j}`` of event ``f``'s factor, as
    an exclusive prefix times an exclusive suffix product (player ``i``'s option then multiplies in).
    """
    rest, sums = v.rest, v.sums
    before, after = sums[8], sums[9]
    y = rest[6:]  # each player's six factors in each column, then the products beside them
    for j in range(n):
        for k in range(n):
            _factors(v, k, j, count, y)
        for f in range(6):
            for r in range(count):
                before[r] = 1.0
                after[r] = 1.0
            for i in range(n):
                for r in range(count):
                    rest[f, i, j, r] = before[r]
                    before[r] *= y[f, i, j, r]
            for i in range(n - 1, -1, -1):
                for r in range(count):
                    rest[f, i, j, r] = rest[f, i, j, r] * after[r]
                    after[r] *= y[f, i, j, r]
    for i in range(players):
        _option_values(v, n, count, i, options)


@jit  # type: ignore[misc]
def _factors(v: Lanes, k: int, j: int, count: int, y: Any) -> None:
    """Player ``k``'s factor of each of the six events in ``j``'s column (1 on the diagonal, as ``y``)."""
    if k == j:
        for f in range(6):
            for r in range(count):
                y[f, k, j, r] = 1.0
        return
    sigma, beats = v.played, v.beats
    for r in range(count):
        e, t, d = sigma[k, 0, r], sigma[k, 1, r], sigma[k, 2, r]
        beaten = e * beats[k, j, r]
        y[0, k, j, r] = 1.0 - t
        y[1, k, j, r] = 1.0 - d
        y[2, k, j, r] = 1.0 - d - e
        y[3, k, j, r] = 1.0 - beaten
        y[4, k, j, r] = 1.0 - d - beaten
        y[5, k, j, r] = 1.0 - t - d - beaten


@jit_inline  # type: ignore[misc]
def _gains(
    rest: Any, worth: Any, i: int, j: int, r: int, ob: float, ot: float, od: float, oe: float, mine: bool
) -> tuple[float, float, float]:
    """Column ``j``'s gains from exhibiting, stealing and detecting when player ``i`` plays roles
    ``(oe, ot, od)``, ``ob = oe·beats``."""
    if mine:
        no_thief, no_det, no_show = rest[0, i, j, r], rest[1, i, j, r], rest[2, i, j, r]
        best, best_no_d, best_no_td = rest[3, i, j, r], rest[4, i, j, r], rest[5, i, j, r]
    else:
        no_thief = rest[0, i, j, r] * (1.0 - ot)
        no_det = rest[1, i, j, r] * (1.0 - od)
        no_show = rest[2, i, j, r] * (1.0 - od - oe)
        best = rest[3, i, j, r] * (1.0 - ob)
        best_no_d = rest[4, i, j, r] * (1.0 - od - ob)
        best_no_td = rest[5, i, j, r] * (1.0 - ot - od - ob)
    robbed = best_no_d - best_no_td
    gain_e = worth[j, 0, r] * (best - robbed) - CARD_VALUE * robbed
    gain_t = worth[j, 1, r] * (1.0 - no_det) + CARD_VALUE * (no_det - no_show)
    gain_d = worth[j, 2, r] * (1.0 - no_thief)
    return gain_e, gain_t, gain_d


@jit  # type: ignore[misc]
def _option_values(v: Lanes, n: int, count: int, i: int, options: int) -> None:
    """Player ``i``'s payoff for each option (exhibit, thief, detective and, with ``options`` 4, away)
    into ``v.values[i]``: its own gain less the rivals' weighted gains.

    The options share one pass over the columns, and every branch is outside the loops
    over lanes (so they vectorize): its own column's gains do not depend on its option,
    the options' roles are literals (the compiler folds the exact identities x·1, 1-0),
    and each option's two interleaved partial sums start at -0.0, to which adding the first
    term gives that term exactly.
    """
    sigma, worth, beats, weights, rest = v.played, v.worth, v.beats, v.weights, v.rest
    out, sums = v.values, v.sums
    for a in range(2 * options):
        for r in range(count):
            sums[a, r] = -0.0
    for j in range(n):
        p = j % 2
        s0, s1, s2, s3 = sums[p], sums[2 + p], sums[4 + p], sums[6 + p]
        if i == j:
            for r in range(count):
                ge, gt, gd = _gains(rest, worth, i, j, r, 0.0, 0.0, 0.0, 0.0, True)
                term = (sigma[j, 0, r] * ge + sigma[j, 1, r] * gt + sigma[j, 2, r] * gd) * weights[i, j, r]
                out[i, 0, r] = 1.0 * ge + 0.0 * gt + 0.0 * gd
                out[i, 1, r] = 0.0 * ge + 1.0 * gt + 0.0 * gd
                out[i, 2, r] = 0.0 * ge + 0.0 * gt + 1.0 * gd
                s0[r] += term
                s1[r] += term
                s2[r] += term
                if options > 3:
                    out[i, 3, r] = 0.0 * ge + 0.0 * gt + 0.0 * gd
                    s3[r] += term
            continue
        for r in range(count):
            b = beats[i, j, r]
            e, t, d, w = sigma[j, 0, r], sigma[j, 1, r], sigma[j, 2, r], weights[i, j, r]
            ge, gt, gd = _gains(rest, worth, i, j, r, 1.0 * b, 0.0, 0.0, 1.0, False)
            s0[r] += (e * ge + t * gt + d * gd) * w
            ge, gt, gd = _gains(rest, worth, i, j, r, 0.0 * b, 1.0, 0.0, 0.0, False)
            s1[r] += (e * ge + t * gt + d * gd) * w
            ge, gt, gd = _gains(rest, worth, i, j, r, 0.0 * b, 0.0, 1.0, 0.0, False)
            s2[r] += (e * ge + t * gt + d * gd) * w
        if options > 3:
            for r in range(count):
                e, t, d, w = sigma[j, 0, r], sigma[j, 1, r], sigma[j, 2, r], weights[i, j, r]
                ge, gt, gd = _gains(rest, worth, i, j, r, 0.0 * beats[i, j, r], 0.0, 0.0, 0.0, False)
                s3[r] += (e * ge + t * gt + d * gd) * w
    for a in range(options):
        for r in range(count):
            out[i, a, r] = out[i, a, r] - (sums[2 * a, r] + sums[2 * a + 1, r])
