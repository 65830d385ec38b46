"""Round-robin tables, the small-pool rule, and ratings from a deterministic game order."""

from __future__ import annotations

import pytest

from hoity_env import ConfigError
from hoity_env.evaluation import evaluate, round_robin_tables, tournament
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.tournament import rate_games


def test_tables_are_the_combinations_of_a_large_pool() -> None:
    tables = round_robin_tables(["a", "b", "c", "d", "e"], 4)
    assert len(tables) == 5 and tables[0] == ("a", "b", "c", "d")
    assert all(len(set(t)) == 4 for t in tables)


@pytest.mark.parametrize(
    ("pool", "k", "expected"),
    [
        (["a", "b", "c"], 4, [("a", "b", "c", "a"), ("b", "c", "a", "b"), ("c", "a", "b", "c")]),
        (["a", "b"], 4, [("a", "b", "a", "b")]),  # "baba" is a rotation of "abab"
        (["a", "b"], 3, [("a", "b", "a"), ("b", "a", "b")]),
    ],
)
def test_small_pools_fill_seats_cyclically(pool: list[str], k: int, expected: list[tuple[str, ...]]) -> None:
    assert round_robin_tables(pool, k) == expected


@pytest.mark.parametrize(("pool", "match"), [(["a"], "at least 2"), (["a", "a"], "distinct"), ("ab", "list")])
def test_bad_pools(pool: list[str], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        round_robin_tables(pool, 4)


def test_each_table_is_an_evaluation_with_the_same_seed() -> None:
    result = tournament(["expert", "thief", "random"], num_players=2, games=2, seed=9, progress=False)
    assert len(result.tables) == 3
    table = result.tables[1]
    alone = evaluate(list(table.agents), num_players=2, games=2, seed=9, progress=False)
    assert alone == table
    assert tournament(["expert", "thief", "random"], num_players=2, games=2, seed=9, progress=False) == result


def _record(agents: tuple[str, ...], ranks: tuple[int, ...]) -> GameRecord:
    winners = tuple(s for s, r in enumerate(ranks) if r == 1)
    return GameRecord(0, 0, 0, agents, winners, ranks, (0,) * len(agents), 10, False)


def test_ratings_follow_the_results() -> None:
    games = [_record(("a", "b", "c"), (1, 2, 3))] * 20
    ratings = rate_games(["a", "b", "c"], games)
    assert ratings["a"].mu > ratings["b"].mu > ratings["c"].mu
    # An agent holding several seats enters once, with the mean rank of its seats.
    doubled = rate_games(["a", "b"], [_record(("a", "b", "a"), (1, 2, 3))])
    assert doubled["a"].mu == pytest.approx(doubled["b"].mu)
    assert rate_games(["a"], [_record(("a", "a"), (1, 2))])["a"].mu == 25.0
