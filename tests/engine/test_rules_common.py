"""Rules common to every ruleset (RULES.md C-1 … C-6), plus config and state validation.

Series in RULES.md are 1-based, the engine's are 0-based: rules series ``s`` is
engine series ``s - 1`` (``rule_series`` converts).
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import numpy as np
import pytest

from hoity_env.engine import (
    STANDARD,
    ConfigError,
    EventKind,
    Game,
    GameState,
    HoityError,
    IllegalActionError,
    RulesConfig,
    StateError,
    best_exhibition,
    build_deck,
    display_key,
    is_exhibition,
    resolve_rules,
)
from hoity_env.engine.actions import AUCTION, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.cards import Deck
from tests.helpers import bid, card_places, cards_of_series, events_of, make_state, play_round, rule_series

DECK4 = build_deck(STANDARD, 4)


def rule_hand(deck: Deck, rule_series_list: list[int], skip: int = 0) -> list[int]:
    """Distinct cards of the given 1-based series: each series' oldest unused cards, after ``skip``."""
    used: dict[int, int] = {}
    out = []
    for s in rule_series_list:
        s0 = rule_series(s)
        k = used.get(s0, skip)
        out.append(cards_of_series(deck, s0)[k])
        used[s0] = k + 1
    return out


# ---------------------------------------------------------------------------------------------- C-1


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_player_counts_two_to_six_are_valid(num_players: int) -> None:  # C-1
    game = Game("standard", num_players)
    state = game.new_state(1)
    assert game.num_players == num_players
    assert len(state.hands) == num_players
    assert game.legal_masks(state).shape[0] == num_players
    text = state.to_text()
    assert all(f"player_{p}:" in text for p in range(num_players))
    assert f"player_{num_players}:" not in text


def test_default_player_count_is_four() -> None:  # C-1
    assert Game().num_players == 4


@pytest.mark.parametrize("num_players", [0, 1, 7, 10, -4, 4.0, "4", True, None])
def test_bad_player_counts_raise_config_error(num_players: Any) -> None:  # C-1
    with pytest.raises(ConfigError, match="num_players"):
        Game("standard", num_players)


# ---------------------------------------------------------------------------------------------- C-2


@pytest.mark.parametrize(
    ("num_players", "size", "copies"),
    [
        (2, 45, (8, 7, 8, 7, 8, 7)),
        (3, 45, (8, 7, 8, 7, 8, 7)),
        (4, 45, (8, 7, 8, 7, 8, 7)),
        (5, 45, (8, 7, 8, 7, 8, 7)),
        (6, 51, (9, 8, 9, 8, 9, 8)),
    ],
)
def test_deck_size_and_series_copies(num_players: int, size: int, copies: tuple[int, ...]) -> None:  # C-2
    deck = Game("standard", num_players).deck
    assert deck.size == size
    assert deck.num_series == 6
    assert tuple(deck.series.count(s) for s in range(6)) == copies
    # Cards are numbered in series order: all series-1 cards first.
    assert list(deck.series) == sorted(deck.series)
    assert deck.series[0] == 0 and deck.series[-1] == 5
    # Every card is somewhere in a fresh game.
    state = Game("standard", num_players).new_state(3)
    places = card_places(state)
    assert sorted(places) == list(range(size))
    assert all(len(v) == 1 for v in places.values())


@pytest.mark.parametrize("num_players", [2, 4, 5, 6])
def test_years_follow_formula_and_are_unique(num_players: int) -> None:  # C-2
    deck = build_deck(STANDARD, num_players)
    n = deck.size
    assert deck.year == tuple(1520 + 9 * ((23 * k) % n) for k in range(n))
    assert len(set(deck.year)) == n
    assert deck.oldest_year == 1520
    assert deck.newest_year == 1520 + 9 * (n - 1)


@pytest.mark.parametrize(
    ("num_players", "card", "year"),
    [(4, 0, 1520), (4, 1, 1727), (4, 2, 1529), (4, 44, 1718), (6, 1, 1727), (6, 2, 1934), (6, 50, 1772)],
)
def test_specific_card_years(num_players: int, card: int, year: int) -> None:  # C-2
    assert build_deck(STANDARD, num_players).year[card] == year


def test_deck_follows_configured_copies_and_year_numbers() -> None:  # C-2 (configurable numbers)
    rules = STANDARD.replace(
        series_copies=(5, 5, 5, 5, 5, 6), series_copies_six=(7, 7, 7, 7, 7, 8), year_base=1600
    )
    deck4, deck6 = build_deck(rules, 4), build_deck(rules, 6)
    assert (deck4.size, deck6.size) == (31, 43)
    assert deck4.series.count(5) == 6 and deck6.series.count(0) == 7
    assert deck4.year[1] == 1600 + 9 * (23 % 31)


# ---------------------------------------------------------------------------------------------- C-3


@pytest.mark.parametrize(
    ("rule_series_list", "valid"),
    [
        ([2, 2, 3, 4], True),
        ([5, 5, 5], True),
        ([1, 2, 3], True),
        ([1, 2, 3, 4, 5, 6], True),
        ([6, 5, 6, 4], True),
        ([1, 1, 3], False),
        ([2, 3], False),
        ([1, 2], False),
        ([4], False),
        ([3, 4, 6], False),
        ([1, 2, 4, 5], False),
    ],
    ids=lambda v: "{" + ",".join(map(str, v)) + "}" if isinstance(v, list) else str(v),
)
def test_exhibition_validity(rule_series_list: list[int], valid: bool) -> None:  # C-3
    cards = rule_hand(DECK4, rule_series_list)
    assert is_exhibition(cards, DECK4, 3) is valid
    best = best_exhibition(cards, DECK4, 3)
    if valid:
        assert best == tuple(sorted(cards))
    else:  # no part of these hands forms a range of 3 either
        assert best is None


def test_min_exhibition_is_configurable() -> None:  # C-3
    cards = rule_hand(DECK4, [2, 3])
    assert not is_exhibition(cards, DECK4, 3)
    assert is_exhibition(cards, DECK4, 2)
    assert best_exhibition(cards, DECK4, 2) == tuple(sorted(cards))
    assert best_exhibition(rule_hand(DECK4, [1, 2, 3]), DECK4, 4) is None


@pytest.mark.parametrize(
    ("better", "worse", "why"),
    [
        # More cards beat fewer, even when the smaller one holds the very oldest card.
        ([23, 25, 27, 29], [0, 8, 16], "count"),
        ([31, 33, 35, 37], [0, 2, 4], "count"),
        # Equal counts: the oldest card decides.
        ([0, 9, 15], [2, 8, 16], "oldest card 1520 vs 1529"),
        ([24, 31, 39], [25, 30, 40], "oldest card 1628 vs 1655"),
    ],
)
def test_exhibition_order_count_then_oldest(better: list[int], worse: list[int], why: str) -> None:  # C-3
    assert display_key(better, DECK4) > display_key(worse, DECK4), why
    assert display_key([], DECK4) < display_key(worse, DECK4)


@pytest.mark.parametrize(
    ("run_a", "run_b", "winner"),
    [
        # Rules series {1,1,2} vs {4,5,5}: two disjoint ranges of 3 cards in one hand.
        ([0, 1, 9], [23, 31, 39], "a"),  # oldest 1520 (a) vs 1826 (b)
        ([1, 3, 9], [24, 31, 39], "b"),  # oldest 1727 (a) vs 1628 (b)
        ([5, 7, 13], [29, 37, 38], "b"),  # oldest 1745 (a) vs 1691 (b)
        # A longer range beats an older shorter one.
        ([0, 2, 8], [23, 31, 33, 39], "b"),
    ],
)
def test_in_hand_tie_between_ranges_resolves_to_older(
    run_a: list[int], run_b: list[int], winner: str
) -> None:  # C-3
    assert {DECK4.series[c] for c in run_a} <= {0, 1}
    assert {DECK4.series[c] for c in run_b} <= {3, 4, 5}
    expected = tuple(sorted(run_a if winner == "a" else run_b))
    assert best_exhibition(run_a + run_b, DECK4, 3) == expected
    assert best_exhibition(run_b + run_a, DECK4, 3) == expected


def test_best_exhibition_takes_the_whole_range() -> None:  # C-3
    # Rules series {1,2,2,3} + a lone 5: the best exhibition is all four range cards.
    hand = [1, 9, 11, 17, 31]
    assert best_exhibition(hand, DECK4, 3) == (1, 9, 11, 17)


def test_exhibitor_shows_its_best_exhibition() -> None:  # C-3 (exhibit_choice="best")
    # Rules ranges {1,2,2,3} (4 cards, oldest 1727) and {5,5,6} (3 cards, oldest 1664): count wins.
    hand = [1, 9, 11, 17, 31, 32, 40]
    state = make_state(hands=[hand, [], [], []])
    game = Game()
    _, events = play_round(game, state, [CASTLE] * 4, [EXHIBIT, DETECTIVE, DETECTIVE, DETECTIVE])
    assert events_of(events, EventKind.EXHIBIT) == [
        {"kind": "exhibit", "round": 0, "player": 0, "cards": [1, 9, 11, 17]}
    ]
    assert state.positions == [4, 0, 0, 0]


# ---------------------------------------------------------------------------------------------- C-4


def test_round_is_two_steps_then_start_player_passes_left() -> None:  # C-4
    game = Game()
    state = game.new_state(5)
    assert state.start_player == 0
    loc_events = game.step(state, [CASTLE, AUCTION, CASTLE, CASTLE])
    assert [e.to_dict() for e in loc_events] == [
        {"kind": "locations", "round": 0, "locations": ["castle", "auction", "castle", "castle"]}
    ]
    assert state.round == 0 and state.locations == [CASTLE, AUCTION, CASTLE, CASTLE]
    assert state.start_player == 0
    game.step(state, [DETECTIVE, bid(1), DETECTIVE, DETECTIVE])
    assert state.round == 1
    assert state.start_player == 1
    assert state.locations == [-1, -1, -1, -1]


@pytest.mark.parametrize("num_players", [2, 3, 5, 6])
def test_start_player_rotates_every_round(num_players: int) -> None:  # C-4
    game = Game("standard", num_players)
    state = game.new_state(0)
    seen = []
    for _ in range(2 * num_players + 1):
        seen.append(state.start_player)
        play_round(game, state, [CASTLE] * num_players, [DETECTIVE] * num_players)
    assert seen == [r % num_players for r in range(2 * num_players + 1)]


def test_auction_resolves_before_castle_then_end_is_checked() -> None:  # C-4
    # Player 0 buys; player 1 exhibits to the finish: purchase, castle, end in that order.
    state = make_state(hands=[[], [0, 8, 16], [], []], positions=[0, 27, 0, 0], lot=40)
    game = Game()
    _, events = play_round(
        game, state, [AUCTION, CASTLE, CASTLE, CASTLE], [bid(1), EXHIBIT, DETECTIVE, DETECTIVE]
    )
    kinds = [e.kind for e in events]
    assert kinds.index(EventKind.PURCHASE) < kinds.index(EventKind.EXHIBIT) < kinds.index(EventKind.GAME_END)
    assert kinds[0] is EventKind.ACTIONS
    assert events[0].data["actions"] == [
        {"location": "auction", "bid": 1},
        {"location": "castle", "role": "exhibit"},
        {"location": "castle", "role": "detective"},
        {"location": "castle", "role": "detective"},
    ]
    assert state.terminated and state.winners == [1]


# ---------------------------------------------------------------------------------------------- C-5


def test_dealt_cards_are_hidden_at_setup() -> None:  # C-5
    state = Game().new_state(11)
    assert all(len(h) == 4 for h in state.hands)
    assert state.public == [set(), set(), set(), set()]
    assert state.to_text().count("*") >= 16


def test_purchase_is_public() -> None:  # C-5
    state = make_state(hands=[[1], [2], [], []], lot=30, draw_pile=[31])
    game = Game()
    _, events = play_round(game, state, [AUCTION, AUCTION, CASTLE, CASTLE], [bid(7), bid(3), THIEF, THIEF])
    assert events_of(events, EventKind.PURCHASE) == [
        {"kind": "purchase", "round": 0, "player": 0, "card": 30, "price": 7}
    ]
    assert events_of(events, EventKind.NEW_LOT) == [{"kind": "new_lot", "round": 0, "card": 31}]
    assert state.public[0] == {30}  # the dealt card 1 stays hidden
    assert sorted(state.hands[0]) == [1, 30]
    assert state.public[1] == set()


def test_theft_and_exhibition_are_public() -> None:  # C-5
    # Player 0 exhibits rules series {1,2,3} (cards 0, 8, 16) and keeps hidden card 44; three thieves.
    state = make_state(hands=[[0, 8, 16, 44], [39], [], []])
    game = Game()
    _, events = play_round(game, state, [CASTLE] * 4, [EXHIBIT, THIEF, THIEF, THIEF])
    assert events_of(events, EventKind.THEFT) == [
        {"kind": "theft", "round": 0, "player": 1, "victim": 0, "card": 0},
        {"kind": "theft", "round": 0, "player": 2, "victim": 0, "card": 8},
        {"kind": "theft", "round": 0, "player": 3, "victim": 0, "card": 16},
    ]
    assert state.public[1] == {0}  # the stolen card, not the thief's own hidden 39
    assert state.public[2] == {8} and state.public[3] == {16}
    assert state.hands[0] == [44] and state.public[0] == set()


def test_exhibited_cards_become_public_and_stay_in_hand() -> None:  # C-5, S-6.4
    state = make_state(hands=[[0, 8, 16, 44], [], [], []])
    game = Game()
    play_round(game, state, [CASTLE] * 4, [EXHIBIT, DETECTIVE, DETECTIVE, DETECTIVE])
    assert sorted(state.hands[0]) == [0, 8, 16, 44]
    assert state.public[0] == {0, 8, 16}


def test_events_name_only_public_cards() -> None:  # C-5
    game = Game("standard", 4)
    state = game.new_state(2)
    rng = np.random.default_rng(2)
    while not state.done:
        masks = game.legal_masks(state)
        actions = [int(rng.choice(np.flatnonzero(row))) for row in masks]
        events = game.step(state, actions)
        for e in events:
            for key in ("card", "cards"):
                value = e.data.get(key)
                for c in [value] if isinstance(value, int) else (value or []):
                    holders = [p for p, h in enumerate(state.hands) if c in h]
                    assert c == state.lot or (holders and c in state.public[holders[0]]), (e, c)


# ---------------------------------------------------------------------------------------------- C-6


@pytest.mark.parametrize(
    ("overrides", "kwargs"),
    [
        ({"phase": "action", "locations": [AUCTION, CASTLE, CASTLE, CASTLE], "money": [0, 50, 50, 50]}, {}),
        ({"phase": "action", "locations": [AUCTION, AUCTION, CASTLE, CASTLE], "money": [0, 0, 0, 0]}, {}),
        ({"phase": "action", "locations": [CASTLE] * 4}, {}),
        ({"lot": 44, "draw_pile": []}, {"spare_to": 3}),
        ({"lot": -1, "draw_pile": []}, {"spare_to": 3}),
    ],
    ids=["lone-broke-bidder", "broke-bidders", "castle-no-exhibition", "last-lot", "auction-closed"],
)
def test_masks_never_empty_in_edge_states(overrides: dict[str, Any], kwargs: dict[str, Any]) -> None:  # C-6
    state = make_state(**overrides, **kwargs)
    game = Game()
    masks = game.legal_masks(state)
    assert masks.dtype == np.int8
    assert masks.shape == (4, game.num_actions)
    assert (masks.sum(axis=1) >= 1).all()
    for p in range(4):
        for a in game.legal_actions(state, p):
            assert game.is_legal(state, p, a)


def test_masks_after_game_end_are_not_empty() -> None:  # C-6
    state = make_state(hands=[[0, 8, 16], [], [], []], positions=[29, 0, 0, 0])
    game = Game()
    play_round(game, state, [CASTLE] * 4, [EXHIBIT, DETECTIVE, DETECTIVE, DETECTIVE])
    assert state.terminated
    masks = game.legal_masks(state)
    assert (masks.sum(axis=1) >= 1).all()


def _step_state(phase: str) -> GameState:
    if phase == "location":
        return make_state(hands=[[1, 9], [0, 8, 16], [], []], money=[5, 50, 50, 50])
    return make_state(
        hands=[[1, 9], [0, 8, 16], [], []],
        money=[5, 50, 50, 50],
        phase="action",
        locations=[AUCTION, CASTLE, AUCTION, CASTLE],
    )


@pytest.mark.parametrize(
    ("phase", "actions", "match"),
    [
        ("location", [EXHIBIT, CASTLE, CASTLE, CASTLE], "player_0"),
        ("location", [CASTLE, CASTLE, CASTLE, bid(0)], "player_3"),
        ("location", [CASTLE, CASTLE, -1, CASTLE], "player_2"),
        ("location", [CASTLE, CASTLE, CASTLE], "expected 4 actions"),
        ("location", [CASTLE, CASTLE, CASTLE, CASTLE, CASTLE], "expected 4 actions"),
        ("action", [bid(6), EXHIBIT, bid(0), THIEF], "player_0"),  # bid above money
        ("action", [bid(0), EXHIBIT, bid(0), EXHIBIT], "player_3"),  # exhibit without exhibition
        ("action", [THIEF, EXHIBIT, bid(0), THIEF], "player_0"),  # castle role at the auction
        ("action", [bid(0), bid(0), bid(0), THIEF], "player_1"),  # bid at the castle
        ("action", [bid(0), CASTLE, bid(0), THIEF], "player_1"),  # location in the action step
        ("action", [bid(0), EXHIBIT, 10_000, THIEF], "player_2"),  # out of range
    ],
)
def test_illegal_actions_raise_and_leave_state_unchanged(
    phase: str, actions: list[int], match: str
) -> None:  # C-6
    state = _step_state(phase)
    before = state.to_dict()
    with pytest.raises(IllegalActionError, match=match):
        Game().step(state, actions)
    assert state.to_dict() == before


def test_auction_house_closed_is_illegal_and_state_unchanged() -> None:  # C-6, S-3
    state = make_state(lot=-1, draw_pile=[], spare_to=3)
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        Game().step(state, [AUCTION, CASTLE, CASTLE, CASTLE])
    assert state.to_dict() == before


def test_lone_bidder_other_bid_is_illegal() -> None:  # C-6, S-4
    state = make_state(phase="action", locations=[CASTLE, AUCTION, CASTLE, CASTLE])
    before = state.to_dict()
    for amount in (0, 2, 50):
        with pytest.raises(IllegalActionError, match="player_1"):
            Game().step(state, [DETECTIVE, bid(amount), DETECTIVE, DETECTIVE])
        assert state.to_dict() == before


def test_step_after_game_over_raises() -> None:  # C-6, S-7
    state = make_state(hands=[[0, 8, 16], [], [], []], positions=[29, 0, 0, 0])
    game = Game()
    play_round(game, state, [CASTLE] * 4, [EXHIBIT, DETECTIVE, DETECTIVE, DETECTIVE])
    before = state.to_dict()
    with pytest.raises(IllegalActionError, match="over"):
        game.step(state, [CASTLE] * 4)
    assert state.to_dict() == before


def test_float_action_is_rejected_without_corrupting_state() -> None:  # C-6
    state = make_state()
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        Game().step(state, [1.0, CASTLE, CASTLE, CASTLE])  # type: ignore[list-item]
    assert state.to_dict() == before


def test_numpy_integer_actions_keep_state_json_safe() -> None:  # C-6
    game = Game()
    state = make_state(lot=30)
    game.step(state, np.array([AUCTION, AUCTION, CASTLE, CASTLE]))
    events = game.step(state, np.array([bid(5), bid(3), DETECTIVE, DETECTIVE]))
    json.dumps([e.to_dict() for e in events])
    assert GameState.from_dict(json.loads(json.dumps(state.to_dict())), hand_made=True) == state


# ------------------------------------------------------------------------------------- configuration

_BAD_FIELDS: list[tuple[str, Any]] = [
    ("name", ""),
    ("name", 3),
    ("ruleset", "original-1990"),
    ("series_copies", (8, 7, 8, 7, 8)),
    ("series_copies", (8, 7, 8, 7, 8, 0)),
    ("series_copies", [8, 7, 8, 7, 8, 7]),
    ("series_copies", (8, 7, 8, 7, 8, "7")),
    ("series_copies_six", (9, 8, 9, 8, 9, 8, 1)),
    ("series_copies_six", (9, 8, 9, 8, 9, -8)),
    ("year_base", 0),
    ("year_base", 1520.0),
    ("year_step", -9),
    ("year_multiplier", 0),
    ("year_multiplier", 3),  # gcd(3, 45) = 3: years would repeat
    ("year_multiplier", 15),
    ("min_exhibition", 0),
    ("min_exhibition", "3"),
    ("starting_antiques", -1),
    ("starting_antiques", 9),  # 5 players x 9 = 45 cards: no lot left
    ("starting_antiques", None),
    ("starting_money", -1),
    ("starting_money", 10_001),
    ("starting_money", 50.5),
    ("finish", 0),
    ("finish", True),
    ("min_price", 0),
    ("min_price", -1),
    ("thief_penalty", -2),
    ("thief_penalty", 2.0),
    ("detective_reward", -1),
    ("detective_reward", "2"),
    ("max_rounds", 0),
    ("max_rounds", -100),
    ("tie_break", "first"),
    ("tie_break", None),
    ("exhibit_choice", "all"),
]


@pytest.mark.parametrize(("field", "value"), _BAD_FIELDS, ids=[f"{f}={v!r}" for f, v in _BAD_FIELDS])
def test_bad_config_value_raises_config_error_naming_field(field: str, value: Any) -> None:  # C-2..S-8 config
    with pytest.raises(ConfigError, match=field):
        STANDARD.replace(**{field: value})
    with pytest.raises(ConfigError, match=field):
        RulesConfig(**{field: value})
    with pytest.raises(ValueError):  # ConfigError is a ValueError (RULES preamble)
        RulesConfig(**{field: value})


def test_config_error_hierarchy_and_unknown_fields() -> None:  # RULES preamble: ValueError naming the field
    assert issubclass(ConfigError, HoityError) and issubclass(HoityError, ValueError)
    with pytest.raises(ConfigError, match="bogus"):
        STANDARD.replace(bogus=1)
    with pytest.raises(ConfigError, match="bogus"):
        RulesConfig.from_dict({"bogus": 1})
    with pytest.raises(ConfigError, match="dict"):
        RulesConfig.from_dict([1, 2])
    with pytest.raises(ConfigError, match="preset"):
        resolve_rules("nope")
    with pytest.raises(ConfigError, match="rules"):
        Game(rules=3)  # type: ignore[arg-type]


def test_config_defaults_are_the_rules_numbers() -> None:  # S-1, S-4..S-8, C-2, C-3
    r = STANDARD
    assert (r.starting_antiques, r.starting_money, r.finish, r.min_price) == (4, 50, 30, 1)
    assert (r.thief_penalty, r.detective_reward, r.max_rounds, r.min_exhibition) == (2, 2, 100, 3)
    assert (r.tie_break, r.exhibit_choice, r.ruleset) == ("unique", "best", "standard")
    assert (r.year_base, r.year_step, r.year_multiplier) == (1520, 9, 23)
    assert resolve_rules("standard") is STANDARD
    assert RulesConfig.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    changed = r.replace(max_rounds=7, tie_break="priority")
    assert changed.max_rounds == 7 and changed.tie_break == "priority" and r.max_rounds == 100


# --------------------------------------------------------------------------------- state (de)serialization


def _corrupt(d: dict[str, Any], name: str) -> dict[str, Any]:
    d = copy.deepcopy(d)
    if name == "card in two places":
        d["hands"][0].append(d["draw_pile"][0])
    elif name == "card twice in one hand":
        d["hands"][1].append(d["hands"][1][0])
    elif name == "card in hand and lot":
        d["hands"][2].append(d["lot"])
    elif name == "missing card":
        d["draw_pile"].pop()
    elif name == "card id out of range":
        d["draw_pile"].append(45)
    elif name == "card id not int":
        d["hands"][0][0] = "7"
    elif name == "negative money":
        d["money"][1] = -1
    elif name == "money above start":
        d["money"][1] = 51
    elif name == "money wrong length":
        d["money"] = [50, 50, 50]
    elif name == "money not list":
        d["money"] = 50
    elif name == "negative position":
        d["positions"][0] = -3
    elif name == "bad phase":
        d["phase"] = "auction"
    elif name == "phase as int":
        d["phase"] = 1
    elif name == "action phase without locations":
        d["phase"] = "action"
    elif name == "location phase with locations":
        d["locations"] = [0, 1, 1, 1]
    elif name == "bad rng type":
        d["rng"] = "PCG64"
    elif name == "rng other bit generator":
        d["rng"] = dict(d["rng"], bit_generator="MT19937")
    elif name == "rng missing state":
        d["rng"] = {"bit_generator": "PCG64"}
    elif name == "rng state not int":
        d["rng"]["state"]["state"] = "x"
    elif name == "missing key":
        del d["positions"]
    elif name == "missing rules":
        del d["rules"]
    elif name == "bad version":
        d["version"] = 99
    elif name == "bad rules":
        d["rules"]["finish"] = 0
    elif name == "bad num_players":
        d["num_players"] = 9
    elif name == "hands wrong count":
        d["hands"] = d["hands"][:3]
    elif name == "hands not list":
        d["hands"] = "abc"
    elif name == "public not in hand":
        d["public"][0] = [d["lot"]]
    elif name == "lot wrong type":
        d["lot"] = "none"
    elif name == "start player out of range":
        d["start_player"] = 4
    elif name == "round negative":
        d["round"] = -1
    elif name == "terminated not bool":
        d["terminated"] = 0
    elif name == "terminated without winners":
        d["terminated"] = True
    elif name == "winners without terminated":
        d["winners"] = [0]
    elif name == "terminated and truncated":
        d["terminated"], d["truncated"], d["winners"] = True, True, [0]
    elif name == "tallies wrong shape":
        d["tallies"][0] = [0, 0]
    elif name == "lot -1 with draw pile":
        d["hands"][0].append(d["lot"])
        d["lot"] = -1
    elif name == "not a dict":
        return [d]  # type: ignore[return-value]
    else:
        raise AssertionError(name)
    return d


_CORRUPTIONS = [
    ("card in two places", "two places"),
    ("card twice in one hand", "twice"),
    ("card in hand and lot", "two places"),
    ("missing card", "nowhere"),
    ("card id out of range", "draw_pile"),
    ("card id not int", "hands"),
    ("negative money", "money"),
    ("money above start", "money"),
    ("money wrong length", "money"),
    ("money not list", "money"),
    ("negative position", "positions"),
    ("bad phase", "phase"),
    ("phase as int", "phase"),
    ("action phase without locations", "locations"),
    ("location phase with locations", "locations"),
    ("bad rng type", "rng"),
    ("rng other bit generator", "rng"),
    ("rng missing state", "rng"),
    ("rng state not int", "rng"),
    ("missing key", "positions"),
    ("missing rules", "rules"),
    ("bad version", "version"),
    ("bad rules", "finish"),
    ("bad num_players", "num_players"),
    ("hands wrong count", "hands"),
    ("hands not list", "hands"),
    ("public not in hand", "public"),
    ("lot wrong type", "lot"),
    ("start player out of range", "start_player"),
    ("round negative", "round"),
    ("terminated not bool", "terminated"),
    ("terminated without winners", "winners"),
    ("winners without terminated", "winners"),
    ("terminated and truncated", "terminated"),
    ("tallies wrong shape", "tallies"),
    ("lot -1 with draw pile", "lot"),
    ("not a dict", "dict"),
]


@pytest.mark.parametrize(("name", "match"), _CORRUPTIONS, ids=[c[0] for c in _CORRUPTIONS])
def test_from_dict_rejects_corrupt_state(name: str, match: str) -> None:  # C-2 (one place per card), C-6
    good = Game().new_state(4).to_dict()
    GameState.from_dict(good)  # the uncorrupted dict is fine
    with pytest.raises(StateError, match=match):
        GameState.from_dict(_corrupt(good, name))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("draw_pile", 5),  # len(5) -> TypeError
        ("winners", 3),  # len(3) -> TypeError
        ("rng", {"bit_generator": "PCG64", "state": {"state": -1, "inc": 1}, "has_uint32": 0, "uinteger": 0}),
    ],
    ids=["draw_pile-int", "winners-int", "rng-negative-state"],
)
def test_from_dict_wrong_types_raise_state_error(key: str, value: Any) -> None:  # C-6
    d = Game().new_state(4).to_dict()
    d[key] = value
    with pytest.raises(StateError, match=key):
        GameState.from_dict(d)


def test_state_from_dict_for_other_game_is_rejected() -> None:  # C-1
    d = Game("standard", 3).new_state(0).to_dict()
    with pytest.raises(StateError, match="players"):
        Game("standard", 4).state_from_dict(d)
    assert Game("standard", 3).state_from_dict(d) == GameState.from_dict(d)


def _random_actions(game: Game, state: GameState, rng: np.random.Generator) -> list[int]:
    return [int(rng.choice(np.flatnonzero(row))) for row in game.legal_masks(state)]


@pytest.mark.parametrize(("num_players", "seed", "steps"), [(2, 0, 7), (4, 1, 20), (4, 2, 21), (6, 3, 30)])
def test_json_round_trip_and_clone_continue_identically(  # C-6, S-1 (RNG state travels)
    num_players: int, seed: int, steps: int
) -> None:
    game = Game("standard", num_players)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        game.step(state, _random_actions(game, state, rng))
    assert not state.done
    restored = GameState.from_dict(json.loads(json.dumps(state.to_dict())))
    cloned = state.clone()
    pickled = pickle.loads(pickle.dumps(state))
    deep = copy.deepcopy(state)
    assert restored == state and cloned == state and pickled == state and deep == state
    assert restored.to_text() == state.to_text()
    # Same future: same actions give the same events and states, and the RNGs stay in step.
    copies = [restored, cloned, pickled, deep]
    action_rng = np.random.default_rng(seed + 100)
    while not state.done:
        actions = _random_actions(game, state, action_rng)
        expected = [e.to_dict() for e in game.step(state, actions)]
        for other in copies:
            assert [e.to_dict() for e in game.step(other, actions)] == expected
            assert other.to_dict() == state.to_dict()
    assert state.rng.integers(1 << 30) == restored.rng.integers(1 << 30) == cloned.rng.integers(1 << 30)


def test_clone_is_independent() -> None:  # C-6
    game = Game()
    state = make_state(hands=[[0, 8, 16], [], [], []], lot=30)
    snapshot = state.to_dict()
    clone = state.clone()
    play_round(game, clone, [AUCTION, CASTLE, CASTLE, CASTLE], [bid(1), THIEF, DETECTIVE, DETECTIVE])
    assert state.to_dict() == snapshot
    assert clone.to_dict() != snapshot
    assert 30 in clone.hands[0] and 30 not in state.hands[0]


def test_same_seed_same_game_different_seed_different_deal() -> None:  # S-1 (game RNG), C-2
    game = Game()
    assert game.new_state(7) == game.new_state(7)
    deals = {json.dumps(game.new_state(s).to_dict()["hands"]) for s in range(10)}
    assert len(deals) == 10
