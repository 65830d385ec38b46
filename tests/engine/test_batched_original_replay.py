"""The hand-made positions of the O-rule tests (tests/engine/test_rules_original.py), replayed on the
batched ``original`` engine.

Every test of that module runs again here with ``Game.step`` shadowed: before each one-game
step of an original-ruleset game, a batch is made of the position with ``from_states`` and
its masks are compared; the batch then takes the same step, and its state read back with
``to_states`` must equal the one-game state after it.  A step the one-game engine refuses
(``IllegalActionError``) must be refused by the batch too, leaving it bit-identical.  The
tests' own assertions still run on the one-game engine, so each position is checked against
the rules and the batch against it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from hoity_env.engine import BatchedGame, Game, GameState, IllegalActionError
from hoity_env.engine.original.state import OriginalState
from tests.engine import test_rules_original
from tests.engine.test_batched_engine import arrays_of, assert_same_arrays


class Shadow:
    """Counts the one-game steps a batch replayed or refused."""

    steps = 0
    refusals = 0


def _shadow_step(real_step: Any) -> Any:
    def step(self: Game, state: GameState, actions: Sequence[int], *, validate: bool = True) -> Any:
        if not isinstance(state, OriginalState) or state.done or not _plain_ints(actions, state):
            return real_step(self, state, actions, validate=validate)
        batched = BatchedGame(state.rules, state.num_players)
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


@pytest.fixture(autouse=True)
def shadowed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every ``Game.step`` of a test in this module is replayed on a batch."""
    monkeypatch.setattr(Game, "step", _shadow_step(Game.step))
    yield


_REPLAYED = [name for name in vars(test_rules_original) if name.startswith("test_")]
for _name in _REPLAYED:
    globals()[f"test_batched_{_name[5:]}"] = getattr(test_rules_original, _name)


def _calls(test: Any) -> list[dict[str, Any]]:
    """The keyword arguments of each case of a test function, from its ``parametrize`` marks."""
    calls: list[dict[str, Any]] = [{}]
    for mark in reversed([m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]):
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        # pytest.param(...) is a named tuple (values, marks, id); anything else is the value itself
        cases = [v.values if isinstance(v, tuple) and hasattr(v, "marks") else v for v in values]
        rows = [dict(zip(names, c if len(names) > 1 else (c,), strict=True)) for c in cases]
        calls = [{**call, **row} for call in calls for row in rows]
    return calls


def test_zz_the_replay_covered_the_o_rule_tests(shadowed: None) -> None:
    """The replay does step and refuse on the batch: every case of the O-rule tests, run again here
    under the shadow.  Self-contained, so that it holds in whichever worker runs it (the suite
    runs in parallel: a tally of the other tests' steps would see only that worker's share)."""
    steps, refusals, cases = Shadow.steps, Shadow.refusals, 0
    for name in _REPLAYED:
        test = getattr(test_rules_original, name)
        for kwargs in _calls(test):
            test(**kwargs)
            cases += 1
    assert len(_REPLAYED) >= 25 and cases >= 50, (len(_REPLAYED), cases)
    # The module-wide tally this replaced asked for 100 steps and 2 refusals over two runs.
    steps, refusals = Shadow.steps - steps, Shadow.refusals - refusals
    assert steps >= 100 and refusals >= 1, (steps, refusals)
