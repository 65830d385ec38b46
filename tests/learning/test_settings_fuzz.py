"""A fuzz of the learner's and the league's settings (issue 37): every field, hostile values.

Each field gets NaN, infinities, negatives, zero, huge values and values of the wrong
type.  Each one is either refused with a :class:`ConfigError` before any run folder
exists (by the settings, or by building the run, which makes every agent before the
folder), or the run it makes completes with finite weights and a policy that saves.
A table, not random draws: every case runs every time, cheaply (the accepted ones
train two iterations of 4 games).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest
import torch

from hoity_env.engine.errors import ConfigError
from hoity_env.league.members import LeagueSettings
from hoity_env.league.run import League
from hoity_env.learning import LearnerSettings
from hoity_env.learning.runs.session import new_run

NAN, INF = math.nan, math.inf
INTS = [NAN, INF, -INF, -1, 0, 1, 10**30, "3", None, True, 2.5]
REALS = [NAN, INF, -INF, -1.0, 0.0, 1e300, "0.1", None, True]
NAMES = ["", "bogus", 1, None]
SPECIAL: dict[str, list[Any]] = {
    "hidden": [(), (0,), (10**9,), ("8",), (8.5,), (8,) * 20, None, "8x8"],
    "opponents": [
        (),
        (("self", NAN),),
        (("self", INF),),
        (("self", -1.0),),
        (("self", 0.0),),
        (("self", 1e308), ("random", 1e308)),
        (("wizard", 1.0),),
        (("snapshot", 1.0),),
        ("self",),
        None,
    ],
    "curriculum": [
        (("expert", 1.0),),  # without curriculum_steps
        (("self", 1.0),),
        (("snapshot", 1.0),),
        (("wizard", 1.0),),
        (("expert", NAN),),
        ("expert",),
        "expert",
        None,
    ],
    "num_players": [*INTS, (), (2, 2), (1, 4), (4, 7), (2.5,), "2,3"],
    "normalize_advantages": ["yes", 1, None],
    "padded": ["yes", 1, None],
    "magnet_final_coef": [NAN, INF, -1.0, 1e300, "0"],
    "exploiter_settings": [
        {"bogus": 1},
        {"num_games": 0},
        {"num_games": NAN},
        {"hidden": [0]},
        {"learning_rate": INF},
        {"seed": 1},
        [1],
        None,
    ],
}
BASE = LearnerSettings(num_games=4, rollout_steps=4, minibatch_size=16, hidden=(8, 8), total_steps=128)
LEAGUE = LeagueSettings(
    main=BASE,
    snapshot_every=0,  # events only where the fuzzed field asks for them (each scores the members)
    pfsp_games=2,
    exploiter_budget=64,
    exploiter_games=2,
    exploiter_settings={"num_games": 4, "rollout_steps": 4, "minibatch_size": 16, "hidden": [8, 8]},
)


def _values(cls: type, name: str) -> list[Any]:
    """The hostile values of field ``name``: by its type (a field of a new type must be listed in
    :data:`SPECIAL`, so every field added later is fuzzed too)."""
    if name in SPECIAL:
        return SPECIAL[name]
    kind = next(f.type for f in dataclasses.fields(cls) if f.name == name)
    return {"int": INTS, "float": REALS, "str": NAMES}[str(kind)]


def _cases(cls: type, skip: tuple[str, ...] = ()) -> list[tuple[str, Any]]:
    return [(f.name, v) for f in dataclasses.fields(cls) if f.name not in skip for v in _values(cls, f.name)]


def _finite(policy: torch.nn.Module) -> bool:
    return all(bool(torch.isfinite(p).all()) for p in policy.parameters())


def test_the_guarantees_page_states_the_bounds_the_settings_hold() -> None:
    from hoity_env.learning import bounds as settings
    from tests.helpers import ROOT

    page = " ".join((ROOT / "docs" / "guarantees.md").read_text(encoding="utf-8").split())
    assert f"at most {settings.MAX_THREADS:,} threads" in page
    assert f"at most {settings.MAX_LAYERS} layers of {settings.MAX_WIDTH:,}" in page
    assert f"at most {settings.MAX_ROWS:,} rows" in page
    assert settings.MAX_SEED == 2**32 - 1 and "a seed below 2³²" in page
    assert settings.MAX_LEARNING_RATE == 1 and "a learning rate up to 1," in page
    assert settings.MAX_COEF == settings.MAX_WEIGHT == 1e6 and "pool weights up to 10⁶" in page
    assert f"`--keep-checkpoints` checkpoints ({LearnerSettings().keep_checkpoints};" in page


@pytest.mark.parametrize(("name", "value"), _cases(LearnerSettings), ids=repr)
def test_a_hostile_learner_setting_is_refused_before_any_folder_or_trains_finitely(
    tmp_path: Path, name: str, value: Any
) -> None:
    out = tmp_path / "run"
    try:
        _, learner = new_run(BASE.replace(**{name: value}), out)
    except ConfigError:
        assert not out.exists()
        return
    learner.learn(min(learner.settings.total_steps, 2 * learner.rows * learner.settings.rollout_steps))
    assert _finite(learner.policy)
    learner.save_policy(tmp_path / "policy.zip")


@pytest.mark.parametrize(("name", "value"), _cases(LeagueSettings, skip=("main",)), ids=repr)
def test_a_hostile_league_setting_is_refused_before_any_folder_or_trains_finitely(
    tmp_path: Path, name: str, value: Any
) -> None:
    out = tmp_path / "league"
    try:
        league = League.start(dataclasses.replace(LEAGUE, **{name: value}), out)
    except ConfigError:
        assert not out.exists()
        return
    league.run()
    assert _finite(league.learner.policy) and league.learner.steps >= BASE.total_steps
