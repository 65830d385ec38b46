"""``expert-v1``: the first expert, which models its rivals and plays a best response (docs/design.md §3).

Kept beside the stronger :mod:`hoity_env.agents.bots.expert` as a fixed yardstick: the
zoo baseline and the reference agent were measured against it.  Its standard rule is
the kernel here (the shared per-row helpers are :mod:`hoity_env.agents.bots.styles_kernels`');
under the original rules it plays the original expert's rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from hoity_env.agents.bots.styles import ScriptedAgent
from hoity_env.agents.bots.styles_kernels import (
    BEST_SIZE,
    CAN_EXHIBIT,
    DETECTIVE_REWARD,
    HAND,
    HAND_SIZE,
    KNOWN,
    LOT_AGE,
    MAX_ROUNDS,
    MEAN_BID,
    NUM_SERIES,
    RATES,
    ROUND,
    STARTING_MONEY,
    THIEF_PENALTY,
    Rule,
    best_run,
    bids_of,
    counts_of,
    jittered,
    kernel_rule,
    legal_or_first,
    location_of,
    lot_gain,
    lot_series,
    may_bid,
    near_run,
    normal,
    player,
    sample_index,
    step_of,
)
from hoity_env.agents.bots.styles_original import original_rule
from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.jit import jit

__all__ = ["ExpertV1Agent"]

PRIOR = 2.0 * np.asarray([0.3, 0.3, 0.4])
"""Prior counts of a rival's castle roles (exhibit, thief, detective): two rounds' worth of 30/30/40."""


@jit  # type: ignore[misc]
def rival_model(o: Any, n: int, auction: Any, roles: Any) -> None:
    """Each rival's chance of the Auction House, and of each castle role (exhibit, thief, detective)
    once at the Castle, from its shares of past rounds smoothed towards :data:`PRIOR`: rival ``k``
    (1…n-1) at index ``k - 1``."""
    rounds = np.float64(o[ROUND]) * MAX_ROUNDS
    for k in range(1, n):
        rate = np.empty(5)
        for f in range(5):
            rate[f] = o[player(k, RATES + f)] * rounds
        auction[k - 1] = (rate[0] + 1.0) / (rounds + 2.0)
        castle = rate[1] + 2.0
        for c in range(3):
            roles[k - 1, c] = (rate[2 + c] + PRIOR[c]) / castle


@jit  # type: ignore[misc]
def role_values(
    o: Any, n: int, present: Any, roles: Any, can_exhibit: bool, copies: Any, values: Any
) -> None:  # fmt: skip
    """The expected track gain of detective, thief and exhibit (``-inf`` where it cannot exhibit) into
    ``values``; ``present`` is each rival's chance of being at the Castle.  A rival's best
    exhibition is estimated from its publicly known cards plus half a card per hidden one."""
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
def choose(values: Any, count: int, u: Any, greedy: float, temperature: float) -> int:
    """The best of ``count`` values (ties: the first), or a softmax draw when ``u[0] ≥ greedy``."""
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
    """``expert-v1``'s three rules (:class:`ExpertV1Agent`), row by row."""
    c = np.empty(NUM_SERIES, dtype=np.int64)
    auction = np.empty(n - 1)
    roles = np.empty((n - 1, 3))
    present = np.empty(n - 1)
    values = np.empty(3)
    for r in range(obs.shape[0]):
        o, m, u = obs[r], masks[r], draws[r]
        step = step_of(o, m)
        if step == 0:
            rival_model(o, n, auction, roles)
            can = o[CAN_EXHIBIT] > 0.5
            for k in range(n - 1):
                present[k] = 1.0 - auction[k]
            role_values(o, n, present, roles, can, copies, values)
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
            choice = (CASTLE, AUCTION)[choose(values, 2, u, 0.85, 0.6)]
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
            rival_model(o, n, auction, roles)
            for k in range(n - 1):
                present[k] = 1.0 if location_of(o, k + 1) == 1 else 0.0
            role_values(o, n, present, roles, bool(m[EXHIBIT]), copies, values)
            choice = (DETECTIVE, THIEF, EXHIBIT)[choose(values, 3, u, 0.8, 0.6)]
        out[r] = legal_or_first(choice, m)


class ExpertV1Agent(ScriptedAgent):
    """``expert-v1``: models the rivals' revealed tendencies and plays a best response.

    From the observation it estimates, for every rival, how often it goes to the
    Auction House and, once at the Castle, how often it exhibits, steals or plays
    detective (shares of past rounds, smoothed towards a prior early in the game).

    * **Castle roles** (the rivals at the Castle are known in the action step): the
      expected track gain of each role: a detective earns the reward when some
      rival steals; a thief gains a card and spoils the others' exhibition when no
      detective is there, but loses 2 spaces when one is; an exhibition scores its
      size when it is the best on show and not robbed.  It plays the best role most
      of the time and a softmax mix otherwise, so it cannot be read like a pure style.
    * **Location**: the same castle values, weighted by the chance each rival goes
      there, against the worth of the lot (how much it grows our best exhibition,
      and whether we still need one) times the chance of winning it against the
      rivals expected at the auction.
    * **Bids**: a budget share that grows with the lot's worth, jittered, nudged
      off the rivals' habitual amounts (equal bids void each other, S-5).
    """

    name = "expert-v1"
    RULES: ClassVar[Mapping[str, Rule]] = {
        "standard": kernel_rule(expert_v1_kernel, "expert-v1"),
        "original": original_rule("expert"),
    }
