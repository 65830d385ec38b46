"""A test oracle: the scripted styles' original-ruleset rules, one row at a time, in plain Python.

The agents decide original rows with the batched rules of
:mod:`hoity_env.agents.bots.styles_original` (numpy across rows); this module states
each of those rules for one row, readably, and ``tests/agents/test_original_batch.py``
holds the batched rules to it on real rows.  It reads the observation through the
agents' own :class:`~hoity_env.agents.bots.styles_original.OriginalView` and counts runs
with its own loop (C-3).  A decision is a pure function of (observation, mask, four
uniforms).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hoity_env.agents.batch import sample_index
from hoity_env.agents.bots.styles_original import OriginalView, copies_of
from hoity_env.agents.view import AgentInputError
from hoity_env.engine.actions import AUCTION, CASTLE, NUM_LOTS, ORIGINAL_INDICES

O_EXHIBIT, O_THIEF_LOW, O_THIEF_HIGH, O_DETECTIVE, O_AUCTION_THIEF, O_CHECK0 = ORIGINAL_INDICES
MIN_EXHIBITION = 3
"""The preset's smallest exhibition (C-3), which the observation does not carry."""

__all__ = ["ROW_STYLES", "decide_original_rows"]


def best_run(counts: np.ndarray) -> np.ndarray:
    """Cards in the largest run of consecutive non-empty series, 0 below :data:`MIN_EXHIBITION` (C-3);
    ``counts`` has the series on its last axis."""
    c = np.asarray(counts, dtype=np.int64)
    out = np.zeros(c.shape[:-1], dtype=np.int64)
    for index in np.ndindex(*c.shape[:-1]):
        best = run = 0
        for n in c[index]:
            run = run + int(n) if n > 0 else 0
            best = max(best, run)
        out[index] = best if best >= MIN_EXHIBITION else 0
    return out


# ------------------------------------------------------------------------ one row's facts
class Row:
    """The facts one decision uses, for row ``i`` of a view and its mask."""

    def __init__(self, view: OriginalView, masks: np.ndarray, i: int) -> None:
        self.mask = masks[i]
        counts = view.counts[i]
        self.best = int(best_run(counts))
        self.can_exhibit = bool(view.own("can_exhibit")[i, 0] > 0.5)
        lots = view.lot_series[i]
        self.gain = np.asarray(
            [int(best_run(counts + np.eye(6, dtype=np.int64)[s])) - self.best if s >= 0 else -1 for s in lots]
        )
        self.lot_age = view.glob("lot_age")[i]
        self.checks = view.best_checks[i]
        self.locations = view.locations[i]
        self.rates = view.rates()[i]
        self.positions = view.positions[i]
        self.free = view.free_thieves[i]
        # Spaces: the observation scales by the largest reward, 6 in the default table (O-9), which
        # the observation does not carry (the styles assume the default numbers, as in standard).
        self.reward = view.glob("leader_reward")[i] * 6.0
        self.known = view.players("known")[i]
        self.hand_size = view.players("hand_size")[i, :, 0]
        self.n = view.n

    # legal options from the mask
    def checks_legal(self) -> list[int]:
        """Check values in hand (from the mask), ascending."""
        idx = np.flatnonzero(self.mask[O_CHECK0:])
        return sorted({int(a) // NUM_LOTS + 1 for a in idx})

    def lots_legal(self) -> list[int]:
        idx = np.flatnonzero(self.mask[O_CHECK0:])
        return sorted({int(a) % NUM_LOTS for a in idx})

    def best_lot(self) -> int:
        """The lot on display that grows our run most (ties: the older one)."""
        lots = self.lots_legal()
        return max(lots, key=lambda lot: (self.gain[lot], self.lot_age[lot]))

    def thief(self) -> int:
        """Our better free thief (the higher number steals first, O-6.2), or Detective without one."""
        if self.mask[O_THIEF_HIGH]:
            return O_THIEF_HIGH
        return O_THIEF_LOW if self.mask[O_THIEF_LOW] else O_DETECTIVE


def check(value: int, lot: int) -> int:
    return O_CHECK0 + NUM_LOTS * (value - 1) + lot


# ------------------------------------------------------------------------ the styles
Rule = Callable[[Row, np.ndarray], int]


def _location(row: Row, u: np.ndarray, keen: float, idle: float) -> int:
    """Auction with probability ``keen`` when a lot helps (or we have no exhibition), else ``idle``."""
    if not row.mask[AUCTION]:
        return CASTLE
    wanted = row.gain.max() > 0 or not row.can_exhibit
    return AUCTION if u[0] < (keen if wanted else idle) else CASTLE


def _auction_simple(row: Row, u: np.ndarray, thief_share: float, eager: bool) -> int:
    """A check for the most useful lot (the highest when ``eager`` and the lot helps, else the lowest)."""
    values = row.checks_legal()
    if not values or (row.mask[O_AUCTION_THIEF] and u[1] < thief_share):
        return O_AUCTION_THIEF
    lot = row.best_lot()
    value = values[-1] if eager and row.gain[lot] > 0 else values[int(u[2] * len(values))]
    return check(value, lot)


def collector(row: Row, u: np.ndarray, step: int) -> int:
    """Buys what extends its run with its highest check; exhibits when it can."""
    if step == 0:
        return _location(row, u, 0.85, 0.3 if not row.can_exhibit else 0.0)
    if step == 1:
        return _auction_simple(row, u, 0.05, eager=True)
    if row.can_exhibit:
        return O_EXHIBIT
    return O_DETECTIVE if u[1] < 0.7 else row.thief()


def thief(row: Row, u: np.ndarray, step: int) -> int:
    """Mostly at the Castle stealing; at the auction it plays its thief half the time."""
    if step == 0:
        return AUCTION if row.mask[AUCTION] and u[0] < 0.25 else CASTLE
    if step == 1:
        return _auction_simple(row, u, 0.5, eager=False)
    weights = np.asarray([0.75, 0.12, 0.13 if row.can_exhibit else 0.0])
    pick = int(sample_index(weights[None, :], u[1:2])[0])
    return (row.thief(), O_DETECTIVE, O_EXHIBIT)[pick]


def detective(row: Row, u: np.ndarray, step: int) -> int:
    """Hunts the thieves it expects among the rivals at the Castle; buys useful lots with moderate checks."""
    if step == 0:
        useful = row.gain.max() > 0 or not row.can_exhibit
        return AUCTION if row.mask[AUCTION] and useful and u[0] < 0.5 else CASTLE
    if step == 1:
        return _auction_simple(row, u, 0.0, eager=False)
    here = row.locations[1:] == 1
    theft = row.rates[1:, 3] / np.maximum(row.rates[1:, 1], 0.05)
    expected = float(np.where(here, theft, 0.0).max()) if here.any() else 0.0
    if expected > 0.25 or not row.can_exhibit:
        return O_DETECTIVE if u[1] < 0.85 else row.thief()
    return O_EXHIBIT if u[1] < 0.8 else O_DETECTIVE


# --------------------------------------------------------------------------- the expert
PRIOR = np.asarray([0.3, 0.3, 0.4])
"""Prior shares of exhibit, thief, detective for a rival at the Castle (as the standard expert)."""


def _rival_roles(row: Row) -> tuple[np.ndarray, np.ndarray]:
    """``(n-1,)`` chance each rival goes to auction, ``(n-1, 3)`` its castle card shares."""
    rates = row.rates[1:]
    castle = rates[:, 1:2] + 0.1
    roles = (rates[:, 2:5] + 0.1 * PRIOR) / castle
    auction = (rates[:, 0] + 0.2) / 1.4
    return auction, roles


def _castle_values(row: Row, present: np.ndarray, roles: np.ndarray) -> np.ndarray:
    """Expected track gain of exhibit, thief, detective (``-inf`` where not legal)."""
    p = present[:, None] * roles
    any_thief = 1.0 - float(np.prod(1.0 - p[:, 1]))
    any_det = 1.0 - float(np.prod(1.0 - p[:, 2]))
    exhibitors = float(p[:, 0].sum())
    big, small = row.reward
    deck = float(copies_of(row.n).sum())
    rival_runs = np.rint(row.known[1:] * copies_of(row.n)).astype(np.int64)
    rival_best = best_run(rival_runs) + 0.3 * (row.hand_size[1:] * deck - rival_runs.sum(axis=1))
    first = float(np.prod(1.0 - p[:, 0] * (rival_best >= row.best)))
    values = np.full(3, -np.inf)
    if row.mask[O_EXHIBIT]:
        values[0] = first * big + (1.0 - first) * small - 2.0 * float(p[:, 1].sum())  # cards robbed
    if row.mask[O_THIEF_LOW] or row.mask[O_THIEF_HIGH]:
        values[1] = 0.8 * exhibitors - 2.0 * any_det
    ahead = int((row.positions[1:] > row.positions[0]).sum())
    values[2] = any_thief * (1 + ahead)
    return values


def expert(row: Row, u: np.ndarray, step: int) -> int:
    """Bids exactly what wins, values castle cards from the rivals' habits, and mixes a little."""
    auction, roles = _rival_roles(row)
    if step == 2:
        present = (row.locations[1:] == 1).astype(np.float64)
        values = _castle_values(row, present, roles)
        best = int(np.argmax(values))
        if u[1] >= 0.9:  # the odd second-best card, so the expert cannot be read
            order = np.argsort(-values, kind="stable")
            if np.isfinite(values[order[1]]):
                best = int(order[1])
        return (O_EXHIBIT, row.thief(), O_DETECTIVE)[best]
    if step == 1:
        held = row.checks_legal()
        rivals = row.locations[1:] == 0
        top_rival = float(row.checks[1:][rivals].max()) if rivals.any() else 0.0
        scale = float(row.checks[0]) / held[-1] if held else 0.0
        winning = [v for v in held if v * scale > top_rival + 1e-6]
        lot = row.best_lot() if held else 0
        if winning:
            return check(winning[0], lot)  # the cheapest check that beats every check out there
        if row.mask[O_AUCTION_THIEF] and top_rival > 0 and u[1] < 0.5:
            return O_AUCTION_THIEF  # somebody else pays: take the winning check
        return check(held[0], lot) if held else O_AUCTION_THIEF  # a losing check costs nothing
    # location step: the best castle card against everybody's habits, or a lot we can win
    castle = float(_castle_values(row, 1.0 - auction, roles).max())
    if not row.mask[AUCTION]:
        return CASTLE
    mine = float(row.checks[0])
    beaten = float(np.prod(1.0 - auction * (row.checks[1:] > mine)))
    need = 3.0 if not row.can_exhibit else 0.0
    lot_value = (max(float(row.gain.max()), 0.0) * 1.5 + need + 0.8) * beaten * (mine > 0)
    return AUCTION if (lot_value > castle) != (u[0] >= 0.92) else CASTLE


ROW_STYLES: dict[str, Callable[[Row, np.ndarray, int], int]] = {
    "collector": collector,
    "thief": thief,
    "detective": detective,
    "expert": expert,
}
"""Each style's original-ruleset rule for one row (the batched rules have the same names)."""


def decide_original_rows(
    style: str, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray, num_players: int
) -> np.ndarray:
    """``(B,)`` legal actions of ``style`` for original observations of ``num_players`` players, masks
    and ``(B, 4)`` uniforms, deciding row by row (the oracle of
    :func:`hoity_env.agents.bots.styles_original.decide_original`)."""
    if style not in ROW_STYLES:
        raise AgentInputError(f"no original-ruleset rule for the style {style!r}")
    rule = ROW_STYLES[style]
    out = np.empty(len(observations), dtype=np.int64)
    for i in range(len(observations)):
        if masks.shape[1] <= O_CHECK0:
            raise AgentInputError(
                f"{style} needs the original action layout, got masks of width {masks.shape[1]}"
            )
        view = OriginalView(observations[i : i + 1], num_players)  # one row's view: the facts of row i only
        step = 0 if not view.action_step[0] else (1 if masks[i, O_AUCTION_THIEF:].any() else 2)
        choice = rule(Row(view, masks[i : i + 1], 0), draws[i], step)
        out[i] = choice if masks[i, choice] else int(np.argmax(masks[i]))
    return out
