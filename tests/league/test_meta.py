"""The meta-solver on games with known answers, the payoff table on scripted members, ``hoity-eval meta``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hoity_env.agents import make
from hoity_env.agents.policies.population import PopulationAgent, read_population, write_population
from hoity_env.cli.eval import main
from hoity_env.engine.errors import ConfigError
from hoity_env.league import meta_table
from hoity_env.league.meta import SolverSettings, deviation_gap, expected_payoffs, solve
from hoity_env.league.meta_population import shipped_weights
from hoity_env.league.meta_run import MetaSettings, solve_population
from hoity_env.league.meta_table import CellResult, payoff_matrix
from tests.helpers import ROOT

ROCK_PAPER_SCISSORS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
SCRIPTED = ("random", "thief", "collector")
MIX_2 = ROOT / "hoity_env" / "agents" / "models" / "champion-mix-standard-2"


def volunteers_dilemma(cost: float, players: int = 3) -> np.ndarray:
    """The volunteer's dilemma: 0 volunteers (earns ``1 - cost``), 1 waits (earns 1 if anyone volunteered).

    Its symmetric equilibrium waits with probability ``cost ** (1 / (players - 1))``: waiting
    earns ``1 - q^(N-1)`` against the others, volunteering ``1 - cost``.
    """
    table = np.zeros((2,) * players)
    for index in np.ndindex(*table.shape):
        mine, others = index[0], index[1:]
        table[index] = 1 - cost if mine == 0 else float(0 in others)
    return table


def replicator_fixed_point(
    table: np.ndarray, start: np.ndarray, dt: float = 0.05, steps: int = 20_000
) -> np.ndarray:
    """Where the plain (unprojected) replicator equation, integrated with RK4, ends from ``start``."""

    def flow(x: np.ndarray) -> np.ndarray:
        values = table
        for _ in range(table.ndim - 1):
            values = values @ x
        return np.asarray(x * (values - x @ values))

    x = start.astype(np.float64)
    for _ in range(steps):
        k1 = flow(x)
        k2 = flow(x + dt / 2 * k1)
        k3 = flow(x + dt / 2 * k2)
        k4 = flow(x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


# ------------------------------------------------------------------ the solver


def test_rock_paper_scissors_is_a_third_each() -> None:
    solution = solve(ROCK_PAPER_SCISSORS)
    assert solution.weights == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert solution.gap == pytest.approx(0.0, abs=1e-9)


def test_weighted_rock_paper_scissors_has_its_analytic_equilibrium() -> None:
    # Paper beats rock by 1, rock beats scissors by 2, scissors beat paper by 3: the
    # equilibrium is proportional to (3, 2, 1), not uniform (the solver does not start there).
    table = np.array([[0.0, -1.0, 2.0], [1.0, 0.0, -3.0], [-2.0, 3.0, 0.0]])
    solution = solve(table)
    assert solution.weights == pytest.approx([1 / 2, 1 / 3, 1 / 6], abs=1e-6)
    assert solution.gap < 1e-6
    assert deviation_gap(table, [1 / 3] * 3) > 0.3  # uniform is far from it


def test_a_zero_sum_matrix_matches_a_linear_program() -> None:
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(5)
    skew = rng.normal(size=(9, 9))
    table = skew - skew.T
    # max v s.t. (sigma^T A)_j >= v for all j, sum sigma = 1, sigma >= 0  (variables: sigma, v).
    k = table.shape[0]
    lp = optimize.linprog(
        c=[0.0] * k + [-1.0],
        A_ub=np.hstack([-table.T, np.ones((k, 1))]),
        b_ub=np.zeros(k),
        A_eq=[[1.0] * k + [0.0]],
        b_eq=[1.0],
        bounds=[(0, None)] * k + [(None, None)],
    )
    solution = solve(table)
    assert solution.gap < 1e-6
    assert np.asarray(solution.weights) == pytest.approx(lp.x[:k], abs=1e-5)


@pytest.mark.parametrize("cost", [0.36, 0.09])
def test_three_player_volunteers_dilemma_has_its_analytic_equilibrium(cost: float) -> None:
    table = volunteers_dilemma(cost)
    wait = cost**0.5
    solution = solve(table)
    assert solution.weights == pytest.approx([1 - wait, wait], abs=1e-3)
    assert solution.gap < 1e-4
    # Cross-check: the replicator equation's fixed point from another interior start.
    fixed = replicator_fixed_point(table, np.array([0.9, 0.1]))
    assert fixed == pytest.approx([1 - wait, wait], abs=1e-4)
    values = expected_payoffs(table, solution.weights)
    assert values[0] == pytest.approx(values[1], abs=1e-3)  # both in the support earn the same


def test_three_player_additive_game_is_uniform() -> None:
    # Each opponent counts on its own: rock-paper-scissors against each of two opponents.
    table = ROCK_PAPER_SCISSORS[:, :, None] + ROCK_PAPER_SCISSORS[:, None, :]
    solution = solve(table)
    assert solution.weights == pytest.approx([1 / 3] * 3, abs=1e-3)
    assert solution.gap < 1e-4


def test_a_member_that_beats_the_others_gets_more_weight() -> None:
    # Four even members, then one of them wins 55% against each of the others.
    table = np.full((4, 4), 0.5)
    table[2, [0, 1, 3]] = 0.55
    table[[0, 1, 3], 2] = 0.45
    weights = np.asarray(solve(table).weights)
    assert weights[2] > 0.99 and weights[2] == weights.max()
    # In a cycle with a fourth member that is beaten by all, the cycle keeps all the weight.
    cycle = np.full((4, 4), 0.5)
    cycle[:3, :3] += ROCK_PAPER_SCISSORS / 10
    cycle[3, :3], cycle[:3, 3] = 0.4, 0.6
    weights = np.asarray(solve(cycle).weights)
    assert weights[:3] == pytest.approx([1 / 3] * 3, abs=1e-6) and weights[3] < 1e-6


def test_a_dominated_member_gets_no_weight_and_is_dropped() -> None:
    table = np.zeros((4, 4))
    table[:3, :3] = ROCK_PAPER_SCISSORS
    table[3, :3] = [-0.2, -0.1, -0.3]  # loses to everyone
    table[:3, 3] = [0.2, 0.1, 0.3]
    solution = solve(table)
    assert solution.weights[3] < 1e-6
    shipped = shipped_weights(solution.weights, 0.01)
    assert shipped[3] == 0.0 and shipped[:3] == pytest.approx([1 / 3] * 3, abs=1e-6)


def test_the_solver_is_deterministic_under_a_seed() -> None:
    rng = np.random.default_rng(11)
    general = rng.uniform(0.0, 0.5, size=(8, 8))  # a general-sum table: the replicator's restarts matter
    settings = SolverSettings(tolerance=1e-9, iterations=2_000)
    first, second = solve(general, settings, seed=3), solve(general, settings, seed=3)
    assert first == second
    tensor = volunteers_dilemma(0.25)
    assert solve(tensor, settings, seed=7) == solve(tensor, settings, seed=7)


@pytest.mark.parametrize(
    ("payoffs", "match"),
    [
        (np.zeros((2, 3)), "shape"),
        (np.zeros(3), "shape"),
        (np.array([[0.0, np.nan], [0.0, 0.0]]), "finite"),
        (np.arange(8.0).reshape(2, 2, 2), "symmetric"),
        ("rock", "array of numbers"),
    ],
)
def test_bad_payoffs_are_one_clear_error(payoffs: Any, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        solve(payoffs)


@pytest.mark.parametrize(
    "changes", [{"tolerance": 0}, {"iterations": 0}, {"restarts": -1}, {"step": 2}, {"floor": 0.5}]
)
def test_bad_solver_settings_name_their_field(changes: dict[str, Any]) -> None:
    (name,) = changes
    with pytest.raises(ConfigError, match=name):
        SolverSettings(**changes)


# ------------------------------------------------------------- the payoff table


def test_two_player_cells_give_both_members_a_constant_sum_table() -> None:
    # i,j at 2 players: 10 games, 2 truncated (1/2 each), member 0 won 5, member 1 won 3.
    cell = CellResult(("a", "b"), 2, 10, 2, (10, 10), (5, 3), (5.0, 3.0))
    table = payoff_matrix({"0,1": cell}, 2, 2)
    assert table[0, 1] == pytest.approx(0.6) and table[1, 0] == pytest.approx(0.4)
    assert table + table.T == pytest.approx(np.ones((2, 2)))


def _manifest(folder: Path, specs: tuple[str, ...] = SCRIPTED) -> Path:
    return write_population(folder / "population.json", [{"spec": s, "weight": 1.0} for s in specs])


def _settings(manifest: Path, players: int, **changes: Any) -> MetaSettings:
    options: dict[str, Any] = {"games": players * 4, "seed": 1, **changes}
    return MetaSettings(population=manifest, num_players=players, **options)


def _solution(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "solution.json").read_text(encoding="utf-8"))
    data.pop("manifest")  # the only path that names the run folder
    return data


@pytest.mark.parametrize("players", [2, 3])
def test_the_payoff_table_resumes_after_an_interruption_to_the_same_result(
    players: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = _manifest(tmp_path)
    whole = solve_population(_settings(manifest, players), tmp_path / "whole")
    cells = 3 if players == 2 else 6
    assert len(json.loads((tmp_path / "whole" / "cells.json").read_text())["cells"]) == cells + 3

    played: list[str] = []
    real = meta_table.play_cell

    def interrupted(cell: meta_table.Cell, blas_threads: int | None = None) -> CellResult:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(cell.key)
        return real(cell, blas_threads)

    monkeypatch.setattr(meta_table, "play_cell", interrupted)
    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        solve_population(_settings(manifest, players), out)
    assert sorted(json.loads((out / "cells.json").read_text())["cells"]) == sorted(played)
    assert not (out / "solution.json").exists() and not (out / "population").exists()

    def counted(cell: meta_table.Cell, blas_threads: int | None = None) -> CellResult:
        played.append(cell.key)
        return real(cell, blas_threads)

    monkeypatch.setattr(meta_table, "play_cell", counted)
    with pytest.raises(ConfigError, match="--resume"):  # not without asking
        solve_population(_settings(manifest, players), out)
    with pytest.raises(ConfigError, match="games"):  # nor with other settings
        solve_population(_settings(manifest, players, games=99), out, resume=True)
    resumed = solve_population(_settings(manifest, players), out, resume=True)
    assert len(played) == len(set(played)) == cells + 3  # no finished cell played twice
    assert _solution(out) == _solution(tmp_path / "whole")
    assert resumed.members == whole.members
    with pytest.raises(ConfigError, match="finished"):
        solve_population(_settings(manifest, players), out, resume=True)


def test_the_collector_is_weighted_and_random_is_dropped(tmp_path: Path) -> None:
    # At 2 players the collector beats both others (the cells are a seeded, fixed sample).
    result = solve_population(_settings(_manifest(tmp_path), 2, games=40), tmp_path / "out")
    weights = {m.spec: m.weight for m in result.members}
    assert weights["collector"] == max(weights.values()) and weights["random"] < 0.01
    shipped = read_population(tmp_path / "out" / "population" / "population.json")
    assert "random" not in [m.spec for m in shipped]
    assert sum(m.weight for m in shipped) == pytest.approx(1.0)
    assert result.shipped_gap <= result.gap + 0.01
    assert {m.spec for m in result.members} == set(SCRIPTED)  # the check scores every member
    assert all(0 <= m.check_low <= m.check_score <= m.check_high <= 1 for m in result.members)


def test_the_shipped_population_carries_its_kept_members_files(tmp_path: Path) -> None:
    source = tmp_path / "league"
    (source / "members").mkdir(parents=True)
    names = ("members-main_33019892.npz", "policy.npz")
    for name in names:
        shutil.copy(MIX_2 / name, source / "members" / name)
    manifest = _manifest(source, (*(f"npz:members/{name}" for name in names), "random"))
    result = solve_population(_settings(manifest, 2), tmp_path / "out")
    folder = tmp_path / "out" / "population"
    shipped = {m.spec for m in read_population(folder / "population.json")}
    assert shipped == {m.spec for m in result.members if m.shipped_weight > 0}
    assert "npz:members/policy.npz" in shipped  # the latest policy beats its ancestor and random
    for name in names:  # kept files are copied at their relative paths, dropped ones are not
        copy = folder / "members" / name
        if f"npz:members/{name}" in shipped:
            assert copy.read_bytes() == (source / "members" / name).read_bytes()
        else:
            assert not copy.exists()
    moved = shutil.copytree(folder, tmp_path / "moved")  # the folder plays wherever it goes
    agent = make(f"population:{moved / 'population.json'}", num_players=2)
    assert isinstance(agent, PopulationAgent) and len(agent.agents) == len(shipped)
    assert result.manifest == str(folder / "population.json")


# ------------------------------------------------------------------ the command


def test_the_command_writes_the_solution_and_refuses_to_overwrite_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _manifest(tmp_path)
    out = tmp_path / "out"
    argv = ["meta", "--population", str(manifest), "--players", "2", "--games", "8", "--out", str(out), "-q"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.strip() == (out / "result.md").read_text(encoding="utf-8").strip()
    assert "| collector |" in printed and "Check" in printed
    for name in ("meta.json", "cells.json", "solution.json", "population/population.json"):
        assert (out / name).is_file(), name
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for again in (argv, [*argv, "--resume"]):
        assert main(again) == 2
        assert "hoity-eval: error:" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--players", "7"], "7"),
        (["--threshold", "1.5"], "[0, 1)"),
        (["--games", "0"], "positive"),
        (["--rules", "chess"], "invalid choice"),
        (["--population", "{missing}"], "not found"),
        (["--population", "{one}"], "at least 2 members"),
        (["--population", "{bad_member}"], "members[1]"),
        (["--population", "{outside}"], "outside the manifest's folder"),
        (["--resume"], "nothing to resume"),
    ],
)
def test_the_command_refuses_bad_flags_before_creating_anything(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = {
        "missing": str(tmp_path / "nope.json"),
        "one": str(_manifest(tmp_path / "one", ("random",))),
        "bad_member": str(_manifest(tmp_path / "bad", ("random", "npz:missing.npz"))),
        "outside": str(_manifest(tmp_path / "outside", ("random", f"npz:{MIX_2 / 'policy.npz'}"))),
    }
    flags = [flag.format(**paths) for flag in flags]
    out = tmp_path / "out"
    argv = [
        "meta",
        "--population",
        str(_manifest(tmp_path)),
        "--players",
        "2",
        "--games",
        "4",
        "--out",
        str(out),
    ]
    assert main([*argv, *flags]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert captured.out == ""
    assert not out.exists()


def test_the_command_refuses_a_folder_that_holds_something_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    argv = ["meta", "--population", str(_manifest(tmp_path)), "--players", "2", "--out", str(out)]
    assert main(argv) == 2
    assert "not empty" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
