"""Every rules field has a documented range a game can be played in (issue item 11).

Out-of-range values (``2**64`` copies, money the mask table cannot hold) and
contradictory combinations (``min_price > starting_money``) raise ``ConfigError``
naming the field, before any deck or table is built; the largest accepted rules
build an environment and play a whole game.
"""

from __future__ import annotations

import numpy as np
import pytest

from hoity_env import ConfigError, HoityParallelEnv, RulesConfig
from hoity_env.engine.config import LIMITS, STANDARD

_SCALARS = sorted(name for name in LIMITS if not name.startswith("series_copies"))


@pytest.mark.parametrize("name", _SCALARS)
def test_each_field_is_refused_just_outside_its_range(name: str) -> None:
    low, high = LIMITS[name]
    for value in (low - 1, high + 1):
        with pytest.raises(ConfigError, match=name):
            STANDARD.replace(**{name: value})


@pytest.mark.parametrize("name", ["finish", "max_rounds", "starting_money", "year_base", "detective_reward"])
def test_each_field_is_accepted_at_its_bounds(name: str) -> None:
    low, high = LIMITS[name]
    for value in (low, high):
        assert getattr(STANDARD.replace(**{name: value}), name) == value


@pytest.mark.parametrize("copies", [2**64, 2**40, 101, 0])
@pytest.mark.parametrize("name", ["series_copies", "series_copies_six"])
def test_huge_or_empty_series_are_refused_before_any_deck_is_built(name: str, copies: int) -> None:
    with pytest.raises(ConfigError, match=name):
        STANDARD.replace(**{name: (copies, 7, 8, 7, 8, 7)})


def test_the_old_documented_maximum_money_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"starting_money.*\[1, 1000\]"):
        STANDARD.replace(starting_money=10_000)


def test_min_price_above_starting_money_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"min_price.*lone bidder"):
        STANDARD.replace(starting_money=5, min_price=6)
    assert STANDARD.replace(starting_money=5, min_price=5).min_price == 5


def test_min_exhibition_larger_than_the_deck_is_refused() -> None:
    with pytest.raises(ConfigError, match="min_exhibition"):
        STANDARD.replace(min_exhibition=46)  # the 2-5 player deck has 45 cards
    assert STANDARD.replace(min_exhibition=45).min_exhibition == 45


def test_rules_from_a_dict_are_held_to_the_same_limits() -> None:
    data = STANDARD.to_dict()
    data["series_copies"] = [2**64, 7, 8, 7, 8, 7]
    with pytest.raises(ConfigError, match="series_copies"):
        RulesConfig.from_dict(data)


def test_the_largest_rules_build_an_env_and_play_a_whole_game() -> None:
    top = LIMITS["series_copies"][1]
    rules = RulesConfig(
        series_copies=(top,) * 6,
        series_copies_six=(top,) * 6,
        year_multiplier=1,
        starting_money=LIMITS["starting_money"][1],
        min_price=LIMITS["starting_money"][1],
    )
    env = HoityParallelEnv(num_players=6, rules=rules)
    assert env.game.deck.size == 6 * top and env.codec.size == 5 + LIMITS["starting_money"][1] + 1
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(2 * rules.max_rounds):
        if not env.agents:
            break
        legal = {a: np.flatnonzero(o["action_mask"]) for a, o in obs.items()}
        obs = env.step({a: int(m[rng.integers(m.size)]) for a, m in legal.items()})[0]
    assert not env.agents
