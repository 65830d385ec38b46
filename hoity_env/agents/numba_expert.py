"""Compiled twin of ``expert``'s standard rules (the ``fast`` extra): the role game row by row.

:class:`~hoity_env.agents.expert.ExpertAgent` solves a small role game at every
castle decision with array operations over ``(6, B, n, 4, n)`` tensors: at the
batch sizes of training that was most of the zoo's cost.  This kernel plays the
same rule one row at a time with plain loops: the same rival model, exhibition
estimates, regret-matching rounds, bid values and softmax draws, each value
computed with the same operations in numpy's order (products and sums left to
right as ``cumprod``/``prod``/short ``sum`` do, the rivals' weighted gains in
two interleaved partial sums as ``np.einsum`` adds them, float32 where numpy
computes in float32), so it chooses the same actions from the same observation,
mask and uniforms.  ``tests/test_agent_kernels.py`` holds it to the numpy rule on
observations of real games; the numpy rule stays the reference.

A numba kernel file, and why it passes the house's 350 lines: numba compiles a
call graph (a jitted function calls only jitted functions it can see when it is
compiled), so the twin of the one expert rule keeps its steps together, one
function per numpy method it mirrors, named after it.  Code that repeats the shape
of the numpy method it mirrors (the same loops over rivals and roles, the same
order of operations) is intended: each function restates one numpy method so
that the differential test can hold the two equal, and ``duplicates`` lists such
kernel/numpy pairs as expected.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from hoity_env.agents.numba_styles import (
    BEST_SIZE,
    CAN_EXHIBIT,
    DECK,
    HAND,
    HAND_SIZE,
    KERNELS,
    KNOWN,
    LAST_BID,
    LAST_ROLE,
    LOT_AGE,
    MEAN_BID,
    MONEY,
    NUM_SERIES,
    POSITION,
    RATES,
    ROUND,
    best_run,
    counts_of,
    legal_or_first,
    location_of,
    lot_gain,
    lot_series,
    may_bid,
    near_run,
    player,
    sample_index,
    step_of,
)
from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.batched.numba_kernels import jit
from hoity_env.engine.config import STANDARD

__all__ = ["expert_kernel"]

MAX_ROUNDS = STANDARD.max_rounds
STARTING_MONEY = STANDARD.starting_money
AMOUNTS = STARTING_MONEY + 1
FINISH = float(STANDARD.finish)
THIEF_PENALTY = float(STANDARD.thief_penalty)
DETECTIVE_REWARD = float(STANDARD.detective_reward)
# ExpertAgent's constants (the kernel reads them once, at compile time).
PRIOR = 2.0 * np.asarray([0.45, 0.2, 0.35])
MAX_TRUST, TRUST_SCALE, RECENCY = 0.85, 4.0, 1.0
ITERATIONS, LOCATION_ITERATIONS = 8, 3
LEAD_WEIGHT, WIN_BONUS, RIVAL_SHARE = 2.0, 10.0, 0.4
LOCATION_TEMPERATURE, BID_TEMPERATURE = 0.5, 0.25
MONEY_VALUE, DENIAL, CARD_VALUE = 0.1, 0.4, 1.0
OPTIONS = np.concatenate([np.eye(3), np.zeros((1, 3))])
"""Rows: exhibit, thief, detective, away; columns: the roles each plays (``expert._ROLE_OPTIONS``)."""
ROLES = np.asarray([EXHIBIT, THIEF, DETECTIVE])


class Scratch(NamedTuple):
    """One row's working arrays, allocated once per batch (a tuple numba passes by reference)."""

    copies: Any
    known: Any
    castle: Any
    model: Any
    trust: Any
    size: Any
    can: Any
    beats: Any
    spread: Any
    worth: Any
    weights: Any
    legal: Any
    mix: Any
    regret: Any
    total: Any
    average: Any
    played: Any
    rest: Any
    values: Any
    present: Any
    at_auction: Any
    legal_bids: Any
    bids: Any
    two: Any
    weights2: Any
    weights_bids: Any


@jit  # type: ignore[misc]
def scratch(n: int, copies: Any) -> Scratch:
    """The working arrays of an ``n``-player row."""
    per = np.empty((n, 3))
    return Scratch(
        copies, np.empty(NUM_SERIES, dtype=np.int64), np.empty(n), per.copy(), np.empty(n), np.empty(n),
        np.empty(n, dtype=np.bool_), np.empty((n, n)), np.empty(n), per.copy(), np.empty((n, n)),
        np.empty((n, 3), dtype=np.bool_), per.copy(), per.copy(), per.copy(), per.copy(), per.copy(),
        np.empty((12, n, n)), np.empty((n, 4)), np.empty(n), np.empty(n), np.empty(AMOUNTS, dtype=np.bool_),
        np.empty(AMOUNTS), np.empty(2), np.empty(2), np.empty(AMOUNTS),
    )  # fmt: skip


@jit  # type: ignore[misc]
def rival_model(o: Any, n: int, castle: Any, mix: Any, trust: Any) -> None:
    """``ExpertAgent.rival_model`` for one row (every player, observer first)."""
    rounds = np.float64(o[ROUND]) * MAX_ROUNDS
    for j in range(n):
        visits = np.float64(o[player(j, RATES + 1)]) * rounds
        castle[j] = (visits + 1.0) / (rounds + 2.0)
        for c in range(3):
            rate = np.float64(o[player(j, RATES + 2 + c)]) * rounds
            mix[j, c] = rate + np.float64(o[player(j, LAST_ROLE + c)]) * RECENCY + PRIOR[c]
        total = mix[j, 0] + mix[j, 1] + mix[j, 2]
        for c in range(3):
            mix[j, c] = mix[j, c] / total
        trust[j] = MAX_TRUST * visits / (visits + TRUST_SCALE)


@jit  # type: ignore[misc]
def exhibitions(
    o: Any, n: int, copies: Any, known: Any, size: Any, can: Any, beats: Any, spread: Any
) -> None:
    """``ExpertAgent.exhibitions`` for one row: sizes, who may exhibit, ``beats[k, j]``."""
    deck = 0
    for s in range(NUM_SERIES):
        deck += copies[s]
    for j in range(n):
        counts_of(o, player(j, KNOWN), copies, known)
        total = 0
        for s in range(NUM_SERIES):
            total += known[s]
        hidden = max(np.float64(o[player(j, HAND_SIZE)] * np.float32(deck)) - total, 0.0)
        floor = np.float64(best_run(known))
        est = max(floor, floor + 0.6 * hidden if hidden > 0 else floor)
        if not est >= 3.0:
            est = 3.0 if hidden >= 3 else est
        if j == 0:
            size[0] = np.float64(o[BEST_SIZE]) * np.float64(deck)
            spread[0] = 0.3
            can[0] = o[CAN_EXHIBIT] > 0.5
        else:
            size[j] = est
            spread[j] = 0.6 + 0.4 * np.sqrt(hidden)
            can[j] = floor >= 3 or hidden >= 3 or est >= 3
    for k in range(n):
        for j in range(n):
            if k == j:
                beats[k, j] = 0.0
                continue
            gap = (size[k] - size[j]) / np.sqrt(spread[k] * spread[k] + spread[j] * spread[j])
            beats[k, j] = 1.0 / (1.0 + np.exp(-1.7 * gap))


@jit  # type: ignore[misc]
def race_worth(o: Any, n: int, size: Any, worth: Any) -> None:
    """``ExpertAgent.race_worth`` for one row: ``(n, 3)`` worth of scoring, being caught, catching."""
    for j in range(n):
        pos = np.float64(o[player(j, POSITION)]) * FINISH
        for r in range(3):
            move = size[j] if r == 0 else (-THIEF_PENALTY if r == 1 else DETECTIVE_REWARD)
            to = max(pos + move, 0.0)
            worth[j, r] = (to - pos) + (WIN_BONUS if to >= FINISH else 0.0)


@jit  # type: ignore[misc]
def race_weights(o: Any, n: int, weights: Any) -> None:
    """``ExpertAgent.race_weights`` for one row: how much ``j``'s gain counts against ``i``."""
    for i in range(n):
        for j in range(n):
            lead = max(np.float64(o[player(j, POSITION)]) - np.float64(o[player(i, POSITION)]), 0.0)
            weights[i, j] = 0.0 if i == j else RIVAL_SHARE * (1.0 + LEAD_WEIGHT * lead) / (n - 1)


@jit  # type: ignore[misc]
def role_game_values(
    sigma: Any, worth: Any, beats: Any, weights: Any, n: int, players: int, options: int, rest: Any, out: Any
) -> None:  # fmt: skip
    """``expert.role_game_values`` for one row, players ``0 … players-1`` and options ``0 … options-1``.

    ``rest[f, i, j]`` is the product over ``k ∉ {i, j}`` of event ``f``'s factor, as the
    exclusive prefix times suffix products of the numpy version (same order).
    """
    y = rest[6:]  # each player's six factors in each column, then the products beside them
    for j in range(n):
        for k in range(n):
            _factors(sigma, beats, k, j, y[:, k, j])
        for f in range(6):
            before = 1.0
            for i in range(n):
                rest[f, i, j] = before
                before *= y[f, i, j]
            after = 1.0
            for i in range(n - 1, -1, -1):
                rest[f, i, j] = rest[f, i, j] * after
                after *= y[f, i, j]
    for i in range(players):
        # The options' roles as literals, so the compiler folds the exact identities (x·1, 1-0).
        out[i, 0] = _option_value(sigma, worth, beats, weights, n, rest, i, 1.0, 0.0, 0.0)
        out[i, 1] = _option_value(sigma, worth, beats, weights, n, rest, i, 0.0, 1.0, 0.0)
        out[i, 2] = _option_value(sigma, worth, beats, weights, n, rest, i, 0.0, 0.0, 1.0)
        if options > 3:
            out[i, 3] = _option_value(sigma, worth, beats, weights, n, rest, i, 0.0, 0.0, 0.0)


@jit  # type: ignore[misc]
def _option_value(
    sigma: Any, worth: Any, beats: Any, weights: Any, n: int, rest: Any, i: int,
    oe: float, ot: float, od: float,
) -> float:  # fmt: skip
    """Player ``i``'s payoff when it plays roles ``(oe, ot, od)`` (all 0: away): own gain less the
    rivals' weighted gains, summed in two interleaved partial sums as ``np.einsum`` does."""
    own = 0.0
    even = 0.0
    odd = 0.0
    for j in range(n):
        if i == j:
            no_thief, no_det, no_show = rest[0, i, j], rest[1, i, j], rest[2, i, j]
            best, best_no_d, best_no_td = rest[3, i, j], rest[4, i, j], rest[5, i, j]
        else:
            ob = oe * beats[i, j]
            no_thief = rest[0, i, j] * (1.0 - ot)
            no_det = rest[1, i, j] * (1.0 - od)
            no_show = rest[2, i, j] * (1.0 - od - oe)
            best = rest[3, i, j] * (1.0 - ob)
            best_no_d = rest[4, i, j] * (1.0 - od - ob)
            best_no_td = rest[5, i, j] * (1.0 - ot - od - ob)
        robbed = best_no_d - best_no_td
        gain_e = worth[j, 0] * (best - robbed) - CARD_VALUE * robbed
        gain_t = worth[j, 1] * (1.0 - no_det) + CARD_VALUE * (no_det - no_show)
        gain_d = worth[j, 2] * (1.0 - no_thief)
        if i == j:
            own = oe * gain_e + ot * gain_t + od * gain_d
        term = (sigma[j, 0] * gain_e + sigma[j, 1] * gain_t + sigma[j, 2] * gain_d) * weights[i, j]
        if j == 0:
            even = term
        elif j == 1:
            odd = term
        elif j % 2 == 0:
            even += term
        else:
            odd += term
    return own - (even + odd)


@jit  # type: ignore[misc]
def _factors(sigma: Any, beats: Any, k: int, j: int, out: Any) -> None:
    """Player ``k``'s factor of each of the six events in ``j``'s column (1 on the diagonal, as ``y``)."""
    if k == j:
        for f in range(6):
            out[f] = 1.0
        return
    e, t, d = sigma[k, 0], sigma[k, 1], sigma[k, 2]
    beaten = e * beats[k, j]
    out[0] = 1.0 - t
    out[1] = 1.0 - d
    out[2] = 1.0 - d - e
    out[3] = 1.0 - beaten
    out[4] = 1.0 - d - beaten
    out[5] = 1.0 - t - d - beaten


@jit  # type: ignore[misc]
def castle_game(
    o: Any, n: int, present: Any, own_legal: bool, iterations: int, want_values: bool, s: Any
) -> None:
    """``ExpertAgent.castle_game`` + ``solve_role_game`` for one row: our mix into ``s.average[0]``
    and (``want_values``) our option values into ``s.values[0]``."""
    rival_model(o, n, s.castle, s.model, s.trust)
    exhibitions(o, n, s.copies, s.known, s.size, s.can, s.beats, s.spread)
    race_worth(o, n, s.size, s.worth)
    race_weights(o, n, s.weights)
    model, trust, legal, mix = s.model, s.trust, s.legal, s.mix
    trust[0] = 0.0
    for j in range(n):
        legal[j, 0] = own_legal if j == 0 else s.can[j]
        legal[j, 1] = legal[j, 2] = True
        cnt = 0
        total = 0.0
        for c in range(3):
            if not legal[j, c]:
                model[j, c] = 0.0
            total += model[j, c]
            cnt += legal[j, c]
        total = max(total, 1e-12)
        for c in range(3):
            model[j, c] = model[j, c] / total
            mix[j, c] = (1.0 if legal[j, c] else 0.0) / cnt
            s.regret[j, c] = 0.0
            s.total[j, c] = 0.0
    for it in range(iterations):
        _played(n, trust, model, mix, present, s.played)
        role_game_values(s.played, s.worth, s.beats, s.weights, n, n, 3, s.rest, s.values)
        for j in range(n):
            expected = s.values[j, 0] * mix[j, 0] + s.values[j, 1] * mix[j, 1] + s.values[j, 2] * mix[j, 2]
            positive = 0.0
            for c in range(3):
                r = max(s.regret[j, c] + s.values[j, c] - expected, 0.0) if legal[j, c] else 0.0
                s.regret[j, c] = r
                positive += r
            for c in range(3):
                if positive > 0:
                    mix[j, c] = s.regret[j, c] / positive
                s.total[j, c] += (it + 1) * mix[j, c]
    for j in range(n):
        total = s.total[j, 0] + s.total[j, 1] + s.total[j, 2]
        for c in range(3):
            s.average[j, c] = s.total[j, c] / total
    if want_values:
        _played(n, trust, model, s.average, present, s.played)
        role_game_values(s.played, s.worth, s.beats, s.weights, n, 1, 4, s.rest, s.values)


@jit  # type: ignore[misc]
def _played(n: int, trust: Any, model: Any, mix: Any, present: Any, out: Any) -> None:
    """What each player plays in the restricted game: trust × model + the rest × mix, if present."""
    for j in range(n):
        for c in range(3):
            out[j, c] = (trust[j] * model[j, c] + (1.0 - trust[j]) * mix[j, c]) * present[j]


@jit  # type: ignore[misc]
def bid_values(o: Any, n: int, at_auction: Any, legal: Any, s: Any) -> None:
    """``ExpertAgent.bid_values`` (with ``win_chances``, ``lot_worth``, ``rival_worth``) into ``s.bids``."""
    win = s.bids
    for b in range(AMOUNTS):
        win[b] = 1.0
    for k in range(1, n):
        money = np.float64(o[player(k, MONEY)]) * STARTING_MONEY
        mean = np.float64(o[player(k, MEAN_BID)]) * STARTING_MONEY
        last = np.float64(o[player(k, LAST_BID)]) * STARTING_MONEY
        seen = o[player(k, RATES)] > 0
        centre = (0.5 * mean + 0.5 * last if last > 0 else mean) if seen else 10.0
        centre = min(centre, money)
        spread = 1.5 + 0.2 * centre if seen else 5.0
        there = at_auction[k]
        for b in range(AMOUNTS):
            below = 1.0
            # Skipped where the bid is not ours to make (its value is -inf) or the rival is surely
            # elsewhere (the factor is exactly 1 whatever ``below`` is).
            if not b > money and there != 0.0 and legal[b]:
                below = 1.0 / (1.0 + np.exp(-1.7 * ((b - 0.5 - centre) / spread)))
            term = 1.0 - there + there * below
            win[b] = term if k == 1 else win[b] * term
    age = np.float64(np.float32(0.3) * o[LOT_AGE])
    series = lot_series(o)
    denial = -np.inf
    for k in range(1, n):
        counts_of(o, player(k, KNOWN), s.copies, s.known)
        gain = lot_gain(s.known, series)
        denial = max(denial, at_auction[k] * (1.6 * np.float64(gain) + age))
    counts_of(o, HAND, s.copies, s.known)
    worth = 1.6 * lot_gain(s.known, series) + 0.8 * near_run(s.known, series)
    worth = worth + (0.0 if o[CAN_EXHIBIT] > 0.5 else 1.5) + age
    lead = o[player(0, POSITION)]
    for k in range(1, n):
        lead = max(lead, o[player(k, POSITION)])
    worth = worth * (0.3 + 0.7 * (1.0 - np.float64(lead))) + DENIAL * denial
    unit = MONEY_VALUE * (0.3 + 0.7 * np.float64(o[DECK]))
    for b in range(AMOUNTS):
        value = 0.0 if b == 0 else win[b] * (worth - unit * b)
        win[b] = value if legal[b] else -np.inf


@jit  # type: ignore[misc]
def softmax_pick(values: Any, count: int, temperature: float, u: float, w: Any) -> int:
    """A draw from ``exp((values - max) / temperature)`` (``sample_index`` of the softmax weights)."""
    top = values[0]
    for k in range(1, count):
        top = max(top, values[k])
    for k in range(count):
        w[k] = np.exp((values[k] - top) / temperature)
    return sample_index(w, count, u)  # type: ignore[no-any-return]


@jit  # type: ignore[misc]
def expert_kernel(obs: Any, masks: Any, draws: Any, n: int, copies: Any, out: Any) -> None:
    """``ExpertAgent``'s three rules, row by row."""
    s = scratch(n, copies)
    for r in range(obs.shape[0]):
        o, m, u = obs[r], masks[r], draws[r]
        step = step_of(o, m)
        if step == 0:
            rival_model(o, n, s.present, s.model, s.trust)
            for k in range(n):
                s.at_auction[k] = 1.0 - s.present[k]
            s.present[0] = 1.0
            castle_game(o, n, s.present, o[CAN_EXHIBIT] > 0.5, LOCATION_ITERATIONS, True, s)
            v = s.values
            castle = s.average[0, 0] * v[0, 0] + s.average[0, 1] * v[0, 1] + s.average[0, 2] * v[0, 2]
            away = v[0, 3]
            cap = np.rint(o[player(0, MONEY)] * np.float32(STARTING_MONEY))
            for b in range(AMOUNTS):
                s.legal_bids[b] = b <= cap
            bid_values(o, n, s.at_auction, s.legal_bids, s)
            auction = s.bids[0]
            for b in range(1, AMOUNTS):
                auction = max(auction, s.bids[b])
            s.two[0] = castle
            s.two[1] = auction + away if may_bid(o, m) else -np.inf
            choice = (CASTLE, AUCTION)[softmax_pick(s.two, 2, LOCATION_TEMPERATURE, u[1], s.weights2)]
        elif step == 1:
            for k in range(n):
                s.at_auction[k] = 1.0 if location_of(o, k) == 0 else 0.0
            for b in range(AMOUNTS):
                s.legal_bids[b] = m[BID0 + b]
            bid_values(o, n, s.at_auction, s.legal_bids, s)
            choice = BID0 + softmax_pick(s.bids, AMOUNTS, BID_TEMPERATURE, u[1], s.weights_bids)
        else:
            for k in range(n):
                s.present[k] = 1.0 if k == 0 or location_of(o, k) == 1 else 0.0
            castle_game(o, n, s.present, bool(m[EXHIBIT]), ITERATIONS, False, s)
            choice = ROLES[sample_index(s.average[0], 3, u[1])]
        out[r] = legal_or_first(choice, m)


KERNELS["expert"] = expert_kernel
