"""The max-entropy ε-Nash mixture of ``benchmarks/meta_mixtures.py``, the meta-solver's rival.

It is a measurement tool (docs/results/strength.md, meta-solver mixtures), so what a test holds is
what the figure's claim rests on: the constraint holds, slack 0 is an equilibrium, enough slack is
the uniform mixture, more slack never makes the mixture less even, and the population it writes
plays (its members copied, its weights the solution's).
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from hoity_env.agents.policies.population import read_population, write_population
from hoity_env.engine.errors import ConfigError
from hoity_env.league.meta import deviation_gap

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from meta_mixtures import max_entropy, minimax_value, write_maxent

RPS = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])
"""Rock-paper-scissors as a constant-sum table of scores (win 1, draw 0.5)."""

LINE = np.array(
    [
        [0.50, 0.40, 0.30, 0.35],
        [0.60, 0.50, 0.40, 0.45],
        [0.70, 0.60, 0.50, 0.52],
        [0.65, 0.55, 0.48, 0.50],
    ]
)
"""A line of snapshots, each beating the older ones: the kind of table a league leaves."""


def entropy(sigma: np.ndarray) -> float:
    return float(-np.sum(sigma * np.log(np.maximum(sigma, 1e-300))))


def test_minimax_value_of_a_constant_sum_table_is_one_half() -> None:
    assert minimax_value(RPS) == pytest.approx(0.5, abs=1e-9)
    assert minimax_value(LINE) == pytest.approx(0.5, abs=1e-6)


def test_slack_zero_is_an_equilibrium_and_rps_keeps_its_uniform_one() -> None:
    np.testing.assert_allclose(max_entropy(RPS, 0.0), np.full(3, 1 / 3), atol=1e-6)
    sigma = max_entropy(LINE, 0.0)
    assert deviation_gap(LINE, sigma) < 1e-6
    assert sigma[2] == pytest.approx(1.0, abs=1e-4)  # the snapshot that beats every other


@pytest.mark.parametrize("slack", [0.01, 0.03, 0.05])
def test_no_member_beats_the_mixture_by_more_than_the_slack(slack: float) -> None:
    sigma = max_entropy(LINE, slack)
    assert sigma.sum() == pytest.approx(1.0) and (sigma >= 0).all()
    assert (LINE @ sigma).max() <= minimax_value(LINE) + slack + 1e-6


def test_more_slack_is_more_even_and_enough_is_uniform() -> None:
    entropies = [entropy(max_entropy(LINE, s)) for s in (0.0, 0.01, 0.02, 0.04, 0.09)]
    assert all(b >= a - 1e-6 for a, b in itertools.pairwise(entropies))
    assert entropies[-2] < np.log(4) - 1e-3  # 0.04 is not enough: the uniform's excess is 0.08
    np.testing.assert_allclose(max_entropy(LINE, 0.09), np.full(4, 0.25), atol=1e-9)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ConfigError, match="slack"):
        max_entropy(LINE, -0.01)
    with pytest.raises(ConfigError, match="payoffs"):
        max_entropy([[0.5, 0.2]], 0.0)


def test_write_maxent_copies_the_kept_members_with_the_solution_weights(tmp_path: Path) -> None:
    source = tmp_path / "shipped"
    source.mkdir()
    specs = [f"npz:m{i}.npz" for i in range(4)]
    for i, spec in enumerate(specs):
        (source / spec[4:]).write_bytes(bytes([i]) * 8)
    write_population(source / "population.json", [{"spec": s, "weight": 1.0, "origin": s} for s in specs])
    run = tmp_path / "meta"
    run.mkdir()
    solution = {
        "population": str(source / "population.json"),
        "payoffs": LINE.tolist(),
        "members": [{"spec": s} for s in specs],
        "num_players": 2,
        "rules": "standard",
        "games": 100,
        "seed": 0,
    }
    (run / "solution.json").write_text(json.dumps(solution))
    out = tmp_path / "maxent"
    kept = write_maxent(run, 0.03, out, reference=tmp_path / "reference")
    members = read_population(out / "population.json")
    assert [m.spec for m in members] == [m.spec for m in kept]
    sigma = max_entropy(LINE, 0.03)
    weights = {m.spec: m.weight for m in members}
    for spec, w in zip(specs, sigma, strict=True):
        if spec in weights:
            assert weights[spec] == pytest.approx(w / sigma[sigma >= 0.01 * sigma.max()].sum(), rel=1e-6)
            assert (out / spec[4:]).read_bytes() == (source / spec[4:]).read_bytes()
    saved = json.loads((tmp_path / "reference" / "meta_solution.json").read_text())
    assert str(tmp_path) not in json.dumps(saved)  # no machine paths
    np.testing.assert_allclose(
        max_entropy(np.array(saved["payoffs"]), saved["slack"]), saved["solved"], atol=1e-9
    )
    assert [w > 0 for w in saved["shipped"]] == [s in weights for s in specs]
    with pytest.raises(ConfigError, match="not empty"):
        write_maxent(run, 0.03, out)
