"""Measured figures in the README and the docs come from committed result files (docs/figures.py).

A table typed by hand goes stale the day the code changes; these tests regenerate every
figure block from its result file and fail when a page differs, and they fail when a
measured table (one with a win rate or an interval) stands outside a figure block.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))

import figures  # noqa: E402


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
    measured = re.compile(r"win rate|interval")
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


def test_the_generator_runs_as_documented() -> None:
    out = subprocess.run(
        [sys.executable, "docs/figures.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
