"""Atomic writes give files the permissions a plain ``open`` would (docs/design.md §8)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from hoity_env.evaluation import evaluate
from hoity_env.evaluation.reports.output import write_results
from hoity_env.files import temporary_beside


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_temporary_file_has_the_mode_open_would_give(tmp_path: Path, umask_022: None) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    tmp = temporary_beside(tmp_path / "result.json")
    assert tmp.parent == tmp_path and tmp.name.startswith(".result.json.")
    assert _mode(tmp) == _mode(plain) == 0o644


def test_evaluation_results_are_not_private(tmp_path: Path, umask_022: None) -> None:
    result = evaluate(["random", "random"], num_players=2, games=4, progress=False)
    for path in write_results(result, tmp_path / "out"):
        assert _mode(path) == 0o644, path
