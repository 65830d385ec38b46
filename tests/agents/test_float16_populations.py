"""The shipped float16 populations play as their float32 originals (tests/agents/float16_record.py).

Half precision moves each weight by at most 2^-11 of itself; what matters is whether the
actions change.  On the record's fixed rows each float16 member must take the float32 member's
greedy action and its sampled action (same uniforms) on at least 99% of the rows: a near-tie
between two actions may flip, a changed policy may not.  Whether the population still wins as
much is measured, not tested (docs/league.md).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from hoity_env.agents.policies.mlp import load_policy
from tests.agents.float16_record import RECORD, members, plays, table_rows

MODELS = Path(str(resources.files("hoity_env.agents") / "models"))
RECORDED = dict(np.load(RECORD))
TABLES = sorted({key.split("/")[0] for key in RECORDED})


def test_every_float16_population_is_recorded() -> None:
    """A population shipped in float16 without its float32 record would be tested by nothing."""
    half = set()
    for manifest in MODELS.glob("champion-mix-*/population.json"):
        for name in members(manifest.parent):
            if load_policy(manifest.parent / name).weights[0].dtype == np.float16:
                half.add(manifest.parent.name.removeprefix("champion-mix-"))
    assert half == set(TABLES)


@pytest.mark.parametrize("table", TABLES)
def test_float16_members_play_the_float32_actions(table: str) -> None:
    obs, masks = table_rows(table)
    folder = MODELS / f"champion-mix-{table}"
    for name in members(folder):
        policy = load_policy(folder / name)
        assert policy.weights[0].dtype == np.float16
        same = plays(policy, obs, masks) == RECORDED[f"{table}/{name}"]
        assert same.mean(axis=1).min() >= 0.99, (table, name, same.mean(axis=1))
