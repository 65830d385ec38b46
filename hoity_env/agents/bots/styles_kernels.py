"""Compiled twins of the simple styles' standard rules (the ``fast`` extra): one loop over rows.

Why: at the batch sizes of training (64–1,024 rows) a numpy decision is bound by
its few dozen array operations, not by the rows, and the zoo's decisions were
the biggest share of vs-bots training.  These kernels decide row by row from the
same observation, mask and four uniforms, with the same operations in the same
precision as the numpy rules of :mod:`hoity_env.agents.bots.styles`,
:mod:`hoity_env.agents.bots.expert_v1` and :mod:`hoity_env.agents.bots.random`
(float32 where numpy computes in float32, sums and products in numpy's order),
so they choose the same actions; ``tests/agents/test_agent_kernels.py`` holds each to
its numpy rule on observations of real games.  The numpy rules stay the
reference and the default without numba.

A numba kernel file, and why it passes the house's 350 lines: numba compiles a
call graph (a jitted function calls only jitted functions it can see when it is
compiled), so the styles' kernels and the per-row helpers they share with
:mod:`hoity_env.agents.bots.expert_kernel` stay together.  Code that repeats the shape of
the numpy rule it mirrors (the same branches, the same order of operations) is
intended: each kernel restates one numpy rule so that the differential test can
hold the two equal, and ``duplicates`` lists such kernel/numpy pairs as expected.
So does the loop every style kernel opens with (per-row scratch arrays, then for
each row: its observation, mask and uniforms, the decision step, one branch per
step): one shared loop would take each style's step rules as function arguments,
which numba calls per row through first-class function types instead of compiling
them into the loop, so each style writes its loop out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.config import STANDARD
from hoity_env.engine.jit import jit, jit_inline
from hoity_env.engine.standard.observation import G_DIM, G_SL, O_DIM, O_SL, P_DIM, P_SL

__all__ = ["KERNELS", "decide_numba"]

NUM_SERIES = len(STANDARD.series_copies)
MIN_EXHIBITION = STANDARD.min_exhibition
MAX_ROUNDS = STANDARD.max_rounds
STARTING_MONEY = STANDARD.starting_money
THIEF_PENALTY = STANDARD.thief_penalty
DETECTIVE_REWARD = STANDARD.detective_reward

# Offsets into one observation row (hoity_env.engine.standard.observation's layout).
PHASE_ACTION = G_SL["phase"].start + 1
ROUND = G_SL["round"].start
LOT_SERIES = G_SL["lot_series"].start
LOT_AGE = G_SL["lot_age"].start
DECK = G_SL["deck"].start
HAND = G_DIM + O_SL["hand"].start
BEST_SIZE = G_DIM + O_SL["best_size"].start
CAN_EXHIBIT = G_DIM + O_SL["can_exhibit"].start
PLAYERS = G_DIM + O_DIM
"""Start of the player blocks (observer first); player ``k``'s field ``f`` is at ``PLAYERS + k·P_DIM + f``."""
POSITION = P_SL["position"].start
MONEY = P_SL["money"].start
HAND_SIZE = P_SL["hand_size"].start
KNOWN = P_SL["known"].start
LOCATION = P_SL["location"].start
LAST_ROLE = P_SL["last_role"].start
LAST_BID = P_SL["last_bid"].start
RATES = P_SL["rate_auction"].start
MEAN_BID = P_SL["mean_bid"].start

_V1_PRIOR = 2.0 * np.asarray([0.3, 0.3, 0.4])
"""``expert-v1``'s prior counts (exhibit, thief, detective): ``PRIOR_WEIGHT · PRIOR``."""


# --- shared per-row helpers -------------------------------------------------------------------
@jit_inline  # type: ignore[misc]
def step_of(o: Any, m: Any) -> int:
    """0 location step, 1 bid, 2 castle role (``ScriptedAgent.decide``'s split)."""
    if not o[PHASE_ACTION] > 0.5:
        return 0
    for a in range(BID0, m.shape[0]):
        if m[a]:
            return 1
    return 2


@jit_inline  # type: ignore[misc]
def legal_or_first(choice: int, m: Any) -> int:
    """``ensure_legal`` for one row: ``choice`` if legal, else the lowest legal action."""
    if m[choice]:
        return choice
    for a in range(m.shape[0]):
        if m[a]:
            return a
    return 0


@jit_inline  # type: ignore[misc]
def player(k: int, field: int) -> int:
    """Index of player ``k``'s ``field`` in an observation row."""
    return PLAYERS + k * P_DIM + field


@jit_inline  # type: ignore[misc]
def counts_of(o: Any, start: int, copies: Any, out: Any) -> None:
    """``rint(fraction · copies)`` per series from ``o[start:start + 6]`` (float32 · int64 in float64)."""
    for s in range(NUM_SERIES):
        out[s] = np.int64(np.rint(np.float64(o[start + s]) * copies[s]))


@jit_inline  # type: ignore[misc]
def best_run(c: Any) -> int:
    """``features.best_run`` for one hand: the largest run total of at least ``MIN_EXHIBITION``."""
    best = 0
    run = 0
    for s in range(NUM_SERIES + 1):
        if s < NUM_SERIES and c[s] > 0:
            run += c[s]
            continue
        if run >= MIN_EXHIBITION and run > best:
            best = run
        run = 0
    return best


@jit_inline  # type: ignore[misc]
def lot_series(o: Any) -> int:
    """``BatchObservationView.lot_series``: argmax of the one-hot if its max passes 0.5, else -1."""
    top = o[LOT_SERIES]
    arg = 0
    for s in range(1, NUM_SERIES):
        if o[LOT_SERIES + s] > top:
            top, arg = o[LOT_SERIES + s], s
    return arg if top > 0.5 else -1


@jit_inline  # type: ignore[misc]
def lot_gain(c: Any, series: int) -> int:
    """``features.lot_gain``: how much one card of ``series`` (-1: none) grows the best run."""
    if series < 0:
        return 0
    before = best_run(c)
    c[series] += 1
    after = best_run(c)
    c[series] -= 1
    return after - before  # type: ignore[no-any-return]


@jit_inline  # type: ignore[misc]
def near_run(c: Any, series: int) -> bool:
    """``features.near_run``: a card of ``series`` touches our cards in its or a neighbouring series."""
    if series < 0:
        return False
    total = 0
    for s in range(max(series - 1, 0), min(series + 2, NUM_SERIES)):
        total += c[s]
    return total > 0


@jit_inline  # type: ignore[misc]
def location_of(o: Any, k: int) -> int:
    """``BatchObservationView.locations`` for player ``k``: 0 auction, 1 castle, -1 unknown."""
    a, c = o[player(k, LOCATION)], o[player(k, LOCATION) + 1]
    top = max(a, c)
    if not top >= 0.5:
        return -1
    return 1 if c > a else 0


@jit_inline  # type: ignore[misc]
def sample_index(w: Any, count: int, u: float) -> int:
    """``batch.sample_index`` for one row of ``count`` weights: a sequential cdf, as ``cumsum``."""
    total = 0.0
    for k in range(count):
        total += max(w[k], 0.0)
    if not total > 0:
        return 0
    target = u * total
    cdf = 0.0
    idx = 0
    for k in range(count):
        cdf += max(w[k], 0.0)
        if cdf <= target:
            idx += 1
    return min(idx, count - 1)


@jit_inline  # type: ignore[misc]
def normal(u1: float, u2: float) -> float:
    """``batch.normal_from_uniforms`` (Box-Muller) for one row."""
    return np.sqrt(-2.0 * np.log1p(-u1)) * np.cos(2.0 * np.pi * u2)  # type: ignore[no-any-return]


@jit_inline  # type: ignore[misc]
def bids_of(m: Any) -> tuple[int, int]:
    """``Bids.top`` and ``Bids.count`` for one row: the highest legal amount and how many are legal."""
    top = 0
    count = 0
    for b in range(m.shape[0] - BID0):
        if m[BID0 + b]:
            top = b
            count += 1
    return top, count


@jit_inline  # type: ignore[misc]
def jittered(m: Any, target: float, spread: float, z: float) -> int:
    """``Bids.jittered`` for one row: a legal amount near ``target`` (``BID0`` not added)."""
    top, count = bids_of(m)
    amount = np.int64(np.rint(target + z * spread))
    amount = min(max(amount, 1), top)
    if count > 1 and m[BID0 + amount]:
        return amount  # type: ignore[no-any-return]
    return top  # type: ignore[no-any-return]


@jit_inline  # type: ignore[misc]
def may_bid(o: Any, m: Any) -> bool:
    """``scripted.may_bid``: the Auction House is open and we have money."""
    return bool(m[AUCTION]) and o[player(0, MONEY)] > 0


# --- the styles -------------------------------------------------------------------------------
@jit  # type: ignore[misc]
def random_kernel(obs: Any, masks: Any, draws: Any, n: int, copies: Any, out: Any) -> None:
    """``RandomAgent.decide``: the ``k``-th legal action, ``k = ⌊u · count⌋`` (any layout)."""
    for r in range(masks.shape[0]):
        m = masks[r]
        count = 0
        for a in range(m.shape[0]):
            count += 1 if m[a] else 0
        k = min(np.int64(draws[r, 0] * count), count - 1)
        seen = 0
        out[r] = 0
        for a in range(m.shape[0]):
            if m[a]:
                if seen == k:
                    out[r] = a
                    break
                seen += 1


@jit  # type: ignore[misc]
def collector_kernel(obs: Any, masks: Any, draws: Any, n: int, copies: Any, out: Any) -> None:
    """``CollectorAgent``'s three rules, row by row."""
    c = np.empty(NUM_SERIES, dtype=np.int64)
    for r in range(obs.shape[0]):
        o, m, u = obs[r], masks[r], draws[r]
        step = step_of(o, m)
        if step == 0:
            counts_of(o, HAND, copies, c)
            series = lot_series(o)
            wanted = lot_gain(c, series) > 0 or near_run(c, series)
            can = o[CAN_EXHIBIT] > 0.5
            if may_bid(o, m) and (wanted or not can):
                choice = AUCTION if u[0] < 0.85 else CASTLE
            elif can or not m[AUCTION]:
                choice = CASTLE
            else:
                choice = AUCTION if u[0] < 0.3 else CASTLE
        elif step == 1:
            counts_of(o, HAND, copies, c)
            gain = lot_gain(c, lot_series(o))
            money, _ = bids_of(m)
            choice = BID0 + jittered(m, money * (0.15 + 0.1 * gain), 2.0 + 0.05 * money, normal(u[2], u[3]))
        elif m[EXHIBIT]:
            choice = EXHIBIT
        else:
            choice = DETECTIVE if u[0] < 0.7 else THIEF
        out[r] = legal_or_first(choice, m)


@jit  # type: ignore[misc]
def thief_kernel(obs: Any, masks: Any, draws: Any, n: int, copies: Any, out: Any) -> None:
    """``ThiefAgent``'s three rules, row by row."""
    w = np.empty(3)
    roles = np.asarray([THIEF, DETECTIVE, EXHIBIT])
    for r in range(obs.shape[0]):
        o, m, u = obs[r], masks[r], draws[r]
        step = step_of(o, m)
        if step == 0:
            choice = AUCTION if may_bid(o, m) and u[0] < 0.25 else CASTLE
        elif step == 1:
            money, _ = bids_of(m)
            choice = BID0 + jittered(m, money * 0.12, 2.0, normal(u[2], u[3]))
        else:
            w[0], w[1], w[2] = 0.75, 0.12, 0.13 if m[EXHIBIT] else 0.0
            choice = roles[sample_index(w, 3, u[1])]
        out[r] = legal_or_first(choice, m)


@jit  # type: ignore[misc]
def detective_kernel(obs: Any, masks: Any, draws: Any, n: int, copies: Any, out: Any) -> None:
    """``DetectiveAgent``'s three rules, row by row (the theft shares in float32, as numpy's)."""
    c = np.empty(NUM_SERIES, dtype=np.int64)
    floor = np.float32(0.05)
    for r in range(obs.shape[0]):
        o, m, u = obs[r], masks[r], draws[r]
        step = step_of(o, m)
        if step == 0:
            counts_of(o, HAND, copies, c)
            useful = lot_gain(c, lot_series(o)) > 0 or not o[CAN_EXHIBIT] > 0.5
            choice = AUCTION if may_bid(o, m) and useful and u[0] < 0.5 else CASTLE
        elif step == 1:
            money, _ = bids_of(m)
            choice = BID0 + jittered(m, money * 0.2, 3.0, normal(u[2], u[3]))
        else:
            expected = np.float32(0.0)
            for k in range(1, n):
                if location_of(o, k) == 1:
                    theft = o[player(k, RATES + 3)] / max(o[player(k, RATES + 1)], floor)
                    expected = max(expected, theft)
            if expected > 0.25 or not m[EXHIBIT]:
                choice = DETECTIVE if u[0] < 0.85 else THIEF
            else:
                choice = EXHIBIT if u[0] < 0.8 else DETECTIVE
        out[r] = legal_or_first(choice, m)


@jit  # type: ignore[misc]
def v1_rival_model(o: Any, n: int, auction: Any, roles: Any) -> None:
    """``ExpertV1Agent.rival_model`` for one row: rival ``k`` (1…n-1) at index ``k - 1``."""
    rounds = np.float64(o[ROUND]) * MAX_ROUNDS
    for k in range(1, n):
        rate = np.empty(5)
        for f in range(5):
            rate[f] = o[player(k, RATES + f)] * rounds
        auction[k - 1] = (rate[0] + 1.0) / (rounds + 2.0)
        castle = rate[1] + 2.0
        for c in range(3):
            roles[k - 1, c] = (rate[2 + c] + _V1_PRIOR[c]) / castle


@jit  # type: ignore[misc]
def v1_role_values(
    o: Any, n: int, present: Any, roles: Any, can_exhibit: bool, copies: Any, values: Any
) -> None:  # fmt: skip
    """``ExpertV1Agent.role_values`` for one row: detective, thief, exhibit into ``values``."""
    deck = 0
    for s in range(NUM_SERIES):
        deck += copies[s]
    size = np.float64(o[BEST_SIZE]) * np.float64(deck)
    known = np.empty(NUM_SERIES, dtype=np.int64)
    none_e, none_t, none_d, best = 1.0, 1.0, 1.0, 1.0
    for k in range(1, n):
        pe = present[k - 1] * roles[k - 1, 0]
        none_e *= 1.0 - pe
        none_t *= 1.0 - present[k - 1] * roles[k - 1, 1]
        none_d *= 1.0 - present[k - 1] * roles[k - 1, 2]
        counts_of(o, player(k, KNOWN), copies, known)
        total = 0
        for s in range(NUM_SERIES):
            total += known[s]
        hidden = np.float64(o[player(k, HAND_SIZE)] * np.float32(deck)) - total
        estimate = np.float64(max(best_run(known), 0)) + 0.5 * hidden
        odds = min(max((estimate - size + 1.0) / 4.0, 0.0), 1.0)
        best *= 1.0 - pe * odds
    any_exh, any_thief, any_det = 1.0 - none_e, 1.0 - none_t, 1.0 - none_d
    robbed = any_thief * (1.0 - any_det)
    values[0] = any_thief * DETECTIVE_REWARD
    values[1] = (1.0 - any_det) * any_exh * 1.5 - any_det * THIEF_PENALTY
    values[2] = (1.0 - robbed) * best * size - robbed * 0.7 if can_exhibit else -np.inf


@jit  # type: ignore[misc]
def v1_choose(values: Any, count: int, u: Any, greedy: float, temperature: float) -> int:
    """``ExpertV1Agent.choose`` for one row: the best column, or a softmax draw when ``u[0] ≥ greedy``."""
    best = 0
    for k in range(1, count):
        if values[k] > values[best]:
            best = k
    if u[0] < greedy:
        return best
    w = np.empty(count)
    for k in range(count):
        w[k] = np.exp((values[k] - values[best]) / temperature)
    return sample_index(w, count, u[1])  # type: ignore[no-any-return]


@jit  # type: ignore[misc]
def expert_v1_kernel(obs: Any, masks: Any, draws: Any, n: int, copies: Any, out: Any) -> None:
    """``ExpertV1Agent``'s three rules, row by row."""
    c = np.empty(NUM_SERIES, dtype=np.int64)
    auction = np.empty(n - 1)
    roles = np.empty((n - 1, 3))
    present = np.empty(n - 1)
    values = np.empty(3)
    for r in range(obs.shape[0]):
        o, m, u = obs[r], masks[r], draws[r]
        step = step_of(o, m)
        if step == 0:
            v1_rival_model(o, n, auction, roles)
            can = o[CAN_EXHIBIT] > 0.5
            for k in range(n - 1):
                present[k] = 1.0 - auction[k]
            v1_role_values(o, n, present, roles, can, copies, values)
            castle = max(values[0], max(values[1], values[2]))
            counts_of(o, HAND, copies, c)
            series = lot_series(o)
            worth = 2.0 * lot_gain(c, series) + 1.0 * near_run(c, series)
            worth = worth + (0.0 if can else 2.0)
            seen = 0.0
            for k in range(n - 1):
                seen += auction[k]
            win = 1.0 / (1.0 + 0.5 * seen)
            lot = -np.inf
            if may_bid(o, m):
                lot = worth * win + np.float64(np.float32(0.5) * o[LOT_AGE])
            values[0], values[1] = castle, lot
            choice = (CASTLE, AUCTION)[v1_choose(values, 2, u, 0.85, 0.6)]
        elif step == 1:
            money, _ = bids_of(m)
            counts_of(o, HAND, copies, c)
            share = 0.12 + 0.12 * lot_gain(c, lot_series(o)) + (0.0 if o[CAN_EXHIBIT] > 0.5 else 0.1)
            amount = jittered(m, money * share, 1.5 + 0.05 * money, normal(u[2], u[3]))
            for _ in range(n - 1):  # step off a rival's habitual amount
                clash = False
                for k in range(1, n):
                    habit = np.rint(np.float64(o[player(k, MEAN_BID)]) * STARTING_MONEY)
                    clash |= habit == amount and location_of(o, k) == 0
                if not (clash and amount < money):
                    break
                amount += 1
            choice = BID0 + amount
        else:
            v1_rival_model(o, n, auction, roles)
            for k in range(n - 1):
                present[k] = 1.0 if location_of(o, k + 1) == 1 else 0.0
            v1_role_values(o, n, present, roles, bool(m[EXHIBIT]), copies, values)
            choice = (DETECTIVE, THIEF, EXHIBIT)[v1_choose(values, 3, u, 0.8, 0.6)]
        out[r] = legal_or_first(choice, m)


KERNELS = {
    "random": random_kernel,
    "collector": collector_kernel,
    "thief": thief_kernel,
    "detective": detective_kernel,
    "expert-v1": expert_v1_kernel,
}
"""Style name → kernel ``(obs, masks, draws, n, copies, out)``; the expert's is added by its module."""


_COPIES = np.asarray(STANDARD.series_copies, dtype=np.int64)
_COPIES_SIX = np.asarray(STANDARD.series_copies_six, dtype=np.int64)


def decide_numba(style: str, n: int, obs: np.ndarray, masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``(B,)`` int64 actions of ``style``'s kernel for checked standard rows of an ``n``-player game
    (``random`` reads only the masks: any layout, ``n`` unused)."""
    out = np.empty(obs.shape[0], dtype=np.int64)
    KERNELS[style](obs, masks, draws, n, _COPIES_SIX if n >= 6 else _COPIES, out)
    return out
