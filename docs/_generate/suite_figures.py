"""How long the README's two commands take: figures from committed records (docs/_generate/figures.py).

* ``docs/results/main_job.json``: command 1 (``record_main_job`` in ``figures.py``), its CPU time.
* ``docs/results/performance/install.json`` and ``test_suite.json``: command 2's install and its
  pytest run, each recorded by ``benchmarks/bench_record.py`` (the command's output, wall and CPU
  time, the machine with its load average at the start and the end: the machine is shared, and
  a busy one stretches wall time, not CPU time).  How to record them: docs/development.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import perf_figures

ROOT = Path(__file__).resolve().parents[2]
CLOSING = re.compile(r"^=+ (.+?) in ([\d.]+)s(?: \([\d:]+\))? =+$", re.M)
"""pytest's closing line: ``=== 2389 passed, 1 skipped in 580.12s (0:09:40) ===``."""
SLOWEST = re.compile(r"^([\d.]+)s (call|setup|teardown) +(\S+)$", re.M)


def pytest_summary(stdout: str) -> tuple[str, float, list[tuple[float, str]]]:
    """pytest's closing counts, its own seconds, and the ``--durations`` lines (seconds, test)."""
    match = CLOSING.search(stdout)
    if match is None:
        raise SystemExit("test_suite.json: no pytest closing line in the recorded output")
    slowest = [(float(m.group(1)), m.group(3)) for m in SLOWEST.finditer(stdout)]
    return match.group(1), float(match.group(2)), slowest


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def suite_time() -> str:
    """Command 1's CPU time, command 2's install and pytest: wall and CPU time, machine, date."""
    main_job: dict[str, Any] = json.loads((ROOT / "docs/results/main_job.json").read_text(encoding="utf-8"))
    install, suite = perf_figures.load("install"), perf_figures.load("test_suite")
    counts, _, slowest = pytest_summary(suite["figures"]["stdout"])
    top = f"; the slowest test took {slowest[0][0]:.0f} s (`{slowest[0][1]}`)" if slowest else ""
    return (
        f"**How long.** Command 1 trains and evaluates in {main_job['cpu_seconds'] / 60:.1f} CPU-minutes "
        f"(its install not included). Command 2's install (both `pip install` steps, a fresh virtual "
        f"environment) took {_minutes(install['wall_seconds'])} of wall time, and its pytest "
        f"{_minutes(suite['wall_seconds'])} ({_minutes(suite['cpu_seconds'])} of CPU over the "
        f"workers): {counts}{top}. Machine: {perf_figures.machine(suite)}; measured "
        f"{suite['measured']} (`docs/results/performance/test_suite.json`, `install.json`, both "
        f"recorded by `benchmarks/bench_record.py`: docs/development.md)."
    )


FIGURES = {"suite-time": suite_time}
