"""The ten tables' figure judges its record (docs/_generate/tables_figures.py, issue 36).

A table is "met" only when every part was measured and cleared its bar: two seeds of each of
the three estimators at 2M, one best response at 10M, and `champion` against `expert` with a lower
bound above 1/N.  A missing part is said, never dropped; and the plan of
``benchmarks/tables.py`` covers every part of every table, cheapest first.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_generate"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import tables
import tables_figures


def _exploit(table: str, estimator: str, seed: int, budget: int, rate: float) -> dict[str, object]:
    return {"kind": "exploit", "table": table, "estimator": estimator, "seed": seed, "budget": budget,
            "win_rate": rate, "ci": [rate - 0.03, rate + 0.03]}  # fmt: skip


def _h2h(table: str, rate: float, low: float) -> dict[str, object]:
    return {"kind": "h2h", "table": table, "estimator": "", "seed": 7, "budget": 0, "games": 1000,
            "win_rate": rate, "ci": [low, rate + 0.03]}  # fmt: skip


def _row(runs: list[dict[str, object]], table: str) -> dict[str, object]:
    return next(r for r in tables_figures.verdicts(runs) if r["table"] == table)


def _complete(table: str, short: float, long: float, low: float) -> list[dict[str, object]]:
    runs = [_exploit(table, e, s, tables.SHORT, short) for e in tables.ESTIMATORS for s in (0, 1)]
    return [*runs, _exploit(table, "strong", 0, tables.LONG, long), _h2h(table, low + 0.03, low)]


def test_a_table_is_met_only_when_every_part_clears_its_bar() -> None:
    assert _row(_complete("standard/4", 0.44, 0.54, 0.26), "standard/4")["verdict"] == "**met**"
    row = _row(_complete("standard/4", 0.46, 0.54, 0.26), "standard/4")  # 2M bar 0.45
    assert row["verdict"] == "2M missed; 10M met; expert met"
    row = _row(_complete("standard/2", 0.69, 0.81, 0.51), "standard/2")  # 10M bar 0.80
    assert row["verdict"] == "2M met; 10M missed; expert met"
    row = _row(_complete("original/6", 0.2, 0.3, 1 / 6 - 0.001), "original/6")  # above 1/6, or missed
    assert row["verdict"] == "2M met; 10M met; expert missed"


def test_missing_parts_are_said_and_no_table_is_dropped() -> None:
    rows = tables_figures.verdicts([_exploit("original/3", "strong", 0, tables.SHORT, 0.40)])
    assert [r["table"] for r in rows] == [f"{r}/{n}" for r in ("standard", "original") for n in range(2, 7)]
    row = next(r for r in rows if r["table"] == "original/3")
    assert row["verdict"] == "2M met so far (1 of 6 runs); 10M not measured; expert not measured"
    assert rows[0]["verdict"] == "2M not measured; 10M not measured; expert not measured"


@pytest.mark.parametrize("n", range(2, 7))
def test_the_bars_are_the_issues(n: int) -> None:
    assert tables_figures.bars(n) == pytest.approx((min(1.8 / n, 1 / n + 0.2), min(2.2 / n, 1 / n + 0.3)))


def test_the_plan_covers_every_part_cheapest_first() -> None:
    plan = tables.plan(list(tables.TABLES), [_exploit("original/5", "memory", 0, tables.SHORT, 0.3)])
    assert len(plan) == 10 * (1 + 6 + 1)
    assert [k["kind"] for k in plan[:10]] == ["h2h"] * 10
    assert [k["budget"] for k in plan[10:70]] == [tables.SHORT] * 60
    assert [k["estimator"] for k in plan[10:70:10]] == ["strong", "memory", "warm"] * 2  # seed 0, then 1
    long = {k["table"]: k["estimator"] for k in plan[70:]}
    assert long["original/5"] == "memory" and long["standard/2"] == "strong"  # the strongest at 2M


def test_a_table_already_missed_at_2m_goes_last() -> None:
    missed = _exploit("standard/2", "strong", 0, tables.SHORT, 0.98)  # the 2-player bar is 0.70
    plan = tables.plan(list(tables.TABLES), [missed])
    assert len(plan) == 79 and [k["kind"] for k in plan[:10]] == ["h2h"] * 10  # 0.98 > 0.80: no 10M run
    rest = [k["table"] for k in plan[10:]]
    assert rest[-6:] == ["standard/2"] * 6 and "standard/2" not in rest[:-6]


def test_a_2m_best_response_above_the_10m_bar_settles_10m_and_the_plan_leaves_that_run_out() -> None:
    missed = _exploit("standard/3", "strong", 0, tables.SHORT, 0.83)  # 10M bar at 3 players: 0.633
    near = _exploit("standard/4", "strong", 0, tables.SHORT, 0.475)  # above 0.45, under 0.55
    row = _row([missed, near], "standard/3")
    assert row["verdict"] == "2M missed; 10M missed, settled at 2M; expert not measured"
    assert _row([missed, near], "standard/4")["verdict"].startswith("2M missed; 10M not measured")
    plan = tables.plan(list(tables.TABLES), [missed, near])
    long = [k["table"] for k in plan if k["budget"] == tables.LONG]
    assert "standard/3" not in long and "standard/4" in long and len(long) == 9


def test_a_bar_cleared_below_the_fair_share_is_flagged_as_a_weak_estimate() -> None:
    row = _row(_complete("standard/6", 0.15, 0.16, 0.4), "standard/6")  # fair share 1/6
    weak = " (2M and 10M: every best response stayed below the fair share, a weak estimate)"
    assert row["verdict"] == "**met**" + weak
    row = _row(_complete("standard/6", 0.15, 0.3, 0.4), "standard/6")  # 10M bar 0.367
    assert row["verdict"] == "**met** (2M: every best response stayed below the fair share, a weak estimate)"


def test_runs_that_measured_another_agent_are_superseded_and_measured_again(tmp_path: Path) -> None:
    from hoity_env.agents.policies.content import content_hash

    now = content_hash(tables.TARGET, rules="standard", num_players=2)
    current = {**_exploit("standard/2", "strong", 0, tables.SHORT, 0.7), "target_hash": now}
    old = {**_exploit("standard/2", "memory", 0, tables.SHORT, 0.98), "target_hash": "sha256:old"}
    other = {**_exploit("standard/3", "memory", 0, tables.SHORT, 0.8), "target_hash": "sha256:old"}
    record = tmp_path / "tables.json"
    record.write_text(json.dumps({"runs": [current, old, other, _h2h("standard/2", 0.9, 0.88)]}))
    assert tables.retire_stale(record, [("standard", 2)]) == [old]  # standard/3 not asked about
    data = json.loads(record.read_text())
    assert data["runs"] == [current, other, _h2h("standard/2", 0.9, 0.88)] and data["superseded"] == [old]
    memory = [k for k in tables.plan([("standard", 2)], data["runs"]) if k["estimator"] == "memory"]
    assert any(k["seed"] == 0 and k["budget"] == tables.SHORT for k in memory)  # measured again


def test_the_next_run_is_planned_from_the_record_as_it_is_now() -> None:
    table = [("standard", 2)]
    runs = [_h2h("standard/2", 0.9, 0.88)]
    runs += [_exploit("standard/2", e, s, tables.SHORT, 0.7) for e in tables.ESTIMATORS for s in (0, 1)]
    assert tables.next_run(table, {"10m"}, runs)["estimator"] == "strong"  # ties: strong
    runs[-1]["win_rate"] = 0.75  # warm, seed 1 now the strongest
    assert tables.next_run(table, {"10m"}, runs)["estimator"] == "warm"
    assert tables.next_run(table, {"2m", "h2h"}, runs) is None
    runs.append(_exploit("standard/2", "strong", 0, tables.LONG, 0.8))  # one 10M run a table, any estimator
    assert tables.next_run(table, {"10m"}, runs) is None


def test_the_record_reads_runs_from_before_there_were_starts(tmp_path: Path) -> None:
    from hoity_env.engine.errors import FileFormatError

    old = _exploit("standard/5", "strong", 0, tables.SHORT, 0.215)  # no "start": it started fresh
    warm = {**_exploit("standard/5", "warm", 0, tables.SHORT, 0.289), "start": "warm"}
    record = tmp_path / "tables.json"
    record.write_text(json.dumps({"runs": [old, warm]}))
    assert tables.read_record(record)["runs"] == [old, warm]
    assert _row([old, warm], "standard/5")["short_max"] == 0.289  # the maximum over estimators
    record.write_text(json.dumps({"runs": [{**warm, "start": 3}]}))
    with pytest.raises(FileFormatError, match="start"):
        tables.read_record(record)


def test_an_unshipped_population_stands_beside_the_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs" / "results").mkdir(parents=True)
    record = {"runs": _complete("standard/3", 0.52, 0.60, 0.50)}
    (tmp_path / tables_figures.RECORD).write_text(json.dumps(record))
    monkeypatch.setattr(tables_figures, "ROOT", tmp_path)
    assert tables_figures.unshipped_populations() == "No population was measured and left unshipped."
    population = {"table": "standard/3", "name": "longer league", "members": "16",
                  "league_cpu_seconds": 1624.2, "league": "hoity-league ...", "why_not": "more exploitable",
                  "runs": [_exploit("standard/3", "warm", 0, 2_000_000, 0.57),
                           _exploit("standard/3", "strong", 0, 2_000_000, 0.54)]}  # fmt: skip
    unshipped = {"note": "Measured, not shipped.", "machine": "2 CPUs", "populations": [population]}
    (tmp_path / tables_figures.UNSHIPPED).write_text(json.dumps(unshipped))
    row = tables_figures.unshipped_populations().splitlines()[2]
    # its runs, strong first; its maximum; the shipped population's maximum against the 2M bar
    assert "strong, 0: 0.540; warm, 0: 0.570 | 0.570 [0.540, 0.600] | 0.520 (≤ 0.533) |" in row
    assert "| 1,624 |" in row and row.endswith("| more exploitable |")
