"""Property tests over random legal play (2-6 players) and random hands.

Each example plays whole games with actions drawn uniformly from the legal masks
(a numpy Generator seeded from hypothesis data) and checks invariants after every
step.
"""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hoity_env.engine import (
    STANDARD,
    EventKind,
    Game,
    GameState,
    IllegalActionError,
    Phase,
    build_deck,
    display_key,
    is_exhibition,
)
from hoity_env.engine.actions import BID0
from hoity_env.engine.config import ORIGINAL
from hoity_env.engine.exhibitions import (
    best_exhibition,
    best_exhibition_counted,
    best_exhibition_key,
    best_keys_with_each,
)
from hoity_env.engine.original.state import OriginalState
from tests.helpers import RULESETS, card_places

PROPERTY_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw: st.DrawFn) -> tuple[Game, int, int]:
    """A game (either ruleset, 2-6 players, either tie-break, sometimes a short round limit), a deal
    seed, a play seed."""
    num_players = draw(st.integers(2, 6), label="num_players")
    max_rounds = draw(st.sampled_from([100, 100, 10, 3]), label="max_rounds")
    if draw(st.sampled_from(RULESETS), label="ruleset") == "original":
        rules = ORIGINAL.replace(max_rounds=max_rounds)
    else:
        tie_break = draw(st.sampled_from(["unique", "priority"]), label="tie_break")
        money = draw(st.sampled_from([50, 50, 8]), label="starting_money")
        rules = STANDARD.replace(tie_break=tie_break, max_rounds=max_rounds, starting_money=money)
    deal_seed = draw(st.integers(0, 2**32 - 1), label="deal_seed")
    play_seed = draw(st.integers(0, 2**32 - 1), label="play_seed")
    return Game(rules, num_players), deal_seed, play_seed


def random_actions(game: Game, state: GameState, rng: np.random.Generator) -> list[int]:
    return [int(rng.choice(np.flatnonzero(row))) for row in game.legal_masks(state)]


def check_invariants(game: Game, state: GameState) -> None:
    n = state.num_players
    # Every card in exactly one place (C-2).
    places = card_places(state)
    assert sorted(places) == list(range(game.deck.size))
    assert all(len(where) == 1 for where in places.values()), places
    # The lot is on display exactly while it exists; an empty lot means an empty deck (S-5, O-5).
    assert state.lot >= 0 or not state.draw_pile
    if isinstance(state, OriginalState):
        assert all(lot >= 0 or not pile for lot, pile in zip(state.lots, state.piles, strict=True))
        # Every check is in one hand or the register; money is the checks held (O-2, O-5).
        values = sorted(v for seat in game.rules.checks[:n] for v in seat)
        assert sorted([v for c in state.checks for v in c] + state.register) == values
        assert state.money == [sum(c) for c in state.checks]
        assert len(state.jail) <= n and len(set(state.jail)) == len(state.jail)  # O-7
    else:
        assert all(0 <= m <= game.rules.starting_money for m in state.money)  # S-1, S-5
    # Public cards are cards in that hand (C-5).
    assert all(state.public[p] <= set(state.hands[p]) for p in range(n))
    assert all(pos >= 0 for pos in state.positions)
    # Masks never empty, and agree with is_legal (C-6).
    masks = game.legal_masks(state)
    assert masks.shape == (n, game.num_actions)
    assert (masks.sum(axis=1) >= 1).all()
    for p in range(n):
        legal = set(np.flatnonzero(masks[p]).tolist())
        if not isinstance(state, OriginalState):
            assert max(legal) < BID0 + state.money[p] + 1
        for a in range(min(game.num_actions, BID0 + 3)):
            assert game.is_legal(state, p, a) is (a in legal)


@PROPERTY_SETTINGS
@given(games())
def test_random_play_keeps_every_invariant(params: tuple[Game, int, int]) -> None:  # C-2, C-5, C-6, S-5..S-8
    game, deal_seed, play_seed = params
    state = game.new_state(deal_seed)
    rng = np.random.default_rng(play_seed)
    check_invariants(game, state)
    max_steps = 2 * game.rules.max_rounds
    steps = 0
    while not state.done:
        assert steps < max_steps
        round_before = state.round
        money_before = list(state.money)
        positions_before = list(state.positions)
        lot_before = state.lot
        lots_before = list(getattr(state, "lots", []))
        phase_before = state.phase
        start_before = state.start_player
        events = game.step(state, random_actions(game, state, rng))
        steps += 1
        check_invariants(game, state)
        # Events and state stay JSON-safe (replays, C-5).
        json.dumps([e.to_dict() for e in events])
        json.dumps(state.to_dict())
        # Money never increases; purchases in the events match the money changes (S-5, O-5).
        assert sum(state.money) <= sum(money_before)
        paid = [0] * state.num_players
        purchases = [e for e in events if e.kind is EventKind.PURCHASE]
        assert len(purchases) <= 1
        for e in purchases:
            paid[e.data["player"]] += e.data["price"]
            assert e.data["card"] in (lots_before if isinstance(state, OriginalState) else [lot_before])
            assert e.data["card"] in state.hands[e.data["player"]]
            assert e.data["card"] in state.public[e.data["player"]]
        for e in events:  # O-5.2: an auction thief's check moves from the payer to the thief
            if e.kind is EventKind.CHECK_THEFT and e.data["player"] is not None:
                paid[e.data["player"]] -= e.data["check"]
        assert [b - a for a, b in zip(state.money, money_before, strict=True)] == paid
        # Positions change only through MOVE events (S-6).
        moved = list(positions_before)
        for e in events:
            if e.kind is EventKind.MOVE:
                assert moved[e.data["player"]] == e.data["start"]
                moved[e.data["player"]] = e.data["end"]
        assert moved == state.positions
        # Events name only public cards: the lot, or a card its holder's hand shows (C-5).
        for e in events:
            named = e.data.get("cards") or ([e.data["card"]] if e.data.get("card") is not None else [])
            for c in named:
                holder = next((p for p, h in enumerate(state.hands) if c in h), None)
                on_display = c == state.lot or c in getattr(state, "lots", [])
                assert on_display or (holder is not None and c in state.public[holder]), (e, c)
        # Two steps per round, start player passes left (C-4).
        if phase_before is Phase.LOCATION:
            assert state.round == round_before and [e.kind for e in events] == [EventKind.LOCATIONS]
        else:
            assert state.round == round_before + 1
            assert state.start_player == (start_before + 1) % state.num_players
    # Every game ends by termination or truncation within max_rounds rounds (S-7, S-8).
    assert state.round <= game.rules.max_rounds
    assert state.terminated != state.truncated
    if state.terminated:
        assert max(state.positions) >= game.rules.finish
        keys = game.rank_keys(state)
        assert state.winners == [p for p, k in enumerate(keys) if k == max(keys)]
    else:
        assert state.round == game.rules.max_rounds and state.winners == []


def _played(params: tuple[Game, int, int], cut: int) -> tuple[GameState, np.random.Generator]:
    """The game of ``params`` after ``cut`` random steps (fewer if it ends first), and the play rng."""
    game, deal_seed, play_seed = params
    state = game.new_state(deal_seed)
    rng = np.random.default_rng(play_seed)
    for _ in range(cut):
        if state.done:
            break
        game.step(state, random_actions(game, state, rng))
    return state, rng


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(games(), st.integers(0, 60))
def test_round_trip_mid_game_continues_identically(params: tuple[Game, int, int], cut: int) -> None:  # C-6
    game = params[0]
    state, rng = _played(params, cut)
    restored = game.state_from_dict(json.loads(json.dumps(state.to_dict())))
    cloned = state.clone()
    assert restored == state == cloned
    while not state.done:
        actions = random_actions(game, state, rng)
        expected = [e.to_dict() for e in game.step(state, actions)]
        assert [e.to_dict() for e in game.step(restored, actions)] == expected
        assert [e.to_dict() for e in game.step(cloned, actions)] == expected
    assert restored.to_dict() == state.to_dict() == cloned.to_dict()


def _brute_force_best(cards: list[int], deck: Any, min_size: int) -> tuple[int, int]:
    best = (0, 0)
    for size in range(min_size, len(cards) + 1):
        for subset in combinations(cards, size):
            if is_exhibition(subset, deck, min_size):
                best = max(best, display_key(subset, deck))
    return best


@settings(max_examples=300, deadline=None)
@given(
    num_players=st.sampled_from([4, 6]),
    data=st.data(),
    min_size=st.integers(1, 4),
)
def test_best_exhibition_matches_brute_force(num_players: int, data: st.DataObject, min_size: int) -> None:
    # C-3: the best exhibition is the best subset whose series cover an unbroken range.
    deck = build_deck(STANDARD, num_players)
    cards = data.draw(st.lists(st.integers(0, deck.size - 1), max_size=9, unique=True), label="hand")
    best = best_exhibition(cards, deck, min_size)
    expected = _brute_force_best(cards, deck, min_size)
    if expected == (0, 0):
        assert best is None
    else:
        assert best is not None
        assert set(best) <= set(cards)
        assert is_exhibition(best, deck, min_size)
        assert display_key(best, deck) == expected


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_is_exhibition_matches_definition(data: st.DataObject) -> None:
    # C-3: at least min_exhibition cards whose series form an unbroken range.
    deck = build_deck(STANDARD, 4)
    cards = data.draw(st.lists(st.integers(0, deck.size - 1), max_size=8, unique=True), label="cards")
    series = {deck.series[c] for c in cards}
    expected = len(cards) >= 3 and all(s in series for s in range(min(series), max(series) + 1))
    assert is_exhibition(cards, deck, 3) is expected


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(games(), st.integers(0, 60), st.data())
def test_illegal_action_raises_and_changes_nothing(
    params: tuple[Game, int, int], cut: int, data: st.DataObject
) -> None:  # C-6
    game = params[0]
    state, rng = _played(params, cut)
    if state.done:
        before = state.to_dict()
        with pytest.raises(IllegalActionError):
            game.step(state, random_actions(game, state, rng))
        assert state.to_dict() == before
        return
    masks = game.legal_masks(state)
    player = data.draw(st.integers(0, state.num_players - 1), label="player")
    illegal = [
        a for a in range(-2, game.num_actions + 3) if a < 0 or a >= game.num_actions or not masks[player, a]
    ]
    action = data.draw(st.sampled_from(illegal), label="illegal action")
    actions = random_actions(game, state, rng)
    actions[player] = action
    before = state.to_dict()
    with pytest.raises(IllegalActionError, match=f"player_{player}"):
        game.step(state, actions)
    assert state.to_dict() == before


@settings(max_examples=200, deadline=None)
@given(
    hand=st.lists(st.integers(0, 44), max_size=12, unique=True),
    extra=st.lists(st.integers(0, 44), min_size=1, max_size=8, unique=True),
    min_size=st.integers(1, 4),
)
def test_best_keys_with_each_matches_best_exhibition_key(
    hand: list[int], extra: list[int], min_size: int
) -> None:
    # C-3 / S-6.2: the thief's fast per-card evaluation equals the direct computation.
    deck = build_deck(STANDARD, 4)
    candidates = [c for c in extra if c not in hand]
    expected = [best_exhibition_key([*hand, c], deck, min_size) for c in candidates]
    assert best_keys_with_each(hand, candidates, deck, min_size) == expected


@settings(max_examples=300, deadline=None)
@given(hand=st.lists(st.integers(0, 50), max_size=14, unique=True), min_size=st.integers(1, 5))
def test_best_exhibition_from_counts_matches_the_direct_scan(hand: list[int], min_size: int) -> None:
    # C-3: the state's cached path (per-series counts) equals the direct computation.
    deck = build_deck(STANDARD, 6)
    counts = [0] * deck.num_series
    for c in hand:
        counts[deck.series[c]] += 1
    assert best_exhibition_counted(hand, counts, deck, min_size) == best_exhibition(hand, deck, min_size)
