"""Observation and global-state encoders of the standard ruleset (docs/design.md §2, RULES C-5).

An observation is seat-relative: global fields, the observer's private fields, then one block
per player from the observer round the table; every value in [0, 1].  It holds all public
information and the observer's own hand, nothing else.  An encode writes one flat *source*
vector (global, then each absolute seat's public and private blocks); observations and the
global state are gathers from it through index arrays built once.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.actions import BID0, EXHIBIT, Phase, standard_layout
from hoity_env.engine.cards import build_deck
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.state import GameState

Field = tuple[str, int, str]
"""(name, width, meaning) of one observation field."""

GLOBAL_FIELDS: tuple[Field, ...] = (
    ("phase", 2, "one-hot: location step, action step"),
    ("round", 1, "completed rounds / max_rounds"),
    ("lot_present", 1, "1 while a lot is on display (0 once the Auction House is closed)"),
    ("lot_series", 6, "one-hot series of the lot"),
    ("lot_age", 1, "age of the lot: 1 = the deck's oldest card, 0 = its newest"),
    ("deck", 1, "cards left in the draw pile / deck size"),
)
OWN_FIELDS: tuple[Field, ...] = (
    ("hand", 6, "own cards per series / copies of that series (private)"),
    ("best_size", 1, "cards in own best exhibition / deck size (private)"),
    ("best_age", 1, "age of its oldest card, as lot_age; 0 without one (private)"),
    ("can_exhibit", 1, "1 if own hand holds a valid exhibition (private)"),
)
PLAYER_FIELDS: tuple[Field, ...] = (
    ("position", 1, "track position / finish, capped at 1"),
    ("money", 1, "money / starting money"),
    ("hand_size", 1, "cards in hand / deck size"),
    ("known", 6, "cards publicly known in hand (bought, stolen, exhibited) per series / copies"),
    ("location", 2, "one-hot location revealed this round (action step only, else 0)"),
    ("last_location", 2, "one-hot location of last round"),
    ("last_role", 3, "one-hot castle role of last round: exhibit, thief, detective"),
    ("last_bid", 1, "last round's bid / starting money"),
    ("rate_auction", 1, "share of past rounds at the Auction House"),
    ("rate_castle", 1, "share of past rounds at the Castle"),
    ("rate_exhibit", 1, "share of past rounds exhibiting"),
    ("rate_thief", 1, "share of past rounds as thief"),
    ("rate_detective", 1, "share of past rounds as detective"),
    ("mean_bid", 1, "mean bid per Auction House visit / starting money"),
    ("start_player", 1, "1 for this round's start player"),
)


def standard_field_widths(num_players: int) -> tuple[tuple[Field, ...], tuple[Field, ...], tuple[Field, ...]]:
    """Global, own and per-player fields of an observation (the same for every player count)."""
    return GLOBAL_FIELDS, OWN_FIELDS, PLAYER_FIELDS


def layout_markdown() -> str:
    """The observation layout as a Markdown table (the README embeds it; a test keeps them equal)."""
    rows = ["| field | width | meaning |", "|---|---|---|"]
    for prefix, fields in (("", GLOBAL_FIELDS), ("own.", OWN_FIELDS), ("playerK.", PLAYER_FIELDS)):
        rows += [f"| `{prefix}{name}` | {width} | {doc} |" for name, width, doc in fields]
    return "\n".join(rows)


def _offsets(fields: tuple[Field, ...]) -> dict[str, slice]:
    out, at = {}, 0
    for name, width, _ in fields:
        out[name] = slice(at, at + width)
        at += width
    return out


G_SL = _offsets(GLOBAL_FIELDS)
O_SL = _offsets(OWN_FIELDS)
P_SL = _offsets(PLAYER_FIELDS)
G_DIM = sum(w for _, w, _ in GLOBAL_FIELDS)
O_DIM = sum(w for _, w, _ in OWN_FIELDS)
P_DIM = sum(w for _, w, _ in PLAYER_FIELDS)
_NO_BEST = (0.0, 0.0, 0.0)


class StandardObserver:
    """Encodes a standard-ruleset :class:`GameState` for every seat at once."""

    def __init__(self, rules: RulesConfig, num_players: int) -> None:
        n = self.n = num_players
        deck = build_deck(rules, n)
        self.obs_dim = G_DIM + O_DIM + n * P_DIM
        self.state_dim = G_DIM + n * (P_DIM + O_DIM)
        seat_dim = P_DIM + O_DIM
        # Source layout: [global | seat0 public | seat0 private | seat1 public | …].
        seat_base = G_DIM + np.arange(n) * seat_dim
        g_idx = np.arange(G_DIM)
        obs_idx = np.empty((n, self.obs_dim), dtype=np.intp)
        for i in range(n):
            own = seat_base[i] + P_DIM + np.arange(O_DIM)
            order = (i + np.arange(n)) % n  # observer first, then round the table
            public = (seat_base[order][:, None] + np.arange(P_DIM)[None, :]).ravel()
            obs_idx[i] = np.concatenate([g_idx, own, public])
        self._obs_idx = obs_idx
        self._loc_col = seat_base + P_SL["location"].start  # + location index
        self._inv_copies = [1.0 / c for c in deck.copies]
        span = max(deck.newest_year - deck.oldest_year, 1)
        self._age = [(deck.newest_year - y) / span for y in deck.year]
        self._series = deck.series
        self._finish = rules.finish
        self._source: np.ndarray | None = None
        # Scale of each raw source value (counts, money, spaces → [0, 1]).
        inv_money = 1.0 / max(rules.starting_money, 1)
        g_scale = [1.0] * G_DIM
        g_scale[2] = 1.0 / rules.max_rounds
        g_scale[11] = 1.0 / deck.size
        p_scale = [1.0 / rules.finish, inv_money, 1.0 / deck.size, *self._inv_copies]
        p_scale += [1.0] * (P_SL["mean_bid"].start - len(p_scale)) + [inv_money, 1.0]
        o_scale = [*self._inv_copies, 1.0 / deck.size, 1.0, 1.0]
        self._scale = np.asarray(g_scale + (p_scale + o_scale) * n, dtype=np.float32)
        rates = np.arange(P_SL["rate_auction"].start, P_SL["rate_detective"].stop)
        self._rate_idx = (seat_base[:, None] + rates[None, :]).ravel()
        # Raw features "location now (2), last location (2), last role (3), last bid (1)"
        # for each possible last flat action; index -1 (no last round) gives zeros.
        layout_size = standard_layout(rules.starting_money).size
        feats: list[tuple[float, ...]] = []
        for action in range(layout_size):
            if action >= BID0:
                feats.append((0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, (action - BID0) * inv_money))
            elif action >= EXHIBIT:
                role = [0.0, 0.0, 0.0]
                role[action - EXHIBIT] = 1.0
                feats.append((0.0, 0.0, 0.0, 1.0, *role, 0.0))
            else:
                feats.append((0.0,) * 8)  # a location index is never a last action
        feats.append((0.0,) * 8)  # index -1
        self._last_feats = feats

    def __getstate__(self) -> dict[str, object]:
        out = dict(self.__dict__)
        out["_source"] = None  # a cache; the next encode rebuilds it
        return out

    # ------------------------------------------------------------- layouts
    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of the observation vector; ``playerK.*`` is K seats after the observer."""
        out = dict(G_SL)
        out.update({f"own.{k}": slice(G_DIM + s.start, G_DIM + s.stop) for k, s in O_SL.items()})
        for k in range(self.n):
            base = G_DIM + O_DIM + k * P_DIM
            out.update({f"player{k}.{f}": slice(base + s.start, base + s.stop) for f, s in P_SL.items()})
        return out

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of the global state vector; ``seatK.*`` is absolute seat K."""
        out = dict(G_SL)
        for k in range(self.n):
            base = G_DIM + k * (P_DIM + O_DIM)
            out.update({f"seat{k}.{f}": slice(base + s.start, base + s.stop) for f, s in P_SL.items()})
            base += P_DIM
            out.update({f"seat{k}.{f}": slice(base + s.start, base + s.stop) for f, s in O_SL.items()})
        return out

    # ------------------------------------------------------------ features
    def _encode_source(self, state: GameState) -> np.ndarray:
        """The raw source vector scaled by one precomputed vector (rates by the rounds), locations
        excluded.
        """
        vals: list[float] = [0.0] * G_DIM
        vals[int(state.phase)] = 1.0
        vals[2] = state.round
        lot = state.lot
        if lot >= 0:
            vals[3] = 1.0
            vals[4 + self._series[lot]] = 1.0
            vals[10] = self._age[lot]
        vals[11] = len(state.draw_pile)
        finish, age, last_feats = self._finish, self._age, self._last_feats
        positions, money, hands = state.positions, state.money, state.hands
        public_counts, counts, tallies = state.public_counts, state.counts, state.tallies
        last_actions = state.last_actions
        start = state.start_player
        for p in range(self.n):
            pos = positions[p]
            tally = tallies[p]
            vals.append(pos if pos < finish else finish)
            vals.append(money[p])
            vals.append(len(hands[p]))
            vals.extend(public_counts[p])
            vals.extend(last_feats[last_actions[p]])  # location (patched later) + last round
            vals.extend(tally[0:5])
            vals.append(tally[5] / tally[0] if tally[0] else 0.0)
            vals.append(1.0 if p == start else 0.0)
            vals.extend(counts[p])
            best = state.best_exhibition(p)
            if best is None:
                vals.extend(_NO_BEST)
            else:
                vals.extend((len(best), max([age[c] for c in best]), 1.0))
        source = np.array(vals, dtype=np.float32)
        source *= self._scale
        if state.round:
            source[self._rate_idx] *= 1.0 / state.round
        return source

    def _with_locations(self, source: np.ndarray, state: GameState) -> np.ndarray:
        """Copy of ``source`` with the phase and this round's revealed locations set."""
        out: np.ndarray = source.copy()
        out[0:2] = 0.0
        out[int(state.phase)] = 1.0
        if state.phase is Phase.ACTION:
            out[self._loc_col + np.asarray(state.locations)] = 1.0
        return out

    # ------------------------------------------------------------- outputs
    def observations(self, state: GameState, *, reuse: bool = False) -> np.ndarray:
        """``(n, obs_dim)`` float32, row ``i`` seat ``i``'s observation.  ``reuse=True``: the previous call
        encoded this game's location step, and only the phase and locations changed since.
        """
        source = self._source
        if source is None or not reuse:
            source = self._source = self._encode_source(state)
        out: np.ndarray = self._with_locations(source, state)[self._obs_idx]
        return out

    def global_state(self, state: GameState) -> np.ndarray:
        """Full global state in absolute seats (hidden hands included), for centralized critics."""
        return self._with_locations(self._encode_source(state), state)
