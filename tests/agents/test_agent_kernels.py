"""The standard styles' kernels (their one batched implementation) decide as recorded, and as the design asks.

* **Recorded decisions**: every style's decisions on rows of seeded 2–6 player games, under
  random uniforms and the extreme ones (0 and just below 1, every branch's boundary), equal
  the record written while the kernels' numpy twins still existed and agreed with them
  (``tests/agents/recorded_decisions.py``);
* a shuffled batch gives each row the decision it gets alone;
* the behaviours the styles are built for (docs/design.md §3): they vary their bids and mix
  their castle roles (identical bids void each other, S-5; a pure role is exploitable);
* the per-row helpers the kernels share: the exact pruning of the expert's best bid, the
  normal jitter, the legal jittered bids and the weighted pick.
"""

from __future__ import annotations

import numpy as np
import pytest

from hoity_env.agents import AGENT_NAMES, BatchObservationView, make
from hoity_env.agents.base import BID0, DETECTIVE, EXHIBIT, THIEF
from hoity_env.agents.bots import expert as kernel
from hoity_env.agents.bots import styles_kernels as helpers
from tests.agents.recorded_decisions import PLAYER_COUNTS, RECORD, decisions, game_rows

SCRIPTED_NAMES = [n for n in AGENT_NAMES if n != "random"]
Rows = dict[int, tuple[np.ndarray, np.ndarray]]


@pytest.fixture(scope="module")
def rows() -> Rows:
    return {n: game_rows(n) for n in PLAYER_COUNTS}


@pytest.fixture(scope="module")
def record() -> dict[str, np.ndarray]:
    with np.load(RECORD) as data:
        return {key: data[key] for key in data.files}


def test_the_recorded_rows_cover_every_step(rows: Rows, record: dict[str, np.ndarray]) -> None:
    # Guards the replay below: it sees location steps, bids and castle roles at every count.
    assert set(record) == {f"{name}/{n}" for name in AGENT_NAMES for n in PLAYER_COUNTS}
    for n, (obs, masks) in rows.items():
        view = BatchObservationView(obs, n)
        bidding = view.action_step & masks[:, BID0:].any(axis=1)
        assert (~view.action_step).sum() > 60 and bidding.sum() > 15, n
        assert (view.action_step & ~bidding).sum() > 60, n


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_kernels_make_the_recorded_decisions(name: str, rows: Rows, record: dict[str, np.ndarray]) -> None:
    checked = 0
    for n, (obs, masks) in rows.items():
        got = decisions(name, n, obs, masks)
        assert got.dtype == np.int64
        expected = record[f"{name}/{n}"]
        for s, (want, have) in enumerate(zip(expected, got, strict=True)):
            bad = np.flatnonzero(want != have)
            assert not bad.size, f"{name}, {n} players, draw set {s}: rows {bad[:5].tolist()} differ"
        checked += got.size
    assert checked == 3 * 400 * len(PLAYER_COUNTS)


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_a_kernel_decides_a_mixed_batch_row_by_row(name: str, rows: Rows) -> None:
    # Shuffled rows of every step, and single rows, give each row the decision it gets in its batch.
    obs, masks = rows[4]
    order = np.random.default_rng(3).permutation(len(obs))
    obs, bools = obs[order], masks[order].astype(bool)
    agent = make(name, seed=0)
    draws = np.random.default_rng(4).random((len(obs), agent.DRAWS))  # type: ignore[attr-defined]
    batch = agent.decide(obs, bools, draws)  # type: ignore[attr-defined]
    singles = [int(agent.decide(obs[i : i + 1], bools[i : i + 1], draws[i : i + 1])[0]) for i in range(60)]  # type: ignore[attr-defined]
    assert batch[:60].tolist() == singles


def _repeated(rows: Rows, n: int, which: str, copies: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``n``-player rows of one step (``"bid"`` or ``"role"``), each repeated ``copies`` times, and
    each row's index in the repeated batch."""
    obs, masks = rows[n]
    view = BatchObservationView(obs, n)
    bidding = view.action_step & masks[:, BID0:].any(axis=1)
    picked = np.flatnonzero(bidding if which == "bid" else view.action_step & ~bidding)
    index = np.repeat(picked, copies)
    return obs[index], masks[index], np.repeat(np.arange(picked.size), copies)


@pytest.mark.parametrize("name", SCRIPTED_NAMES)
def test_styles_vary_their_bids(name: str, rows: Rows) -> None:
    # Equal fixed bids void each other under the unique-bid rule (S-5): for most bid rows with
    # room to choose, a style's 40 draws give several amounts.
    obs, masks, row = _repeated(rows, 4, "bid", 40)
    amounts = make(name, seed=1).act_batch(obs, masks) - BID0
    choices = masks[:, BID0:].sum(axis=1)
    varied = [np.unique(amounts[row == r]).size > 1 for r in np.unique(row) if choices[row == r][0] > 4]
    assert len(varied) > 10 and np.mean(varied) > 0.6, (name, np.mean(varied))


@pytest.mark.parametrize("name", SCRIPTED_NAMES)
def test_styles_mix_their_castle_roles(name: str, rows: Rows) -> None:
    # Any pure castle role is exploitable (RULES.md's last table): over the castle steps every
    # style plays at least two roles, and in some of them its 20 draws give different roles (the
    # collector mixes only where it cannot exhibit; it exhibits whenever it can).
    obs, masks, row = _repeated(rows, 4, "role", 20)
    roles = make(name, seed=2).act_batch(obs, masks)
    share = {a: float(np.mean(roles == a)) for a in (EXHIBIT, THIEF, DETECTIVE)}
    mixed = sum(np.unique(roles[row == r]).size > 1 for r in np.unique(row))
    assert sum(v > 0.01 for v in share.values()) >= 2 and mixed >= 3, (name, share, mixed)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_the_location_steps_best_bid_is_the_largest_bid_value(n: int, rows: Rows) -> None:
    # The location step values bids only while one could still beat the best so far
    # (expert.best_bid_value): its answer is the maximum of every bid's value, exactly,
    # for any chance of each rival being at the Auction House (0 and 1 included) and any cap.
    obs, _ = rows[n]
    rng = np.random.default_rng(n)
    s = kernel.scratch(n, helpers.copies_of(n))
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


def test_the_bid_jitter_is_standard_normal() -> None:
    u = np.random.default_rng(0).random((2, 40_000))
    z = np.array([helpers.normal(a, b) for a, b in zip(u[0], u[1], strict=True)])
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1.0) < 0.02
    assert abs((np.abs(z) < 1.0).mean() - 0.6827) < 0.01


def test_jittered_bids_stay_legal_and_centred() -> None:
    def mask(amounts: list[int]) -> np.ndarray:
        m = np.zeros(BID0 + 51, dtype=np.bool_)
        m[[BID0 + a for a in amounts]] = True
        return m

    money30, lone, gappy = mask(list(range(31))), mask([7]), mask([0, 4, 5, 6])
    assert helpers.bids_of(money30) == (30, 31) and helpers.bids_of(lone) == (7, 1)
    assert helpers.jittered(money30, 10.4, 2.0, 0.0) == 10  # rounded
    assert helpers.jittered(lone, 1.0, 2.0, 3.0) == 7  # a lone legal amount as is
    assert helpers.jittered(gappy, 5.0, 2.0, -10.0) == 6  # below 1: 1, not legal: all the money
    zs = np.random.default_rng(0).standard_normal(20_000)
    many = np.array([helpers.jittered(money30, 12.0, 2.0, z) for z in zs])
    assert abs(many.mean() - 12.0) < 0.05 and abs(many.std() - 2.0) < 0.1


def test_the_weighted_pick_keeps_the_weights() -> None:
    u = np.random.default_rng(0).random(40_000)
    weights = np.array([0.75, 0.0, 0.12, 0.13])
    picks = np.array([helpers.sample_index(weights, 4, x) for x in u])
    share = np.bincount(picks, minlength=4) / u.size
    assert np.allclose(share, [0.75, 0.0, 0.12, 0.13], atol=0.01)
    assert helpers.sample_index(np.zeros(3), 3, 0.9) == 0
