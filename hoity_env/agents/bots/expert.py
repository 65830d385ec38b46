"""``expert``: models each rival from the public record and mixes its castle roles from an equilibrium.

From its own observation only (docs/design.md §3) it models each rival (location and role shares, bids,
money, best exhibition), solves the round's castle role game against that model as a restricted Nash
response (:mod:`hoity_env.agents.bots.role_game`) and bids by the chance of winning against the lot's worth.
Its standard rule is the numba kernel here, for the standard preset's numbers and action layout; under the
original rules it plays :mod:`hoity_env.agents.bots.styles_original`'s.  ``expert-v1``
(:mod:`hoity_env.agents.bots.expert_v1`) is the first expert, kept as a yardstick.  See docs/agents.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

import numpy as np

from hoity_env.agents.bots.role_game import LANES, lanes, load, solve
from hoity_env.agents.bots.styles import ScriptedAgent
from hoity_env.agents.bots.styles_kernels import (
    BEST_SIZE,
    CAN_EXHIBIT,
    DECK,
    HAND,
    HAND_SIZE,
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
    Rule,
    best_run,
    counts_of,
    kernel_rule,
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
from hoity_env.agents.bots.styles_original import original_rule
from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.config import STANDARD
from hoity_env.engine.jit import jit, jit_inline

__all__ = ["NUM_ACTIONS", "ExpertAgent", "expert_kernel"]

MAX_ROUNDS = STANDARD.max_rounds
STARTING_MONEY = STANDARD.starting_money
AMOUNTS = STARTING_MONEY + 1
NUM_ACTIONS = BID0 + AMOUNTS
"""Width of the standard preset's action mask: the only layout this agent knows."""
FINISH = float(STANDARD.finish)
THIEF_PENALTY = float(STANDARD.thief_penalty)
DETECTIVE_REWARD = float(STANDARD.detective_reward)
# The expert's settings (the kernel reads them once, at compile time).
PRIOR = 2.0 * np.asarray([0.45, 0.2, 0.35])
"""Prior counts of a rival's mix at the Castle (exhibit, thief, detective) before any evidence."""
MAX_TRUST, TRUST_SCALE, RECENCY = 0.85, 4.0, 1.0
"""The most weight the model of a rival gets in the restricted game; the castle visits at which it
gets half of that; the weight of last round's role beside the counts of all past rounds."""
ITERATIONS, LOCATION_ITERATIONS = 8, 3
"""Regret-matching rounds of the role game: castle roles; location steps (presence only a chance)."""
LEAD_WEIGHT, WIN_BONUS, RIVAL_SHARE = 2.0, 10.0, 0.4
"""How much more a rival's gain counts against us for each finish-length it leads by; the extra
worth (track spaces) of a move that reaches the finish; the total weight of the rivals' gains."""
LOCATION_TEMPERATURE, BID_TEMPERATURE = 0.5, 0.25
MONEY_VALUE, DENIAL, CARD_VALUE = 0.1, 0.4, 1.0
"""Track spaces a unit of money is worth while lots are left; the share of a lot's worth to its
likeliest other buyer that we count as ours to deny; what a card taken from (or added to) an
exhibition is worth in the role game."""
ROLES = np.asarray([EXHIBIT, THIEF, DETECTIVE])
"""The action of each role column (exhibit, thief, detective), the observation's rate order."""


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
    average: Any
    present: Any
    at_auction: Any
    legal_bids: Any
    bids: Any
    two: Any
    weights2: Any
    weights_bids: Any
    rivals: Any


@jit  # type: ignore[misc]
def scratch(n: int, copies: Any) -> Scratch:
    """The working arrays of an ``n``-player row."""
    per = np.empty((n, 3))
    return Scratch(
        copies, np.empty(NUM_SERIES, dtype=np.int64), np.empty(n), per.copy(), np.empty(n), np.empty(n),
        np.empty(n, dtype=np.bool_), np.empty((n, n)), np.empty(n), per.copy(), np.empty((n, n)),
        np.empty((n, 3), dtype=np.bool_), per.copy(), per.copy(), np.empty(n), np.empty(n),
        np.empty(AMOUNTS, dtype=np.bool_),
        np.empty(AMOUNTS), np.empty(2), np.empty(2), np.empty(AMOUNTS), np.empty((n, 4)),
    )  # fmt: skip


@jit_inline  # type: ignore[misc]
def rival_model(o: Any, n: int, castle: Any, mix: Any, trust: Any) -> None:
    """Every player's chance of the Castle, mix at the Castle (exhibit, thief, detective: past shares
    plus last round's role, smoothed towards :data:`PRIOR`) and trust (evidence weight), observer
    first (the observer's own entries are filled but not used as a model)."""
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


@jit_inline  # type: ignore[misc]
def exhibitions(
    o: Any, n: int, copies: Any, known: Any, size: Any, can: Any, beats: Any, spread: Any
) -> None:
    """Each player's estimated best exhibition size, whether it may exhibit, and ``beats[k, j]``, the
    chance that ``k``'s beats ``j``'s: exact for the observer, estimated for rivals from their public
    cards (the best run of the known ones plus a share of the hidden ones)."""
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


@jit_inline  # type: ignore[misc]
def race_worth(o: Any, n: int, size: Any, worth: Any) -> None:
    """``(n, 3)``: what scoring its exhibition, being caught and catching a thief are worth to each player
    in the race: the spaces moved, plus :data:`WIN_BONUS` for a move that reaches the finish."""
    for j in range(n):
        pos = np.float64(o[player(j, POSITION)]) * FINISH
        for r in range(3):
            move = size[j] if r == 0 else (-THIEF_PENALTY if r == 1 else DETECTIVE_REWARD)
            to = max(pos + move, 0.0)
            worth[j, r] = (to - pos) + (WIN_BONUS if to >= FINISH else 0.0)


@jit_inline  # type: ignore[misc]
def race_weights(o: Any, n: int, weights: Any) -> None:
    """``(n, n)``: how much ``j``'s gain counts against ``i``: a share, more for a rival ahead."""
    for i in range(n):
        for j in range(n):
            lead = max(np.float64(o[player(j, POSITION)]) - np.float64(o[player(i, POSITION)]), 0.0)
            weights[i, j] = 0.0 if i == j else RIVAL_SHARE * (1.0 + LEAD_WEIGHT * lead) / (n - 1)


@jit_inline  # type: ignore[misc]
def castle_setup(o: Any, n: int, own_legal: bool, s: Any) -> None:
    """One row's castle game up to the solve: the rival model, the exhibitions, the race's worths and
    weights, who may play which role, and everyone's first mix (uniform over it); we play our own
    mix (trust 0), not a model of ourselves."""
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


@jit_inline  # type: ignore[misc]
def rivals_at_auction(o: Any, n: int, at_auction: Any, rivals: Any) -> None:
    """Each rival's money, bid centre (between its mean and last bid, never above its money), spread
    and chance of being at the Auction House, into ``rivals[k]`` (``k`` from 1)."""
    for k in range(1, n):
        money = np.float64(o[player(k, MONEY)]) * STARTING_MONEY
        mean = np.float64(o[player(k, MEAN_BID)]) * STARTING_MONEY
        last = np.float64(o[player(k, LAST_BID)]) * STARTING_MONEY
        seen = o[player(k, RATES)] > 0
        centre = (0.5 * mean + 0.5 * last if last > 0 else mean) if seen else 10.0
        centre = min(centre, money)
        rivals[k, 0] = money
        rivals[k, 1] = centre
        rivals[k, 2] = 1.5 + 0.2 * centre if seen else 5.0
        rivals[k, 3] = at_auction[k]


@jit_inline  # type: ignore[misc]
def win_chance(n: int, rivals: Any, b: int, legal: bool) -> float:
    """The chance that bid ``b`` beats every rival: the product over rivals, in their order, of the
    chance that each is elsewhere or bids below ``b`` (a logistic normal cdf at ``b - 0.5``)."""
    win = 1.0
    for k in range(1, n):
        money, centre, spread, there = rivals[k, 0], rivals[k, 1], rivals[k, 2], rivals[k, 3]
        below = 1.0
        # Skipped where the bid is not ours to make (its value is -inf) or the rival is surely
        # elsewhere (the factor is exactly 1 whatever ``below`` is).
        if not b > money and there != 0.0 and legal:
            below = 1.0 / (1.0 + np.exp(-1.7 * ((b - 0.5 - centre) / spread)))
        term = 1.0 - there + there * below
        win = term if k == 1 else win * term
    return win


@jit_inline  # type: ignore[misc]
def lot_value(o: Any, n: int, at_auction: Any, s: Any) -> tuple[float, float]:
    """The lot's worth to us (run growth, a touch, a first exhibition, less near the end of the race)
    plus a share of its worth to the likeliest other buyer (denial), and the value of one coin."""
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
    return worth, MONEY_VALUE * (0.3 + 0.7 * np.float64(o[DECK]))


@jit_inline  # type: ignore[misc]
def bid_values(o: Any, n: int, at_auction: Any, legal: Any, s: Any) -> None:
    """Each bid's expected worth, ``P(win | b) · (worth − price of b)`` (``-inf`` where illegal), into
    ``s.bids``."""
    rivals_at_auction(o, n, at_auction, s.rivals)
    worth, unit = lot_value(o, n, at_auction, s)
    for b in range(AMOUNTS):
        value = 0.0 if b == 0 else win_chance(n, s.rivals, b, legal[b]) * (worth - unit * b)
        s.bids[b] = value if legal[b] else -np.inf


@jit_inline  # type: ignore[misc]
def best_bid_value(o: Any, n: int, at_auction: Any, cap: float, s: Any) -> float:
    """The largest of ``bid_values`` over the bids ``0 … cap``: what the location step needs.

    Exact without valuing every bid: a bid's value is its win chance (at most 1) times
    ``worth - unit·b``, which falls as ``b`` grows, so once that bound is no more than
    the best value so far (the free bid's 0 to start with), no larger bid can beat it.
    """
    rivals_at_auction(o, n, at_auction, s.rivals)
    worth, unit = lot_value(o, n, at_auction, s)
    best = 0.0
    for b in range(1, AMOUNTS):
        bound = worth - unit * b
        if not b <= cap or bound <= best:
            break
        best = max(best, win_chance(n, s.rivals, b, True) * bound)
    return best


@jit_inline  # type: ignore[misc]
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
    """``ExpertAgent``'s three rules: bids row by row; the castle games of the location steps, then of
    the castle roles, :data:`~hoity_env.agents.bots.role_game.LANES` rows at a time."""
    s = scratch(n, copies)
    v = lanes(n)
    waiting = np.empty(LANES, dtype=np.int64)
    """The row in each lane."""
    auction = np.empty((LANES, n))
    """Each lane's chance that every player is at the Auction House (location steps)."""
    steps = np.empty(obs.shape[0], dtype=np.int64)
    for r in range(obs.shape[0]):
        o, m, u = obs[r], masks[r], draws[r]
        steps[r] = step_of(o, m)
        if steps[r] == 1:
            for k in range(n):
                s.at_auction[k] = 1.0 if location_of(o, k) == 0 else 0.0
            for b in range(AMOUNTS):
                s.legal_bids[b] = m[BID0 + b]
            bid_values(o, n, s.at_auction, s.legal_bids, s)
            out[r] = legal_or_first(
                BID0 + softmax_pick(s.bids, AMOUNTS, BID_TEMPERATURE, u[1], s.weights_bids), m
            )
    for step in (0, 2):
        count = 0
        for r in range(obs.shape[0]):
            if steps[r] != step:
                continue
            o, m = obs[r], masks[r]
            if step == 0:
                rival_model(o, n, s.present, s.model, s.trust)
                for k in range(n):
                    auction[count, k] = 1.0 - s.present[k]
                s.present[0] = 1.0
                castle_setup(o, n, o[CAN_EXHIBIT] > 0.5, s)
            else:
                for k in range(n):
                    s.present[k] = 1.0 if k == 0 or location_of(o, k) == 1 else 0.0
                castle_setup(o, n, bool(m[EXHIBIT]), s)
            load(count, n, s.trust, s.model, s.legal, s.mix, s.present, s.worth, s.beats, s.weights, v)
            waiting[count] = r
            count += 1
            if count == LANES:
                decide_lanes(obs, masks, draws, n, step, count, waiting, auction, v, s, out)
                count = 0
        if count:
            decide_lanes(obs, masks, draws, n, step, count, waiting, auction, v, s, out)


@jit  # type: ignore[misc]
def decide_lanes(
    obs: Any, masks: Any, draws: Any, n: int, step: int, count: int, waiting: Any, auction: Any, v: Any,
    s: Any, out: Any,
) -> None:  # fmt: skip
    """Solve the loaded lanes' castle games, then finish each row: a location (0) or a role (2)."""
    solve(v, n, count, LOCATION_ITERATIONS if step == 0 else ITERATIONS, step == 0)
    mix = s.average[0]
    for lane in range(count):
        r = waiting[lane]
        o, m, u = obs[r], masks[r], draws[r]
        for c in range(3):
            mix[c] = v.average[0, c, lane]
        if step == 2:
            out[r] = legal_or_first(ROLES[sample_index(mix, 3, u[1])], m)
            continue
        values = v.values[0]
        castle = mix[0] * values[0, lane] + mix[1] * values[1, lane] + mix[2] * values[2, lane]
        away = values[3, lane]
        for k in range(n):
            s.at_auction[k] = auction[lane, k]
        cap = np.rint(o[player(0, MONEY)] * np.float32(STARTING_MONEY))
        s.two[0] = castle
        s.two[1] = best_bid_value(o, n, s.at_auction, cap, s) + away if may_bid(o, m) else -np.inf
        choice = (CASTLE, AUCTION)[softmax_pick(s.two, 2, LOCATION_TEMPERATURE, u[1], s.weights2)]
        out[r] = legal_or_first(choice, m)


class ExpertAgent(ScriptedAgent):
    """``expert``: a rival model, the role game's equilibrium, bids from the lot's worth (docs/agents.md)."""

    name = "expert"
    RULES: ClassVar[Mapping[str, Rule]] = {
        "standard": kernel_rule(expert_kernel, name, NUM_ACTIONS),
        "original": original_rule(name),
    }
