"""The hand-made positions of the O-rule tests (tests/test_rules_original.py), replayed on the
batched ``original`` engine.

Every test of that module runs again here, under both accelerators, with ``Game.step``
shadowed: before each one-game step of an original-ruleset game, a batch is made of the
position with ``from_states`` and its masks are compared; the batch then takes the same
step, and its state read back with ``to_states`` must equal the one-game state after it.
A step the one-game engine refuses (``IllegalActionError``) must be refused by the batch
too, leaving it bit-identical.  The tests' own assertions still run on the one-game
engine, so each position is checked against the rules and the batch against it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
import test_rules_original
from test_batched_engine import arrays_of, assert_same_arrays

from hoity_env.engine import Game, GameState, IllegalActionError
from hoity_env.engine.batched import BatchedGame
from hoity_env.engine.original.state import OriginalState

ACCELERATORS = ["numpy", "numba"]


class Shadow:
    """Counts the replayed tests and the one-game steps a batch replayed or refused with them."""

    tests = 0
    steps = 0
    refusals = 0


def _shadow_step(accelerator: str, real_step: Any) -> Any:
    def step(self: Game, state: GameState, actions: Sequence[int], *, validate: bool = True) -> Any:
        if not isinstance(state, OriginalState) or state.done or not _plain_ints(actions, state):
            return real_step(self, state, actions, validate=validate)
        batched = BatchedGame(state.rules, state.num_players, accelerator=accelerator)
        batch = batched.from_states([state])
        assert np.array_equal(batched.legal_masks(batch)[0], self.legal_masks(state)), "masks differ"
        joint = np.asarray([list(actions)], dtype=np.int64)
        try:
            events = real_step(self, state, actions, validate=validate)
        except IllegalActionError:
            before = arrays_of(batch)
            with pytest.raises(IllegalActionError):
                batched.step(batch, joint, validate=validate)
            assert_same_arrays(before, batch)
            Shadow.refusals += 1
            raise
        batched.step(batch, joint, validate=validate)
        assert batched.to_states(batch)[0].comparable() == state.comparable(), "states differ"
        Shadow.steps += 1
        return events

    return step


def _plain_ints(actions: Sequence[int], state: GameState) -> bool:
    return len(actions) == state.num_players and all(
        isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in actions
    )


@pytest.fixture(autouse=True, params=ACCELERATORS)
def shadowed(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every ``Game.step`` of a test in this module is replayed on a batch (numpy, then numba)."""
    monkeypatch.setattr(Game, "step", _shadow_step(request.param, Game.step))
    yield request.param
    Shadow.tests += 1


_REPLAYED = [name for name in vars(test_rules_original) if name.startswith("test_")]
for _name in _REPLAYED:
    globals()[f"test_batched_{_name[5:]}"] = getattr(test_rules_original, _name)


def test_zz_the_replay_covered_the_o_rule_tests(shadowed: str) -> None:
    """Runs after the replayed tests (file order): they stepped and refused on the batch."""
    assert len(_REPLAYED) >= 30
    if Shadow.tests < len(_REPLAYED):
        pytest.skip("only part of the module ran (-k or a test id); the totals need all of it")
    assert Shadow.steps >= 100 and Shadow.refusals >= 2, (Shadow.steps, Shadow.refusals)
