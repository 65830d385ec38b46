"""Result round trips (JSON exact, CSV per-agent table), Markdown tables and PNG charts."""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from pathlib import Path

import pytest

from hoity_env.evaluation import (
    EvaluationResult,
    HeadToHeadResult,
    TournamentResult,
    evaluate,
    head_to_head,
    tournament,
)
from hoity_env.evaluation.reports.output import write_results
from hoity_env.evaluation.reports.plots import can_plot
from hoity_env.evaluation.reports.rows import AgentStats, PairStats, Rating, SeatStats, WinTally
from hoity_env.evaluation.reports.serialize import columns, rows_to_csv
from hoity_env.strength.ladder import LadderRow
from hoity_env.strength.results import CurvePoint, ExploitEntry, ExploitResult, SweepEntry

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
Result = EvaluationResult | TournamentResult | HeadToHeadResult


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return {
        "evaluation": evaluate(["expert", "random", "random", "random"], games=8, seed=2, progress=False),
        "tournament": tournament(["expert", "collector", "random"], num_players=3, games=3, progress=False),
        "h2h": head_to_head(["expert", "thief", "random"], num_players=3, games=3, progress=False),
    }


KINDS = ["evaluation", "tournament", "h2h"]


@pytest.mark.parametrize("kind", KINDS)
def test_json_round_trip_is_exact(results: dict[str, Result], kind: str, tmp_path: Path) -> None:
    result = results[kind]
    back = type(result).from_json(result.to_json())
    assert back == result
    assert back.to_json() == result.to_json()
    path = tmp_path / "r.json"
    result.save_json(path)
    assert type(result).from_json(path.read_text(encoding="utf-8")) == result


@pytest.mark.parametrize("kind", KINDS)
def test_csv_round_trip_of_the_table(results: dict[str, Result], kind: str) -> None:
    result = results[kind]
    rows = type(result).from_csv(result.to_csv())
    expected = {
        "evaluation": lambda r: r.agent_stats,
        "tournament": lambda r: r.ratings,
        "h2h": lambda r: r.pairs,
    }[kind](result)
    assert rows == expected
    assert len(result.to_csv().splitlines()) == len(expected) + 1


@pytest.mark.parametrize("kind", KINDS)
def test_markdown_names_every_agent(results: dict[str, Result], kind: str) -> None:
    result = results[kind]
    text = result.to_markdown()
    names = result.agents if isinstance(result, EvaluationResult) else result.pool
    for name in names:
        assert f"`{name}`" in text
    assert "95%" in text and "| :--- |" in text


@pytest.mark.parametrize("kind", KINDS)
def test_png_is_written(results: dict[str, Result], kind: str, tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.png"
    results[kind].plot_png(path)
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 5000


def test_without_matplotlib_the_results_are_written_but_the_chart(
    results: dict[str, Result],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The core install has no matplotlib (the ``plots`` extra): ``result.png`` is left out and one
    line says how to get it; drawing a chart anyway is one clear error naming the extra."""
    assert can_plot()
    for name in [m for m in sys.modules if m.startswith("matplotlib.")] + ["matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)  # what an import finds where it is not installed
    assert not can_plot()
    result = results["evaluation"]
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'hoity_env\[plots\]'"):
        result.plot_png(tmp_path / "chart.png")
    assert not (tmp_path / "chart.png").exists()
    with caplog.at_level(logging.INFO, logger="hoity_env"):
        paths = write_results(result, tmp_path / "out")
    assert [p.name for p in paths] == ["result.json", "result.csv", "result.md"]
    assert sorted(p.name for p in (tmp_path / "out").glob("result*")) == sorted(p.name for p in paths)
    (line,) = [r.getMessage() for r in caplog.records]
    assert "result.png" in line and "hoity_env[plots]" in line


def test_malformed_inputs_are_value_errors(results: dict[str, Result]) -> None:
    result = results["evaluation"]
    assert isinstance(result, EvaluationResult)
    with pytest.raises(ValueError, match="not a JSON result"):
        EvaluationResult.from_json("{nope")
    data = json.loads(result.to_json())
    data["games"] = "many"
    with pytest.raises(ValueError, match=r"EvaluationResult\.games"):
        EvaluationResult.from_json(json.dumps(data))
    del data["games"]
    with pytest.raises(ValueError, match="fields"):
        EvaluationResult.from_json(json.dumps(data))
    with pytest.raises(ValueError, match="header"):
        EvaluationResult.from_csv("a,b\n1,2\n")
    bad = result.to_csv().replace(str(result.agent_stats[0].wins), "x", 1)
    with pytest.raises(ValueError, match="bad value"):
        EvaluationResult.from_csv(bad)


def test_tournament_ratings_and_tables(results: dict[str, Result]) -> None:
    result = results["tournament"]
    assert isinstance(result, TournamentResult)
    assert [r.agent for r in result.ratings] == ["expert", "collector", "random"]
    assert len(result.tables) == 1 and result.tables[0].agents == ("expert", "collector", "random")
    assert sum(r.rating for r in result.ratings) == pytest.approx(0.0, abs=1e-9)  # pool mean 0
    for r in result.ratings:
        assert r.rating_low < r.rating < r.rating_high
    assert dataclasses.replace(result, ratings=()) != result


def test_head_to_head_pairs(results: dict[str, Result]) -> None:
    result = results["h2h"]
    assert isinstance(result, HeadToHeadResult)
    assert len(result.pairs) == 6
    pair = result.pair("expert", "random")
    table = result.tables[[(p.agent, p.opponent) for p in result.pairs].index(("expert", "random"))]
    assert table.agents == ("expert", "random", "random")
    assert pair.wins == table.agent_stats[0].wins and pair.games == 3
    with pytest.raises(KeyError):
        result.pair("expert", "expert")


# The written column order of every row, as the committed result files have it.  The rows
# inherit their tally fields (declared first), so this pins the LEAD that keeps keys in front.
COLUMNS: dict[type, list[str]] = {
    AgentStats: ["agent", "entries", "games", "wins", "win_rate", "ci_low", "ci_high", "win_share",
                 "mean_rank", "mean_position", "mean_rounds"],
    SeatStats: ["seat", "games", "wins", "win_rate", "ci_low", "ci_high", "mean_rank"],
    Rating: ["agent", "rating", "rating_low", "rating_high", "games", "wins", "win_rate", "ci_low",
             "ci_high", "mean_rank"],
    PairStats: ["agent", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high", "mean_rank"],
    CurvePoint: ["timesteps", "games", "wins", "win_rate", "ci_low", "ci_high"],
    ExploitEntry: ["target", "timesteps", "games", "wins", "win_rate", "ci_low", "ci_high", "mean_rank",
                   "train_seconds", "run_dir", "curve", "train_cpu_seconds", "eval_seconds",
                   "target_hash"],
    SweepEntry: ["target", "learner", "settings", "memory", "seed", "budget", "timesteps", "games", "wins",
                 "win_rate", "ci_low", "ci_high", "train_cpu_seconds", "run_dir", "train_seconds",
                 "eval_seconds", "target_hash", "start"],
    LadderRow: ["agent", "mean_win_rate", "rating", "rating_low", "rating_high", "openskill_mu",
                "openskill_sigma", "exploit_win_rate", "exploit_low", "exploit_high", "exploit_run_dir"],
}  # fmt: skip


@pytest.mark.parametrize("cls", list(COLUMNS), ids=lambda c: c.__name__)
def test_row_columns_keep_their_documented_order(cls: type) -> None:
    assert columns(cls) == COLUMNS[cls]
    assert rows_to_csv([], cls).strip() == ",".join(COLUMNS[cls])
    assert (cls is LadderRow) != issubclass(cls, WinTally)


def test_json_keys_follow_the_columns_in_nested_rows(results: dict[str, Result]) -> None:
    data = json.loads(results["evaluation"].to_json())
    assert list(data["agent_stats"][0]) == COLUMNS[AgentStats]
    assert list(data["seat_stats"][0]) == COLUMNS[SeatStats]
    assert list(json.loads(results["tournament"].to_json())["ratings"][0]) == COLUMNS[Rating]
    assert list(json.loads(results["h2h"].to_json())["pairs"][0]) == COLUMNS[PairStats]
    point = CurvePoint(timesteps=8, games=4, wins=1, win_rate=0.25, ci_low=0.05, ci_high=0.7)
    entry = ExploitEntry(
        target="thief",
        timesteps=8,
        **point.win_fields(),
        mean_rank=2.5,
        train_seconds=1.0,
        run_dir="r",
        curve=(point,),
    )
    result = ExploitResult(
        num_players=4, rules="standard", budget=8, seed=0, fair_share=0.25, entries=(entry,), learner="fast"
    )
    written = json.loads(result.to_json())["entries"][0]
    assert list(written) == COLUMNS[ExploitEntry] and list(written["curve"][0]) == COLUMNS[CurvePoint]
    assert ExploitResult.from_json(result.to_json()) == result


def test_a_lead_naming_no_field_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Typo(WinTally):
        LEAD = ("agnet",)

        agent: str

    with pytest.raises(TypeError, match="agnet"):
        columns(Typo)
