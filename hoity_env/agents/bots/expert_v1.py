"""``expert-v1``: the first expert, which models its rivals and plays a best response (docs/design.md §3).

Kept beside the stronger :mod:`hoity_env.agents.bots.expert` as a fixed yardstick: the
zoo baseline and the reference agent were measured against it.

Written over a batch like the other styles (:class:`~hoity_env.agents.bots.styles.ScriptedAgent`);
an option that a row does not have carries the value ``-inf``, so the argmax,
the softmax and the castle's best value all skip it without per-row branches.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from hoity_env.agents.base import AUCTION, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.agents.batch import Bids, sample_index
from hoity_env.agents.bots.features import best_run, copies_of, lot_gain, near_run, series_counts
from hoity_env.agents.bots.styles import Draws, ScriptedAgent, may_bid
from hoity_env.agents.view import BatchObservationView
from hoity_env.engine.config import STANDARD

__all__ = ["ExpertV1Agent"]

THIEF_PENALTY = STANDARD.thief_penalty
DETECTIVE_REWARD = STANDARD.detective_reward
ROLES = (EXHIBIT, THIEF, DETECTIVE)
"""Castle roles in the order of the observation's rates (after auction and castle)."""
ROLE_COLUMNS = np.asarray([DETECTIVE, THIEF, EXHIBIT])
"""The action of each column of :meth:`ExpertV1Agent.role_values` (ties go to the first)."""
LOCATION_COLUMNS = np.asarray([CASTLE, AUCTION])
"""The action of each column of the location values (ties go to the castle)."""


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
    original_style = "expert"
    KERNEL = "expert-v1"
    """Under the original rules it plays the one original expert rule."""
    PRIOR: ClassVar[dict[int, float]] = {EXHIBIT: 0.3, THIEF: 0.3, DETECTIVE: 0.4}
    PRIOR_WEIGHT = 2.0
    MAX_ROUNDS = STANDARD.max_rounds

    # --- the rival model --------------------------------------------------------------
    def rival_model(self, view: BatchObservationView) -> tuple[np.ndarray, np.ndarray]:
        """``(B, n-1)`` chance each rival goes to auction, and ``(B, n-1, 3)`` the chance of each
        castle role (in :data:`ROLES` order: exhibit, thief, detective) given the castle."""
        rounds = view.round_fraction.astype(np.float64) * self.MAX_ROUNDS
        # counts: auction, castle, exhibit, thief, detective
        rates = view.rates()[:, 1:] * rounds[:, None, None]
        auction = (rates[:, :, 0] + 1.0) / (rounds[:, None] + 2.0)
        castle = rates[:, :, 1:2] + self.PRIOR_WEIGHT
        prior = self.PRIOR_WEIGHT * np.asarray([self.PRIOR[role] for role in ROLES])
        roles: np.ndarray = (rates[:, :, 2:5] + prior) / castle
        return auction, roles

    def role_values(
        self,
        view: BatchObservationView,
        present: np.ndarray,
        roles: np.ndarray,
        can_exhibit: np.ndarray,
    ) -> np.ndarray:
        """``(B, 3)`` expected track gain of detective, thief, exhibit (``-inf`` where it cannot
        exhibit); ``present`` = chance each rival is at the Castle."""
        p = present[:, :, None] * roles  # (B, n-1, 3): exhibit, thief, detective
        any_exh, any_thief, any_det = (1.0 - (1.0 - p).prod(axis=1)).T
        robbed = any_thief * (1.0 - any_det)
        size = view.best_size.astype(np.float64) * float(copies_of(view.n).sum())
        best = (1.0 - p[:, :, 0] * self.rival_exhibition_odds(view, size)).prod(axis=1)
        values = np.empty((len(view), 3))
        values[:, 0] = any_thief * DETECTIVE_REWARD
        values[:, 1] = (1.0 - any_det) * any_exh * 1.5 - any_det * THIEF_PENALTY
        values[:, 2] = np.where(can_exhibit, (1.0 - robbed) * best * size - robbed * 0.7, -np.inf)
        return values

    def rival_exhibition_odds(self, view: BatchObservationView, size: np.ndarray) -> np.ndarray:
        """``(B, n-1)`` chance each rival's best exhibition beats one of ``size`` cards.

        Publicly known cards (bought, stolen, exhibited) give a floor on a rival's
        best run; its hidden cards might extend it by about half a card each.
        """
        copies = copies_of(view.n)
        deck = float(copies.sum())
        known = np.rint(view.players("known")[:, 1:] * copies).astype(np.int64)
        hidden = view.players("hand_size")[:, 1:, 0] * deck - known.sum(axis=2)
        estimate = np.maximum(best_run(known), 0).astype(np.float64) + 0.5 * hidden
        odds: np.ndarray = np.minimum(np.maximum((estimate - size[:, None] + 1.0) / 4.0, 0.0), 1.0)
        return odds

    @staticmethod
    def choose(values: np.ndarray, d: Draws, greedy: float = 0.8, temperature: float = 0.6) -> np.ndarray:
        """Per row, the column of the best option with probability ``greedy``, else a softmax draw."""
        best: np.ndarray = values.argmax(axis=1)
        greedy_rows = d.chance < greedy
        if greedy_rows.all():  # no row draws from the softmax (most single decisions)
            return best
        top = values.max(axis=1)
        soft = sample_index(np.exp((values - top[:, None]) / temperature), d.pick)
        out: np.ndarray = np.where(greedy_rows, best, soft)
        return out

    # --- decisions ------------------------------------------------------------------------
    def location(self, view: BatchObservationView, auction_open: np.ndarray, d: Draws) -> np.ndarray:
        auction, roles = self.rival_model(view)
        castle = self.role_values(view, 1.0 - auction, roles, view.can_exhibit).max(axis=1)
        counts = series_counts(view)
        worth = 2.0 * lot_gain(view, counts) + 1.0 * near_run(counts, view.lot_series)
        worth = worth + np.where(view.can_exhibit, 0.0, 2.0)
        win = 1.0 / (1.0 + 0.5 * auction.sum(axis=1))
        lot = np.where(may_bid(view, auction_open), worth * win + 0.5 * view.lot_age, -np.inf)
        values = np.empty((len(view), 2))
        values[:, 0], values[:, 1] = castle, lot
        out: np.ndarray = LOCATION_COLUMNS[self.choose(values, d, greedy=0.85)]
        return out

    def bid(self, view: BatchObservationView, bids: Bids, d: Draws) -> np.ndarray:
        money = bids.top
        gain = lot_gain(view, series_counts(view))
        share = 0.12 + 0.12 * gain + np.where(view.can_exhibit, 0.0, 0.1)
        amount = bids.jittered(money * share, 1.5 + 0.05 * money, d.normal)
        habits = np.rint(view.players("mean_bid")[:, 1:, 0].astype(np.float64) * STANDARD.starting_money)
        at_auction = view.locations[:, 1:] == 0
        for _ in range(view.n - 1):  # each step lands on another rival's amount: at most n-1 steps
            clash = ((habits == amount[:, None]) & at_auction).any(axis=1) & (amount < money)
            if not clash.any():
                break
            amount = amount + clash  # step off a rival's habitual amount
        return amount

    def role(self, view: BatchObservationView, can_exhibit: np.ndarray, d: Draws) -> np.ndarray:
        _, roles = self.rival_model(view)
        present = (view.locations[:, 1:] == 1).astype(np.float64)
        out: np.ndarray = ROLE_COLUMNS[self.choose(self.role_values(view, present, roles, can_exhibit), d)]
        return out
