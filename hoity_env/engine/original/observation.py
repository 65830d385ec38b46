"""Observation and global-state encoder of the original ruleset (RULES O-1 … O-9, C-5).

The standard encoder's contract (seat-relative, every value in [0, 1], named slices) plus the
original game's public facts: both lots and piles, the leader's castle reward, every player's
checks and thief numbers and the jail.  Its length, ``33 + 27 n + 4 n²``, never equals a
standard observation's (``21 + 24 n``) for 2-6 players, so an agent refuses the other's.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.actions import O_AUCTION_THIEF, O_CHECK0, O_EXHIBIT, Phase, check_of_action
from hoity_env.engine.cards import build_deck
from hoity_env.engine.config import CHECKS_PER_SEAT, RulesConfig
from hoity_env.engine.original.state import OriginalState
from hoity_env.engine.standard.observation import OWN_FIELDS, Field
from hoity_env.engine.state import GameState

ORIGINAL_GLOBAL_FIELDS: tuple[Field, ...] = (
    ("phase", 2, "one-hot: location step, action step"),
    ("round", 1, "completed rounds / max_rounds"),
    ("auction_open", 1, "1 while a lot is on display (O-8: closed once both piles are used up)"),
    ("lot_present", 2, "per lot (0, 1): 1 while it is on display"),
    ("lot_series", 12, "per lot: one-hot series (6 each)"),
    ("lot_age", 2, "per lot: age, 1 = the deck's oldest card, 0 = its newest"),
    ("piles", 2, "per pile: face-down cards left / deck size"),
    ("leader_reward", 2, "(big, small) reward of the leading pawn's castle / largest reward (O-9)"),
)
ORIGINAL_OWN_FIELDS: tuple[Field, ...] = OWN_FIELDS
"""The private block is the standard one: the observer's own antiques, nothing else."""
ORIGINAL_PLAYER_FIELDS: tuple[Field, ...] = (
    ("position", 1, "track position / finish, capped at 1"),
    ("hand_size", 1, "cards in hand / deck size"),
    ("known", 6, "cards publicly known in hand per series / copies"),
    ("location", 2, "one-hot location revealed this round (action step only, else 0)"),
    ("last_location", 2, "one-hot location of last round"),
    ("last_role", 3, "one-hot castle card of last round: exhibit, thief, detective"),
    ("last_check", 1, "value of last round's check / largest check (0 for none or an auction thief)"),
    ("rate_auction", 1, "share of past rounds at the Auction House"),
    ("rate_castle", 1, "share of past rounds at the Castle"),
    ("rate_exhibit", 1, "share of past rounds exhibiting"),
    ("rate_thief", 1, "share of past rounds as castle thief"),
    ("rate_detective", 1, "share of past rounds as detective"),
    ("mean_check", 1, "mean check value played per Auction House visit / largest check"),
    ("start_player", 1, "1 for this round's start player"),
    ("thief_numbers", 2, "the player's two thief numbers, lower first / largest thief number"),
    ("thief_cells", 2, "jail cell of each of those thieves / players (0: free)"),
    ("checks", 0, "checks held, highest first / largest check; 4 n slots, 0 = empty slot"),
)
"""``checks`` is ``4 n`` wide (every check of the game could end up in one hand)."""


def original_field_widths(n: int) -> tuple[tuple[Field, ...], tuple[Field, ...], tuple[Field, ...]]:
    """Global, own and per-player fields with the ``checks`` width filled in for ``n`` players."""
    player = tuple(
        (name, CHECKS_PER_SEAT * n if name == "checks" else width, doc)
        for name, width, doc in ORIGINAL_PLAYER_FIELDS
    )
    return ORIGINAL_GLOBAL_FIELDS, ORIGINAL_OWN_FIELDS, player


def original_obs_dim(n: int) -> int:
    """Length of an original-ruleset observation for ``n`` players."""
    g, o, p = original_field_widths(n)
    return sum(w for _, w, _ in g) + sum(w for _, w, _ in o) + n * sum(w for _, w, _ in p)


def original_layout_markdown() -> str:
    """The original observation layout as a Markdown table (the README embeds it; a test compares)."""
    rows = ["| field | width | meaning |", "|---|---|---|"]
    for prefix, fields in (
        ("", ORIGINAL_GLOBAL_FIELDS),
        ("own.", ORIGINAL_OWN_FIELDS),
        ("playerK.", ORIGINAL_PLAYER_FIELDS),
    ):
        rows += [
            f"| `{prefix}{name}` | {'4n' if name == 'checks' else width} | {doc} |"
            for name, width, doc in fields
        ]
    return "\n".join(rows)


def _offsets(fields: tuple[Field, ...], base: int = 0) -> dict[str, slice]:
    out, at = {}, base
    for name, width, _ in fields:
        out[name] = slice(at, at + width)
        at += width
    return out


class OriginalObserver:
    """Encodes an :class:`OriginalState` for every seat at once (the ``original`` entry of the observers)."""

    def __init__(self, rules: RulesConfig, num_players: int) -> None:
        n = self.n = num_players
        g_fields, o_fields, p_fields = original_field_widths(n)
        self.g_sl, self.o_sl, self.p_sl = _offsets(g_fields), _offsets(o_fields), _offsets(p_fields)
        self.g_dim = sum(w for _, w, _ in g_fields)
        self.o_dim = sum(w for _, w, _ in o_fields)
        self.p_dim = sum(w for _, w, _ in p_fields)
        self.obs_dim = self.g_dim + self.o_dim + n * self.p_dim
        self.state_dim = self.g_dim + n * (self.p_dim + self.o_dim)
        deck = build_deck(rules, n)
        span = max(deck.newest_year - deck.oldest_year, 1)
        self._age = np.asarray([(deck.newest_year - y) / span for y in deck.year])
        self._copies = np.asarray(deck.copies, dtype=np.float64)
        self._max_check = float(rules.max_check)
        self._max_thief = float(max(max(pair) for pair in rules.thieves_of(n)))
        rewards = [v for pair in (*rules.castle_rewards, rules.club_reward) for v in pair]
        self._max_reward = float(max(max(rewards), 1))

    # ------------------------------------------------------------- layouts
    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of the observation vector; ``playerK.*`` is K seats after the observer."""
        out = dict(self.g_sl)
        out.update(
            {f"own.{k}": slice(self.g_dim + s.start, self.g_dim + s.stop) for k, s in self.o_sl.items()}
        )
        for k in range(self.n):
            base = self.g_dim + self.o_dim + k * self.p_dim
            out.update({f"player{k}.{f}": slice(base + s.start, base + s.stop) for f, s in self.p_sl.items()})
        return out

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of the global state vector; ``seatK.*`` is absolute seat K."""
        out = dict(self.g_sl)
        for k in range(self.n):
            base = self.g_dim + k * (self.p_dim + self.o_dim)
            out.update({f"seat{k}.{f}": slice(base + s.start, base + s.stop) for f, s in self.p_sl.items()})
            base += self.p_dim
            out.update({f"seat{k}.{f}": slice(base + s.start, base + s.stop) for f, s in self.o_sl.items()})
        return out

    # ------------------------------------------------------------ features
    def _global(self, state: OriginalState) -> np.ndarray:
        g = np.zeros(self.g_dim, dtype=np.float64)
        sl = self.g_sl
        g[sl["phase"].start + int(state.phase)] = 1.0
        g[sl["round"]] = state.round / state.rules.max_rounds
        size = state.deck.size
        g[sl["auction_open"]] = float(state.auction_open)
        for i, lot in enumerate(state.lots):
            if lot >= 0:
                g[sl["lot_present"].start + i] = 1.0
                g[sl["lot_series"].start + 6 * i + state.deck.series[lot]] = 1.0
                g[sl["lot_age"].start + i] = self._age[lot]
            g[sl["piles"].start + i] = len(state.piles[i]) / size
        g[sl["leader_reward"]] = np.asarray(state.leader_reward()) / self._max_reward
        return g

    def _public(self, state: OriginalState, p: int) -> np.ndarray:
        v = np.zeros(self.p_dim, dtype=np.float64)
        sl = self.p_sl
        v[sl["position"]] = min(state.positions[p] / state.rules.finish, 1.0)
        v[sl["hand_size"]] = len(state.hands[p]) / state.deck.size
        v[sl["known"]] = np.asarray(state.public_counts[p]) / self._copies
        if state.phase is Phase.ACTION and state.locations[p] >= 0:
            v[sl["location"].start + state.locations[p]] = 1.0
        last = state.last_actions[p]
        if last >= 0:
            v[sl["last_location"].start + state.last_locations[p]] = 1.0
            if O_EXHIBIT <= last < O_AUCTION_THIEF:
                role = {0: 0, 1: 1, 2: 1, 3: 2}[last - O_EXHIBIT]
                v[sl["last_role"].start + role] = 1.0
            elif last >= O_CHECK0:
                v[sl["last_check"]] = check_of_action(last)[0] / self._max_check
        tally = state.tallies[p]
        if state.round:
            v[sl["rate_auction"].start : sl["rate_detective"].stop] = np.asarray(tally[0:5]) / state.round
        if tally[0]:
            v[sl["mean_check"]] = tally[5] / tally[0] / self._max_check
        v[sl["start_player"]] = float(p == state.start_player)
        pair = state.thieves[p]
        v[sl["thief_numbers"]] = np.asarray(pair) / self._max_thief
        for j, t in enumerate(pair):
            if t in state.jail:
                v[sl["thief_cells"].start + j] = (state.jail.index(t) + 1) / self.n
        held = sorted(state.checks[p], reverse=True)[: sl["checks"].stop - sl["checks"].start]
        v[sl["checks"].start : sl["checks"].start + len(held)] = np.asarray(held) / self._max_check
        return v

    def _private(self, state: OriginalState, p: int) -> np.ndarray:
        v = np.zeros(self.o_dim, dtype=np.float64)
        sl = self.o_sl
        v[sl["hand"]] = np.asarray(state.counts[p]) / self._copies
        best = state.best_exhibition(p)
        if best is not None:
            v[sl["best_size"]] = len(best) / state.deck.size
            v[sl["best_age"]] = max(self._age[c] for c in best)
            v[sl["can_exhibit"]] = 1.0
        return v

    # ------------------------------------------------------------- outputs
    def observations(self, state: GameState, *, reuse: bool = False) -> np.ndarray:
        """``(n, obs_dim)`` float32, row ``i`` seat ``i``'s observation (``reuse`` is ignored)."""
        assert isinstance(state, OriginalState)
        g = self._global(state)
        public = [self._public(state, p) for p in range(self.n)]
        out = np.empty((self.n, self.obs_dim), dtype=np.float32)
        for i in range(self.n):
            order = [(i + k) % self.n for k in range(self.n)]
            out[i] = np.concatenate([g, self._private(state, i), *[public[q] for q in order]])
        return out

    def global_state(self, state: GameState) -> np.ndarray:
        """Full global state in absolute seats (hidden hands included), for centralized critics."""
        assert isinstance(state, OriginalState)
        parts = [self._global(state)]
        for p in range(self.n):
            parts += [self._public(state, p), self._private(state, p)]
        return np.concatenate(parts).astype(np.float32)
