"""The scripted styles under the original ruleset (RULES O-1 … O-9): a view, each style's rule over a batch.

The original rules have other decisions than the standard ones (which check to play and for which of the two
lots, an auction thief, which of two numbered thieves), so each style has a second rule here, its entry under
``"original"`` in :attr:`~hoity_env.agents.bots.styles.ScriptedAgent.RULES`: a pure function of (observation,
mask, four uniforms), read through :class:`OriginalView` only (never the hidden state), written with numpy
over the batch; the one-game ``act`` is this code at ``B = 1``.  See docs/rulesets.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from hoity_env.agents.batch import ensure_legal, sample_index
from hoity_env.agents.view import AgentInputError, SeatFields
from hoity_env.engine import actions as A
from hoity_env.engine.config import STANDARD
from hoity_env.engine.original.observation import original_field_widths

__all__ = [
    "ORIGINAL_STYLES",
    "PRIOR",
    "BatchFacts",
    "OriginalView",
    "best_run",
    "decide_original",
    "original_rule",
]

MIN_EXHIBITION = STANDARD.min_exhibition
_COPIES = np.asarray(STANDARD.series_copies)
_COPIES_SIX = np.asarray(STANDARD.series_copies_six)
PRIOR = np.asarray([0.3, 0.3, 0.4])
"""Prior shares of exhibit, thief, detective for a rival at the Castle (the expert's)."""
_LOT = np.vstack([np.eye(6, dtype=np.int64), np.zeros((1, 6), dtype=np.int64)])
"""Row ``s``: one card of series ``s``; row -1 (no lot): nothing."""


def copies_of(num_players: int) -> np.ndarray:
    """Copies of each series in the deck of a ``num_players`` game (six players use the big deck)."""
    return _COPIES_SIX if num_players >= 6 else _COPIES


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


class OriginalView(SeatFields):
    """Named access to a ``(B, D)`` batch of original-ruleset observations of ``num_players`` players
    (leading ``B`` axis; the caller has checked their length).

    ``k`` in the player fields counts seats after the observer (0 is the observer);
    the phase, positions and locations are decoded by :class:`SeatFields`.  Check values
    stay normalized by the largest check: comparisons need no scale.
    """

    def __init__(self, observations: np.ndarray, num_players: int) -> None:
        obs = np.asarray(observations, dtype=np.float32)
        self.obs = obs
        self.n = n = num_players
        g, o, p = original_field_widths(n)
        self._g, self._o, self._p = _offsets(g), _offsets(o), _offsets(p)
        self._g_dim = sum(w for _, w, _ in g)
        self._o_dim = sum(w for _, w, _ in o)
        self._p_dim = sum(w for _, w, _ in p)

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    def glob(self, name: str) -> np.ndarray:
        """Global field ``name``: ``(B, width)``."""
        return self.obs[:, self._g[name]]

    def own(self, name: str) -> np.ndarray:
        """Private field ``name``: ``(B, width)``."""
        s = self._o[name]
        return self.obs[:, self._g_dim + s.start : self._g_dim + s.stop]

    def players(self, name: str) -> np.ndarray:
        """Field ``name`` of every player, observer first: ``(B, n, width)``."""
        base = self._g_dim + self._o_dim
        return self.obs[:, base:].reshape(-1, self.n, self._p_dim)[:, :, self._p[name]]

    @property
    def lot_series(self) -> np.ndarray:
        """``(B, 2)``: series of each lot, -1 without one."""
        onehot = self.glob("lot_series").reshape(-1, A.NUM_LOTS, 6)
        out: np.ndarray = np.where(onehot.max(axis=2) > 0.5, onehot.argmax(axis=2), -1)
        return out

    @property
    def counts(self) -> np.ndarray:
        """``(B, 6)`` int64: own cards per series."""
        out: np.ndarray = np.rint(self.own("hand") * copies_of(self.n)).astype(np.int64)
        return out

    @property
    def best_checks(self) -> np.ndarray:
        """``(B, n)``: each player's highest check (normalized; 0 without checks)."""
        out: np.ndarray = self.players("checks").max(axis=2)
        return out

    @property
    def free_thieves(self) -> np.ndarray:
        """``(B, n)``: each player's thieves out of jail (0-2)."""
        out: np.ndarray = (self.players("thief_cells") == 0).sum(axis=2)
        return out

    def rates(self) -> np.ndarray:
        """``(B, n, 5)``: shares of past rounds at auction, castle, exhibit, thief, detective."""
        names = ("rate_auction", "rate_castle", "rate_exhibit", "rate_thief", "rate_detective")
        return np.concatenate([self.players(name) for name in names], axis=2)


def _offsets(fields: tuple[tuple[str, int, str], ...]) -> dict[str, slice]:
    out, at = {}, 0
    for name, width, _ in fields:
        out[name] = slice(at, at + width)
        at += width
    return out


class BatchFacts:
    """What the rules read for every row of a batch (the oracle's ``Row``, for all rows at once)."""

    def __init__(self, view: OriginalView, masks: np.ndarray) -> None:
        self.mask = masks
        self.rows = np.arange(len(view))
        counts = view.counts
        self.best = best_run(counts)
        self.can_exhibit: np.ndarray = view.own("can_exhibit")[:, 0] > 0.5
        lots = view.lot_series
        grown = best_run(counts[:, None, :] + _LOT[lots])
        self.gain: np.ndarray = np.where(lots >= 0, grown - self.best[:, None], -1)
        self.lot_age = view.glob("lot_age")
        self.checks = view.best_checks
        self.locations = view.locations
        self.rates = view.rates()
        self.positions = view.positions
        self.reward = view.glob("leader_reward") * 6.0  # as Row.reward: the default O-9 table's 6
        self.known = view.players("known")
        self.hand_size = view.players("hand_size")[:, :, 0]
        self.n = view.n
        held = masks[:, A.O_CHECK0 :]
        if held.shape[1] % A.NUM_LOTS:
            held = np.concatenate([held, np.zeros((len(held), 1), dtype=bool)], axis=1)
        held = held.reshape(len(held), -1, A.NUM_LOTS)
        self.values: np.ndarray = np.any(held, axis=2)
        """``(B, V)``: a check of value ``v + 1`` is playable (for some lot)."""
        self.lots: np.ndarray = np.any(held, axis=1)
        """``(B, 2)``: some check may name lot ``L``."""
        self.has_check: np.ndarray = np.any(self.values, axis=1)
        self.lowest = self.values.argmax(axis=1) + 1
        self.highest = self.values.shape[1] - self.values[:, ::-1].argmax(axis=1)

    def nth_value(self, k: np.ndarray) -> np.ndarray:
        """``(B,)``: the ``k``-th (0-based) playable check value of each row, ascending."""
        out: np.ndarray = (self.values.cumsum(axis=1) > k[:, None]).argmax(axis=1) + 1
        return out

    def best_lot(self) -> np.ndarray:
        """``(B,)``: the playable lot that grows our run most (ties: the older one, then lot 0)."""
        g, age = self.gain, self.lot_age
        better = (g[:, 1] > g[:, 0]) | ((g[:, 1] == g[:, 0]) & (age[:, 1] > age[:, 0]))
        out: np.ndarray = np.where(self.lots[:, 1] & (~self.lots[:, 0] | better), 1, 0)
        return out

    def thief(self) -> np.ndarray:
        """``(B,)``: our higher free thief, else the lower one, else Detective."""
        m = self.mask
        out: np.ndarray = np.where(
            m[:, A.O_THIEF_HIGH], A.O_THIEF_HIGH, np.where(m[:, A.O_THIEF_LOW], A.O_THIEF_LOW, A.O_DETECTIVE)
        )
        return out


def check(value: np.ndarray, lot: np.ndarray) -> np.ndarray:
    out: np.ndarray = A.O_CHECK0 + A.NUM_LOTS * (value - 1) + lot
    return out


def _location(f: BatchFacts, u: np.ndarray, keen: float, idle: np.ndarray | float) -> np.ndarray:
    wanted = (f.gain.max(axis=1) > 0) | ~f.can_exhibit
    go = u[:, 0] < np.where(wanted, keen, idle)
    out: np.ndarray = np.where(f.mask[:, A.AUCTION] & go, A.AUCTION, A.CASTLE)
    return out


def _auction_simple(f: BatchFacts, u: np.ndarray, thief_share: float, eager: bool) -> np.ndarray:
    lot = f.best_lot()
    k = (u[:, 2] * f.values.sum(axis=1)).astype(np.int64)
    value = f.nth_value(k)
    if eager:
        value = np.where(f.gain[f.rows, lot] > 0, f.highest, value)
    steal = ~f.has_check | (f.mask[:, A.O_AUCTION_THIEF] & (u[:, 1] < thief_share))
    out: np.ndarray = np.where(steal, A.O_AUCTION_THIEF, check(value, lot))
    return out


def collector(f: BatchFacts, u: np.ndarray, step: int) -> np.ndarray:
    if step == 0:
        return _location(f, u, 0.85, np.where(f.can_exhibit, 0.0, 0.3))
    if step == 1:
        return _auction_simple(f, u, 0.05, eager=True)
    out: np.ndarray = np.where(f.can_exhibit, A.O_EXHIBIT, np.where(u[:, 1] < 0.7, A.O_DETECTIVE, f.thief()))
    return out


def thief(f: BatchFacts, u: np.ndarray, step: int) -> np.ndarray:
    if step == 0:
        out: np.ndarray = np.where(f.mask[:, A.AUCTION] & (u[:, 0] < 0.25), A.AUCTION, A.CASTLE)
        return out
    if step == 1:
        return _auction_simple(f, u, 0.5, eager=False)
    weights = np.empty((len(f.rows), 3))
    weights[:, 0], weights[:, 1] = 0.75, 0.12
    weights[:, 2] = np.where(f.can_exhibit, 0.13, 0.0)
    pick = sample_index(weights, u[:, 1])
    options = np.stack([f.thief(), np.full_like(f.rows, A.O_DETECTIVE), np.full_like(f.rows, A.O_EXHIBIT)])
    picked: np.ndarray = options[pick, f.rows]
    return picked


def detective(f: BatchFacts, u: np.ndarray, step: int) -> np.ndarray:
    if step == 0:
        useful = (f.gain.max(axis=1) > 0) | ~f.can_exhibit
        go = f.mask[:, A.AUCTION] & useful & (u[:, 0] < 0.5)
        out: np.ndarray = np.where(go, A.AUCTION, A.CASTLE)
        return out
    if step == 1:
        return _auction_simple(f, u, 0.0, eager=False)
    here = f.locations[:, 1:] == 1
    theft = f.rates[:, 1:, 3] / np.maximum(f.rates[:, 1:, 1], 0.05)
    expected = np.where(here, theft, 0.0).max(axis=1)  # theft ≥ 0: 0 when no rival is here
    hunt = np.where(u[:, 1] < 0.85, A.O_DETECTIVE, f.thief())
    show = np.where(u[:, 1] < 0.8, A.O_EXHIBIT, A.O_DETECTIVE)
    chosen: np.ndarray = np.where((expected > 0.25) | ~f.can_exhibit, hunt, show)
    return chosen


# --------------------------------------------------------------------------- the expert
def _rival_roles(f: BatchFacts) -> tuple[np.ndarray, np.ndarray]:
    rates = f.rates[:, 1:]
    castle = rates[:, :, 1:2] + 0.1
    roles = (rates[:, :, 2:5] + 0.1 * PRIOR) / castle
    auction = (rates[:, :, 0] + 0.2) / 1.4
    return auction, roles


def _castle_values(f: BatchFacts, present: np.ndarray, roles: np.ndarray) -> np.ndarray:
    """``(B, 3)`` expected track gain of exhibit, thief, detective (``-inf`` where not legal)."""
    p = present[:, :, None] * roles
    any_thief = 1.0 - np.prod(1.0 - p[:, :, 1], axis=1)
    any_det = 1.0 - np.prod(1.0 - p[:, :, 2], axis=1)
    exhibitors = p[:, :, 0].sum(axis=1)
    big, small = f.reward[:, 0], f.reward[:, 1]
    copies = copies_of(f.n)
    rival_runs = np.rint(f.known[:, 1:] * copies).astype(np.int64)
    rival_best = best_run(rival_runs) + 0.3 * (
        f.hand_size[:, 1:] * float(copies.sum()) - rival_runs.sum(axis=2)
    )
    first = np.prod(1.0 - p[:, :, 0] * (rival_best >= f.best[:, None]), axis=1)
    # The reference mixes Python floats with float32 rewards, which numpy computes in float32.
    f32 = np.float32
    exhibit = (
        first.astype(f32) * big
        + (1.0 - first).astype(f32) * small
        - (2.0 * p[:, :, 1].sum(axis=1)).astype(f32)
    )
    m = f.mask
    values = np.empty((len(f.rows), 3))
    values[:, 0] = np.where(m[:, A.O_EXHIBIT], exhibit, -np.inf)
    values[:, 1] = np.where(
        m[:, A.O_THIEF_LOW] | m[:, A.O_THIEF_HIGH], 0.8 * exhibitors - 2.0 * any_det, -np.inf
    )
    ahead = (f.positions[:, 1:] > f.positions[:, :1]).sum(axis=1)
    values[:, 2] = any_thief * (1 + ahead)
    return values


def expert(f: BatchFacts, u: np.ndarray, step: int) -> np.ndarray:
    auction, roles = _rival_roles(f)
    if step == 2:
        values = _castle_values(f, (f.locations[:, 1:] == 1).astype(np.float64), roles)
        best = values.argmax(axis=1)
        second = np.argsort(-values, axis=1, kind="stable")[:, 1]
        odd = (u[:, 1] >= 0.9) & np.isfinite(values[f.rows, second])  # the odd second-best card
        options = np.stack(
            [np.full_like(f.rows, A.O_EXHIBIT), f.thief(), np.full_like(f.rows, A.O_DETECTIVE)]
        )
        chosen: np.ndarray = options[np.where(odd, second, best), f.rows]
        return chosen
    if step == 1:
        rivals = f.locations[:, 1:] == 0
        top = np.where(rivals, f.checks[:, 1:], -np.inf).max(axis=1)
        top_rival = np.where(rivals.any(axis=1), top, 0.0).astype(np.float64)
        scale = np.where(f.has_check, f.checks[:, 0].astype(np.float64) / np.maximum(f.highest, 1), 0.0)
        amounts = np.arange(1, f.values.shape[1] + 1)
        winning = f.values & (amounts * scale[:, None] > (top_rival + 1e-6)[:, None])
        lot = np.where(f.has_check, f.best_lot(), 0)
        steal = f.mask[:, A.O_AUCTION_THIEF] & (top_rival > 0) & (u[:, 1] < 0.5)
        fallback = np.where(~steal & f.has_check, check(f.lowest, lot), A.O_AUCTION_THIEF)
        bid: np.ndarray = np.where(winning.any(axis=1), check(winning.argmax(axis=1) + 1, lot), fallback)
        return bid
    castle = _castle_values(f, 1.0 - auction, roles).max(axis=1)
    mine = f.checks[:, :1]
    beaten = np.prod(1.0 - auction * (f.checks[:, 1:] > mine), axis=1).astype(np.float64)
    need = np.where(f.can_exhibit, 0.0, 3.0)
    gain = np.maximum(f.gain.max(axis=1), 0).astype(np.float64)
    lot_value = (gain * 1.5 + need + 0.8) * beaten * (mine[:, 0] > 0)
    go = (lot_value > castle) != (u[:, 0] >= 0.92)
    out: np.ndarray = np.where(f.mask[:, A.AUCTION] & go, A.AUCTION, A.CASTLE)
    return out


ORIGINAL_STYLES: dict[str, Callable[[BatchFacts, np.ndarray, int], np.ndarray]] = {
    "collector": collector,
    "thief": thief,
    "detective": detective,
    "expert": expert,
}
"""Each style's original rule by name: ``(facts, (B, 4) uniforms, step) -> (B,)`` actions for rows of
one step (0 location, 1 auction, 2 castle)."""


def decide_original(
    style: str, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray, num_players: int
) -> np.ndarray:
    """``(B,)`` legal actions of ``style`` for original observations of ``num_players`` players
    (length checked by the caller), bool masks and ``(B, 4)`` uniforms."""
    if style not in ORIGINAL_STYLES:
        raise AgentInputError(f"no original-ruleset rule for the style {style!r}")
    if masks.shape[1] <= A.O_CHECK0:
        raise AgentInputError(
            f"{style} needs the original action layout, got masks of width {masks.shape[1]}"
        )
    view = OriginalView(observations, num_players)
    rule = ORIGINAL_STYLES[style]
    step = np.where(view.action_step, np.where(masks[:, A.O_AUCTION_THIEF :].any(axis=1), 1, 2), 0)
    choice = np.empty(len(view), dtype=np.int64)
    for k in range(3):
        idx = np.flatnonzero(step == k)
        if idx.size == len(view):  # the whole batch in one step (always at B = 1): no copies
            choice = rule(BatchFacts(view, masks), draws, k).astype(np.int64)
        elif idx.size:
            choice[idx] = rule(
                BatchFacts(OriginalView(view.obs[idx], num_players), masks[idx]), draws[idx], k
            )
    return ensure_legal(choice, masks)


def original_rule(style: str) -> Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]:
    """``style``'s original rule as an agent's entry in its rules by ruleset
    (``(observations, masks, uniforms, players) -> actions``)."""
    if style not in ORIGINAL_STYLES:
        raise AgentInputError(f"no original-ruleset rule for the style {style!r}")
    return functools.partial(decide_original, style)
