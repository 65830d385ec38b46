"""The styles' batched original-ruleset rules decide exactly as their row-by-row reference (RULES O-*).

A differential test: on observations of real seeded original games, 2–6 players,
:func:`hoity_env.agents.bots.styles_original.decide_original` (numpy across rows, what
the agents use) and the test oracle :func:`tests.oracles.original_rows.decide_original_rows`
(one row at a time, the readable reference) get the same observations, masks and
uniforms: several random draw sets plus the extreme draws 0 and just below 1
(every branch's boundary), on the real masks and on masks with random legal
actions removed (so the fallbacks and the "no thief free" / "no check" branches
run too).  Also: the agents route original rows through the batched rules, and a
mixed batch (rows of every step) decides as its rows one by one.
"""

from __future__ import annotations

import numpy as np
import pytest

from hoity_env.agents import make
from hoity_env.agents.bots.styles_original import ORIGINAL_STYLES, OriginalView, decide_original
from hoity_env.agents.view import AgentInputError
from hoity_env.engine.actions import O_AUCTION_THIEF
from tests.agents.test_batched_agents import collect_rows
from tests.oracles.original_rows import ROW_STYLES, decide_original_rows

PLAYER_COUNTS = (2, 3, 4, 5, 6)
Rows = dict[int, tuple[np.ndarray, np.ndarray]]


@pytest.fixture(scope="module")
def rows() -> Rows:
    return {n: collect_rows(n, 160, seed=4000 + n, rules="original") for n in PLAYER_COUNTS}


def _cases(masks: np.ndarray, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(masks, draws) pairs: the real masks with random draws and with the extreme draws 0 and just
    below 1; masks with about a third of the legal actions dropped (never all) with random draws."""
    rng = np.random.default_rng(seed)
    real = masks.astype(bool)
    thinned = real & (rng.random(real.shape) >= 0.35)
    empty = ~thinned.any(axis=1)
    thinned[empty] = real[empty]
    shape = (len(masks), 4)
    edge = np.full(shape, np.nextafter(1.0, 0.0))
    return [(real, rng.random(shape)), (real, np.zeros(shape)), (real, edge)] + [
        (thinned, rng.random(shape)) for _ in range(2)
    ]


def test_rows_cover_every_original_step(rows: Rows) -> None:
    # Guards the differential test: it sees location steps, auctions and castle steps at every count.
    for n, (obs, masks) in rows.items():
        view = OriginalView(obs, n)
        auction = view.action_step & masks[:, O_AUCTION_THIEF:].any(axis=1)
        assert (~view.action_step).sum() > 40 and auction.sum() > 10, n
        assert (view.action_step & ~auction).sum() > 20, n


def test_batched_rules_cover_every_style() -> None:
    assert set(ORIGINAL_STYLES) == set(ROW_STYLES)


@pytest.mark.parametrize("style", sorted(ROW_STYLES))
def test_batched_rule_decides_as_the_row_by_row_reference(style: str, rows: Rows) -> None:
    compared = 0
    for n, (obs, masks) in rows.items():
        for masks_, draws in _cases(masks, seed=n):
            batch = decide_original(style, obs, masks_, draws, n)
            reference = decide_original_rows(style, obs, masks_, draws, n)
            wrong = np.flatnonzero(batch != reference)
            assert not wrong.size, f"{style}, {n} players, rows {wrong[:5]}: {batch[wrong[:5]]}"
            assert masks_[np.arange(len(obs)), batch].all()
            compared += len(obs)
    assert compared >= 4_000


def test_a_mixed_batch_decides_as_its_rows_one_by_one(rows: Rows) -> None:
    obs, masks = rows[4]
    bools, draws = masks.astype(bool), np.random.default_rng(3).random((len(obs), 4))
    for style in ORIGINAL_STYLES:
        batch = decide_original(style, obs, bools, draws, 4)
        one = [
            int(decide_original(style, obs[i : i + 1], bools[i : i + 1], draws[i : i + 1], 4)[0])
            for i in range(40)
        ]
        assert batch[:40].tolist() == one


@pytest.mark.parametrize("name", ["collector", "thief", "detective", "expert", "expert-v1"])
def test_agents_decide_original_rows_through_the_batched_rules(name: str, rows: Rows) -> None:
    obs, masks = rows[3]
    agent = make(name, seed=5, num_players=3, rules="original")
    draws = np.random.default_rng(5).random((len(obs), agent.DRAWS))  # type: ignore[attr-defined]
    style = "expert" if name == "expert-v1" else name  # the first expert plays the original expert's rule
    expected = decide_original(style, obs, masks.astype(bool), draws, 3)
    assert agent.act_batch(obs, masks).tolist() == expected.tolist()


def test_bad_style_and_layout_are_refused(rows: Rows) -> None:
    obs, masks = rows[2]
    bools, draws = masks.astype(bool), np.zeros((len(obs), 4))
    with pytest.raises(AgentInputError, match="no original-ruleset rule for the style 'bogus'"):
        decide_original("bogus", obs, bools, draws, 2)
    with pytest.raises(AgentInputError, match="original action layout"):
        decide_original("thief", obs, bools[:, :5], draws, 2)
