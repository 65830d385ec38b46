"""The ``standard`` ruleset (RULES.md S-1 … S-8), table-driven on hand-made states.

Card ids below are those of the 2-5 player deck (45 cards).  Engine series are
0-based (RULES series ``s`` is engine series ``s - 1``).  Years used here:

=====  ==========================================================================
eng.   card:year
=====  ==========================================================================
s0     0:1520 2:1529 4:1538 6:1547 1:1727 3:1736 5:1745 7:1754
s1     8:1556 10:1565 12:1574 14:1583 9:1763 11:1772 13:1781
s2     16:1592 18:1601 20:1610 22:1619 15:1790 17:1799 19:1808 21:1817
s3     24:1628 26:1637 28:1646 23:1826 25:1835 27:1844 29:1853
s4     30:1655 32:1664 34:1673 36:1682 31:1862 33:1871 35:1880 37:1889
s5     38:1691 40:1700 42:1709 44:1718 39:1898 41:1907 43:1916
=====  ==========================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hoity_env.engine import STANDARD, EventKind, Game, GameState, IllegalActionError, RulesConfig, build_deck
from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from tests.helpers import bid, card_places, events_of, make_state, play_round

DECK = build_deck(STANDARD, 4)
A, C = AUCTION, CASTLE
E, T, D = EXHIBIT, THIEF, DETECTIVE


def test_card_table_in_docstring_is_right() -> None:  # C-2 (guards the card ids used below)
    table = {
        0: [0, 2, 4, 6, 1, 3, 5, 7],
        1: [8, 10, 12, 14, 9, 11, 13],
        2: [16, 18, 20, 22, 15, 17, 19, 21],
        3: [24, 26, 28, 23, 25, 27, 29],
        4: [30, 32, 34, 36, 31, 33, 35, 37],
        5: [38, 40, 42, 44, 39, 41, 43],
    }
    for s, cards in table.items():
        assert [DECK.series[c] for c in cards] == [s] * len(cards)
        years = [DECK.year[c] for c in cards]
        assert years == sorted(years)
    assert (DECK.year[0], DECK.year[15], DECK.year[24], DECK.year[31]) == (1520, 1790, 1628, 1862)


# ---------------------------------------------------------------------------------------------- S-1


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_setup_deals_money_pawns_and_lot(num_players: int) -> None:  # S-1
    game = Game("standard", num_players)
    state = game.new_state(9)
    size = 51 if num_players == 6 else 45
    assert [len(h) for h in state.hands] == [4] * num_players
    assert state.public == [set()] * num_players
    assert state.money == [50] * num_players
    assert state.positions == [0] * num_players
    assert 0 <= state.lot < size
    assert len(state.draw_pile) == size - 4 * num_players - 1
    assert state.start_player == 0 and state.round == 0
    assert not state.done and state.winners == []
    assert sorted(card_places(state)) == list(range(size))


def test_setup_uses_configured_numbers() -> None:  # S-1
    rules = STANDARD.replace(starting_antiques=2, starting_money=20, finish=12)
    game = Game(rules, 3)
    state = game.new_state(0)
    assert [len(h) for h in state.hands] == [2, 2, 2]
    assert state.money == [20, 20, 20]
    assert len(state.draw_pile) == 45 - 6 - 1
    assert game.num_actions == BID0 + 21


def test_setup_shuffle_depends_on_the_seed_only() -> None:  # S-1
    game = Game()
    a, b = game.new_state(123), game.new_state(np.random.Generator(np.random.PCG64(123)))
    assert a.hands == b.hands and a.lot == b.lot and a.draw_pile == b.draw_pile
    assert game.new_state(124).hands != a.hands


# ---------------------------------------------------------------------------------------------- S-2


@pytest.mark.parametrize("role", [EXHIBIT, THIEF, DETECTIVE])
def test_played_role_cards_return_to_hand(role: int) -> None:  # S-2
    # Player 0 has an exhibition; everyone else plays detective so nothing is stolen.
    state = make_state(hands=[[0, 8, 16], [], [], []])
    game = Game()
    for _ in range(3):
        play_round(game, state, [C, C, C, C], [role, D, D, D])
        game.step(state, [C, C, C, C])
        assert game.legal_actions(state, 0) == [EXHIBIT, THIEF, DETECTIVE]
        assert game.legal_actions(state, 1) == [THIEF, DETECTIVE]
        game.step(state, [role, D, D, D])


# ---------------------------------------------------------------------------------------------- S-3


@pytest.mark.parametrize(
    ("overrides", "auction_open"),
    [
        ({}, True),
        ({"lot": 44, "draw_pile": []}, True),
        ({"lot": -1, "draw_pile": []}, False),
    ],
    ids=["lot-and-deck", "last-lot", "closed"],
)
def test_location_mask_auction_needs_a_lot(overrides: dict[str, Any], auction_open: bool) -> None:  # S-3
    state = make_state(spare_to=3 if "draw_pile" in overrides else None, **overrides)
    game = Game()
    masks = game.legal_masks(state)
    assert masks[:, CASTLE].tolist() == [1, 1, 1, 1]
    assert masks[:, AUCTION].tolist() == [int(auction_open)] * 4
    assert masks[:, EXHIBIT:].sum() == 0
    assert game.is_legal(state, 2, AUCTION) is auction_open


# ---------------------------------------------------------------------------------------------- S-4


@pytest.mark.parametrize(
    ("hand", "can_exhibit"),
    [
        ([], False),
        ([0, 8], False),  # rules {1,2}: too small
        ([0, 1, 16], False),  # rules {1,1,3}: gap
        ([0, 8, 24, 38], False),  # rules {1,2,4,6}: no range of 3
        ([0, 8, 16], True),  # rules {1,2,3}
        ([8, 16, 18, 24], True),  # rules {2,3,3,4}
        ([30, 32, 34], True),  # rules {5,5,5}
    ],
)
def test_exhibit_is_masked_without_valid_exhibition(hand: list[int], can_exhibit: bool) -> None:  # S-4
    state = make_state(hands=[hand, [], [], []], phase="action", locations=[C, C, A, A])
    game = Game()
    assert game.legal_actions(state, 0) == ([EXHIBIT] if can_exhibit else []) + [THIEF, DETECTIVE]
    assert game.is_legal(state, 0, EXHIBIT) is can_exhibit
    if not can_exhibit:
        before = state.to_dict()
        with pytest.raises(IllegalActionError, match="player_0"):
            game.step(state, [EXHIBIT, THIEF, bid(0), bid(0)])
        assert state.to_dict() == before


@pytest.mark.parametrize("money", [0, 1, 17, 50])
def test_bids_range_from_zero_to_money(money: int) -> None:  # S-4
    state = make_state(money=[money, 50, 50, 50], phase="action", locations=[A, A, C, C])
    game = Game()
    assert game.legal_actions(state, 0) == [bid(b) for b in range(money + 1)]
    assert game.legal_actions(state, 1) == [bid(b) for b in range(51)]
    assert game.legal_actions(state, 2) == [THIEF, DETECTIVE]


@pytest.mark.parametrize(
    ("money", "min_price", "only_bid"),
    [(50, 1, 1), (1, 1, 1), (0, 1, 0), (5, 3, 3), (3, 3, 3), (2, 3, 0)],
)
def test_lone_bidder_has_exactly_one_legal_bid(money: int, min_price: int, only_bid: int) -> None:  # S-4
    rules = STANDARD.replace(min_price=min_price)
    state = make_state(rules=rules, money=[50, 50, money, 50], phase="action", locations=[C, C, A, C])
    assert Game(rules).legal_actions(state, 2) == [bid(only_bid)]


# ---------------------------------------------------------------------------------------------- S-5


def _auction(
    bids: list[int | None],
    *,
    tie_break: str = "unique",
    start_player: int = 0,
    money: list[int] | None = None,
    min_price: int = 1,
) -> tuple[Any, list[Any], dict[str, Any]]:
    """Play one round: seats with a bid go to the auction, the others play detective at the castle."""
    rules = STANDARD.replace(tie_break=tie_break, min_price=min_price)
    n = len(bids)
    money = money or [50] * n
    state = make_state(n, rules, lot=30, draw_pile=[31, 32], money=money, start_player=start_player)
    before = state.to_dict()
    game = Game(rules, n)
    locations = [C if b is None else A for b in bids]
    actions = [DETECTIVE if b is None else bid(b) for b in bids]
    _, events = play_round(game, state, locations, actions)
    return state, events, before


@pytest.mark.parametrize(
    ("bids", "winner", "price"),
    [
        ([5, 5, 4, 0], 2, 4),  # 5 is void, 4 is the highest unique bid
        ([5, 5, 4, 4], -1, 0),  # every amount void
        ([5, 5, 5, 5], -1, 0),  # all bids equal: no sale
        ([0, 0, 0, 0], -1, 0),  # bids of 0 never win
        ([3, 0, 0, 0], 0, 3),
        ([10, 7, 7, 2], 0, 10),
        ([7, 7, 2, 1], 2, 2),
        ([1, 2, 3, 50], 3, 50),
        ([0, 0, None, None], -1, 0),
        ([9, 9, None, None], -1, 0),
        ([2, 9, None, None], 1, 9),
        ([None, 6, 6, 1], 3, 1),
        ([4, 4, 0, 0, 0], -1, 0),
        ([4, 4, 3, 3, 1, 2], 5, 2),
    ],
)
def test_unique_bid_ties_void_equal_amounts(bids: list[int | None], winner: int, price: int) -> None:  # S-5
    state, events, before = _auction(bids)
    _check_sale(state, events, before, winner, price)


@pytest.mark.parametrize(
    ("bids", "start_player", "winner", "price"),
    [
        ([5, 5, 4, 0], 0, 0, 5),
        ([5, 5, 4, 0], 1, 1, 5),
        ([5, 5, 4, 0], 2, 0, 5),  # order 2, 3, 0, 1
        ([5, 5, 4, 0], 3, 0, 5),
        ([5, 5, 5, 5], 2, 2, 5),
        ([3, 7, 7, 1], 3, 1, 7),  # order 3, 0, 1, 2
        ([3, 7, 7, 1], 2, 2, 7),
        ([0, 0, 0, 0], 1, -1, 0),  # bids of 0 never win
        ([8, None, 8, None], 1, 2, 8),  # order 1, 2, 3, 0
        ([6, 6, 6], 2, 2, 6),
    ],
)
def test_priority_ties_go_to_start_player_order(
    bids: list[int | None], start_player: int, winner: int, price: int
) -> None:  # S-5
    state, events, before = _auction(bids, tie_break="priority", start_player=start_player)
    _check_sale(state, events, before, winner, price)


@pytest.mark.parametrize("tie_break", ["unique", "priority"])
@pytest.mark.parametrize(
    ("money", "min_price", "winner", "price"),
    [(50, 1, 2, 1), (1, 1, 2, 1), (0, 1, -1, 0), (7, 3, 2, 3), (2, 3, -1, 0)],
)
def test_lone_bidder_pays_min_price(
    tie_break: str, money: int, min_price: int, winner: int, price: int
) -> None:  # S-4, S-5
    only_bid = min_price if money >= min_price else 0
    state, events, before = _auction(
        [None, None, only_bid, None], tie_break=tie_break, money=[50, 50, money, 50], min_price=min_price
    )
    _check_sale(state, events, before, winner, price)


def _check_sale(state: Any, events: list[Any], before: dict[str, Any], winner: int, price: int) -> None:
    """S-5: the winner pays its bid to the bank and takes the lot; no winner: the lot stays."""
    n = state.num_players
    if winner < 0:
        assert events_of(events, EventKind.PURCHASE) == []
        assert [e["card"] for e in events_of(events, EventKind.NO_SALE)] == [30]
        assert state.lot == 30 and state.draw_pile == before["draw_pile"]
        assert state.money == before["money"]
        assert state.hands == before["hands"]
        return
    assert events_of(events, EventKind.PURCHASE) == [
        {"kind": "purchase", "round": 0, "player": winner, "card": 30, "price": price}
    ]
    expected_money = list(before["money"])
    expected_money[winner] -= price
    assert state.money == expected_money  # only the winner pays, to nobody
    assert sum(state.money) == sum(before["money"]) - price
    assert state.hands[winner] == [*before["hands"][winner], 30]
    assert all(state.hands[p] == before["hands"][p] for p in range(n) if p != winner)
    assert state.lot == 32  # the top of the deck is the last element of the draw pile
    assert state.draw_pile == before["draw_pile"][:-1]
    assert events_of(events, EventKind.NEW_LOT) == [{"kind": "new_lot", "round": 0, "card": 32}]


def test_unsold_lot_stays_for_next_round() -> None:  # S-5
    game = Game()
    state = make_state(lot=30, draw_pile=[31, 32])
    play_round(game, state, [A, A, A, C], [bid(5), bid(5), bid(0), D])
    assert state.lot == 30
    _, events = play_round(game, state, [A, A, A, C], [bid(5), bid(5), bid(4), D])
    assert events_of(events, EventKind.PURCHASE)[0]["card"] == 30
    assert 30 in state.hands[2] and state.money[2] == 46 and state.lot == 32


def test_auction_house_closes_when_deck_is_empty() -> None:  # S-5, S-3
    game = Game()
    state = make_state(lot=44, draw_pile=[], spare_to=3)
    assert game.legal_masks(state)[:, AUCTION].tolist() == [1, 1, 1, 1]
    _, events = play_round(game, state, [A, C, C, C], [bid(1), D, D, D])
    assert events_of(events, EventKind.AUCTION_CLOSED) == [{"kind": "auction_closed", "round": 0}]
    assert events_of(events, EventKind.NEW_LOT) == []
    assert state.lot == -1 and 44 in state.hands[0] and state.money[0] == 49
    masks = game.legal_masks(state)
    assert masks[:, AUCTION].tolist() == [0, 0, 0, 0]
    assert masks[:, CASTLE].tolist() == [1, 1, 1, 1]
    for _ in range(3):  # closed for the rest of the game
        with pytest.raises(IllegalActionError):
            game.step(state, [A, C, C, C])
        play_round(game, state, [C, C, C, C], [D, D, D, D])
        assert state.lot == -1 and not game.is_legal(state, 0, AUCTION)


# ---------------------------------------------------------------------------------------------- S-6


def castle_position(
    hands: list[list[int]],
    roles: list[int | None],
    positions: list[int] | None = None,
    start_player: int = 0,
    rules: RulesConfig | None = None,
) -> tuple[GameState, list[list[int]]]:
    """A castle case's position and its round (location step, action step): ``None`` seats go to
    the auction and bid 0, so the lot is never sold.

    A lone bidder gets no money (its only legal bid is then 0, S-4).  tests/environment/test_env_positions.py
    plays the same positions through the envs.
    """
    n = len(roles)
    bidders = [p for p, r in enumerate(roles) if r is None]
    money = [0 if bidders == [p] else (rules or STANDARD).starting_money for p in range(n)]
    state = make_state(
        n,
        rules,
        hands=hands,
        positions=positions or [0] * n,
        start_player=start_player,
        lot=43,
        money=money,
    )
    locations = [A if r is None else C for r in roles]
    actions = [bid(0) if r is None else r for r in roles]
    return state, [locations, actions]


def _castle_case(
    hands: list[list[int]],
    roles: list[int | None],
    positions: list[int] | None = None,
    start_player: int = 0,
    rules: RulesConfig | None = None,
) -> tuple[Any, list[Any]]:
    """Play a castle case's round (:func:`castle_position`): the state after it, the action step's events."""
    state, (locations, actions) = castle_position(hands, roles, positions, start_player, rules)
    _, events = play_round(Game(rules or STANDARD, len(roles)), state, locations, actions)
    return state, events


CASTLE_CASES: list[dict[str, Any]] = [
    dict(
        id="detective+thief+exhibitor: arrest, exhibition still scores",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, T, D, None],
        positions=[0, 5, 3, 0],
        expect_positions=[3, 3, 5, 0],
        thefts=[],
        scorer=0,
    ),
    dict(
        id="caught thief never goes below 0",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, T, D, T],
        positions=[0, 1, 0, 0],
        expect_positions=[3, 0, 2, 0],
        thefts=[],
        scorer=0,
    ),
    dict(
        id="two detectives each move 2 once, two thieves each back 2",
        hands=[[], [], [], []],
        roles=[T, T, D, D],
        positions=[4, 9, 0, 6],
        expect_positions=[2, 7, 2, 8],
        thefts=[],
        scorer=None,
    ),
    dict(
        id="detective without thief does nothing, lone exhibitor scores",
        hands=[[0, 8, 16, 24, 30], [], [], []],
        roles=[E, D, None, None],
        positions=[0, 4, 0, 0],
        expect_positions=[5, 4, 0, 0],
        thefts=[],
        scorer=0,
    ),
    dict(
        id="detective alone does nothing",
        hands=[[0, 8, 16], [], [], []],
        roles=[D, D, None, None],
        positions=[1, 2, 0, 0],
        expect_positions=[1, 2, 0, 0],
        thefts=[],
        scorer=None,
    ),
    dict(
        id="lone exhibitor scores its card count",
        hands=[[], [2, 8, 10, 16, 18, 24], [], []],
        roles=[None, E, None, None],
        positions=[0, 7, 0, 0],
        expect_positions=[0, 13, 0, 0],
        thefts=[],
        scorer=1,
    ),
    dict(
        id="two exhibitors: older equal-size exhibition scores, other does not move",
        hands=[[1, 9, 15], [2, 10, 18], [], []],
        roles=[E, E, None, None],
        positions=[0, 0, 0, 0],
        expect_positions=[0, 3, 0, 0],
        thefts=[],
        scorer=1,
    ),
    dict(
        id="two exhibitors: bigger exhibition beats older one",
        hands=[[1, 3, 9, 15], [0, 8, 16], [], []],
        roles=[E, E, D, None],
        positions=[0, 0, 0, 0],
        expect_positions=[4, 0, 0, 0],
        thefts=[],
        scorer=0,
    ),
    dict(
        id="thief without detective: no exhibition scores, thief takes the most useful card",
        # Thief holds rules {1,2}; display {3,4,5}: the young series-3 card completes a range.
        hands=[[15, 24, 30], [1, 9], [], []],
        roles=[E, T, None, None],
        positions=[0, 0, 0, 0],
        expect_positions=[0, 0, 0, 0],
        thefts=[(1, 0, 15)],
        scorer=None,
    ),
    dict(
        id="thief: no card helps, takes the oldest",
        hands=[[15, 24, 30], [], [], []],
        roles=[E, T, None, None],
        positions=[0, 0, 0, 0],
        expect_positions=[0, 0, 0, 0],
        thefts=[(1, 0, 24)],
        scorer=None,
    ),
    dict(
        id="thief: two cards help equally, takes the older of them (not the oldest shown)",
        hands=[[17, 19, 24], [0, 8], [], []],
        roles=[E, T, None, None],
        positions=[0, 0, 0, 0],
        expect_positions=[0, 0, 0, 0],
        thefts=[(1, 0, 17)],
        scorer=None,
    ),
    dict(
        id="thief: a card giving a bigger exhibition beats one giving an older one",
        # Thief holds rules {1,2,6,6,6}; series-5 card 31 makes {5,6,6,6} (4 cards).
        hands=[[16, 24, 31], [0, 8, 38, 40, 42], [], []],
        roles=[E, T, None, None],
        positions=[0, 0, 0, 0],
        expect_positions=[0, 0, 0, 0],
        thefts=[(1, 0, 31)],
        scorer=None,
    ),
    dict(
        id="several exhibitors, one thief: nobody scores, best exhibition is robbed",
        hands=[[1, 9, 15], [2, 10, 18], [], []],
        roles=[E, E, T, None],
        positions=[0, 0, 0, 0],
        expect_positions=[0, 0, 0, 0],
        thefts=[(2, 1, 2)],
        scorer=None,
    ),
    dict(
        id="thieves act furthest back first",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, T, T, T],
        positions=[0, 5, 2, 9],
        expect_positions=[0, 5, 2, 9],
        thefts=[(2, 0, 0), (1, 0, 8), (3, 0, 16)],
        scorer=None,
    ),
    dict(
        id="thief ties go in seat order from the start player (2)",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, T, T, T],
        positions=[0, 0, 0, 0],
        start_player=2,
        expect_positions=[0, 0, 0, 0],
        thefts=[(2, 0, 0), (3, 0, 8), (1, 0, 16)],
        scorer=None,
    ),
    dict(
        id="thief ties go in seat order from the start player (3)",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, T, T, T],
        positions=[0, 4, 4, 4],
        start_player=3,
        expect_positions=[0, 4, 4, 4],
        thefts=[(3, 0, 0), (1, 0, 8), (2, 0, 16)],
        scorer=None,
    ),
    dict(
        id="two thieves on the same space: seat order from the start player (1)",
        hands=[[], [0, 8, 16], [], []],
        roles=[T, E, None, T],
        positions=[3, 0, 0, 3],
        start_player=1,
        expect_positions=[3, 0, 0, 3],
        thefts=[(3, 1, 0), (0, 1, 8)],
        scorer=None,
    ),
    dict(
        id="second thief robs the exhibition that is best after the first theft",
        hands=[[0, 2, 8, 16], [23, 31, 39, 41], [], []],
        roles=[E, E, T, T],
        positions=[0, 0, 0, 1],
        expect_positions=[0, 0, 0, 1],
        thefts=[(2, 0, 0), (3, 1, 23)],
        scorer=None,
    ),
    dict(
        id="thief with no exhibition on display takes nothing",
        hands=[[0, 8, 16], [1, 9, 15], [], []],
        roles=[T, T, None, None],
        positions=[0, 0, 0, 0],
        expect_positions=[0, 0, 0, 0],
        thefts=[(0, None, None), (1, None, None)],
        scorer=None,
    ),
    dict(
        id="5 players: displays ranked on remaining cards even below min_exhibition",
        hands=[[2, 10, 18], [24, 30, 38], [], [], []],
        roles=[E, E, T, T, T],
        positions=[0, 0, 0, 1, 2],
        expect_positions=[0, 0, 0, 1, 2],
        thefts=[(2, 0, 2), (3, 1, 24), (4, 0, 10)],
        scorer=None,
    ),
    dict(
        id="5 players: a thief finding an emptied display takes nothing",
        hands=[[0, 8, 16], [], [], [], []],
        roles=[E, T, T, T, T],
        positions=[0, 0, 0, 0, 0],
        expect_positions=[0, 0, 0, 0, 0],
        thefts=[(1, 0, 0), (2, 0, 8), (3, 0, 16), (4, None, None)],
        scorer=None,
    ),
]


@pytest.mark.parametrize("case", CASTLE_CASES, ids=[c["id"] for c in CASTLE_CASES])
def test_castle_resolution(case: dict[str, Any]) -> None:  # S-6
    hands = case["hands"]
    state, events = _castle_case(hands, case["roles"], case["positions"], case.get("start_player", 0))
    assert state.positions == case["expect_positions"]
    thefts = [(t["player"], t["victim"], t["card"]) for t in events_of(events, EventKind.THEFT)]
    assert thefts == case["thefts"]
    scores = events_of(events, EventKind.SCORE)
    if case["scorer"] is None:
        assert scores == []
    else:
        assert [s["player"] for s in scores] == [case["scorer"]]
        assert scores[0]["cards"] == sorted(hands[case["scorer"]])
    # Cards: stolen ones moved (publicly) to the thief, everything else stayed in its hand.
    expected_hands = [sorted(h) for h in hands]
    for thief, victim, card in case["thefts"]:
        if card is not None:
            expected_hands[victim].remove(card)
            expected_hands[thief].append(card)
            assert card in state.public[thief]
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in expected_hands]
    arrests = events_of(events, EventKind.ARREST)
    roles = case["roles"]
    if T in roles and D in roles:
        assert len(arrests) == 1
        assert arrests[0]["thieves"] == [p for p, r in enumerate(roles) if r == T]
        assert arrests[0]["detectives"] == [p for p, r in enumerate(roles) if r == D]
    else:
        assert arrests == []


def test_castle_penalty_and_reward_are_configurable() -> None:  # S-6.1
    rules = STANDARD.replace(thief_penalty=3, detective_reward=5)
    state, _ = _castle_case([[0, 8, 16], [], [], []], [E, T, D, None], [0, 7, 1, 0], rules=rules)
    assert state.positions == [3, 4, 6, 0]


def test_exhibited_cards_are_public_and_return_to_hand() -> None:  # S-6.4, C-5
    state, events = _castle_case([[0, 8, 16, 44], [1, 9, 15], [], []], [E, E, D, None])
    assert state.public[0] == {0, 8, 16} and state.public[1] == {1, 9, 15}
    assert sorted(state.hands[0]) == [0, 8, 16, 44] and sorted(state.hands[1]) == [1, 9, 15]
    assert [e["player"] for e in events_of(events, EventKind.EXHIBIT)] == [0, 1]


def test_stolen_card_makes_thief_exhibit_later() -> None:  # S-6.2, S-4
    state, _ = _castle_case([[15, 24, 30], [1, 9], [], []], [E, T, None, None])
    game = Game()
    game.step(state, [C, C, A, A])
    assert game.is_legal(state, 1, EXHIBIT) and not game.is_legal(state, 0, EXHIBIT)


# ---------------------------------------------------------------------------------------------- S-7


END_CASES: list[dict[str, Any]] = [
    dict(
        id="exhibition past the finish",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, D, None, None],
        positions=[28, 0, 0, 0],
        winners=[0],
    ),
    dict(
        id="exactly on the finish",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, D, None, None],
        positions=[27, 20, 0, 0],
        winners=[0],
    ),
    dict(
        id="one short of the finish: game goes on",
        hands=[[0, 8, 16], [], [], []],
        roles=[E, D, None, None],
        positions=[26, 28, 0, 0],
        winners=None,
    ),
    dict(
        id="furthest along wins over better exhibition in hand",
        hands=[[0, 8, 16, 24], [1, 9, 15], [], []],
        roles=[E, D, T, None],
        positions=[26, 29, 10, 0],
        winners=[1],
    ),
    dict(
        id="tie on the track: older exhibition in hand wins (detective)",
        hands=[[1, 9, 15], [0, 8, 16], [], []],
        roles=[E, D, T, None],
        positions=[27, 28, 0, 0],
        winners=[1],
    ),
    dict(
        id="tie on the track: older exhibition in hand wins (exhibitor)",
        hands=[[1, 9, 15], [3, 11, 17], [], []],
        roles=[E, D, T, None],
        positions=[27, 28, 0, 0],
        winners=[0],
    ),
    dict(
        id="tie on the track: bigger exhibition in hand wins",
        hands=[[1, 9, 15], [3, 11, 17, 23], [], []],
        roles=[E, D, T, None],
        positions=[27, 28, 0, 0],
        winners=[1],
    ),
    dict(
        id="tie on the track: exhibition beats none",
        hands=[[], [0, 8], [2, 10, 18], []],
        roles=[T, D, D, None],
        positions=[5, 28, 28, 0],
        winners=[2],
    ),
    dict(
        id="still tied (no exhibition in hand): shared win",
        hands=[[], [0, 8], [2, 10], []],
        roles=[T, D, D, T],
        positions=[5, 28, 28, 0],
        winners=[1, 2],
    ),
]


@pytest.mark.parametrize("case", END_CASES, ids=[c["id"] for c in END_CASES])
def test_end_of_game_and_winner(case: dict[str, Any]) -> None:  # S-7
    state, events = _castle_case(case["hands"], case["roles"], case["positions"])
    game = Game()
    if case["winners"] is None:
        assert not state.done and state.winners == []
        assert events_of(events, EventKind.GAME_END) == []
        return
    assert state.terminated and not state.truncated and state.done
    assert state.winners == case["winners"]
    end = events_of(events, EventKind.GAME_END)
    assert end == [{"kind": "game_end", "round": 0, "winners": case["winners"], "positions": state.positions}]
    assert max(state.positions) >= 30
    keys = game.rank_keys(state)
    assert all(keys[w] == max(keys) for w in state.winners)
    with pytest.raises(IllegalActionError):
        game.step(state, [C, C, C, C])


def test_finish_is_configurable() -> None:  # S-7
    rules = STANDARD.replace(finish=3)
    state, _ = _castle_case([[0, 8, 16], [], [], []], [E, D, None, None], rules=rules)
    assert state.terminated and state.winners == [0]


# ---------------------------------------------------------------------------------------------- S-8


@pytest.mark.parametrize("max_rounds", [1, 2, 5])
def test_truncation_after_max_rounds(max_rounds: int) -> None:  # S-8
    rules = STANDARD.replace(max_rounds=max_rounds)
    game = Game(rules, 4)
    state = make_state(rules=rules)
    for r in range(max_rounds):
        assert not state.done
        _, events = play_round(game, state, [C, C, C, C], [D, D, D, D])
        assert state.round == r + 1
    assert state.truncated and not state.terminated and state.winners == []
    assert events_of(events, EventKind.TRUNCATED) == [
        {"kind": "truncated", "round": max_rounds - 1, "positions": [0, 0, 0, 0]}
    ]
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        game.step(state, [C, C, C, C])
    assert state.to_dict() == before


def test_finishing_in_the_last_round_is_a_decided_game() -> None:  # S-7, S-8
    rules = STANDARD.replace(max_rounds=2)
    game = Game(rules, 4)
    state = make_state(rules=rules, hands=[[0, 8, 16], [], [], []], positions=[27, 0, 0, 0])
    play_round(game, state, [C, C, C, C], [D, D, D, D])
    assert not state.done
    play_round(game, state, [C, C, C, C], [E, D, D, D])
    assert state.terminated and not state.truncated and state.winners == [0]


def test_default_round_limit_is_100() -> None:  # S-8
    game = Game()
    state = game.new_state(0)
    rounds = 0
    while not state.done:
        play_round(game, state, [C, C, C, C], [T, T, T, T])  # nobody ever moves
        rounds += 1
    assert rounds == 100 and state.truncated and state.round == 100
