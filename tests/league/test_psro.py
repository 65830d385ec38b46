"""PSRO on the meta-solver: a best response to the mixture joins, only the new cells are played, a stopped
run resumes to the same result, bad PSRO settings are refused before anything is written."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from hoity_env.agents.policies.population import read_population, write_population
from hoity_env.cli.eval import main
from hoity_env.engine.errors import ConfigError
from hoity_env.league import meta_table
from hoity_env.league.meta_run import MetaSettings, solve_population
from hoity_env.league.meta_table import CellResult
from hoity_env.league.psro import PsroSettings, response_seed
from tests.helpers import FAST_TINY

SCRIPTED = ("random", "thief", "collector")
TINY_PSRO = PsroSettings(iterations=1, budget=512, games=12, ppo={**FAST_TINY, "hidden": [8, 8]})
"""One iteration, one rollout of 8 games x 64 steps of an 8x8 network: a best response in a second."""
PLAY_CELL = meta_table.play_cell


def _manifest(folder: Path) -> Path:
    return write_population(folder / "population.json", [{"spec": s, "weight": 1.0} for s in SCRIPTED])


def _settings(manifest: Path, **changes: Any) -> MetaSettings:
    options: dict[str, Any] = {"games": 12, "seed": 1, "psro": TINY_PSRO, **changes}
    return MetaSettings(population=manifest, num_players=3, **options)


def _solution(out: Path) -> dict[str, Any]:
    """``solution.json`` without the paths that name the run folder and the CPU time it took."""
    data: dict[str, Any] = json.loads((out / "solution.json").read_text(encoding="utf-8"))
    data.pop("manifest")
    for iteration in data["psro"]:
        for key in ("mixture", "run_dir", "train_cpu_seconds"):  # paths, and a measured time
            iteration.pop(key)
    return data


def _counting(monkeypatch: pytest.MonkeyPatch, stop_after: int | None = None) -> list[str]:
    """The keys of the cells played from now on; with ``stop_after``, Ctrl-C after that many."""
    played: list[str] = []

    def play(cell: meta_table.Cell, blas_threads: int | None = None) -> CellResult:
        if stop_after is not None and len(played) == stop_after:
            raise KeyboardInterrupt
        played.append(cell.key)
        return PLAY_CELL(cell, blas_threads)

    monkeypatch.setattr(meta_table, "play_cell", play)
    return played


def test_an_iteration_adds_a_best_response_and_plays_only_its_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = _manifest(tmp_path / "pop")
    played = _counting(monkeypatch)
    out = tmp_path / "out"
    result = solve_population(_settings(manifest), out)
    table = ["0,1", "0,2", "1,0", "1,2", "2,0", "2,1"]
    new = ["0,3", "1,3", "2,3", "3,0", "3,1", "3,2"]  # the new member against each, each against it
    assert played == [*table, *new, "check:0", "check:1", "check:2", "check:3"]
    assert [m.spec for m in result.members] == [*SCRIPTED, "npz:psro/response_1.npz"]
    (iteration,) = result.psro
    assert iteration.iteration == 1 and iteration.member == "npz:psro/response_1.npz"
    assert iteration.steps == 512 and iteration.games == 12
    assert 0 <= iteration.ci_low <= iteration.win_rate <= iteration.ci_high <= 1
    assert len(iteration.weights) == len(iteration.shipped) == 4
    assert iteration.shipped == pytest.approx([m.shipped_weight for m in result.members])
    # The best response trained against the first solution's shipped mixture, written as a population.
    mixture = read_population(Path(iteration.mixture))
    first = json.loads((out / "meta.json").read_text())
    assert first["psro"]["iterations"] == 1 and first["psro"]["settings"]["learner"] == "fast"
    assert {m.spec for m in mixture} <= set(SCRIPTED) and sum(m.weight for m in mixture) == pytest.approx(1)
    response = json.loads((Path(iteration.run_dir) / "response.json").read_text())
    assert response["target"] == f"population:{iteration.mixture}"
    assert response["seed"] == response_seed(1, 1) and response["budget"] == 512
    assert (out / "psro" / "response_1.npz").is_file()
    assert _solution(out)["psro"][0]["member"] == "npz:psro/response_1.npz"
    assert "PSRO: 1 iteration(s)" in (out / "result.md").read_text()
    shipped = read_population(out / "population" / "population.json")
    for member in shipped:  # the shipped folder carries its own copy of a kept best response
        if member.spec.startswith("npz:"):
            assert (out / "population" / member.spec.removeprefix("npz:")).is_file()


def test_a_run_stopped_during_psro_resumes_to_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = _manifest(tmp_path / "pop")
    _counting(monkeypatch)
    solve_population(_settings(manifest), tmp_path / "whole")

    out = tmp_path / "stopped"
    _counting(monkeypatch, stop_after=8)  # Ctrl-C in the new member's cells
    with pytest.raises(KeyboardInterrupt):
        solve_population(_settings(manifest), out)
    assert len(json.loads((out / "cells.json").read_text())["cells"]) == 8
    assert (out / "psro" / "iteration_1" / "response" / "finished.json").is_file()
    assert not (out / "solution.json").exists()
    (out / "psro" / "response_1.npz").unlink()  # as if killed before its export: exported again

    with pytest.raises(ConfigError, match="psro"):  # other PSRO settings do not continue it
        solve_population(_settings(manifest, psro=PsroSettings(iterations=2, budget=512)), out, resume=True)
    played = _counting(monkeypatch)
    solve_population(_settings(manifest), out, resume=True)
    assert played == ["2,3", "3,0", "3,1", "3,2", "check:0", "check:1", "check:2", "check:3"]
    runs = sorted(p.name for p in (out / "psro" / "iteration_1").iterdir())
    assert runs == ["mixture", "response"]  # the finished best response read back, not trained again
    # Equal to the uninterrupted run's, whose best response was trained on its own from the same seed.
    assert _solution(out) == _solution(tmp_path / "whole")


def test_from_the_whole_population_only_the_best_responses_are_weighed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = _manifest(tmp_path / "pop")
    played = _counting(monkeypatch)
    start = dataclasses.replace(TINY_PSRO, start="population")
    result = solve_population(_settings(manifest, psro=start), tmp_path / "out")
    # One strategy to start with (no table to play), then the best response's two cells and the check.
    assert played == ["0,1", "1,0", "check:0", "check:1"]
    assert [m.spec for m in result.members] == [f"population:{manifest}", "npz:psro/response_1.npz"]
    (iteration,) = result.psro
    trained_against = read_population(Path(iteration.mixture))
    assert [(m.spec, m.weight) for m in trained_against] == [(s, pytest.approx(1 / 3)) for s in SCRIPTED]
    # It ships as the population's members at their shares of its weight, beside the best response.
    whole, response = (m.shipped_weight for m in result.members)
    shipped = {m.spec: m.weight for m in read_population(tmp_path / "out" / "population" / "population.json")}
    expected = {s: whole / 3 for s in SCRIPTED} if whole else {}
    if response:
        expected["npz:psro/response_1.npz"] = response
    assert shipped == pytest.approx(expected)
    with pytest.raises(ConfigError, match="start"):
        PsroSettings(start="population")  # nothing to weigh without iterations


def test_a_run_without_psro_records_what_it_did_before() -> None:
    settings = MetaSettings(population=Path("p.json"), num_players=3)
    assert "psro" not in settings.record() and settings.psro.iterations == 0
    assert "psro" in MetaSettings(population=Path("p.json"), num_players=3, psro=TINY_PSRO).record()


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"iterations": -1}, "iterations"),
        ({"iterations": True}, "iterations"),
        ({"budget": 0}, "budget"),
        ({"preset": "huge"}, "preset"),
        ({"games": 0}, "games"),
        ({"ppo": {"bogus": 1}}, "bogus"),
        ({"ppo": {"hidden": [0]}}, "hidden"),
        ({"iterations": 1, "start": "uniform"}, "start"),
    ],
)
def test_bad_psro_settings_name_their_field(changes: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        PsroSettings(**changes)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--psro-iterations", "-1"], "--psro-iterations"),
        (["--psro-iterations", "1", "--psro-budget", "0"], "positive"),
        (["--psro-iterations", "1", "--psro-preset", "huge"], "invalid choice"),
        (["--psro-iterations", "1", "--psro-games", "0"], "positive"),
        (["--psro-budget", "1000"], "--psro-budget set without --psro-iterations"),
        (["--psro-preset", "strong", "--psro-games", "9"], "--psro-preset, --psro-games set without"),
        (["--psro-start", "population"], "--psro-start set without"),
        (["--psro-iterations", "1", "--psro-start", "uniform"], "invalid choice"),
        (["--psro-iterations", "2", "--seed", "4294965296"], "past the learner's"),
        (["--psro-iterations", "1", "--psro-budget", str(2**60)], "budget"),
    ],
)
def test_the_command_refuses_bad_psro_flags_before_creating_anything(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["meta", "--population", str(_manifest(tmp_path)), "--players", "3", "--out", str(out)]
    assert main([*argv, *flags]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert captured.out == ""
    assert not out.exists()
