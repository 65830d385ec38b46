"""Wilson intervals and competition ranks against known values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hoity_env.evaluation.stats import Z95, competition_ranks, mean, wilson_interval


@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 10, 0.0179, 0.4042),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_known_values(wins: int, games: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(wins, games)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_edges_are_exact() -> None:
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert Z95 == 1.959964


@pytest.mark.parametrize(("wins", "games"), [(-1, 10), (11, 10), (0, -1)])
def test_wilson_rejects_impossible_counts(wins: int, games: int) -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(wins, games)


def test_wilson_rejects_bools_and_bad_z() -> None:
    with pytest.raises(TypeError):
        wilson_interval(True, 10)
    with pytest.raises(ValueError, match="z must"):
        wilson_interval(1, 10, z=0.0)


@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_contains_the_rate_and_is_symmetric(counts: tuple[int, int]) -> None:
    wins, games = counts
    lo, hi = wilson_interval(wins, games)
    assert 0.0 <= lo <= wins / games <= hi <= 1.0
    mirror_lo, mirror_hi = wilson_interval(games - wins, games)
    assert lo == pytest.approx(1 - mirror_hi, abs=1e-12)
    assert hi == pytest.approx(1 - mirror_lo, abs=1e-12)


@pytest.mark.parametrize(
    ("keys", "ranks"),
    [
        ([30, 20, 25, 10], [1, 3, 2, 4]),
        ([30, 30, 20, 25], [1, 1, 4, 3]),
        ([(30, (4, 7)), (30, (5, 1)), (12, (0, 0))], [2, 1, 3]),
        ([5, 5, 5], [1, 1, 1]),
    ],
)
def test_competition_ranks_share_the_better_rank(keys: list[object], ranks: list[int]) -> None:
    assert competition_ranks(keys) == ranks  # type: ignore[arg-type]


def test_mean() -> None:
    assert mean([1.0, 2.0, 4.0]) == pytest.approx(7 / 3)
    assert math.isnan(mean([]))
