"""Measured figures in the README and the docs come from committed result files (docs/_generate/figures.py).

A table typed by hand goes stale the day the code changes; these tests regenerate every
figure block from its result file and fail when a page differs, and they fail when a
measured table (one with a win rate, an interval or a speed) stands outside a figure block.
The benchmarks write those result files through ``benchmarks/bench_record.py``, checked here
on a tiny record (no benchmark runs in the suite: timings belong to the scripts).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_generate"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_record
import figures
import learning_figures


def test_every_figure_block_matches_its_result_file() -> None:
    assert [str(p.relative_to(ROOT)) for p in figures.stale_pages()] == []


def test_the_check_command_fails_on_a_stale_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    page.write_text("before\n<!-- figure: reference -->\n| typed | by hand |\n<!-- end figure -->\n")
    monkeypatch.setattr(figures, "PAGES", [page])
    assert figures.stale_pages() == [page]
    assert figures.main(["--check"]) == 1
    assert "typed" in page.read_text()  # --check changes nothing
    assert figures.main([]) == 0
    assert figures.stale_pages() == []
    assert "| typed |" not in page.read_text() and figures.reference() in page.read_text()


def test_every_figure_is_shown_and_every_block_names_a_figure() -> None:
    named = {m.group(2) for p in figures.PAGES for m in figures.BLOCK.finditer(p.read_text(encoding="utf-8"))}
    assert named == set(figures.FIGURES)


def _tables_outside_blocks(text: str) -> list[str]:
    outside = figures.BLOCK.sub("", text)
    outside = re.sub(r"```.*?```", "", outside, flags=re.S)
    lines = outside.splitlines()
    measured = re.compile(r"win rate|interval|CPU|steps ?/ ?s|µs|per second|×")
    rule = re.compile(r"^\|[\s:|-]+\|$")  # the line under a table's header
    return [
        line
        for line, below in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith("|") and rule.match(below) and measured.search(line)
    ]


@pytest.mark.parametrize("page", figures.PAGES, ids=lambda p: p.name)
def test_measured_tables_stand_in_figure_blocks(page: Path) -> None:
    assert _tables_outside_blocks(page.read_text(encoding="utf-8")) == []


def test_the_table_guard_sees_a_typed_table() -> None:
    assert _tables_outside_blocks("| agent | win rate |\n|---|---|\n| a | 0.5 |\n") == [
        "| agent | win rate |"
    ]
    assert _tables_outside_blocks("<!-- figure: x -->\n| agent | win rate |\n<!-- end figure -->\n") == []
    assert _tables_outside_blocks("| env | steps / CPU-s |\n|---|---|\n| a | 5 |\n") == [
        "| env | steps / CPU-s |"
    ]


def test_a_benchmark_record_holds_its_figures_and_provenance(tmp_path: Path) -> None:
    recorder = bench_record.Recorder.start(str(tmp_path / "r.json"), ["--steps", "10"])
    assert recorder is not None and bench_record.Recorder.start(None) is None
    recorder.write({"rows": {"a": 1.5}}, settings={"steps": 10, "record": "r.json"})
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["figures"] == {"rows": {"a": 1.5}} and record["settings"] == {"steps": 10}
    assert record["command"].endswith("--steps 10") and record["format"] == bench_record.FORMAT
    assert record["machine"]["cpus"] >= 1 and len(record["machine"]["load_average"]) == 2
    assert "numpy" in record["versions"] and record["wall_seconds"] >= 0 and record["cpu_seconds"] >= 0
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def test_a_record_must_be_a_json_file() -> None:
    with pytest.raises(ValueError, match=r"r\.txt"):
        bench_record.Recorder.start("r.txt")


def test_the_command_recorder_keeps_the_output(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    assert bench_record.main([str(out), "--", sys.executable, "-c", "print('win rate 0.5')"]) == 0
    record = json.loads(out.read_text())
    assert record["figures"]["stdout"] == "win rate 0.5\n" and " -- " in record["command"]
    failed = tmp_path / "f.json"
    assert bench_record.main([str(failed), "--", sys.executable, "-c", "raise SystemExit(3)"]) == 3
    assert not failed.exists()  # a failed command records nothing


def test_a_transcribed_record_must_say_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import perf_figures

    (tmp_path / "docs/results/performance").mkdir(parents=True)
    (tmp_path / "docs/results/performance/x.json").write_text(json.dumps({"command": "c", "figures": {}}))
    monkeypatch.setattr(perf_figures, "ROOT", tmp_path)
    with pytest.raises(SystemExit, match="transcribed"):
        learning_figures.transcribed("x")


def test_a_main_job_record_that_prints_the_same_table_keeps_the_earlier_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "runs" / "ppo"
    run.mkdir(parents=True)
    (run / "args.json").write_text(json.dumps({"num_players": 4}))
    scores = json.loads((ROOT / "docs/results/main_job.json").read_text())["evaluation"]
    (run / "evaluation.json").write_text(json.dumps(scores))
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    (tmp_path / "docs/results").mkdir(parents=True)
    old = {"machine": "m1", "measured": "2026-01-01", "cpu_seconds": 9.0, "evaluation": scores}
    (tmp_path / "docs/results/main_job.json").write_text(json.dumps(old))
    record = json.loads(figures.record_main_job(run, 1.5).read_text())
    assert record["same_table_on"] == [{"machine": "m1", "measured": "2026-01-01", "cpu_seconds": 9.0}]
    assert record["cpu_seconds"] == 1.5 and record["evaluation"]["scores"] == scores["scores"]
    shown = " ".join(figures.main_job().split())
    assert "The same table was also printed on 2026-01-01 (m1)." in shown
    scores["scores"]["expert"]["wins"] += 1  # another table: the earlier machine is not carried
    (run / "evaluation.json").write_text(json.dumps(scores))
    assert "same_table_on" not in json.loads(figures.record_main_job(run, 1.5).read_text())


def test_the_generator_runs_as_documented() -> None:
    out = subprocess.run(
        [sys.executable, "docs/_generate/figures.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("target", ["champion-mix", "champion"])
def test_the_default_best_response_wins_at_least_as_much_as_every_setting_measured(target: str) -> None:
    """``STRONG_SETTINGS`` must be a measured setting (the figure refuses otherwise) that no other
    setting of ``docs/results/best_response_settings.json`` beats by more than 1.96 standard errors."""
    import exploit_figures

    default, leads = exploit_figures.leads(target)
    assert default and leads
    assert {k: z for k, z in leads.items() if z > 1.96} == {}
