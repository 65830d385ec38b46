"""The batched ``original`` ruleset against the one-game engine (RULES O-1 … O-9).

:class:`~hoity_env.engine.game.BatchedGame` with ``rules="original"`` must play
exactly the rules of :class:`~hoity_env.engine.game.Game`.  The tests here:

* play random games side by side in both engines, 2-6 players, and compare at every
  step the legal masks (and the location-step masks an env hands out for a finished
  game) and every game's whole state read back with
  ``to_states`` (hands sorted), including the piles, lots, checks, register and jail;
  joint actions are random legal ones, and some steps carry illegal actions, which
  ``validate=True`` must refuse leaving the batch bit-identical (the ``raise`` mode)
  and ``fallback_masks`` must replace by the one-game env's choice, the lowest legal
  action (the ``fallback`` and ``penalize`` modes);
* (tests/engine/test_batched_original_replay.py) replay the hand-made positions of the O-rule
  tests on the batched engine;
* compare every seat's observation and the global state with the one-game encoder
  (:class:`OriginalBatchObserver` against :class:`OriginalObserver`);
* check that ``from_states`` round-trips and that game ``k``'s deal does not depend on
  the batch.

``benchmarks/differential_batched.py --rules original`` runs the side-by-side check
over 100,000 games; the suite plays 200 (40 per player count).
"""

from __future__ import annotations

import numpy as np
import pytest

from hoity_env.engine import BatchedGame, Game, IllegalActionError
from hoity_env.engine.config import ORIGINAL
from hoity_env.engine.errors import StateError
from hoity_env.engine.original.batch_observation import OriginalBatchObserver
from hoity_env.engine.original.batched_state import OriginalBatchState
from hoity_env.engine.original.observation import OriginalObserver
from hoity_env.engine.original.state import OriginalState
from tests.engine.test_batched_engine import arrays_of, assert_same_arrays, mid_game_states
from tests.helpers import SideBySide

GAMES_PER_CONFIG = 40
"""5 player counts × 40 = 200 random games compared step by step: a sample
(the volume is ``benchmarks/differential_batched.py --rules original``, run by ``.ci/run``)."""
P_ILLEGAL_STEP = 0.1
"""Share of steps whose joint action first carries illegal actions (refused, then replaced)."""


def with_illegal(
    masks: np.ndarray, actions: np.ndarray, rng: np.random.Generator, live: list[int]
) -> np.ndarray:
    """``actions`` with about a third of the seats of the ``live`` games sent something illegal
    (at least one): a masked-out index, or one out of range (negative or past the last action).
    Seats of finished slots are never picked: the batch ignores them, so they would be no test."""
    out = actions.copy()
    _, n, size = masks.shape
    seats = [(g, p) for g in live for p in range(n)]
    picked = [s for s, u in zip(seats, rng.random(len(seats)), strict=True) if u < 0.3]
    for g, p in picked or [seats[int(rng.integers(len(seats)))]]:
        illegal = [*np.flatnonzero(masks[g, p] == 0).tolist(), -1, size, size + 7]
        out[g, p] = illegal[int(rng.integers(len(illegal)))]
    return out


def play_side_by_side(n: int, games: int, batch: int, seed0: int) -> tuple[int, int]:
    """Play ``games`` random games in both engines, comparing masks and whole states every step.

    Finished games are replaced by the next seed (``reset_games``), so the batch mixes games
    in different rounds and phases.  Returns (games finished, illegal joint actions refused).
    """
    game, batched = Game("original", n), BatchedGame("original", n)
    both = SideBySide(game, batched, games, batch, seed0)
    finished = refused = 0
    while live := both.live():
        state = both.state
        masks = batched.legal_masks(state)
        forced = batched.action_masks(state, location=np.ones(state.batch_size, dtype=bool))
        for k, s in live:
            where = f"slot {k}, round {s.round}, {s.phase.name.lower()} step"
            assert np.array_equal(game.legal_masks(s), masks[k]), f"masks differ: {where}"
            assert np.array_equal(game.location_masks(s), forced[k]), f"location masks differ: {where}"
        actions = batched.random_from_masks(masks, both.rng)
        if both.rng.random() < P_ILLEGAL_STEP:
            bad = with_illegal(masks, actions, both.rng, [k for k, _ in live])
            before = arrays_of(state)
            with pytest.raises(IllegalActionError):
                batched.step(state, bad)
            assert_same_arrays(before, state)  # the raise mode: refused, nothing changed
            refused += 1
            actions, illegal = batched.fallback_masks(masks, bad)  # the fallback/penalize modes
            for k, s in live:
                for p in range(n):
                    legal = game.legal_actions(s, p)
                    if bad[k, p] in legal:
                        assert not illegal[k, p] and actions[k, p] == bad[k, p]
                    else:
                        assert illegal[k, p] and actions[k, p] == legal[0]
        played = both.step(actions)
        slots = [k for k, _ in live]
        assert played[slots].all()
        for (k, s), back in zip(live, batched.to_states(state, slots), strict=True):
            assert back.comparable() == s.comparable(), f"states differ: slot {k}, round {s.round}"
        ended = [(k, s) for k, s in live if s.done]
        keys = batched.rank_keys(state).tolist()
        for k, s in ended:
            order = game.rank_keys(s)
            same = all((keys[k][p] > keys[k][q]) == (order[p] > order[q]) for p in range(n) for q in range(n))
            assert same, f"rank order differs: slot {k}"
        finished += len(ended)
        both.replace([k for k, _ in ended])
    return finished, refused


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_random_play_matches_one_game_engine(num_players: int) -> None:  # O-1 … O-9
    finished, refused = play_side_by_side(num_players, GAMES_PER_CONFIG, 64, 1000 * num_players)
    assert finished == GAMES_PER_CONFIG
    assert refused > 0


# ------------------------------------------------------------------------- batch properties


@pytest.mark.parametrize("num_players", [2, 5, 6])
def test_deal_of_game_k_does_not_depend_on_batch(num_players: int) -> None:  # O-1
    batched = BatchedGame("original", num_players)
    whole = batched.to_states(batched.deal([7, 8, 9]))
    game = Game("original", num_players)
    for seed, got in zip([7, 8, 9], whole, strict=True):
        assert got.comparable() == game.new_state(seed).comparable()
    alone = batched.to_states(batched.deal([9]))[0]
    assert alone.comparable() == whole[2].comparable()


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_from_states_round_trips_through_to_states(num_players: int) -> None:
    states = mid_game_states(num_players, "original", 24, 5, max_steps=60)
    batched = BatchedGame("original", num_players)
    batch = batched.from_states(states)
    assert isinstance(batch, OriginalBatchState)
    back = batched.to_states(batch)
    assert [b.comparable() for b in back] == [s.comparable() for s in states]
    assert all(isinstance(b, OriginalState) for b in back)
    again = batched.from_states(back)
    assert_same_arrays(arrays_of(batch), again)
    assert_same_arrays(arrays_of(batch), batch.select(range(len(states))))


def test_from_states_refuses_standard_states_and_other_configurations() -> None:
    batched = BatchedGame("original", 4)
    with pytest.raises(StateError, match="OriginalState"):
        batched.from_states([Game("standard", 4).new_state(0)])
    with pytest.raises(StateError, match="one configuration per batch"):
        batched.from_states([Game(ORIGINAL.replace(final_bonus=(6, 3)), 4).new_state(0)])
    with pytest.raises(StateError, match="rules"):
        BatchedGame("standard", 4).from_states([Game("original", 4).new_state(0)])


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_observations_match_the_one_game_encoder(num_players: int) -> None:  # C-5
    """Every seat's observation and the global state of every game at every step, bit for bit."""
    game = Game("original", num_players)
    batched = BatchedGame("original", num_players)
    scalar, observer = OriginalObserver(ORIGINAL, num_players), OriginalBatchObserver(ORIGINAL, num_players)
    assert observer.obs_layout() == scalar.obs_layout() and observer.state_layout() == scalar.state_layout()
    rng = np.random.default_rng(num_players)
    states = [game.new_state(s) for s in range(6)]
    batch = batched.deal(range(6))
    while True:
        obs, glob = observer.observations(batch), observer.global_states(batch)
        assert obs.dtype == glob.dtype == np.float32
        for k, s in enumerate(states):  # finished games too: their final observations
            assert np.array_equal(scalar.observations(s), obs[k]), f"observations differ: game {k}"
            assert np.array_equal(scalar.global_state(s), glob[k]), f"global states differ: game {k}"
        if all(s.done for s in states):
            break
        actions = batched.random_from_masks(batched.legal_masks(batch), rng)
        for k, s in enumerate(states):
            if not s.done:
                game.step(s, actions[k].tolist())
        batched.step(batch, actions)
