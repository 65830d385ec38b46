"""The batched engine against the one-game engine (issue 8, item 7; docs/design.md §1, §7).

:class:`~hoity_env.engine.game.BatchedGame` must play exactly the rules of
:class:`~hoity_env.engine.game.Game`.  The tests here:

* play random legal games side by side in both engines (2-6 players, both tie
  rules, and shortened rules that truncate) and compare, at every step, every
  game's whole state (read back with ``to_states``; hands sorted, since hand
  order is no part of the game), the legal masks, every seat's observation and
  the global state (:class:`StandardBatchObserver` against :class:`StandardObserver`);
* play hand-made positions (tests/helpers.py) in both engines, table-driven by
  rule id, and check that ``from_states``/``to_states`` round-trip;
* check determinism (game ``k``'s deal does not depend on B), that
  ``validate=True`` rejects bad actions with the batch left bit-identical, the
  batched invariants as hypothesis properties, and the memory budget.

``benchmarks/differential_batched.py`` runs the same side-by-side check over
100,000 games; the suite keeps to a few thousand (batched, so the file stays fast).
"""

from __future__ import annotations

import copy
from dataclasses import fields
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hoity_env.engine import STANDARD, BatchedGame, Game, GameState, IllegalActionError, RulesConfig
from hoity_env.engine.actions import AUCTION, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.batched.state import BatchState, refresh_derived
from hoity_env.engine.errors import StateError
from hoity_env.engine.standard.batch_observation import StandardBatchObserver
from hoity_env.engine.standard.observation import StandardObserver
from tests.helpers import SideBySide, bid, make_state

A, C = AUCTION, CASTLE
E, T, D = EXHIBIT, THIEF, DETECTIVE

GAMES_PER_CONFIG = 16
"""Random games per (player count, tie rule) in the side-by-side test: 10 configurations × 16
= 160 games, plus 80 with other rule numbers; a sample, kept small so that the suite takes
minutes.  The volume is ``benchmarks/differential_batched.py``, which ``.ci/run`` runs on 5,000
standard and 1,500 original games (the same comparisons at every step; docs/development.md)."""


# ------------------------------------------------------------------------------------------ helpers


def normalized(state: GameState) -> dict[str, Any]:
    """Every field of the game, hands sorted (the batched engine keeps hands as sets)."""
    return state.comparable()


def arrays_of(state: BatchState) -> dict[str, Any]:
    """Every field of a batch (arrays copied, generators as their bit-generator states)."""
    out: dict[str, Any] = {}
    for f in fields(state):
        value = getattr(state, f.name)
        out[f.name] = [g.bit_generator.state for g in value] if f.name == "rngs" else value.copy()
    return out


def assert_same_arrays(before: dict[str, Any], after: BatchState) -> None:
    """The batch is bit-identical to the snapshot ``before`` (dtype, shape and values of every field)."""
    now = arrays_of(after)
    assert list(now) == list(before)
    for name, value in before.items():
        if name == "rngs":
            assert now[name] == value, name
        else:
            assert now[name].dtype == value.dtype and now[name].shape == value.shape, name
            assert np.array_equal(now[name], value), name


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``[B, n]`` actions drawn uniformly among each seat's legal ones."""
    u = rng.random(masks.shape)
    return np.argmax(np.where(masks == 1, u, -1.0), axis=2)  # type: ignore[no-any-return]


def play_side_by_side(rules: RulesConfig, n: int, games: int, batch: int, seed0: int) -> tuple[int, int]:
    """Play ``games`` random legal games in both engines (seeds ``seed0 …``), comparing every step.

    Finished games are replaced by the next seed in both engines (``reset_games``), so the batch
    stays full and mixes games in different rounds and phases.  Returns (games, batched steps).
    """
    game, batched = Game(rules, n), BatchedGame(rules, n)
    scalar_obs, batch_obs = StandardObserver(rules, n), StandardBatchObserver(rules, n)
    both = SideBySide(game, batched, games, batch, seed0)
    finished = steps = 0
    while live := both.live():
        state = both.state
        masks = batched.legal_masks(state)
        forced = batched.action_masks(state, location=np.ones(state.batch_size, dtype=bool))
        obs, glob = batch_obs.observations(state), batch_obs.global_states(state)
        for k, s in live:
            where = f"seat slot {k}, round {s.round}, {s.phase.name.lower()} step"
            assert np.array_equal(game.legal_masks(s), masks[k]), f"masks differ: {where}"
            assert np.array_equal(game.location_masks(s), forced[k]), f"location masks differ: {where}"
            assert np.array_equal(scalar_obs.observations(s), obs[k]), f"observations differ: {where}"
            assert np.array_equal(scalar_obs.global_state(s), glob[k]), f"global states differ: {where}"
        played = both.step(random_legal(masks, both.rng))
        steps += 1
        assert played.tolist() == [s is not None for s in both.scalars]
        slots = [k for k, _ in live]
        for (k, s), back in zip(live, batched.to_states(state, slots), strict=True):
            assert normalized(back) == normalized(s), f"state differs: slot {k}, round {s.round}"
        ended = [k for k, s in live if s.done]
        finished += len(ended)
        both.replace(ended)
    return finished, steps


# ---------------------------------------------------------------------- (a, b) side by side


def test_normalized_covers_every_serialized_field() -> None:
    """``normalized`` compares every field ``to_dict`` serializes, so no state difference is missed."""
    state = Game(STANDARD, 3).new_state(4)
    keys = set(normalized(state))
    assert keys == set(state.to_dict()) - {"version"} | {"num_players", "rules"}


@pytest.mark.parametrize("tie_break", ["unique", "priority"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_random_play_matches_one_game_engine(num_players: int, tie_break: str) -> None:  # C-4, S-1…S-8
    rules = RulesConfig().replace(tie_break=tie_break)
    games, steps = play_side_by_side(rules, num_players, GAMES_PER_CONFIG, 32, 10_000 * num_players)
    assert games == GAMES_PER_CONFIG
    assert steps >= 2 * 3  # several rounds each (a round is two steps)


@pytest.mark.parametrize(
    ("num_players", "changes"),
    [
        (4, dict(max_rounds=6)),  # S-8: many truncations
        (3, dict(starting_money=3, min_price=2, tie_break="priority")),  # S-4: lone bidders who cannot pay
        (5, dict(finish=8, thief_penalty=3, detective_reward=4)),  # S-6.1, S-7: short games
        (6, dict(min_exhibition=2, starting_antiques=2)),  # C-3, S-1
    ],
)
def test_random_play_matches_with_other_rule_numbers(num_players: int, changes: dict[str, Any]) -> None:
    rules = STANDARD.replace(**changes)
    games, _ = play_side_by_side(rules, num_players, 20, 20, 77 + num_players)
    assert games == 20


# ---------------------------------------------------------------------- (c) hand-made positions


def _round(locations: list[int], actions: list[int]) -> list[list[int]]:
    return [locations, actions]


_POSITIONS: list[dict[str, Any]] = [
    dict(
        id="S-6.2 two exhibitors, two thieves: second thief robs the display best after the first theft",
        n=4,
        state=dict(hands=[[0, 2, 8, 16], [23, 31, 39, 41], [], []], lot=43, positions=[0, 0, 0, 1]),
        steps=_round([C, C, C, C], [E, E, T, T]),
    ),
    dict(
        id="S-6.2 two thieves on one space go in seat order from the start player",
        n=4,
        state=dict(hands=[[], [0, 8, 16], [], []], lot=43, positions=[3, 0, 0, 3], start_player=1),
        steps=_round([C, C, A, C], [T, E, bid(1), T]),
    ),
    dict(
        id="S-6.2 five players: displays ranked on remaining cards, emptied display yields nothing",
        n=5,
        state=dict(hands=[[0, 8, 16], [], [], [], []], lot=43),
        steps=_round([C, C, C, C, C], [E, T, T, T, T]),
    ),
    dict(
        id="S-6.1 arrest: thieves back (not below 0), detectives forward, exhibition still scores",
        n=4,
        state=dict(hands=[[0, 8, 16], [], [], []], lot=43, positions=[0, 1, 3, 0]),
        steps=_round([C, C, C, C], [E, T, D, T]),
    ),
    dict(
        id="S-6.3 two exhibitors: bigger exhibition beats older one",
        n=4,
        state=dict(hands=[[1, 3, 9, 15], [0, 8, 16], [], []], lot=43),
        steps=_round([C, C, C, A], [E, E, D, bid(1)]),
    ),
    dict(
        id="S-5 unique: equal bids void each other, highest remaining wins",
        n=4,
        state=dict(lot=30, draw_pile=[31, 32]),
        steps=_round([A, A, A, A], [bid(5), bid(5), bid(4), bid(0)]),
    ),
    dict(
        id="S-5 unique: all bids equal, no sale, lot stays",
        n=4,
        state=dict(lot=30, draw_pile=[31, 32]),
        steps=_round([A, A, A, A], [bid(5), bid(5), bid(5), bid(5)]),
    ),
    dict(
        id="S-5 priority: equal highest bids go to seat order from the start player",
        n=4,
        rules=dict(tie_break="priority"),
        state=dict(lot=30, draw_pile=[31, 32], start_player=2),
        steps=_round([A, A, A, A], [bid(5), bid(5), bid(4), bid(0)]),
    ),
    dict(
        id="S-5 priority: equal bids, winner after the start player wraps round",
        n=6,
        rules=dict(tie_break="priority"),
        state=dict(lot=30, draw_pile=[31, 32], start_player=5),
        steps=_round([A, A, C, A, C, A], [bid(7), bid(3), D, bid(7), D, bid(2)]),
    ),
    dict(
        id="S-4, S-5 lone bidder pays min_price",
        n=3,
        state=dict(lot=30, draw_pile=[31, 32], money=[50, 1, 50]),
        steps=_round([C, A, C], [D, bid(1), D]),
    ),
    dict(
        id="S-5, S-3 last card sold closes the Auction House",
        n=4,
        state=dict(lot=44, draw_pile=[], money=[50, 50, 50, 50]),
        spare_to=3,
        steps=[*_round([A, C, C, C], [bid(1), D, D, D]), *_round([C, C, C, C], [T, T, D, E])],
    ),
    dict(
        id="S-7 tie on the track: better exhibition in hand wins",
        n=4,
        state=dict(hands=[[1, 9, 15], [3, 11, 17, 23], [], []], lot=43, positions=[27, 28, 0, 0]),
        steps=_round([C, C, C, A], [E, D, T, bid(1)]),
    ),
    dict(
        id="S-7 still tied: shared win",
        n=4,
        state=dict(hands=[[], [0, 8], [2, 10], []], lot=43, positions=[5, 28, 28, 0]),
        steps=_round([C, C, C, C], [T, D, D, T]),
    ),
    dict(
        id="S-8 truncation at max_rounds",
        n=2,
        rules=dict(max_rounds=2),
        state=dict(lot=43),
        steps=[*_round([C, C], [D, D]), *_round([C, C], [T, D])],
    ),
    dict(
        id="C-4 a position in the action step (locations revealed) resolves the same",
        n=4,
        state=dict(
            hands=[[0, 8, 16], [1, 9], [], []],
            public=[[0], [9], [], []],
            lot=30,
            draw_pile=[31],
            phase="action",
            locations=[C, C, A, A],
            round=7,
            start_player=3,
            tallies=[[1, 6, 2, 1, 3, 9], [4, 3, 0, 2, 1, 20], [0, 7, 0, 0, 7, 0], [7, 0, 0, 0, 0, 13]],
            # A reachable last round (the state reader checks it against the tallies).
            last_locations=[C, A, C, A],
            last_actions=[D, bid(5), D, bid(2)],
        ),
        steps=[[E, T, bid(3), bid(3)]],
    ),
]


def _position(case: dict[str, Any]) -> tuple[RulesConfig, GameState]:
    rules = STANDARD.replace(**case.get("rules", {}))
    state = make_state(case["n"], rules, spare_to=case.get("spare_to"), **case["state"])
    return rules, state


@pytest.mark.parametrize("case", _POSITIONS, ids=[c["id"] for c in _POSITIONS])
def test_hand_made_position_plays_the_same(case: dict[str, Any]) -> None:
    rules, start = _position(case)
    game, batched = Game(rules, case["n"]), BatchedGame(rules, case["n"])
    scalar = start.clone()
    state = batched.from_states([start])
    assert normalized(batched.to_states(state)[0]) == normalized(start)
    for actions in case["steps"]:
        assert np.array_equal(batched.legal_masks(state)[0], game.legal_masks(scalar))
        game.step(scalar, actions)
        batched.step(state, np.asarray([actions]))
        assert normalized(batched.to_states(state)[0]) == normalized(scalar)
    assert normalized(scalar) != normalized(start)  # the position did change


def test_hand_made_positions_stepped_together_match_one_by_one() -> None:
    """One batch holding several 4-player positions (in different phases) gives each its own result."""
    cases = [c for c in _POSITIONS if c["n"] == 4 and not c.get("rules") and len(c["steps"]) <= 2]
    starts = [_position(c)[1] for c in cases]
    game, batched = Game(STANDARD, 4), BatchedGame(STANDARD, 4)
    state = batched.from_states(starts)
    scalars = [s.clone() for s in starts]
    for t in range(2):
        actions = np.zeros((len(cases), 4), dtype=np.int64)
        for k, (c, s) in enumerate(zip(cases, scalars, strict=True)):
            if t < len(c["steps"]) and not s.done:
                actions[k] = c["steps"][t]
                game.step(s, c["steps"][t])
            else:  # this position is done with its steps: play any legal action
                actions[k] = random_legal(game.legal_masks(s)[None], np.random.default_rng(t))[0]
                if not s.done:
                    game.step(s, actions[k].tolist())
        batched.step(state, actions)
    for back, s in zip(batched.to_states(state), scalars, strict=True):
        assert normalized(back) == normalized(s)


def mid_game_states(
    n: int, rules: str | RulesConfig, count: int, seed: int, max_steps: int = 160
) -> list[GameState]:
    """States met in random legal play (both phases, some finished), for round-trip tests."""
    game = Game(rules, n)
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        s = game.new_state(seed + k)
        for _ in range(int(rng.integers(0, max_steps))):
            if s.done:
                break
            game.step(s, random_legal(game.legal_masks(s)[None], rng)[0].tolist())
        out.append(s)
    return out


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_from_states_round_trips_through_to_states(num_players: int) -> None:
    rules = STANDARD.replace(max_rounds=40)
    states = mid_game_states(num_players, rules, 24, 5 * num_players)
    states += [
        make_state(num_players, rules, spare_to=c.get("spare_to"), **c["state"])
        for c in _POSITIONS
        if c["n"] == num_players and not c.get("rules")
    ]
    assert any(s.done for s in states) and any(not s.done for s in states)
    batched = BatchedGame(rules, num_players)
    state = batched.from_states(states)
    back = batched.to_states(state)
    assert [normalized(b) for b in back] == [normalized(s) for s in states]
    # Reading back a subset, in any order, gives those games.
    assert [normalized(b) for b in batched.to_states(state, [3, 0])] == [
        normalized(states[3]),
        normalized(states[0]),
    ]
    # And the conversion is stable: from_states of what to_states gave is the same batch.
    again = batched.from_states(back)
    snapshot = arrays_of(state)
    assert_same_arrays(snapshot, again)


def test_from_states_copies_its_input() -> None:
    start = make_state(4, hands=[[0, 8, 16], [], [], []], lot=43)
    before = normalized(start)
    batched = BatchedGame(STANDARD, 4)
    state = batched.from_states([start])
    batched.step(state, np.asarray([[C, C, C, C]]))
    batched.step(state, np.asarray([[E, D, D, D]]))
    assert normalized(start) == before
    assert batched.to_states(state)[0].positions == [3, 0, 0, 0]


@pytest.mark.parametrize(
    "states",
    [
        pytest.param(lambda: [], id="empty list"),
        pytest.param(lambda: [Game(STANDARD, 6).new_state(0)], id="six players (other deck)"),
        pytest.param(
            lambda: [Game(STANDARD.replace(tie_break="priority"), 4).new_state(0)], id="other rules"
        ),
        pytest.param(
            lambda: [Game(STANDARD, 4).new_state(0), Game(STANDARD, 6).new_state(0)], id="mixed batch"
        ),
    ],
)
def test_from_states_rejects_other_configurations(states: Any) -> None:
    with pytest.raises(StateError):
        BatchedGame(STANDARD, 4).from_states(states())


@pytest.mark.parametrize(("batch_players", "state_players"), [(4, 3), (2, 5)])
def test_from_states_rejects_another_player_count_with_the_same_deck(
    batch_players: int, state_players: int
) -> None:
    with pytest.raises(StateError):
        BatchedGame(STANDARD, batch_players).from_states([Game(STANDARD, state_players).new_state(0)])


@pytest.mark.parametrize("rules", ["standard", "original"])
def test_random_actions_are_the_draws_from_the_legal_masks(rules: str) -> None:  # C-6
    """``random_actions`` (each ruleset's own fast draw) picks what ``random_from_masks`` picks from
    ``legal_masks`` for the same draws, in every phase of games in play and finished."""
    batched = BatchedGame(rules, 4)
    state = batched.deal(range(16))
    ours, theirs = np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(80):
        actions = batched.random_actions(state, ours)
        assert np.array_equal(actions, batched.random_from_masks(batched.legal_masks(state), theirs))
        batched.step(state, actions)
    assert state.done.any()


def test_masks_are_uniformly_sampled_and_fall_back_to_the_lowest_legal_action() -> None:  # C-6
    """``random_from_masks`` draws every legal action of a row (and only those) about equally often;
    ``fallback_masks`` replaces a masked-out or out-of-range action by the row's lowest legal one."""
    batched = BatchedGame(STANDARD, 4)
    masks = np.zeros((1, 4, batched.num_actions), dtype=np.int8)
    masks[0, 0, [AUCTION, CASTLE]] = 1
    masks[0, 1, [THIEF, DETECTIVE]] = 1
    masks[0, 2, bid(0) : bid(4)] = 1
    masks[0, 3, CASTLE] = 1
    rng = np.random.default_rng(5)
    draws = np.stack([batched.random_from_masks(masks, rng)[0] for _ in range(4000)])  # [draw, seat]
    for p in range(4):
        legal = np.flatnonzero(masks[0, p])
        seen, counts = np.unique(draws[:, p], return_counts=True)
        assert seen.tolist() == legal.tolist()
        assert counts.min() > 0.8 * 4000 / len(legal)
    actions = np.array([[CASTLE, EXHIBIT, 999, CASTLE]])
    chosen, illegal = batched.fallback_masks(masks, actions)
    assert chosen.tolist() == [[CASTLE, THIEF, bid(0), CASTLE]]
    assert illegal.tolist() == [[False, True, True, False]]


# ---------------------------------------------------------------------------- (d) determinism


@pytest.mark.parametrize("num_players", [2, 5, 6])
def test_deal_of_game_k_does_not_depend_on_batch(num_players: int) -> None:  # S-1
    game, batched = Game(STANDARD, num_players), BatchedGame(STANDARD, num_players)
    seeds = [0, 1, 2**40 + 3, 12345, 7, 7]
    for size in (1, 3, len(seeds)):
        for offset in range(0, len(seeds) - size + 1, size):
            chunk = seeds[offset : offset + size]
            back = batched.to_states(batched.deal(chunk))
            assert [normalized(b) for b in back] == [normalized(game.new_state(s)) for s in chunk]
    # The same seed in a big batch, at any slot.
    big = list(range(1000, 1064))
    big[41] = 12345
    assert normalized(batched.to_states(batched.deal(big), [41])[0]) == normalized(game.new_state(12345))


def test_deal_twice_gives_equal_batches_and_reset_games_equals_deal() -> None:
    batched = BatchedGame(STANDARD, 4)
    seeds = np.arange(500, 532)
    first, second = batched.deal(seeds), batched.deal(seeds.tolist())
    assert_same_arrays(arrays_of(first), second)
    # Dealing new seeds into some slots of a batch in play gives exactly those deals.
    state = batched.deal(range(32))
    rng = np.random.default_rng(3)
    for _ in range(9):
        batched.step(state, random_legal(batched.legal_masks(state), rng))
    slots = np.array([4, 0, 31])
    batched.reset_games(state, slots, [seeds[4], seeds[0], seeds[31]])
    fresh = arrays_of(first.select(slots))
    assert_same_arrays(fresh, state.select(slots))
    with pytest.raises(ValueError, match="seeds"):
        batched.reset_games(state, slots, [1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        batched.deal([3, -1])


# ----------------------------------------------------------------- (e) validation, no change


def _mid_game_batch(n: int = 4, size: int = 6) -> tuple[BatchedGame, BatchState, np.ndarray]:
    """A batch in its action step, a few rounds in, with one game over; and legal actions for it."""
    batched = BatchedGame(STANDARD.replace(max_rounds=3), n)
    state = batched.deal(range(40, 40 + size))
    rng = np.random.default_rng(0)
    for _ in range(3):
        batched.step(state, random_legal(batched.legal_masks(state), rng))
    finished = batched.from_states([make_state(n, STANDARD.replace(max_rounds=3), lot=43)])
    for acts in ([C] * n, [D] * n) * 3:
        batched.step(finished, np.asarray([acts]))
    assert finished.truncated[0]
    state.assign([size - 1], finished)
    assert (state.phase[: size - 1] == 1).all() and state.done.tolist() == [False] * (size - 1) + [True]
    return batched, state, random_legal(batched.legal_masks(state), rng)


def _bad_actions() -> list[Any]:
    """(id, change to a legal ``[B, n]`` action array) pairs that validate must reject."""

    def illegal(a: np.ndarray, state: BatchState, batched: BatchedGame) -> np.ndarray:
        masks = batched.legal_masks(state)
        g, p = 2, 1
        a = a.copy()
        a[g, p] = int(np.flatnonzero(masks[g, p] == 0)[0])
        return a

    return [
        pytest.param(illegal, id="masked-out action in one game"),
        pytest.param(lambda a, s, b: np.where(a == a, -1, a), id="negative"),
        pytest.param(
            lambda a, s, b: a + np.where(np.arange(a.shape[0]) == 0, 10_000, 0)[:, None], id="too big"
        ),
        pytest.param(lambda a, s, b: a.astype(np.float64), id="float dtype"),
        pytest.param(lambda a, s, b: a.astype(bool), id="bool dtype"),
        pytest.param(lambda a, s, b: a[:, :-1], id="too few seats"),
        pytest.param(lambda a, s, b: a[:-1], id="too few games"),
        pytest.param(lambda a, s, b: a.reshape(-1), id="flat"),
        pytest.param(lambda a, s, b: a[None], id="extra axis"),
        pytest.param(lambda a, s, b: a.astype(str), id="strings"),
    ]


@pytest.mark.parametrize("make_bad", _bad_actions())
def test_validate_rejects_bad_actions_and_changes_nothing(make_bad: Any) -> None:  # C-6
    batched, state, actions = _mid_game_batch()
    bad = make_bad(actions, state, batched)
    snapshot = arrays_of(state)
    with pytest.raises(IllegalActionError):
        batched.step(state, bad)
    assert_same_arrays(snapshot, state)
    batched.step(state, actions)  # the legal actions still play
    assert (state.phase[:-1] == 0).all()


def test_validate_rejects_an_illegal_location_step() -> None:  # S-3
    batched = BatchedGame(STANDARD, 4)
    closed = batched.from_states([make_state(4, lot=-1, draw_pile=[], spare_to=3)])
    snapshot = arrays_of(closed)
    with pytest.raises(IllegalActionError, match="location"):
        batched.step(closed, np.asarray([[A, C, C, C]]))  # the Auction House is closed
    assert_same_arrays(snapshot, closed)


def test_rows_of_finished_games_are_ignored() -> None:
    """A finished game is skipped: whatever its row holds (even out of range), it does not change."""
    batched, state, actions = _mid_game_batch()
    actions[-1] = [999, -5, 0, 3]
    before = arrays_of(state.select([5]))
    played = batched.step(state, actions)
    assert played.tolist() == [True] * 5 + [False]
    assert_same_arrays(before, state.select([5]))


def test_validate_false_skips_the_check() -> None:
    """``validate=False`` is the env's fast path (it checks actions itself): legal input plays the same."""
    batched = BatchedGame(STANDARD, 3)
    a, b = batched.deal(range(16)), batched.deal(range(16))
    rng = np.random.default_rng(8)
    for _ in range(30):
        actions = random_legal(batched.legal_masks(a), rng)
        batched.step(a, actions)
        batched.step(b, actions, validate=False)
    assert_same_arrays(arrays_of(a), b)


# ---------------------------------------------------------------------- (f) batched invariants


@st.composite
def batches(draw: st.DrawFn) -> tuple[BatchedGame, list[int], int]:
    """A batched game (2-6 players, either tie rule, sometimes short or poor), deal seeds, a play seed."""
    n = draw(st.integers(2, 6), label="num_players")
    rules = STANDARD.replace(
        tie_break=draw(st.sampled_from(["unique", "priority"]), label="tie_break"),
        max_rounds=draw(st.sampled_from([100, 100, 12, 2]), label="max_rounds"),
        starting_money=draw(st.sampled_from([50, 50, 6]), label="starting_money"),
        finish=draw(st.sampled_from([30, 30, 6]), label="finish"),
    )
    size = draw(st.integers(1, 8), label="batch")
    seeds = draw(st.lists(st.integers(0, 2**40), min_size=size, max_size=size), label="seeds")
    batched = BatchedGame(rules, n)
    return batched, seeds, draw(st.integers(0, 2**32 - 1), label="play_seed")


def check_batch_invariants(batched: BatchedGame, state: BatchState, money_before: np.ndarray) -> None:
    """Invariants of every game of a batch (C-2, C-6, S-1…S-8) and of its derived fields."""
    rules, size = batched.rules, batched.table.deck.size
    b = state.batch_size
    # Cards: every card in exactly one of draw pile / lot / a hand (C-2).
    where = np.zeros((b, size), dtype=np.int64)
    in_pile = np.arange(size)[None, :] < state.pile_len[:, None]
    rows = np.broadcast_to(np.arange(b)[:, None], (b, size))
    np.add.at(where, (rows[in_pile], state.pile[in_pile].astype(np.intp)), 1)
    assert (state.pile[~in_pile] == -1).all()
    has_lot = state.lot >= 0
    np.add.at(where, (np.flatnonzero(has_lot), state.lot[has_lot].astype(np.intp)), 1)
    where += state.owner >= 0
    assert (where == 1).all(), "a card is in no place or in two"
    assert (has_lot | (state.pile_len == 0)).all()  # no lot only once the deck is empty (S-5)
    assert not (state.public & (state.owner < 0)).any()  # public cards are in a hand (C-5)
    # Money never negative, never more than before (money only leaves the game, S-5).
    assert (state.money >= 0).all() and (state.money <= money_before).all()
    assert (state.money <= rules.starting_money).all()
    assert (state.positions >= 0).all()
    # Masks: never an empty row (C-6), bids never above the bidder's money (S-4).
    masks = batched.legal_masks(state)
    assert (masks.sum(axis=2) >= 1).all()
    top = masks.shape[2] - 1 - np.argmax(masks[:, :, ::-1], axis=2)
    assert (top <= bid(0) + state.money).all()
    # Derived fields equal a recomputation from the hands.
    fresh = state.copy()
    refresh_derived(fresh, batched.table)
    for name in ("counts", "public_counts", "best_count", "best_lo", "best_hi"):
        assert np.array_equal(getattr(fresh, name), getattr(state, name)), name
    has_best = state.best_count > 0
    assert np.array_equal(fresh.best_oldest[has_best], state.best_oldest[has_best])
    # Ends (S-7, S-8): decided games have winners, one of them at the finish; others none.
    assert not (state.terminated & state.truncated).any()
    assert not state.winners[~state.terminated].any()
    ended = np.flatnonzero(state.terminated)
    if ended.size:
        winners = state.winners[ended]
        assert winners.any(axis=1).all()
        best = np.where(winners, state.positions[ended], -1).max(axis=1)
        assert (best >= rules.finish).all()
        assert (best == state.positions[ended].max(axis=1)).all()
    assert (state.round[state.truncated] >= rules.max_rounds).all()


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(batches(), st.integers(1, 120))
def test_random_play_keeps_batch_invariants(setup: tuple[BatchedGame, list[int], int], steps: int) -> None:
    batched, seeds, play_seed = setup
    state = batched.deal(seeds)
    rng = np.random.default_rng(play_seed)
    next_seed = max(seeds) + 1
    check_batch_invariants(batched, state, state.money.copy())
    for _ in range(steps):
        before = state.money.copy()
        batched.step(state, random_legal(batched.legal_masks(state), rng))
        check_batch_invariants(batched, state, before)
        done = np.flatnonzero(state.done)
        if done.size and rng.random() < 0.5:  # reset some finished games, keep others finished
            batched.reset_games(state, done, range(next_seed, next_seed + done.size))
            next_seed += done.size
            assert not state.done[done].any()
            bound = before.copy()
            bound[done] = batched.rules.starting_money  # new games start with full purses (S-1)
            check_batch_invariants(batched, state, bound)


def test_invariant_check_catches_a_broken_batch() -> None:
    """The property test's checker is not vacuous: a duplicated card and a lost card fail it."""
    batched = BatchedGame(STANDARD, 4)
    state = batched.deal([1, 2])
    check_batch_invariants(batched, state, state.money.copy())
    broken = state.copy()
    card = int(broken.pile[0, 0])
    broken.owner[0, card] = 2  # the card is now in the pile and in a hand
    with pytest.raises(AssertionError):
        check_batch_invariants(batched, broken, broken.money.copy())
    poorer = state.copy()
    with pytest.raises(AssertionError):
        check_batch_invariants(batched, poorer, poorer.money - 1)  # money went up


# ------------------------------------------------------------------------------- (g) memory


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_state_fits_the_memory_budget(num_players: int) -> None:  # docs/design.md §7: ≤ 4 KiB per game
    state = BatchedGame(STANDARD, num_players).deal(range(64))
    per_game = state.nbytes_per_game()
    assert 0 < per_game <= 4096
    arrays = sum(getattr(state, f.name).nbytes for f in fields(state) if f.name != "rngs")
    assert per_game == arrays / 64


def test_copy_and_select_are_independent() -> None:
    batched = BatchedGame(STANDARD, 4)
    state = batched.deal(range(8))
    twin, part = state.copy(), state.select([6, 2])
    snapshot_twin, snapshot_part = arrays_of(twin), arrays_of(part)
    rng = np.random.default_rng(1)
    for _ in range(4):
        batched.step(state, random_legal(batched.legal_masks(state), rng))
    assert_same_arrays(snapshot_twin, twin)
    assert_same_arrays(snapshot_part, part)
    assert copy.deepcopy(state.rngs[2]).bit_generator.state == part.rngs[1].bit_generator.state


@pytest.mark.parametrize("what", ["BatchedGame", "BatchedHoityEnv"])
def test_original_rules_build_the_original_batched_engine(what: str) -> None:  # O-*
    from hoity_env.engine.original.batched import OriginalBatched
    from hoity_env.engine.original.batched_state import OriginalBatchState
    from hoity_env.environment.batched import BatchedHoityEnv

    built = (
        BatchedGame("original", 4) if what == "BatchedGame" else BatchedHoityEnv(2, rules="original").batched
    )
    assert isinstance(built.batched_rules, OriginalBatched) and built.rules.ruleset == "original"
    assert isinstance(built.deal([0]), OriginalBatchState)
    assert type(BatchedGame("standard", 4).deal([0])) is BatchState
