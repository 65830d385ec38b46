"""ruff (lint + format) and mypy stay clean: the house rules of STYLE.md, enforced."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT

PATHS = ["hoity_env", "tests", "examples", "benchmarks", "training"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint() -> None:
    out = _run("ruff", "check", *PATHS)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format() -> None:
    out = _run("ruff", "format", "--check", *PATHS)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_strict_on_the_package() -> None:
    out = _run("mypy")
    assert out.returncode == 0, out.stdout + out.stderr
