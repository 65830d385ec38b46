"""The standard styles' rules as numba kernels, and the per-row helpers every style kernel shares.

A style decides a batch of standard rows in one compiled loop: each row's observation, mask and four
uniforms give its step (location, bid or castle role) and the style's choice; ``act`` is the same kernel
at ``B = 1``.  Each style writes its loop out: one shared loop would take the step rules as function
arguments, which numba calls per row through first-class function types instead of compiling them in.
See docs/agents.md and docs/design.md §1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hoity_env.agents.view import AgentInputError
from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.config import STANDARD
from hoity_env.engine.jit import jit, jit_inline
from hoity_env.engine.standard.observation import G_DIM, G_SL, O_DIM, O_SL, P_DIM, P_SL

__all__ = ["collector_kernel", "detective_kernel", "kernel_rule", "random_kernel", "thief_kernel"]

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


# --- shared per-row helpers -------------------------------------------------------------------
@jit_inline  # type: ignore[misc]
def step_of(o: Any, m: Any) -> int:
    """0 location step, 1 bid, 2 castle role: the action step with a legal bid is a bid."""
    if not o[PHASE_ACTION] > 0.5:
        return 0
    for a in range(BID0, m.shape[0]):
        if m[a]:
            return 1
    return 2


@jit_inline  # type: ignore[misc]
def legal_or_first(choice: int, m: Any) -> int:
    """``choice`` if legal, else the lowest legal action (a style bug never becomes an illegal move)."""
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
    """Cards in the largest run of consecutive non-empty series, 0 if below ``MIN_EXHIBITION`` (C-3)."""
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
    """The 0-based series of the lot on display (the one-hot's argmax if its max passes 0.5), else -1."""
    top = o[LOT_SERIES]
    arg = 0
    for s in range(1, NUM_SERIES):
        if o[LOT_SERIES + s] > top:
            top, arg = o[LOT_SERIES + s], s
    return arg if top > 0.5 else -1


@jit_inline  # type: ignore[misc]
def lot_gain(c: Any, series: int) -> int:
    """How much one card of ``series`` (-1: none) grows the best run."""
    if series < 0:
        return 0
    before = best_run(c)
    c[series] += 1
    after = best_run(c)
    c[series] -= 1
    return after - before  # type: ignore[no-any-return]


@jit_inline  # type: ignore[misc]
def near_run(c: Any, series: int) -> bool:
    """Whether a card of ``series`` (-1: none) touches our cards in its or a neighbouring series."""
    if series < 0:
        return False
    total = 0
    for s in range(max(series - 1, 0), min(series + 2, NUM_SERIES)):
        total += c[s]
    return total > 0


@jit_inline  # type: ignore[misc]
def location_of(o: Any, k: int) -> int:
    """Player ``k``'s location revealed this round (action step): 0 auction, 1 castle, -1 unknown."""
    a, c = o[player(k, LOCATION)], o[player(k, LOCATION) + 1]
    top = max(a, c)
    if not top >= 0.5:
        return -1
    return 1 if c > a else 0


@jit_inline  # type: ignore[misc]
def sample_index(w: Any, count: int, u: float) -> int:
    """An index drawn with probability proportional to the first ``count`` weights (negatives count as 0)
    by the inverse cdf at ``u``, summed in order; 0 without positive weight."""
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
    """A standard normal from two uniforms in [0, 1) (Box-Muller): a bid jitter from the row's draws."""
    return np.sqrt(-2.0 * np.log1p(-u1)) * np.cos(2.0 * np.pi * u2)  # type: ignore[no-any-return]


@jit_inline  # type: ignore[misc]
def bids_of(m: Any) -> tuple[int, int]:
    """The highest legal bid (all our money) and how many amounts are legal."""
    top = 0
    count = 0
    for b in range(m.shape[0] - BID0):
        if m[BID0 + b]:
            top = b
            count += 1
    return top, count


@jit_inline  # type: ignore[misc]
def jittered(m: Any, target: float, spread: float, z: float) -> int:
    """A legal amount near ``target`` with normal spread ``spread · z`` (``BID0`` not added): rounded
    half to even, kept in ``[1, top]``, ``top`` where not legal; a lone legal amount as is.  Never a
    fixed bid: equal bids void each other (S-5)."""
    top, count = bids_of(m)
    amount = np.int64(np.rint(target + z * spread))
    amount = min(max(amount, 1), top)
    if count > 1 and m[BID0 + amount]:
        return amount  # type: ignore[no-any-return]
    return top  # type: ignore[no-any-return]


@jit_inline  # type: ignore[misc]
def may_bid(o: Any, m: Any) -> bool:
    """The Auction House is open and we have money to bid."""
    return bool(m[AUCTION]) and o[player(0, MONEY)] > 0


# --- the styles -------------------------------------------------------------------------------
@jit  # type: ignore[misc]
def random_kernel(masks: Any, draws: Any, out: Any) -> None:
    """``random``: the ``k``-th legal action, ``k = ⌊u · count⌋`` (reads the mask only: any layout)."""
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
    """``collector``'s three rules (:class:`~hoity_env.agents.bots.styles.CollectorAgent`), row by row."""
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
    """``thief``'s three rules (:class:`~hoity_env.agents.bots.styles.ThiefAgent`), row by row."""
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
    """``detective``'s three rules (:class:`~hoity_env.agents.bots.styles.DetectiveAgent`), row by row
    (the theft shares in float32, as the observation)."""
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


Kernel = Callable[[Any, Any, Any, int, Any, Any], None]
"""A style's standard kernel: ``(observations, bool masks, uniforms, players, copies, out)``."""
Rule = Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]
"""A style's decision over checked rows of one ruleset: ``(observations, bool masks, uniforms,
players) -> (B,) int64 actions``."""
COPIES = np.asarray(STANDARD.series_copies, dtype=np.int64)
COPIES_SIX = np.asarray(STANDARD.series_copies_six, dtype=np.int64)


def copies_of(num_players: int) -> np.ndarray:
    """Copies of each series in the deck of a ``num_players`` game (six players use the big deck)."""
    return COPIES_SIX if num_players >= 6 else COPIES


def kernel_rule(kernel: Kernel, style: str, num_actions: int | None = None) -> Rule:
    """``kernel`` as ``style``'s standard rule: it refuses masks of another layout than the standard
    ruleset's (exactly ``num_actions`` wide, where the style knows only the preset's amounts)."""

    def rule(obs: np.ndarray, masks: np.ndarray, draws: np.ndarray, num_players: int) -> np.ndarray:
        width = masks.shape[1]
        if width <= BID0 or (num_actions is not None and width != num_actions):
            wanted = f"action masks of width {num_actions}" if num_actions else f"masks wider than {BID0}"
            raise AgentInputError(
                f"{style} needs the standard action layout ({wanted}), got masks of width {width}"
            )
        out = np.empty(obs.shape[0], dtype=np.int64)
        kernel(obs, masks, draws, num_players, copies_of(num_players), out)
        return out

    return rule
