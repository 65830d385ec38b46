"""The scripted zoo: four styles with their strategy in their docstrings (docs/design.md §3).

Every style reads only its own observation (through :class:`ObservationView`),
draws every random choice from its own seeded generator, varies its bids (equal
bids void each other under the unique-bid rule, RULES S-5) and mixes its castle
roles (any pure role is exploitable, RULES.md's last table).  They assume the
standard rules' numbers (``min_exhibition`` 3, thief penalty and detective
reward 2), which the observation does not carry.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from hoity_env.agents.base import (
    AUCTION,
    BID0,
    CASTLE,
    DETECTIVE,
    EXHIBIT,
    THIEF,
    ObservationView,
    SeededAgent,
    legal_actions,
)
from hoity_env.engine.config import STANDARD

MIN_EXHIBITION = STANDARD.min_exhibition
THIEF_PENALTY = STANDARD.thief_penalty
DETECTIVE_REWARD = STANDARD.detective_reward
ROLES = (EXHIBIT, THIEF, DETECTIVE)


def series_counts(view: ObservationView) -> np.ndarray:
    """Own cards per series (integers), from the normalized observation."""
    copies = STANDARD.series_copies_six if view.n >= 6 else STANDARD.series_copies
    counts: np.ndarray = np.rint(view.hand * np.asarray(copies)).astype(int)
    return counts


def best_run(counts: np.ndarray) -> int:
    """Cards in the largest run of consecutive series (0 if below ``min_exhibition``, C-3)."""
    best = run = 0
    for c in [*counts.tolist(), 0]:
        if c:
            run += c
            continue
        if run >= MIN_EXHIBITION:
            best = max(best, run)
        run = 0
    return best


def lot_gain(view: ObservationView, counts: np.ndarray) -> int:
    """How much the lot on display would grow our best exhibition (0 without a lot)."""
    s = view.lot_series
    if s < 0:
        return 0
    more = counts.copy()
    more[s] += 1
    return best_run(more) - best_run(counts)


def near_run(counts: np.ndarray, series: int) -> bool:
    """Whether a card of ``series`` would touch our largest group of consecutive series."""
    if series < 0:
        return False
    lo, hi = max(series - 1, 0), min(series + 2, len(counts))
    return bool(counts[lo:hi].sum() > 0)


class ScriptedAgent(SeededAgent):
    """Common plumbing: dispatch on the step, bid helpers (the generator comes from ``SeededAgent``)."""

    name = "scripted"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Decode the observation, then choose a location, a bid or a role."""
        view = ObservationView(observation)
        mask = np.asarray(action_mask)
        if not view.action_step:
            choice = self.location(view, bool(mask[AUCTION]))
        elif mask[BID0:].any():
            bids = np.flatnonzero(mask[BID0:])
            choice = BID0 + self.bid(view, bids)
        else:
            choice = self.role(view, bool(mask[EXHIBIT]))
        if not mask[choice]:  # a style bug must never become an illegal move
            choice = int(legal_actions(mask)[0])
        return int(choice)

    # --- the three decisions a style makes ------------------------------------------------
    def location(self, view: ObservationView, auction_open: bool) -> int:
        raise NotImplementedError

    def bid(self, view: ObservationView, bids: np.ndarray) -> int:
        raise NotImplementedError

    def role(self, view: ObservationView, can_exhibit: bool) -> int:
        raise NotImplementedError

    # --- helpers -------------------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def jittered_bid(self, bids: np.ndarray, target: float, spread: float) -> int:
        """A legal amount near ``target`` with random spread (never a fixed bid, S-5)."""
        if bids.size == 1:
            return int(bids[0])  # a lone bidder's only bid
        amount = round(float(target) + float(self.rng.normal(0.0, spread)))
        amount = min(max(amount, 1), int(bids[-1]))
        return amount if amount in bids else int(bids[-1])

    def pick(self, weights: dict[int, float]) -> int:
        """Sample a key with probability proportional to its (non-negative) weight."""
        keys = list(weights)
        w = np.asarray([max(weights[k], 0.0) for k in keys], dtype=float)
        if w.sum() <= 0:
            return keys[0]
        return int(keys[int(self.rng.choice(len(keys), p=w / w.sum()))])


class CollectorAgent(ScriptedAgent):
    """``collector``: buys what extends its run, exhibits when it can.

    Goes to the Auction House when the lot grows its best exhibition or touches
    its series (or while it has no exhibition), bidding more for a bigger gain;
    otherwise it visits the Castle and exhibits, or, without an exhibition, plays
    mostly detective with the odd theft.
    """

    name = "collector"

    def location(self, view: ObservationView, auction_open: bool) -> int:
        counts = series_counts(view)
        wanted = lot_gain(view, counts) > 0 or near_run(counts, view.lot_series)
        if auction_open and view.money[0] > 0 and (wanted or not view.can_exhibit):
            return AUCTION if self.chance(0.85) else CASTLE
        return CASTLE if view.can_exhibit or not auction_open else (AUCTION if self.chance(0.3) else CASTLE)

    def bid(self, view: ObservationView, bids: np.ndarray) -> int:
        gain = lot_gain(view, series_counts(view))
        money = int(bids[-1])
        return self.jittered_bid(bids, money * (0.15 + 0.1 * gain), spread=2.0 + 0.05 * money)

    def role(self, view: ObservationView, can_exhibit: bool) -> int:
        if can_exhibit:
            return EXHIBIT
        return DETECTIVE if self.chance(0.7) else THIEF


class ThiefAgent(ScriptedAgent):
    """``thief``: an aggressive thief.

    Mostly visits the Castle and steals (three times in four), sometimes plays
    detective to punish other thieves and exhibits only now and then; it bids
    small, random amounts when it does go to the auction.
    """

    name = "thief"

    def location(self, view: ObservationView, auction_open: bool) -> int:
        return AUCTION if auction_open and view.money[0] > 0 and self.chance(0.25) else CASTLE

    def bid(self, view: ObservationView, bids: np.ndarray) -> int:
        return self.jittered_bid(bids, bids[-1] * 0.12, spread=2.0)

    def role(self, view: ObservationView, can_exhibit: bool) -> int:
        weights = {THIEF: 0.75, DETECTIVE: 0.12, EXHIBIT: 0.13 if can_exhibit else 0.0}
        return self.pick(weights)


class DetectiveAgent(ScriptedAgent):
    """``detective``: hunts the thieves it expects.

    Reads every rival's past share of thefts; when the rivals at the Castle with
    it are likely to steal, it plays detective, otherwise it exhibits when it can.
    It buys lots that help its run with moderate bids.
    """

    name = "detective"

    def location(self, view: ObservationView, auction_open: bool) -> int:
        counts = series_counts(view)
        if auction_open and view.money[0] > 0 and (lot_gain(view, counts) > 0 or not view.can_exhibit):
            return AUCTION if self.chance(0.5) else CASTLE
        return CASTLE

    def bid(self, view: ObservationView, bids: np.ndarray) -> int:
        return self.jittered_bid(bids, bids[-1] * 0.2, spread=3.0)

    def role(self, view: ObservationView, can_exhibit: bool) -> int:
        rates = view.rates()
        here = view.locations[1:] == 1
        theft = rates[1:, 3] / np.maximum(rates[1:, 1], 0.05)
        expected = float(theft[here].max()) if here.any() else 0.0
        if expected > 0.25 or not can_exhibit:
            return DETECTIVE if self.chance(0.85) else THIEF
        return EXHIBIT if self.chance(0.8) else DETECTIVE


class ExpertAgent(ScriptedAgent):
    """``expert``: models the rivals' revealed tendencies and plays a best response.

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

    name = "expert"
    PRIOR: ClassVar[dict[int, float]] = {EXHIBIT: 0.3, THIEF: 0.3, DETECTIVE: 0.4}
    PRIOR_WEIGHT = 2.0
    MAX_ROUNDS = STANDARD.max_rounds

    # --- the rival model --------------------------------------------------------------
    def rival_model(self, view: ObservationView) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """(chance each rival goes to auction, chance of each castle role given the castle)."""
        rounds = view.round_fraction * self.MAX_ROUNDS
        rates = view.rates()[1:] * rounds  # counts: auction, castle, exhibit, thief, detective
        auction = (rates[:, 0] + 1.0) / (rounds + 2.0)
        castle = rates[:, 1] + self.PRIOR_WEIGHT
        roles = {
            role: (rates[:, 2 + i] + self.PRIOR_WEIGHT * self.PRIOR[role]) / castle
            for i, role in enumerate(ROLES)
        }
        return auction, roles

    def role_values(
        self, view: ObservationView, present: np.ndarray, roles: dict[int, np.ndarray], can_exhibit: bool
    ) -> dict[int, float]:
        """Expected track gain of each legal role; ``present`` = chance each rival is at the Castle."""
        p_thief = present * roles[THIEF]
        p_det = present * roles[DETECTIVE]
        p_exh = present * roles[EXHIBIT]
        any_thief = 1.0 - float(np.prod(1.0 - p_thief))
        any_det = 1.0 - float(np.prod(1.0 - p_det))
        any_exh = 1.0 - float(np.prod(1.0 - p_exh))
        robbed = any_thief * (1.0 - any_det)
        values = {
            DETECTIVE: any_thief * DETECTIVE_REWARD,
            THIEF: (1.0 - any_det) * any_exh * 1.5 - any_det * THIEF_PENALTY,
        }
        if can_exhibit:
            deck = sum(STANDARD.series_copies_six if view.n >= 6 else STANDARD.series_copies)
            size = view.best_size * deck
            beats_me = self.rival_exhibition_odds(view, size)
            best = float(np.prod(1.0 - p_exh * beats_me))
            values[EXHIBIT] = (1.0 - robbed) * best * size - robbed * 0.7
        return values

    def rival_exhibition_odds(self, view: ObservationView, size: float) -> np.ndarray:
        """Chance each rival's best exhibition beats one of ``size`` cards.

        Publicly known cards (bought, stolen, exhibited) give a floor on a rival's
        best run; its hidden cards might extend it by about half a card each.
        """
        copies = np.asarray(STANDARD.series_copies_six if view.n >= 6 else STANDARD.series_copies)
        deck = float(copies.sum())
        known = np.rint(view.players("known")[1:] * copies).astype(int)
        hidden = view.players("hand_size")[1:, 0] * deck - known.sum(axis=1)
        floor = np.asarray([best_run(k) for k in known], dtype=float)
        estimate = np.maximum(floor, 0.0) + 0.5 * hidden
        odds: np.ndarray = np.clip((estimate - size + 1.0) / 4.0, 0.0, 1.0)
        return odds

    def choose(self, values: dict[int, float], greedy: float = 0.8, temperature: float = 0.6) -> int:
        """The best option with probability ``greedy``, else a softmax draw."""
        if self.chance(greedy):
            return max(values, key=lambda k: values[k])
        top = max(values.values())
        return self.pick({k: float(np.exp((v - top) / temperature)) for k, v in values.items()})

    # --- decisions ------------------------------------------------------------------------
    def location(self, view: ObservationView, auction_open: bool) -> int:
        auction, roles = self.rival_model(view)
        castle = self.role_values(view, 1.0 - auction, roles, view.can_exhibit)
        values = {CASTLE: max(castle.values())}
        if auction_open and view.money[0] > 0:
            counts = series_counts(view)
            worth = 2.0 * lot_gain(view, counts) + 1.0 * near_run(counts, view.lot_series)
            worth += 2.0 if not view.can_exhibit else 0.0
            win = 1.0 / (1.0 + 0.5 * float(auction.sum()))
            values[AUCTION] = worth * win + 0.5 * view.lot_age
        return self.choose(values, greedy=0.85)

    def bid(self, view: ObservationView, bids: np.ndarray) -> int:
        if bids.size == 1:
            return int(bids[0])
        money = int(bids[-1])
        gain = lot_gain(view, series_counts(view))
        share = 0.12 + 0.12 * gain + (0.1 if not view.can_exhibit else 0.0)
        amount = self.jittered_bid(bids, money * share, spread=1.5 + 0.05 * money)
        rival_bids = {
            round(float(b) * STANDARD.starting_money)
            for k, b in enumerate(view.players("mean_bid")[1:, 0], start=1)
            if view.locations[k] == 0
        }
        while amount in rival_bids and amount < money:
            amount += 1  # step off a rival's habitual amount
        return amount

    def role(self, view: ObservationView, can_exhibit: bool) -> int:
        _, roles = self.rival_model(view)
        present = (view.locations[1:] == 1).astype(float)
        return self.choose(self.role_values(view, present, roles, can_exhibit))
