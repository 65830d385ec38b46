"""The scripted styles' compiled twins (``accelerator="numba"``) decide exactly as their numpy rules.

Differential tests on observations of real seeded games, 2–6 players, both rulesets
(original rows go to the numpy original rules either way: the test pins that
dispatch too), each batch decided by both implementations with the same uniforms:
several random draw sets plus the extreme draws 0 and just below 1, which sit on
every branch's boundary.  Also: the twin is only used by the class that declares
it, and asking for numba without numba installed is a clear error.
"""

from __future__ import annotations

import numpy as np
import pytest

import hoity_env.engine.jit as jit_module
from hoity_env.agents import AGENT_NAMES, SCRIPTED, CollectorAgent
from hoity_env.agents.base import BID0, THIEF
from hoity_env.agents.view import BatchObservationView
from hoity_env.engine.errors import ConfigError
from tests.agents.test_batched_agents import collect_rows

pytest.importorskip("numba")

PLAYER_COUNTS = (2, 3, 4, 5, 6)
Rows = dict[tuple[str, int], tuple[np.ndarray, np.ndarray]]


@pytest.fixture(scope="module")
def game_rows() -> Rows:
    out: Rows = {}
    for n in PLAYER_COUNTS:
        out["standard", n] = collect_rows(n, 700, seed=1000 + n)
        out["original", n] = collect_rows(n, 150, seed=2000 + n, rules="original")
    return out


def _draw_sets(rows: int, k: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    edge = np.nextafter(1.0, 0.0)
    return [rng.random((rows, k)) for _ in range(4)] + [np.zeros((rows, k)), np.full((rows, k), edge)]


def test_rows_cover_every_standard_step(game_rows: Rows) -> None:
    # Guards the differential test: it sees location steps, bids and castle roles at every count.
    for n in PLAYER_COUNTS:
        obs, masks = game_rows["standard", n]
        view = BatchObservationView(obs)
        bidding = view.action_step & masks[:, BID0:].any(axis=1)
        assert (~view.action_step).sum() > 100 and bidding.sum() > 30, n
        assert (view.action_step & ~bidding).sum() > 100, n


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_twin_decides_as_the_numpy_rule(name: str, game_rows: Rows) -> None:
    reference, twin = SCRIPTED[name](0), SCRIPTED[name](0)
    reference.accelerator, twin.accelerator = "numpy", "numba"
    checked = 0
    for (rules, n), (obs, masks) in game_rows.items():
        bools = masks.astype(bool)
        for s, draws in enumerate(_draw_sets(len(obs), reference.DRAWS, seed=n)):
            expected = reference.decide(obs, bools, draws)
            got = twin.decide(obs, bools, draws)
            assert got.dtype == np.int64
            bad = np.flatnonzero(expected != got)
            assert not bad.size, f"{name}, {rules}, {n} players, draw set {s}: rows {bad[:5].tolist()} differ"
            checked += len(obs)
    assert checked > 20_000


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_twin_decides_a_mixed_batch_row_by_row(name: str, game_rows: Rows) -> None:
    # Shuffled rows of every step, and single rows, give each row the decision it gets in its batch.
    obs, masks = game_rows["standard", 4]
    order = np.random.default_rng(3).permutation(len(obs))
    obs, bools = obs[order], masks[order].astype(bool)
    twin = SCRIPTED[name](0, accelerator="numba")
    draws = np.random.default_rng(4).random((len(obs), twin.DRAWS))
    batch = twin.decide(obs, bools, draws)
    singles = [int(twin.decide(obs[i : i + 1], bools[i : i + 1], draws[i : i + 1])[0]) for i in range(60)]
    assert batch[:60].tolist() == singles


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_the_lanes_solve_each_role_game_as_numpy_does(
    n: int, game_rows: Rows, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The expert's compiled role game (hoity_env/agents/bots/role_game.py) solves up to LANES rows
    # together; fed numpy's own inputs, every lane's average mix and option values are numpy's,
    # bit for bit, whichever lane a row lands in and however full the lanes are.
    from hoity_env.agents.bots import expert as expert_module
    from hoity_env.agents.bots import role_game as lanes

    calls: list[tuple[tuple[np.ndarray, ...], int, tuple[np.ndarray, np.ndarray]]] = []
    solve = expert_module.solve_role_game

    def record(*args: object) -> tuple[np.ndarray, np.ndarray]:
        out = solve(*args)  # type: ignore[arg-type]
        calls.append((tuple(np.asarray(a) for a in args[:7]), int(args[7]), out))  # type: ignore[call-overload]
        return out

    monkeypatch.setattr(expert_module, "solve_role_game", record)
    obs, masks = game_rows["standard", n]
    reference = SCRIPTED["expert"](0, accelerator="numpy")
    reference.decide(obs, masks.astype(bool), np.random.default_rng(n).random((len(obs), 4)))
    assert {iterations for _, iterations, _ in calls} == {3, 8}  # location steps and castle roles
    v = lanes.lanes(n)
    solved = 0
    for (model, trust, present, legal, worth, beats, weights), iterations, (average, values) in calls:
        mix = legal / legal.sum(axis=2, keepdims=True)
        rows = np.random.default_rng(solved).permutation(len(model))  # any row in any lane
        for start in range(0, len(rows), lanes.LANES - 1):  # never quite full: partial lanes too
            chunk = rows[start : start + lanes.LANES - 1]
            for lane, r in enumerate(chunk):
                lanes.load(lane, n, trust[r], model[r], legal[r], mix[r], present[r], worth[r], beats[r],
                           weights[r], v)  # fmt: skip
            lanes.solve(v, n, len(chunk), iterations, True)
            assert np.array_equal(v.average[:, :, : len(chunk)], average[chunk].transpose(1, 2, 0))
            assert np.array_equal(v.values[0, :, : len(chunk)], values[chunk, 0].T)
            solved += len(chunk)
    assert solved > 300


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_the_location_steps_best_bid_is_the_largest_bid_value(n: int, game_rows: Rows) -> None:
    # The location step values bids only while one could still beat the best so far
    # (numba_expert.best_bid_value): its answer is the maximum of every bid's value, exactly,
    # for any chance of each rival being at the Auction House (0 and 1 included) and any cap.
    from hoity_env.agents.bots import expert_kernel as kernel
    from hoity_env.agents.bots.styles_kernels import _COPIES, _COPIES_SIX

    obs, _ = game_rows["standard", n]
    rng = np.random.default_rng(n)
    s = kernel.scratch(n, _COPIES_SIX if n >= 6 else _COPIES)
    pruned = 0
    for r, o in enumerate(obs):
        at_auction = rng.choice([0.0, 1.0, rng.random()], size=n)
        cap = float(rng.integers(0, kernel.AMOUNTS + 2)) if r % 3 else float(kernel.AMOUNTS - 1)
        legal = np.arange(kernel.AMOUNTS) <= cap
        kernel.bid_values(o, n, at_auction, legal, s)
        full = float(s.bids.max())
        assert kernel.best_bid_value(o, n, at_auction, cap, s) == full, r
        worth, unit = kernel.lot_value(o, n, at_auction, s)
        pruned += bool(worth - unit * min(cap, kernel.AMOUNTS - 1) <= full)  # the bound cut the loop
    assert pruned > len(obs) // 4  # the pruning was exercised, not only the full walk


def test_a_subclass_that_changes_a_rule_keeps_its_rule(game_rows: Rows) -> None:
    class Shy(CollectorAgent):
        name = "shy"

        def role(self, view: BatchObservationView, can_exhibit: np.ndarray, d: object) -> np.ndarray:
            return np.full(len(view), THIEF)

    obs, masks = game_rows["standard", 4]
    bools = masks.astype(bool)
    roles = BatchObservationView(obs).action_step & ~bools[:, BID0:].any(axis=1)
    shy = Shy(0, accelerator="numba")
    out = shy.decide(obs, bools, np.random.default_rng(0).random((len(obs), 4)))
    assert (out[roles] == THIEF).all()
    # The built-in collector's twin, with chance 0, never steals: the subclass's rule did decide.
    plain = SCRIPTED["collector"](0, accelerator="numba")
    assert (plain.decide(obs[roles], bools[roles], np.zeros((int(roles.sum()), 4))) != THIEF).all()


def test_numba_without_numba_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit_module, "HAVE_NUMBA", False)
    with pytest.raises(ConfigError, match="numba"):
        SCRIPTED["expert"](0, accelerator="numba")
    assert SCRIPTED["expert"](0).accelerator == "numpy"  # auto falls back to the reference
    with pytest.raises(ConfigError, match="accelerator"):
        SCRIPTED["thief"](0, accelerator="gpu")
