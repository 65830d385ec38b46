"""The scripted zoo: four styles with their strategy in their docstrings (docs/design.md §3).

Every style reads only its own observation (through
:class:`~hoity_env.agents.view.BatchObservationView`), draws every random choice
from its own seeded generator, varies its bids (equal bids void each other under
the unique-bid rule, RULES S-5) and mixes its castle roles (any pure role is
exploitable, RULES.md's last table).  They assume the standard rules' numbers
(``min_exhibition`` 3, thief penalty and detective reward 2), which the
observation does not carry.

Each style is written once, over a batch: :meth:`ScriptedAgent.decide` splits the
rows by step (location, bid, castle role) and hands each group to the style's
vectorized rule; the one-game ``act`` is the same code at ``B = 1``.  A decision
uses four uniforms per row (:class:`Draws`): a coin, a weighted pick, and two for
a normal bid jitter.  The expert lives in :mod:`hoity_env.agents.bots.expert`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

import numpy as np

from hoity_env.agents.base import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF, SeededAgent
from hoity_env.agents.batch import Bids, ensure_legal, normal_from_uniforms, sample_index
from hoity_env.agents.bots.features import best_run, lot_gain, near_run, series_counts
from hoity_env.agents.bots.styles_kernels import decide_numba
from hoity_env.agents.bots.styles_original import decide_original
from hoity_env.agents.view import AgentInputError, BatchObservationView, ruleset_of

__all__ = [
    "CollectorAgent",
    "DetectiveAgent",
    "Draws",
    "ScriptedAgent",
    "ThiefAgent",
    "best_run",
    "lot_gain",
    "near_run",
    "series_counts",
]

_THIEF_ROLES = np.asarray([THIEF, DETECTIVE, EXHIBIT])
_THIEF_WEIGHTS = np.asarray([[0.75, 0.12, 0.13], [0.75, 0.12, 0.0]])
"""The thief's role options and their weights, with and without an exhibition to show."""


class Draws:
    """Named columns of a ``(B, 4)`` block of uniforms: what one decision of a row may use."""

    __slots__ = ("u",)

    def __init__(self, u: np.ndarray) -> None:
        self.u = u

    @property
    def chance(self) -> np.ndarray:
        """For a coin: ``chance < p`` happens with probability ``p``."""
        return self.u[:, 0]

    @property
    def pick(self) -> np.ndarray:
        """For a weighted pick (:func:`~hoity_env.agents.batch.sample_index`)."""
        return self.u[:, 1]

    @property
    def normal(self) -> np.ndarray:
        """A standard normal (bid jitter), from the last two columns."""
        return normal_from_uniforms(self.u[:, 2], self.u[:, 3])


class ScriptedAgent(SeededAgent):
    """Common plumbing: split a batch by step and dispatch to the style's three rules."""

    name = "scripted"
    DRAWS = 4

    original_style: ClassVar[str] = ""
    """The style's rule under the original ruleset
    (:data:`hoity_env.agents.bots.original_rows.ORIGINAL_STYLES`)."""
    KERNEL: ClassVar[str] = ""
    """The compiled twin of this class's standard rules
    (:data:`hoity_env.agents.bots.styles_kernels.KERNELS`); read only from the class that sets it,
    so a subclass that changes a rule never inherits a twin."""

    def decide(self, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """Decode the observations, then choose a location, a bid or a role for each row.

        Original-ruleset observations (told apart by their length) go to the style's
        original rule (:mod:`hoity_env.agents.bots.styles_original`).
        """
        if ruleset_of(observations) == "original":
            return decide_original(self.original_style or self.name, observations, masks, draws)
        view = BatchObservationView(observations)
        if masks.shape[1] <= BID0:
            raise AgentInputError(
                f"{self.name} needs the standard action layout, got masks of width {masks.shape[1]}"
            )
        twin = type(self).__dict__.get("KERNEL", "")
        if twin and self.accelerator == "numba":
            return decide_numba(twin, view.n, observations, masks, draws)
        # 0 location step, 1 bid, 2 castle role
        step = view.action_step * (2 - masks[:, BID0:].any(axis=1))
        rules = (self._locations, self._bids, self._roles)
        if not len(view):
            return np.empty(0, dtype=np.int64)
        first = int(step[0])
        if (step == first).all():  # the whole batch in one step (always at B = 1): no copies
            return ensure_legal(rules[first](view, masks, Draws(draws)), masks)
        choice = np.empty(len(view), dtype=np.int64)
        for k, rule in enumerate(rules):
            idx = np.flatnonzero(step == k)
            if idx.size:
                choice[idx] = rule(view.take(idx), masks[idx], Draws(draws[idx]))
        return ensure_legal(choice, masks)

    def _locations(self, view: BatchObservationView, masks: np.ndarray, d: Draws) -> np.ndarray:
        return self.location(view, masks[:, AUCTION], d)

    def _bids(self, view: BatchObservationView, masks: np.ndarray, d: Draws) -> np.ndarray:
        return BID0 + self.bid(view, Bids(masks[:, BID0:]), d)

    def _roles(self, view: BatchObservationView, masks: np.ndarray, d: Draws) -> np.ndarray:
        return self.role(view, masks[:, EXHIBIT], d)

    # --- the three decisions a style makes, each over a batch of rows in that step ----------
    @abstractmethod
    def location(self, view: BatchObservationView, auction_open: np.ndarray, d: Draws) -> np.ndarray:
        """``(B,)`` AUCTION or CASTLE; ``auction_open`` says where AUCTION is legal."""

    @abstractmethod
    def bid(self, view: BatchObservationView, bids: Bids, d: Draws) -> np.ndarray:
        """``(B,)`` bid amounts (``BID0`` is added by the caller)."""

    @abstractmethod
    def role(self, view: BatchObservationView, can_exhibit: np.ndarray, d: Draws) -> np.ndarray:
        """``(B,)`` EXHIBIT, THIEF or DETECTIVE; ``can_exhibit`` says where EXHIBIT is legal."""


def may_bid(view: BatchObservationView, auction_open: np.ndarray) -> np.ndarray:
    """Rows where the Auction House is open and we have money to bid."""
    out: np.ndarray = auction_open & (view.money[:, 0] > 0)
    return out


class CollectorAgent(ScriptedAgent):
    """``collector``: buys what extends its run, exhibits when it can.

    Goes to the Auction House when the lot grows its best exhibition or touches
    its series (or while it has no exhibition), bidding more for a bigger gain;
    otherwise it visits the Castle and exhibits, or, without an exhibition, plays
    mostly detective with the odd theft.
    """

    name = "collector"
    original_style = "collector"
    KERNEL = "collector"

    def location(self, view: BatchObservationView, auction_open: np.ndarray, d: Draws) -> np.ndarray:
        counts = series_counts(view)
        wanted = (lot_gain(view, counts) > 0) | near_run(counts, view.lot_series)
        can = view.can_exhibit
        keen = np.where(d.chance < 0.85, AUCTION, CASTLE)
        idle = np.where(can | ~auction_open, CASTLE, np.where(d.chance < 0.3, AUCTION, CASTLE))
        out: np.ndarray = np.where(may_bid(view, auction_open) & (wanted | ~can), keen, idle)
        return out

    def bid(self, view: BatchObservationView, bids: Bids, d: Draws) -> np.ndarray:
        gain = lot_gain(view, series_counts(view))
        money = bids.top
        return bids.jittered(money * (0.15 + 0.1 * gain), 2.0 + 0.05 * money, d.normal)

    def role(self, view: BatchObservationView, can_exhibit: np.ndarray, d: Draws) -> np.ndarray:
        out: np.ndarray = np.where(can_exhibit, EXHIBIT, np.where(d.chance < 0.7, DETECTIVE, THIEF))
        return out


class ThiefAgent(ScriptedAgent):
    """``thief``: an aggressive thief.

    Mostly visits the Castle and steals (three times in four), sometimes plays
    detective to punish other thieves and exhibits only now and then; it bids
    small, random amounts when it does go to the auction.
    """

    name = "thief"
    original_style = "thief"
    KERNEL = "thief"

    def location(self, view: BatchObservationView, auction_open: np.ndarray, d: Draws) -> np.ndarray:
        out: np.ndarray = np.where(may_bid(view, auction_open) & (d.chance < 0.25), AUCTION, CASTLE)
        return out

    def bid(self, view: BatchObservationView, bids: Bids, d: Draws) -> np.ndarray:
        return bids.jittered(bids.top * 0.12, 2.0, d.normal)

    def role(self, view: BatchObservationView, can_exhibit: np.ndarray, d: Draws) -> np.ndarray:
        weights = np.where(can_exhibit[:, None], _THIEF_WEIGHTS[0], _THIEF_WEIGHTS[1])
        out: np.ndarray = _THIEF_ROLES[sample_index(weights, d.pick)]
        return out


class DetectiveAgent(ScriptedAgent):
    """``detective``: hunts the thieves it expects.

    Reads every rival's past share of thefts; when the rivals at the Castle with
    it are likely to steal, it plays detective, otherwise it exhibits when it can.
    It buys lots that help its run with moderate bids.
    """

    name = "detective"
    original_style = "detective"
    KERNEL = "detective"

    def location(self, view: BatchObservationView, auction_open: np.ndarray, d: Draws) -> np.ndarray:
        useful = (lot_gain(view, series_counts(view)) > 0) | ~view.can_exhibit
        go = may_bid(view, auction_open) & useful & (d.chance < 0.5)
        out: np.ndarray = np.where(go, AUCTION, CASTLE)
        return out

    def bid(self, view: BatchObservationView, bids: Bids, d: Draws) -> np.ndarray:
        return bids.jittered(bids.top * 0.2, 3.0, d.normal)

    def role(self, view: BatchObservationView, can_exhibit: np.ndarray, d: Draws) -> np.ndarray:
        rates = view.rates()[:, 1:]
        here = view.locations[:, 1:] == 1
        theft = rates[:, :, 3] / np.maximum(rates[:, :, 1], 0.05)
        expected = np.where(here, theft, 0.0).max(axis=1)  # theft ≥ 0: 0 when no rival is here
        hunt = np.where(d.chance < 0.85, DETECTIVE, THIEF)
        show = np.where(d.chance < 0.8, EXHIBIT, DETECTIVE)
        out: np.ndarray = np.where((expected > 0.25) | ~can_exhibit, hunt, show)
        return out
