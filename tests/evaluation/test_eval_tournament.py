"""Round-robin tables, the small-pool rule, and order-independent Plackett-Luce ratings."""

from __future__ import annotations

import numpy as np
import pytest

from hoity_env import ConfigError
from hoity_env.evaluation import evaluate, round_robin_tables, tournament
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.ratings import FittedRating
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
    assert ratings["a"].rating > ratings["b"].rating > ratings["c"].rating
    assert sum(r.rating for r in ratings.values()) == pytest.approx(0.0, abs=1e-9)  # pool mean 0
    assert all(r.low < r.rating < r.high for r in ratings.values())
    # An agent holding several seats enters once, with the mean rank of its seats.
    doubled = rate_games(["a", "b"], [_record(("a", "b", "a"), (1, 2, 3))])
    assert doubled["a"].rating == pytest.approx(doubled["b"].rating)
    # Alone in its pool, a member is its pool's mean, exactly.
    assert rate_games(["a"], [_record(("a", "a"), (1, 2))])["a"] == FittedRating(0.0, 0.0, 0.0)


def _random_games(rng: np.random.Generator, strengths: dict[str, float], count: int) -> list[GameRecord]:
    """Games of 4 drawn from the pool, finishing orders drawn from a Plackett-Luce model."""
    names = list(strengths)
    games = []
    for _ in range(count):
        table = [names[i] for i in rng.choice(len(names), size=4, replace=False)]
        left, order = list(table), []
        while left:
            w = np.array([strengths[n] for n in left])
            order.append(left.pop(int(rng.choice(len(left), p=w / w.sum()))))
        games.append(_record(tuple(table), tuple(order.index(n) + 1 for n in table)))
    return games


def test_ratings_do_not_depend_on_the_order_of_the_games() -> None:
    rng = np.random.default_rng(3)
    pool = ["expert", "model", "collector", "thief", "random"]
    games = _random_games(
        rng, {"expert": 1.0, "model": 2.0, "collector": 1.5, "thief": 0.3, "random": 0.6}, 400
    )
    # Ties too: a shared first place and an agent holding two seats.
    games += [_record(("expert", "model", "thief", "random"), (1, 1, 3, 4))] * 3
    games += [_record(("thief", "random", "thief", "collector"), (2, 1, 4, 3))] * 2
    expected = rate_games(pool, games)
    for order in (games[::-1], [games[i] for i in rng.permutation(len(games))]):
        assert rate_games(pool, order) == expected  # identical, not merely close


def test_a_member_who_wins_more_and_ranks_better_is_rated_higher() -> None:
    # The shape: in a five-member pool, the model wins a third of its games and
    # finishes ahead of `expert` in most shared games, `expert` almost never wins.
    rng = np.random.default_rng(0)
    pool = ["model", "expert", "collector", "detective", "random"]
    games = _random_games(
        rng, {"model": 3.0, "expert": 0.8, "collector": 1.0, "detective": 0.9, "random": 1.2}, 200
    )
    by = {name: [g for g in games if name in g.agents] for name in ("model", "expert")}
    wins = {name: sum(g.ranks[g.agents.index(name)] == 1 for g in gs) for name, gs in by.items()}
    mean_rank = {name: np.mean([g.ranks[g.agents.index(name)] for g in gs]) for name, gs in by.items()}
    assert wins["model"] > wins["expert"] and mean_rank["model"] < mean_rank["expert"]
    # Whatever order the games come in (the model's wins first or last), it stays above the expert.
    model_first = sorted(games, key=lambda g: g.ranks[g.agents.index("model")] if "model" in g.agents else 5)
    for order in (games, model_first, model_first[::-1]):
        ratings = rate_games(pool, order)
        assert ratings["model"].rating > ratings["expert"].rating
        assert ratings["model"].low > ratings["expert"].rating


def test_ratings_are_on_an_elo_like_scale() -> None:
    # Two members, one finishing ahead 3 times out of 4 (virtual games aside): about 191 points apart.
    games = [_record(("a", "b"), (1, 2))] * 300 + [_record(("a", "b"), (2, 1))] * 100
    ratings = rate_games(["a", "b"], games)
    gap = ratings["a"].rating - ratings["b"].rating
    assert gap == pytest.approx(400 * np.log10(3), rel=0.02)
