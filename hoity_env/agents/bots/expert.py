"""``expert``: models each rival from the public record and mixes its castle roles from an equilibrium.

The stronger of the two experts (``expert-v1`` in :mod:`hoity_env.agents.bots.expert_v1`
is the first one, kept as a fixed yardstick).  Everything it knows comes from its
own observation (docs/design.md §3):

* **The rival model.** For every rival, how often it went to the Auction House
  and, at the Castle, how often it exhibited, stole or played detective (the
  observation's shares of past rounds, plus last round's role for recency,
  smoothed towards a prior), its bids (mean and last), money, and an estimate
  of its best exhibition: the best run of its publicly known cards plus a share
  of its hidden ones.
* **Castle roles: a small equilibrium against that model.**  The round's role
  game among the players at the Castle (known in the action step) has payoffs
  in track spaces estimated from the public state: an exhibition scores its
  size when it is the best on show and no thief goes uncaught; a caught thief
  loses ``thief_penalty`` and each detective gains ``detective_reward``; an
  uncaught thief spoils every exhibition and takes a card from the best.  Each
  player's payoff is its own gain minus a share of its rivals' gains (the game
  is a race: a rival's step forward is our loss), the rival who leads weighing
  most in ours.  Regret matching (RM+) solves it with a *restricted Nash
  response*: each rival plays its modelled mix with a weight that grows with
  the evidence (castle visits seen) and a best-responding mix otherwise, so the
  expert exploits a habit it has seen often and plays close to equilibrium
  against a rival it knows little about.  It then plays its own average mix.
* **Location**: the value of the Castle is that game's value with each rival
  present with its modelled probability, against the best bid's expected
  worth at the Auction House minus what the rivals gain at the Castle without
  us; a softmax over the two keeps it unpredictable.
* **Bids** maximise ``P(win | b) · (worth of the lot to us − price of b)``
  plus a share of the lot's worth to the rival who would otherwise win it.
  ``P(win | b)`` comes from each bidder's modelled bid distribution (centred
  between its mean and last bid, never above its money); the bid is drawn
  from a softmax over the amounts, so copies of the expert rarely void each
  other (S-5).

Written over a batch like the other styles; the role game's arrays are
``(B, n, …)`` with absent players as all-zero strategies, so a batch mixes rows
with different players present without per-row branches.  It assumes the
standard ruleset's numbers and action layout and refuses any other layout.
"""

from __future__ import annotations

import functools

import numpy as np

from hoity_env.agents.base import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.agents.batch import Bids, sample_index
from hoity_env.agents.bots import expert_kernel  # noqa: F401  (registers the expert's compiled twin)
from hoity_env.agents.bots.features import best_run, copies_of, lot_gain, near_run, series_counts
from hoity_env.agents.bots.styles import Draws, ScriptedAgent, may_bid
from hoity_env.agents.view import AgentInputError, BatchObservationView, ruleset_of
from hoity_env.engine.config import STANDARD

__all__ = ["ExpertAgent", "role_game_values", "solve_role_game"]

THIEF_PENALTY = float(STANDARD.thief_penalty)
DETECTIVE_REWARD = float(STANDARD.detective_reward)
STARTING_MONEY = STANDARD.starting_money
FINISH = float(STANDARD.finish)
NUM_ACTIONS = BID0 + STARTING_MONEY + 1
"""Width of the standard ruleset's action mask: the only layout this agent knows."""
ROLE_ACTIONS = np.asarray([EXHIBIT, THIEF, DETECTIVE])
"""The action of each role column (exhibit, thief, detective), the observation's rate order."""
CARD_VALUE = 1.0
"""Track spaces a card taken from (or added to) an exhibition is worth, for the role game."""


_ROLE_OPTIONS = np.concatenate([np.eye(3), np.zeros((1, 3))])
"""Rows: the options exhibit, thief, detective, away; columns: the roles each plays."""


@functools.lru_cache(maxsize=8)
def _eye(n: int) -> np.ndarray:
    out = np.eye(n, dtype=bool)
    out.flags.writeable = False
    return out


def role_game_values(
    sigma: np.ndarray, worth: np.ndarray, beats: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """``(B, n, 4)`` each player's payoff for exhibit, thief, detective and staying away.

    ``sigma`` ``(B, n, 3)``: each player's mix of exhibit, thief, detective times its
    chance of being at the Castle (an absent player is all zeros); ``worth`` ``(B, n, 3)``:
    what each player gains (track spaces, or their worth in the race) when its best
    exhibition scores, when it is caught stealing (negative) and when it catches a thief;
    ``beats`` ``(B, n, n)``: the chance that ``k``'s exhibition beats ``j``'s (zero
    diagonal); ``weights`` ``(B, n, n)``: how much ``j``'s gain counts against ``i`` (zero
    diagonal).

    The gain of each player (track spaces) is worked out with the others playing
    independently, as products over players: an exhibition scores when no thief
    goes uncaught and no other exhibition beats it, and loses a card when robbed;
    a thief is caught by any detective, else takes a card when someone exhibits; a
    detective earns its reward when some thief comes.  A player's payoff is its
    own gain less the weighted gains of the others, with its own action fixed.
    """
    n = sigma.shape[1]
    opt, eye = _ROLE_OPTIONS, _eye(n)
    e, t, d = (sigma[..., r, None] for r in range(3))  # (B, n_k, 1)
    oe, ot, od = (opt[None, None, :, r, None] for r in range(3))  # (1, 1, 4, 1)
    beaten = e * beats  # (B, n_k, n_j): k exhibits and beats j
    obeaten = oe * beats[:, :, None, :]  # (B, n_i, 4, n_j): i, playing a, beats j
    # Six events, each a product over the players other than j of one factor per player k
    # (``x[:, k, j]``), player i's factor replaced by ``own[:, i, a, j]`` (its option a instead
    # of its mix).  With j's own factor set to 1, the product over k ∉ {i, j} is the product
    # over k ≠ i: an exclusive prefix product times an exclusive suffix product along k.  The
    # six are stacked so that the products take a dozen array operations, not six dozen.
    b = sigma.shape[0]
    x = np.empty((6, b, n, n))  # (6, B, n_k, n_j); assignment broadcasts each factor
    x[0], x[1], x[2] = 1.0 - t, 1.0 - d, 1.0 - d - e
    x[3], x[4], x[5] = 1.0 - beaten, 1.0 - d - beaten, 1.0 - t - d - beaten
    y = np.where(eye, 1.0, x)
    stack_ones = np.ones((6, b, 1, n))
    before = np.concatenate([stack_ones, np.cumprod(y[:, :, :-1], axis=2)], axis=2)
    after = np.concatenate([np.cumprod(y[:, :, :0:-1], axis=2)[:, :, ::-1], stack_ones], axis=2)
    rest = before * after  # (6, B, n_i, n_j)
    own = np.empty((6, b, n, 4, n))  # (6, B, n_i, 4, n_j)
    own[0], own[1], own[2] = 1.0 - ot, 1.0 - od, 1.0 - od - oe
    own[3], own[4], own[5] = 1.0 - obeaten, 1.0 - od - obeaten, 1.0 - ot - od - obeaten
    no_thief, no_detective, no_rival_show, best, best_no_d, best_no_td = rest[:, :, :, None, :] * np.where(
        eye[:, None, :], 1.0, own
    )
    robbed = best_no_d - best_no_td  # best on show, and a thief no detective caught
    score, caught, reward = (worth[:, None, None, :, r] for r in range(3))
    gain_e = score * (best - robbed) - CARD_VALUE * robbed
    gain_t = caught * (1.0 - no_detective) + CARD_VALUE * (no_detective - no_rival_show)
    gain_d = reward * (1.0 - no_thief)
    # j's expected gain under its own mix; i's own gain under option a is on the diagonal
    gain = e[:, None, None, :, 0] * gain_e + t[:, None, None, :, 0] * gain_t + d[:, None, None, :, 0] * gain_d
    idx = np.arange(n)
    own = (
        opt[None, None, :, 0] * gain_e[:, idx, :, idx].transpose(1, 0, 2)
        + opt[None, None, :, 1] * gain_t[:, idx, :, idx].transpose(1, 0, 2)
        + opt[None, None, :, 2] * gain_d[:, idx, :, idx].transpose(1, 0, 2)
    )  # (B, n_i, 4)
    rivals = np.einsum("biaj,bij->bia", gain, weights)  # the zero diagonal of weights skips j = i
    out: np.ndarray = own - rivals
    return out


def solve_role_game(
    model: np.ndarray,
    trust: np.ndarray,
    present: np.ndarray,
    legal: np.ndarray,
    worth: np.ndarray,
    beats: np.ndarray,
    weights: np.ndarray,
    iterations: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Regret matching (RM+) on the role game with a restricted Nash response.

    Player ``j`` plays ``trust[j] · model[j] + (1 − trust[j]) · (its regret-matching
    mix)`` at the Castle with probability ``present[j]``; ``legal`` ``(B, n, 3)`` says
    which roles each may play.  Returns the average regret-matching mixes ``(B, n, 3)``
    and the payoffs ``(B, n, 4)`` of every option against the final average mixes
    (exhibit, thief, detective, away).
    """
    regret = np.zeros(model.shape)
    total = np.zeros(model.shape)
    mix = legal / legal.sum(axis=2, keepdims=True)
    for it in range(iterations):
        played = (trust[..., None] * model + (1.0 - trust[..., None]) * mix) * present[..., None]
        values = role_game_values(played, worth, beats, weights)[..., :3]
        expected = (values * mix).sum(axis=2, keepdims=True)
        regret = np.where(legal, np.maximum(regret + values - expected, 0.0), 0.0)
        positive = regret.sum(axis=2, keepdims=True)
        mix = np.where(positive > 0, regret / np.where(positive > 0, positive, 1.0), mix)
        total += (it + 1) * mix  # linear averaging: later, better mixes weigh more
    average = total / total.sum(axis=2, keepdims=True)
    played = (trust[..., None] * model + (1.0 - trust[..., None]) * average) * present[..., None]
    return average, role_game_values(played, worth, beats, weights)


class ExpertAgent(ScriptedAgent):
    """``expert``: a rival model, the role game's equilibrium, bids from the lot's worth."""

    name = "expert"
    original_style = "expert"
    KERNEL = "expert"
    """Under the original rules: :func:`hoity_env.agents.bots.original_rows.expert`."""
    MAX_ROUNDS = STANDARD.max_rounds
    ROLE_PRIOR = np.asarray([0.45, 0.2, 0.35])
    """Prior mix of a rival at the Castle (exhibit, thief, detective) before any evidence."""
    PRIOR_WEIGHT = 2.0
    TRUST_SCALE = 4.0
    """Castle visits at which the model of a rival gets half the weight in the restricted game."""
    MAX_TRUST = 0.85
    ITERATIONS = 8
    """Regret-matching rounds of the role game in the action step."""
    LOCATION_ITERATIONS = 3
    """Rounds in the location step, where presence is only a chance and the value is all we use."""
    RECENCY = 1.0
    """Weight of last round's role beside the counts of all past rounds."""
    LEAD_WEIGHT = 2.0
    """How much more a rival's gain counts against us for each finish-length it leads by."""
    WIN_BONUS = 10.0
    """Extra worth (track spaces) of a move that reaches the finish: it ends the race."""
    RIVAL_SHARE = 0.4
    """Total weight of the rivals' gains against our own (split among them, more for leaders)."""
    LOCATION_TEMPERATURE = 0.5
    BID_TEMPERATURE = 0.25
    MONEY_VALUE = 0.1
    """Track spaces one unit of money is worth while the Auction House has lots left."""
    DENIAL = 0.4
    """Share of a lot's worth to its likeliest other buyer that we count as ours to deny."""

    # --- what the observation says about everyone ----------------------------------------
    def _check_layout(self, width: int) -> None:
        if width != NUM_ACTIONS:
            raise AgentInputError(
                f"{self.name} needs the standard action layout (it plays the standard ruleset only: "
                f"action masks of width {NUM_ACTIONS}), got masks of width {width}"
            )

    def decide(self, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
        if ruleset_of(observations) != "original":  # original rows go to the original rule (RULES O-*)
            self._check_layout(masks.shape[1])
        return super().decide(observations, masks, draws)

    def rival_model(self, view: BatchObservationView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(B, n)`` chance of the Castle, ``(B, n, 3)`` mix at the Castle (exhibit, thief,
        detective) and ``(B, n)`` trust (evidence weight) for every player, observer first
        (the observer's own entries are filled but not used as a model)."""
        rounds = view.round_fraction.astype(np.float64) * self.MAX_ROUNDS
        rates = view.rates().astype(np.float64) * rounds[:, None, None]  # counts
        castle = (rates[:, :, 1] + 1.0) / (rounds[:, None] + 2.0)
        last = view.players("last_role").astype(np.float64) * self.RECENCY
        counts = rates[:, :, 2:5] + last + self.PRIOR_WEIGHT * self.ROLE_PRIOR
        mix = counts / counts.sum(axis=2, keepdims=True)
        visits = rates[:, :, 1]
        trust = self.MAX_TRUST * visits / (visits + self.TRUST_SCALE)
        return castle, mix, trust

    def exhibitions(self, view: BatchObservationView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(B, n)`` estimated best exhibition size, ``(B, n)`` bool may exhibit, ``(B, n, n)`` chance
        that ``k``'s beats ``j``'s; exact for the observer, estimated from public cards for rivals."""
        copies = copies_of(view.n)
        deck = float(copies.sum())
        known = np.rint(view.players("known") * copies).astype(np.int64)
        hidden = np.maximum(view.players("hand_size")[:, :, 0] * deck - known.sum(axis=2), 0.0)
        floor = best_run(known).astype(np.float64)
        size = np.maximum(floor, np.where(hidden > 0, floor + 0.6 * hidden, floor))
        size = np.where(size >= 3.0, size, np.where(hidden >= 3, 3.0, size))
        own = view.best_size.astype(np.float64) * deck
        size[:, 0] = own
        spread = 0.6 + 0.4 * np.sqrt(hidden)
        spread[:, 0] = 0.3
        can = (floor >= 3) | (hidden >= 3) | (size >= 3)
        can[:, 0] = view.can_exhibit
        gap = (size[:, :, None] - size[:, None, :]) / np.sqrt(
            spread[:, :, None] ** 2 + spread[:, None, :] ** 2
        )
        beats = 1.0 / (1.0 + np.exp(-1.7 * gap))
        beats *= 1.0 - np.eye(view.n)
        return size, can, beats

    def race_worth(self, view: BatchObservationView, size: np.ndarray) -> np.ndarray:
        """``(B, n, 3)``: what scoring ``size``, being caught and catching a thief are worth to each
        player in the race: the spaces moved, plus :attr:`WIN_BONUS` for a move that reaches the finish."""
        pos = view.positions.astype(np.float64) * FINISH
        moves = np.stack(
            [size, np.full_like(size, -THIEF_PENALTY), np.full_like(size, DETECTIVE_REWARD)], axis=2
        )
        to = np.maximum(pos[:, :, None] + moves, 0.0)
        out: np.ndarray = (to - pos[:, :, None]) + self.WIN_BONUS * (to >= FINISH)
        return out

    def race_weights(self, view: BatchObservationView) -> np.ndarray:
        """``(B, n, n)``: how much ``j``'s gain counts against ``i``: a share, more for a rival ahead."""
        pos = view.positions.astype(np.float64)
        lead = np.maximum(pos[:, None, :] - pos[:, :, None], 0.0)  # j ahead of i
        w = self.RIVAL_SHARE * (1.0 + self.LEAD_WEIGHT * lead) / (view.n - 1)
        out: np.ndarray = w * (1.0 - np.eye(view.n))
        return out

    def castle_game(
        self, view: BatchObservationView, present: np.ndarray, own_legal: np.ndarray, iterations: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Our ``(B, 3)`` equilibrium mix and ``(B, 4)`` option values (exhibit, thief, detective, away)."""
        _, model, trust = self.rival_model(view)
        size, can, beats = self.exhibitions(view)
        legal = np.ones(model.shape, dtype=bool)
        legal[:, :, 0] = can
        legal[:, 0, 0] = own_legal
        trust = trust.copy()
        trust[:, 0] = 0.0  # we play our own mix, not a model of ourselves
        model = np.where(legal, model, 0.0)
        model /= np.maximum(model.sum(axis=2, keepdims=True), 1e-12)
        mix, values = solve_role_game(
            model,
            trust,
            present,
            legal,
            self.race_worth(view, size),
            beats,
            self.race_weights(view),
            iterations,
        )
        return mix[:, 0], values[:, 0]

    # --- the lot --------------------------------------------------------------------------
    def lot_worth(self, view: BatchObservationView) -> np.ndarray:
        """``(B,)`` track spaces the lot is worth to us: run growth, a touch, a first exhibition."""
        counts = series_counts(view)
        worth = 1.6 * lot_gain(view, counts) + 0.8 * near_run(counts, view.lot_series)
        worth = worth + np.where(view.can_exhibit, 0.0, 1.5) + 0.3 * view.lot_age
        race_left = 1.0 - view.positions.max(axis=1).astype(np.float64)  # cards matter less near the end
        out: np.ndarray = worth * (0.3 + 0.7 * race_left)
        return out

    def rival_worth(self, view: BatchObservationView) -> np.ndarray:
        """``(B, n)``: the lot's worth to each player judged from its public cards (ours included)."""
        copies = copies_of(view.n)
        known = np.rint(view.players("known") * copies).astype(np.int64)
        series = view.lot_series
        add = np.zeros_like(known)
        rows = np.flatnonzero(series >= 0)
        add[rows, :, series[rows]] = 1
        gain = best_run(known + add) - best_run(known)
        out: np.ndarray = 1.6 * gain.astype(np.float64) + 0.3 * view.lot_age[:, None]
        return out

    def win_chances(self, view: BatchObservationView, at_auction: np.ndarray) -> np.ndarray:
        """``(B, M)``: chance that bid ``b`` beats every rival, each there with ``at_auction[:, k]``."""
        money = view.money.astype(np.float64) * STARTING_MONEY
        mean = view.players("mean_bid")[:, :, 0].astype(np.float64) * STARTING_MONEY
        last = view.players("last_bid")[:, :, 0].astype(np.float64) * STARTING_MONEY
        seen = view.rates()[:, :, 0] > 0
        centre = np.where(seen, np.where(last > 0, 0.5 * mean + 0.5 * last, mean), 10.0)
        centre = np.minimum(centre, money)
        spread = np.where(seen, 1.5 + 0.2 * centre, 5.0)
        amounts = np.arange(STARTING_MONEY + 1, dtype=np.float64)
        # chance that rival k bids below b (a logistic normal CDF at b - 0.5), certain above its money
        z = (amounts[None, None, :] - 0.5 - centre[:, :, None]) / spread[:, :, None]
        below = np.where(amounts[None, None, :] > money[:, :, None], 1.0, 1.0 / (1.0 + np.exp(-1.7 * z)))
        there = at_auction[:, 1:, None]
        out: np.ndarray = (1.0 - there + there * below[:, 1:, :]).prod(axis=1)
        return out

    def bid_values(self, view: BatchObservationView, at_auction: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``(B, M)`` expected worth of each bid (``-inf`` where illegal)."""
        win = self.win_chances(view, at_auction)
        amounts = np.arange(legal.shape[1], dtype=np.float64)
        deck = view.deck_fraction.astype(np.float64)[:, None]
        price = self.MONEY_VALUE * (0.3 + 0.7 * deck) * amounts[None, :]
        denial = self.DENIAL * (at_auction[:, 1:] * self.rival_worth(view)[:, 1:]).max(axis=1)
        worth = self.lot_worth(view) + denial
        values = win * (worth[:, None] - price)
        values[:, 0] = 0.0  # no bid: nothing gained, nothing paid
        out: np.ndarray = np.where(legal, values, -np.inf)
        return out

    # --- decisions ------------------------------------------------------------------------
    def location(self, view: BatchObservationView, auction_open: np.ndarray, d: Draws) -> np.ndarray:
        castle_p, _, _ = self.rival_model(view)
        present = castle_p.copy()
        present[:, 0] = 1.0
        mix, values = self.castle_game(view, present, view.can_exhibit, self.LOCATION_ITERATIONS)
        castle = (mix * values[:, :3]).sum(axis=1)
        away = values[:, 3]  # the rivals' castle gains count against us wherever we are
        at_auction = 1.0 - castle_p
        legal = np.ones((len(view), STARTING_MONEY + 1), dtype=bool)
        legal &= np.arange(STARTING_MONEY + 1)[None, :] <= np.rint(view.money[:, :1] * STARTING_MONEY)
        auction = self.bid_values(view, at_auction, legal).max(axis=1) + away
        auction = np.where(may_bid(view, auction_open), auction, -np.inf)
        both = np.stack([castle, auction], axis=1)
        weights = np.exp((both - both.max(axis=1, keepdims=True)) / self.LOCATION_TEMPERATURE)
        out: np.ndarray = np.asarray([CASTLE, AUCTION])[sample_index(weights, d.pick)]
        return out

    def bid(self, view: BatchObservationView, bids: Bids, d: Draws) -> np.ndarray:
        at_auction = (view.locations == 0).astype(np.float64)
        values = self.bid_values(view, at_auction, bids.legal)
        weights = np.exp((values - values.max(axis=1, keepdims=True)) / self.BID_TEMPERATURE)
        out: np.ndarray = sample_index(weights, d.pick)
        return out

    def role(self, view: BatchObservationView, can_exhibit: np.ndarray, d: Draws) -> np.ndarray:
        present = (view.locations == 1).astype(np.float64)
        present[:, 0] = 1.0
        mix, _ = self.castle_game(view, present, can_exhibit, self.ITERATIONS)
        out: np.ndarray = ROLE_ACTIONS[sample_index(mix, d.pick)]
        return out
