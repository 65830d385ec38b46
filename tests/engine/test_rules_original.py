"""The ``original`` ruleset (RULES.md O-1 … O-9), table-driven on hand-made states.

Card ids are those of the 2-5 player deck (see the table in test_rules_standard.py):
engine series 0 = cards 0-7, series 1 = 8-14, series 2 = 15-22, series 3 = 23-29,
series 4 = 30-37, series 5 = 38-44; within a series, even ids are the older cards.
With 4 players seat ``i`` holds thieves ``i+1`` and ``i+5`` (O-2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hoity_env.engine import ConfigError, EventKind, Game, IllegalActionError, RulesConfig, StateError
from hoity_env.engine.actions import AUCTION, CASTLE, ORIGINAL_INDICES, check_action, original_layout
from hoity_env.engine.config import ORIGINAL
from hoity_env.engine.original.rules import competition_ranks
from tests.helpers import events_of, make_original, play_round

A, C = AUCTION, CASTLE
E, TL, TH, D, AT, CHECK0 = ORIGINAL_INDICES
GAME = Game("original", 4)
RUN_S0 = [0, 2, 8, 16]  # series 0, 0, 1, 2: an exhibition of 4 (oldest 1520)
RUN_S3 = [24, 26, 30, 38]  # series 3, 3, 4, 5: an exhibition of 4 (oldest 1628)
RUN_S1_3 = [10, 18, 28]  # series 1, 2, 3: an exhibition of 3


def chk(value: int, lot: int = 0) -> int:
    return check_action(value, lot)


# ---------------------------------------------------------------------------------------------- O-1


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_setup_two_piles_two_lots(num_players: int) -> None:  # O-1
    game = Game("original", num_players)
    state = game.new_state(3)
    size = 51 if num_players == 6 else 45
    rest = size - 4 * num_players
    assert [len(h) for h in state.hands] == [4] * num_players
    assert [len(p) for p in state.piles] == [(rest + 1) // 2 - 1, rest // 2 - 1]  # one card each is up
    assert min(state.lots) >= 0 and state.lot == -1 and state.draw_pile == []
    assert state.positions == [0] * num_players and state.rules.finish == 40
    places = [c for h in state.hands for c in h] + [c for p in state.piles for c in p] + state.lots
    assert sorted(places) == list(range(size))


# ---------------------------------------------------------------------------------------------- O-2


def test_player_cards_checks_and_thieves() -> None:  # O-2
    state = Game("original", 6).new_state(0)
    assert state.checks == [
        [5, 10, 15, 20],
        [6, 9, 16, 19],
        [7, 8, 17, 18],
        [4, 11, 14, 21],
        [3, 12, 13, 22],
        [1, 2, 23, 24],
    ]
    assert all(sum(c) == 50 for c in state.checks) and state.money == [50] * 6
    assert state.thieves == ((1, 7), (2, 8), (3, 9), (4, 10), (5, 11), (6, 12))
    assert GAME.new_state(0).thieves == ((1, 5), (2, 6), (3, 7), (4, 8))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"checks": ((5, 10, 15, 20),) * 6}, "repeats a value"),
        ({"checks": ((1, 2, 3),) * 6}, "tuples of 4 ints"),
        ({"checks": ((0, 10, 15, 20), *ORIGINAL.checks[1:])}, "'checks'"),
        ({"thief_numbers": ((1, 2),) * 6}, "repeats a number"),
        ({"thief_numbers": ((1, 2), (3, 4))}, "one pair per seat"),
        ({"castle_rewards": ((3, 1),) * 19}, "one pair per castle"),
        ({"castle_rewards": ((3, -1),) * 20}, "'castle_rewards'"),
        ({"final_bonus": (8,)}, "'final_bonus'"),
        ({"club_reward": "3,1"}, "'club_reward'"),
    ],
)
def test_reconstructed_numbers_are_validated(changes: dict[str, Any], message: str) -> None:  # O-2 O-8 O-9
    with pytest.raises(ConfigError, match=message):
        ORIGINAL.replace(**changes)


def test_configured_numbers_are_used() -> None:  # O-2 O-9
    rules = ORIGINAL.replace(
        thief_numbers=((11, 12), (13, 14), (15, 16), (17, 18), (19, 20), (21, 22)),
        finish=10,
        castle_rewards=((1, 0),) * 5,
    )
    state = Game(rules, 4).new_state(0)
    assert state.thieves == ((11, 12), (13, 14), (15, 16), (17, 18))
    assert rules.castle_reward(9) == (1, 0)
    assert RulesConfig.from_dict(rules.to_dict()) == rules


# ---------------------------------------------------------------------------------------------- O-3


@pytest.mark.parametrize(
    ("fields", "auction_legal"),
    [
        ({}, [1, 1, 1, 1]),
        # seat 0 has no check but free thieves; seat 1 no check and both thieves jailed
        ({"checks": [[], [], [7, 8, 17, 18], [4, 11, 14, 21]], "jail": [2, 6]}, [1, 0, 1, 1]),
        ({"lots": [-1, -1], "piles": [[], []], "spare_to": 0}, [0, 0, 0, 0]),
        ({"lots": [-1, 40], "piles": [[], []], "spare_to": 0}, [1, 1, 1, 1]),
    ],
)
def test_location_mask(fields: dict[str, Any], auction_legal: list[int]) -> None:  # O-3
    state = make_original(**fields)
    masks = GAME.legal_masks(state)
    assert masks[:, A].tolist() == auction_legal
    assert masks[:, C].tolist() == [1, 1, 1, 1]  # the Castle is always legal
    assert masks.sum(axis=1).tolist() == [1 + a for a in auction_legal]


# ---------------------------------------------------------------------------------------------- O-4


def test_action_masks_from_checks_lots_and_thieves() -> None:  # O-4
    state = make_original(hands=[RUN_S0, [], [], []], jail=[5], checks=[[5, 10], [6, 9, 16, 19], [], []])
    GAME.step(state, [C, A, A, C])
    legal = [GAME.legal_actions(state, p) for p in range(4)]
    assert legal[0] == [E, TL, D]  # thief 5 (seat 0's higher) is in jail
    assert legal[1] == [AT] + [chk(v, lot) for v in (6, 9, 16, 19) for lot in (0, 1)]
    assert legal[2] == [AT]  # no check left: only a thief
    assert legal[3] == [TL, TH, D]  # no exhibition
    with pytest.raises(IllegalActionError):
        GAME.step(state.clone(), [TH, chk(6), AT, D])


def test_original_indices_follow_the_layout() -> None:  # O-4
    """The one namespace the rules, the batched engine and the agents unpack is the layout's order."""
    layout = original_layout(ORIGINAL.max_check)
    assert tuple(range(layout.start("castle"), layout.start("auction_thief"))) == (E, TL, TH, D)
    assert (layout.start("auction_thief"), layout.start("check")) == (AT, CHECK0)
    assert check_action(1, 0) == CHECK0


def test_only_lots_on_display_can_be_named() -> None:  # O-4
    state = make_original(lots=[-1, 40], piles=[[], [41]], spare_to=3)
    GAME.step(state, [A, C, C, C])
    assert GAME.legal_actions(state, 0) == [AT] + [chk(v, 1) for v in (5, 10, 15, 20)]


# ---------------------------------------------------------------------------------------------- O-5


def test_lone_check_pays_full_value() -> None:  # O-5.1
    state = make_original(lots=[40, 41], piles=[[42, 43], [44]], spare_to=3)
    _, events = play_round(GAME, state, [A, C, C, C], [chk(20, 1), D, D, D])
    assert events_of(events, EventKind.PURCHASE) == [
        {"kind": "purchase", "round": 0, "player": 0, "card": 41, "price": 20}
    ]
    assert state.checks[0] == [5, 10, 15] and state.money[0] == 30 and state.register == [20]
    assert state.hands[0] == [41] and state.lots == [40, 44] and state.piles[1] == []


def test_highest_check_wins_others_return() -> None:  # O-5.1
    state = make_original(lots=[40, 41], piles=[[42], [43]], spare_to=3)
    _, events = play_round(GAME, state, [A, A, A, C], [chk(20, 0), chk(19, 1), chk(18, 0), D])
    assert [e["player"] for e in events_of(events, EventKind.PURCHASE)] == [0]
    assert state.hands[0] == [40] and state.lots == [42, 41]
    assert state.checks[1] == [6, 9, 16, 19] and state.checks[2] == [7, 8, 17, 18]
    assert state.register == [20]


def test_auction_thief_takes_the_winning_check_and_bids_with_it() -> None:  # O-5.2
    state = make_original()
    _, events = play_round(GAME, state, [A, A, C, C], [chk(15, 0), AT, D, D])
    assert events_of(events, EventKind.CHECK_THEFT) == [
        {"kind": "check_theft", "round": 0, "thieves": [1], "player": 1, "victim": 0, "check": 15}
    ]
    assert state.checks[1] == [6, 9, 15, 16, 19] and state.register == [] and state.jail == []
    assert state.free_thieves(1) == [2, 6]  # auction thieves never go to jail
    # Next round the stolen check is in seat 1's hand and wins with it.
    GAME.step(state, [C, A, C, C])
    assert chk(15, 0) in GAME.legal_actions(state, 1)
    GAME.step(state, [D, chk(15, 0), D, D])
    assert state.checks[1] == [6, 9, 16, 19] and state.register == [15]


def test_two_auction_thieves_cancel() -> None:  # O-5.2
    state = make_original()
    _, events = play_round(GAME, state, [A, A, A, C], [chk(15, 0), AT, AT, D])
    assert events_of(events, EventKind.CHECK_THEFT)[0]["player"] is None
    assert state.register == [15] and state.checks[0] == [5, 10, 20]
    assert state.checks[1] == [6, 9, 16, 19] and state.checks[2] == [7, 8, 17, 18]


def test_auction_thief_without_a_check_takes_nothing() -> None:  # O-5.2
    state = make_original()
    lots = list(state.lots)
    _, events = play_round(GAME, state, [A, C, C, C], [AT, D, D, D])
    assert not events_of(events, EventKind.PURCHASE) and state.lots == lots
    assert [e["card"] for e in events_of(events, EventKind.NO_SALE)] == lots


def test_both_piles_empty_close_the_auction_house() -> None:  # O-5.1 O-8
    state = make_original(lots=[40, 41], piles=[[], []], spare_to=3)
    _, events = play_round(GAME, state, [A, A, C, C], [chk(20, 0), chk(19, 1), D, D])
    assert state.lots == [-1, 41] and not events_of(events, EventKind.AUCTION_CLOSED)
    _, events = play_round(GAME, state, [A, C, C, C], [chk(15, 1), D, D, D])
    assert state.lots == [-1, -1] and events_of(events, EventKind.AUCTION_CLOSED)
    assert GAME.legal_masks(state)[:, A].tolist() == [0, 0, 0, 0]


# ---------------------------------------------------------------------------------------------- O-6


def test_thieves_rob_every_exhibition_in_number_order() -> None:  # O-6.2
    # Seat 2 plays thief 7 (its higher), seat 3 thief 4 (its lower): 7 steals first, from both.
    state = make_original(hands=[RUN_S0, RUN_S3, [], []])
    _, events = play_round(GAME, state, [C, C, C, C], [E, E, TH, TL])
    thefts = [(e["player"], e["victim"]) for e in events_of(events, EventKind.THEFT)]
    assert thefts == [(2, 0), (2, 1), (3, 0), (3, 1)]
    assert len(state.hands[2]) == 2 and len(state.hands[3]) == 2
    assert state.positions == [3, 1, 0, 0]  # exhibitions scored before the thefts
    assert state.jail == []  # no detective: the thieves go home


def test_thieves_steal_even_when_arrested() -> None:  # O-6.2 O-6.3
    state = make_original(hands=[RUN_S0, [], [], []])
    _, events = play_round(GAME, state, [C, C, C, C], [E, TH, D, D])
    assert [e["player"] for e in events_of(events, EventKind.THEFT)] == [1]
    assert len(state.hands[1]) == 1 and state.jail == [6]
    assert events_of(events, EventKind.ARREST)[0]["thieves"] == [1]


def test_thief_card_choice_helps_its_own_exhibition() -> None:  # O-6.2 (S-6.2 choice)
    # The thief holds series 1 and 2: a series-0 or series-3 card extends its run; the older one wins.
    state = make_original(hands=[RUN_S3, [9, 15], [], []])
    play_round(GAME, state, [C, C, C, C], [E, TL, D, D])
    assert 24 in state.hands[1]  # series 3 joins 1-2; 24 (1628) is older than 26


def test_detectives_paid_by_competition_rank() -> None:  # O-6.3
    # 5 players: positions give ranks 1, 2, 3, 3, 5; every non-thief plays detective.
    game = Game("original", 5)
    state = make_original(5, positions=[9, 7, 5, 5, 2])
    play_round(game, state, [C] * 5, [D, D, D, D, TL])
    assert state.positions == [10, 9, 8, 8, 2]
    assert competition_ranks([9, 7, 5, 5, 2]) == [1, 2, 3, 3, 5]


def test_detective_without_thief_does_nothing() -> None:  # O-6.3
    state = make_original()
    _, events = play_round(GAME, state, [C, C, C, C], [D, D, D, D])
    assert not events_of(events, EventKind.ARREST) and state.positions == [0] * 4


# ---------------------------------------------------------------------------------------------- O-7


def test_jail_pushes_out_the_oldest_thief() -> None:  # O-7
    state = make_original(jail=[8, 3, 6, 5])  # cell 1 … cell 4; 5 (seat 0) is the oldest
    assert GAME.legal_masks(state)[:, A].tolist() == [1, 1, 1, 1]
    _, events = play_round(GAME, state, [C, C, C, C], [D, TL, D, D])  # seat 1 plays thief 2
    assert state.jail == [2, 8, 3, 6]
    assert events_of(events, EventKind.JAIL)[0]["released"] == [5]
    assert state.free_thieves(0) == [1, 5]


def test_jailed_thief_cannot_be_played() -> None:  # O-7
    state = make_original(jail=[1, 5])
    GAME.step(state, [C, C, C, C])
    assert GAME.legal_actions(state, 0) == [D]


# ---------------------------------------------------------------------------------------------- O-8


def test_final_exhibition_and_winner() -> None:  # O-8
    # Seat 0 reaches the dinner table (39 + 6, castle 20); final: seat 1 (s0 run) +8, seat 0 +4.
    state = make_original(hands=[RUN_S3, RUN_S0, RUN_S1_3, []], positions=[39, 35, 30, 0])
    _, events = play_round(GAME, state, [C, C, C, C], [E, D, D, D])
    assert state.terminated
    assert [(e["player"], e["reason"]) for e in events_of(events, EventKind.MOVE)][-2:] == [
        (1, "final exhibition"),
        (0, "final exhibition"),
    ]
    assert state.positions == [49, 43, 30, 0] and state.winners == [0]


# ---------------------------------------------------------------------------------------------- O-9


@pytest.mark.parametrize(
    ("position", "reward"),
    [
        (0, (3, 1)),
        (1, (3, 1)),
        (10, (3, 1)),
        (11, (4, 2)),
        (20, (4, 2)),
        (21, (5, 3)),
        (31, (6, 4)),
        (40, (6, 4)),
    ],
)
def test_castle_reward_table(position: int, reward: tuple[int, int]) -> None:  # O-9
    assert ORIGINAL.castle_reward(position) == reward


# ------------------------------------------------------------------------------------- scenarios

ANY = ...
"""An entry of an expected list that the scenario does not check."""

SCENARIOS: list[dict[str, Any]] = [
    dict(
        # Leader on space 11 (castle 6: (4, 2)); the three exhibitions rank s0-run, s3-run, s1-3-run.
        id="O-6.1 O-9 exhibitions score big and small of the leader's castle",
        position=dict(hands=[RUN_S0, RUN_S3, RUN_S1_3, []], positions=[0, 0, 0, 11]),
        steps=[[C, C, C, C], [E, E, E, D]],
        expect=dict(positions=[4, 2, 0, 11]),
    ),
    dict(
        id="O-6.1 a lone exhibition moves big",
        position=dict(hands=[RUN_S0, [], [], []]),
        steps=[[C, C, C, C], [E, D, D, D]],
        expect=dict(positions=[3, ANY, ANY, ANY]),  # club room (3, 1)
    ),
    dict(
        # Leader (seat 0) on space 10: castle 5 (3, 1); its own exhibition takes it into castle 7.
        id="O-6.1 O-9 the reward is read before moving",
        position=dict(hands=[RUN_S0, RUN_S3, [], []], positions=[10, 9, 0, 0]),
        steps=[[C, C, C, C], [E, E, D, D]],
        expect=dict(positions=[13, 10, ANY, ANY]),
    ),
    dict(
        # Seat 0 exhibits from 0 to 3, passing seat 1 (on 2): seat 1's detective is now rank 2.
        id="O-6.3 the detective rank is taken after exhibitions score",
        position=dict(hands=[RUN_S0, [], [], []], positions=[0, 2, 0, 0]),
        steps=[[C, C, C, C], [E, D, TL, D]],
        expect=dict(positions=[ANY, 2 + 2, ANY, 0 + 3]),
    ),
    dict(
        id="O-7 thieves caught together enter the jail lowest first",
        position=dict(jail=[8]),
        steps=[[C, C, C, C], [TH, TL, D, D]],  # thieves 5 and 2
        expect=dict(jail=[5, 2, 8]),  # 2 entered first, then 5 pushed it on
    ),
    dict(
        # Detectives: seat 0 (rank 1) 39 -> 40 reaches the table, seat 1 (rank 2) 34 -> 36.
        # Final: seat 1 (s0 run, oldest 1520) +8 -> 44, seat 0 (s3 run) +4 -> 44: seat 1 wins the tie.
        id="O-8 a tie goes to the better final exhibition",
        position=dict(hands=[RUN_S3, RUN_S0, [], []], positions=[39, 34, 0, 0]),
        steps=[[C, C, C, C], [D, D, TL, D]],
        expect=dict(positions=[44, 44, ANY, ANY], winners=[1]),
    ),
    dict(
        id="O-8 the game is not over before the dinner table",
        position=dict(hands=[RUN_S0, [], [], []], positions=[30, 0, 0, 0]),
        steps=[[C, C, C, C], [E, D, D, D]],
        expect=dict(positions=[35, ANY, ANY, ANY], done=False),  # castle 15: (5, 3)
    ),
]
"""Positions set up by hand, the steps played from them and what the rules make of them
(``ANY``: not checked); tests/environment/test_env_positions.py plays the same through the envs."""


def check_expected(state: Any, expect: dict[str, Any]) -> None:
    """Each field of ``expect`` as ``state`` holds it (list entries ``ANY`` are not compared)."""
    for field, value in expect.items():
        got = getattr(state, field)
        if isinstance(value, list):
            got = [g if v is not ANY else ANY for g, v in zip(got, value, strict=True)]
        assert got == value, f"{field}: {got} != {value}"


@pytest.mark.parametrize("case", SCENARIOS, ids=[c["id"] for c in SCENARIOS])
def test_scenario(case: dict[str, Any]) -> None:  # the rule ids are in each case's id
    state = make_original(**case["position"])
    for joint in case["steps"]:
        GAME.step(state, joint)
    check_expected(state, case["expect"])


# --------------------------------------------------------------------------------------- restore


def test_state_round_trip_and_validation() -> None:  # O-1 … O-7 (state invariants)
    state = make_original(hands=[RUN_S0, [], [], []], jail=[5, 2])
    play_round(GAME, state, [A, A, C, C], [chk(20), AT, D, TL])
    d = state.to_dict()
    assert type(state).from_dict(d, hand_made=True) == state  # a hand-made position
    bad = dict(d, jail=[5, 5])
    with pytest.raises(StateError, match="jail"):
        GAME.state_from_dict(bad)
    with pytest.raises(StateError, match="every check"):
        GAME.state_from_dict(dict(d, register=[*d["register"], d["checks"][1][0]]))
    with pytest.raises(StateError, match="lots"):
        GAME.state_from_dict(dict(d, lots=[-1, d["lots"][1]]))


def test_random_games_end_and_round_trip() -> None:  # O-1 … O-9
    rng = np.random.default_rng(0)
    for seed in range(5):
        state = GAME.new_state(seed)
        while not state.done:
            masks = GAME.legal_masks(state)
            GAME.step(state, [int(rng.choice(np.flatnonzero(m))) for m in masks])
            assert GAME.state_from_dict(state.to_dict()) == state
        assert state.terminated and state.winners
