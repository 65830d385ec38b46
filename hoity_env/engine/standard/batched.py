"""The batched engine: B games of the ``standard`` ruleset stepped by one call.

:class:`BatchedGame` is the fast twin of :class:`~hoity_env.engine.game.Game`.
It reuses the one-game engine's configuration, action layout, deck and mask
table, and plays exactly the same rules; a differential test
(``tests/engine/test_batched_engine.py``) steps both side by side on the same deals and
actions and compares every game's state at every step.

* **Deals.** Game ``k`` dealt from game seed ``s`` is the deal of
  ``Game.new_state(s)``: the same ``PCG64`` permutation, handed out the same way
  (RULES S-1).  Shuffling is the only Python work per game, and it happens only
  when a game starts (``deal``/``reset_games``); the step path has no loop over
  games, only over seats, series and thieves.
* **Steps.** :meth:`BatchedGame.step` applies one simultaneous step (C-4) to
  every game that is not over: a location step or an action step, per game, as
  each game's phase says (games of one batch may be in different phases).
  Actions must be legal (:meth:`legal_masks`); ``validate=True`` checks that and
  raises :class:`IllegalActionError` before anything changes.
* **No events.** The batched engine records outcomes in the state only; the
  one-game engine is the one to use for event logs, replays and text.

``BatchedGame(rules="original")`` builds the original ruleset's twin,
:class:`~hoity_env.engine.original.batched.OriginalBatchedGame` (same interface);
a ruleset without a batched engine raises :class:`ConfigError`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF, ActionLayout, Phase
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.shared_steps import deal_hands, next_rounds
from hoity_env.engine.batched.state import BatchState, refresh_best_of, refresh_derived
from hoity_env.engine.config import RulesConfig, resolve_rules
from hoity_env.engine.errors import ConfigError, IllegalActionError
from hoity_env.engine.game import Game
from hoity_env.engine.inputs import check_action_array, check_seeds, check_slots
from hoity_env.engine.jit import resolve_accelerator
from hoity_env.engine.standard import kernels as numba_kernels
from hoity_env.engine.standard.batched_castle import resolve_castles
from hoity_env.engine.standard.rules import StandardRuleset
from hoity_env.engine.state import GameState

BATCHED_RULESETS = ("standard", "original")

# Ruleset name -> the subclass that batches it, for ``BatchedGame(rules=...)`` to build.  The
# original ruleset's ``OriginalBatchedGame`` registers itself when its module is imported (the
# package's ``__init__`` does): a registry, not an import, so that the base class does not depend
# on the subclass built on it.
BATCHED_GAMES: dict[str, type[BatchedGame]] = {}
_LOCATION, _ACTION = int(Phase.LOCATION), int(Phase.ACTION)
"""Phases as plain ints: comparing arrays with an enum member costs an attribute lookup each time."""


class BatchedGame:
    """Rules and player count of a batch of games; deals them and steps them all at once."""

    def __new__(
        cls, rules: str | RulesConfig = "standard", num_players: int = 4, *, accelerator: str = "auto"
    ) -> BatchedGame:
        """``BatchedGame(rules="original")`` is an :class:`~hoity_env.engine.original.batched.
        OriginalBatchedGame` (the same interface, the original rules' arrays)."""
        if cls is BatchedGame:
            cls = BATCHED_GAMES.get(resolve_rules(rules).ruleset, BatchedGame)
        return super().__new__(cls)

    def __init__(
        self, rules: str | RulesConfig = "standard", num_players: int = 4, *, accelerator: str = "auto"
    ) -> None:
        self.accelerator = resolve_accelerator(accelerator)
        """``"numpy"`` or ``"numba"``: which implementation steps the rounds (see :mod:`numba_kernels`)."""
        self.game = Game(rules, num_players)
        self.rules: RulesConfig = self.game.rules
        if self.rules.ruleset not in BATCHED_RULESETS:
            raise ConfigError(
                f"the batched engine plays the rulesets {BATCHED_RULESETS}, not {self.rules.ruleset!r}; "
                "use the one-game engine (hoity_env.engine.Game) for it"
            )
        self.num_players = self.game.num_players
        self.layout: ActionLayout = self.game.layout
        self.table = CardTable(self.rules, self.num_players)
        self._seats = np.arange(self.num_players)
        self._init_ruleset()

    def _init_ruleset(self) -> None:
        """The standard ruleset's mask table and row numbers (the original ruleset has none)."""
        ruleset = self.game.ruleset
        assert isinstance(ruleset, StandardRuleset)
        self.mask_table: np.ndarray = ruleset.mask_table(self.rules)
        self._row_open = ruleset._ROW_OPEN
        self._row_closed = ruleset._ROW_CLOSED
        self._row_castle = ruleset._ROW_CASTLE
        self._row_single = ruleset._ROW_SINGLE_BID
        self._row_bids = ruleset._ROW_SINGLE_BID + self.rules.starting_money + 1
        # Per mask row: how many actions are legal and which (padded), for uniform sampling.
        self._legal_count = self.mask_table.sum(axis=1).astype(np.int64)
        self._legal_list = np.argsort(-self.mask_table, axis=1, kind="stable")  # column 0: lowest legal

    _state_class: type[BatchState] = BatchState
    """The struct of arrays this ruleset's batches are."""

    @property
    def num_actions(self) -> int:
        """Size of the flat action space (the one-game engine's)."""
        return self.layout.size

    # ------------------------------------------------------------------ deals
    def deal(self, seeds: Sequence[int] | np.ndarray) -> BatchState:
        """A batch of fresh games, game ``k`` dealt as ``Game.new_state(seeds[k])`` (S-1)."""
        seeds = check_seeds(seeds)
        state = self._state_class.empty(len(seeds), self.num_players, self.table)
        self._deal_into(state, np.arange(len(seeds)), seeds)
        return state

    def reset_games(self, state: BatchState, games: np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal new games into the slots ``games`` (one seed each), in place.

        Slots and seeds are checked first (:mod:`hoity_env.engine.inputs`): a bad list raises
        :class:`ConfigError` and changes no game.
        """
        games, seeds = _checked_resets(state, games, seeds)
        if len(games):
            self._deal_into(state, games, seeds)

    def _deal_into(self, state: BatchState, games: np.ndarray, seeds: list[int]) -> None:
        rest = deal_hands(state, self.table, games, seeds)
        self._lay_out(state, games, rest)
        if self.accelerator == "numba":
            numba_kernels.refresh_derived(state, self.table, games)
        else:
            refresh_derived(state, self.table, games)

    def _lay_out(self, state: BatchState, games: np.ndarray, rest: np.ndarray) -> None:
        """S-1 after the deal: the top card of the rest is the lot, the others the draw pile."""
        size, left = self.table.deck.size, rest.shape[1] - 1
        pile = np.full((len(games), size), -1, dtype=np.int16)
        pile[:, :left] = rest[:, :left]
        state.pile[games] = pile
        state.pile_len[games] = left
        state.lot[games] = rest[:, left]
        state.money[games] = self.rules.starting_money

    # ------------------------------------------------------------ conversions
    def from_states(self, states: Sequence[GameState]) -> BatchState:
        """A batch holding copies of one-game states (hand-made positions, restored games)."""
        return self._state_class.from_states(states, self.table)

    def to_states(self, state: BatchState, index: Sequence[int] | None = None) -> list[GameState]:
        """One-game states of the batch's games (all, or those in ``index``)."""
        return state.to_states(self.rules, index)

    # ------------------------------------------------------------ legal moves
    def mask_rows(self, state: BatchState, *, location: np.ndarray | None = None) -> np.ndarray:
        """``[B, n]`` row of :attr:`mask_table` holding each player's legal actions now.

        Finished games get location-step rows (as the one-game env's final masks);
        ``location`` (``[B]`` bool) forces location-step rows for more games.
        """
        if self.accelerator == "numba":
            return numba_kernels.mask_rows(self, state, location)
        open_row = np.where(state.lot >= 0, self._row_open, self._row_closed)[:, None]
        rows = np.broadcast_to(open_row, state.money.shape)
        as_location = (state.phase == _LOCATION) | state.done
        if location is not None:
            as_location = as_location | location
        if as_location.all():
            return np.array(rows)
        locs = state.locations
        at_castle = locs == CASTLE
        castle_rows = self._row_castle + (state.best_count > 0)  # +1: the row with Exhibit
        at_auction = locs == AUCTION
        lone = (at_auction.sum(axis=1) == 1)[:, None]
        min_price = self.rules.min_price
        lone_rows = self._row_single + np.where(state.money >= min_price, min_price, 0)
        bid_rows = self._row_bids + state.money
        action_rows = np.where(at_castle, castle_rows, np.where(lone, lone_rows, bid_rows))
        return np.where(as_location[:, None], rows, action_rows)  # type: ignore[no-any-return]

    def fallback(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, illegal)``: each masked-out or out-of-range action replaced by the lowest
        legal action of its mask row (the envs' ``fallback``), and where that happened."""
        actions = np.asarray(actions)
        clipped = np.clip(actions, 0, self.num_actions - 1).astype(np.intp)
        illegal = (self.mask_table[rows, clipped] == 0) | (actions != clipped)
        if not illegal.any():
            return clipped, illegal
        return np.where(illegal, self._legal_list[rows, 0], clipped), illegal

    def random_actions(self, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Uniformly random legal actions for mask rows ``rows`` (any shape), from ``rng``.

        The same distribution as drawing from each row of :meth:`legal_masks`, at the
        cost of one draw and two lookups per seat instead of a pass over every action.
        """
        pick = (rng.random(rows.shape) * self._legal_count[rows]).astype(np.intp)
        return self._legal_list[rows, pick]  # type: ignore[no-any-return]

    def legal_masks(self, state: BatchState) -> np.ndarray:
        """``[B, n, N]`` int8 legal-action masks (never an empty row, C-6)."""
        return self.mask_table[self.mask_rows(state)]  # type: ignore[no-any-return]

    def action_masks(self, state: BatchState, *, location: np.ndarray | None = None) -> np.ndarray:
        """``[B, n, N]`` int8 masks, location-step masks for finished games and where ``location``
        (``[B]`` bool) is set: what an env hands out (both rulesets; see :meth:`mask_rows`)."""
        return self.mask_table[self.mask_rows(state, location=location)]  # type: ignore[no-any-return]

    @staticmethod
    def fallback_masks(masks: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, illegal)`` as :meth:`fallback`, from ``[B, n, N]`` masks (both rulesets):
        each masked-out or out-of-range action becomes the lowest legal action of its mask."""
        actions = np.asarray(actions)
        clipped = np.clip(actions, 0, masks.shape[-1] - 1).astype(np.intp)
        legal = np.take_along_axis(masks, clipped[..., None], axis=-1)[..., 0] == 1
        illegal = ~legal | (actions != clipped)
        if not illegal.any():
            return clipped, illegal
        return np.where(illegal, masks.argmax(axis=-1), clipped), illegal

    def random_from_masks(self, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Uniformly random legal actions of ``[B, n, N]`` masks (both rulesets), from ``rng``:
        seat ``(b, p)`` plays its ``floor(u * legal count)``-th legal action, ``u`` one draw."""
        u = rng.random(masks.shape[:-1])
        if self.accelerator == "numba":
            return numba_kernels.pick_legal(masks, u)
        count = masks.sum(axis=-1, dtype=np.int64)
        pick = (u * count).astype(np.int64)
        # The pick-th legal action: the first index whose running count of legal actions exceeds it.
        running = np.cumsum(masks, axis=-1, dtype=np.int64)
        return (running <= pick[..., None]).sum(axis=-1)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------- step
    def step(self, state: BatchState, actions: np.ndarray, *, validate: bool = True) -> np.ndarray:
        """Apply one simultaneous step to every game that is not over; returns ``[B]`` "played".

        ``actions`` is ``[B, n]`` of flat indices (rows of finished games are ignored).
        Each game takes the step its phase says.  With ``validate`` every action of every
        live game is checked against :meth:`legal_masks` first.
        """
        b, n = state.money.shape
        actions = check_action_array(actions, (b, n))
        live = ~state.done
        if validate:
            clipped = np.clip(actions, 0, self.num_actions - 1)
            ok = self.legal_masks(state)[np.arange(b)[:, None], self._seats[None, :], clipped] == 1
            ok &= actions == clipped
            bad = live[:, None] & ~ok
            if bad.any():
                g, p = (int(v) for v in np.argwhere(bad)[0])
                raise IllegalActionError(
                    f"action {int(actions[g, p])} is illegal for player_{p} in game {g} "
                    f"({Phase(int(state.phase[g])).name.lower()} step); {int(bad.sum())} illegal in all"
                )
        actions = actions.astype(np.int16)
        locating = live & (state.phase == _LOCATION)
        acting = live & (state.phase == _ACTION)
        if acting.any():
            self._resolve_acting(state, np.flatnonzero(acting), actions)
        if locating.any():
            moving = np.flatnonzero(locating)
            state.locations[moving] = actions[moving]
            state.phase[moving] = _ACTION
        return live  # type: ignore[no-any-return]

    def _resolve_acting(self, state: BatchState, games: np.ndarray, actions: np.ndarray) -> None:
        """The action steps of ``games`` by the chosen accelerator."""
        if self.accelerator == "numba":
            numba_kernels.resolve_rounds(state, self.table, games, actions)
        else:
            self._resolve_rounds(state, games, actions)

    def _resolve_rounds(self, state: BatchState, g: np.ndarray, actions: np.ndarray) -> None:
        """C-4.2-4 for games ``g``: tallies, Auction House, Castle, end check, next start player."""
        acts = actions[g]
        locs = state.locations[g]
        auction = locs == AUCTION
        castle = ~auction
        bids = np.where(auction, acts - BID0, 0)
        tallies = state.tallies[g]
        tallies[..., 0] += auction
        tallies[..., 1] += castle
        tallies[..., 2] += castle & (acts == EXHIBIT)
        tallies[..., 3] += castle & (acts == THIEF)
        tallies[..., 4] += castle & (acts == DETECTIVE)
        tallies[..., 5] += bids
        state.tallies[g] = tallies
        changed = np.zeros(locs.shape, dtype=bool)  # hands that gained or lost a card
        self._resolve_auctions(state, g, auction, bids, changed)
        exhibit, thief = castle & (acts == EXHIBIT), castle & (acts == THIEF)
        resolve_castles(state, self.table, g, exhibit, thief, castle & (acts == DETECTIVE), changed)
        which, players = np.nonzero(changed)
        refresh_best_of(state, self.table, g[which], players)
        next_rounds(state, g, locs, acts)
        self._check_end(state, g)

    def _resolve_auctions(
        self, state: BatchState, g: np.ndarray, auction: np.ndarray, bids: np.ndarray, changed: np.ndarray
    ) -> None:
        """S-5 for games ``g``: lone bidders buy at ``min_price``; otherwise the tie rule decides."""
        rules, n = self.rules, self.num_players
        bidders = auction.sum(axis=1)
        lone = bidders == 1
        if rules.tie_break == "unique":
            # Amounts bid by two or more players are void; 0 never wins (S-5).
            same = (bids[:, :, None] == bids[:, None, :]) & auction[:, :, None] & auction[:, None, :]
            valid = auction & (bids > 0) & (same.sum(axis=2) == 1)
            amount = np.where(valid, bids, 0)
            winner = amount.argmax(axis=1)
        else:
            amount = np.where(auction, bids, 0)
            best = amount.max(axis=1, keepdims=True)
            order = (self._seats[None, :] - state.start_player[g][:, None].astype(np.intp)) % n
            winner = np.where(amount == best, order, n).argmin(axis=1)
        rows = np.arange(len(g))
        price = amount[rows, winner]
        sold = (bidders >= 2) & (price > 0)
        # A lone bidder's one legal bid is min_price, or 0 without that much money (S-4).
        lone_winner = auction.argmax(axis=1)
        lone_sale = lone & (bids[rows, lone_winner] >= rules.min_price)
        winner = np.where(lone_sale, lone_winner, winner)
        price = np.where(lone_sale, rules.min_price, price)
        sold |= lone_sale
        if not sold.any():
            return
        gs, ws, prices = g[sold], winner[sold], price[sold]
        lots = state.lot[gs].astype(np.intp)
        state.money[gs, ws] -= prices
        state.owner[gs, lots] = ws
        state.public[gs, lots] = True
        series = self.table.series[lots]
        state.counts[gs, ws, series] += 1
        state.public_counts[gs, ws, series] += 1
        changed[np.flatnonzero(sold), ws] = True
        # The next card of the draw pile goes on display; an empty pile closes the Auction House.
        left = state.pile_len[gs]
        more = left > 0
        top = state.pile[gs, np.maximum(left - 1, 0)]
        state.lot[gs] = np.where(more, top, -1)
        state.pile[gs, np.maximum(left - 1, 0)] = np.where(more, -1, top)
        state.pile_len[gs] = left - more

    def _check_end(self, state: BatchState, g: np.ndarray) -> None:
        """S-7 (a pawn reached the finish: furthest, then best exhibition in hand) and S-8."""
        positions = state.positions[g]
        ended = positions.max(axis=1) >= self.rules.finish
        if ended.any():
            e = g[ended]
            self._before_declaring(state, e)
            rank = self._rank(state.positions[e], state.best_count[e], state.best_oldest[e])
            state.winners[e] = rank == rank.max(axis=1, keepdims=True)
            state.terminated[e] = True
        late = ~ended & (state.round[g] >= self.rules.max_rounds)
        state.truncated[g[late]] = True

    def _before_declaring(self, state: BatchState, games: np.ndarray) -> None:
        """Hook between a pawn reaching the finish and the winners (the original final exhibition)."""

    def rank_keys(self, state: BatchState) -> np.ndarray:
        """``[B, n]`` int64 end-of-game order (S-7: position, then best exhibition); larger is better."""
        return self._rank(state.positions, state.best_count, state.best_oldest)

    def _rank(self, positions: np.ndarray, best_count: np.ndarray, best_oldest: np.ndarray) -> np.ndarray:
        # A packed exhibition key is below (deck size + 1) * year_span, so position dominates.
        scale = (self.table.deck.size + 1) * self.table.year_span
        return positions.astype(np.int64) * scale + self.table.key(best_count, best_oldest)  # type: ignore[no-any-return]


def _checked_resets(state: BatchState, games: object, seeds: object) -> tuple[np.ndarray, list[int]]:
    """``reset_games``' slots and seeds, checked together before any game changes."""
    slots = check_slots(games, len(state.rngs))
    checked = check_seeds(seeds)
    if len(checked) != len(slots):
        raise ConfigError(f"reset_games: {len(slots)} games but {len(checked)} seeds")
    return slots, checked


__all__ = ["BATCHED_GAMES", "BATCHED_RULESETS", "BatchState", "BatchedGame"]
