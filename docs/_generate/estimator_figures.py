"""The evaluation page's figure of best-response estimators compared (docs/evaluation.md), from its record.

``docs/_generate/figures.py`` registers ``estimators``: every run of ``docs/results/estimators.json``
(``benchmarks/compare_estimators.py``: one 2M-step best response per start, ``fresh``, ``warm``
and ``curriculum``, to ``champion-mix`` at 5 standard players, and more runs of the chosen one),
each with its table, network, training CPU, learning curve and final win rate beside the fair
share, and the runs' provenance.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hoity_env.evaluation.reports.markdown import interval, rate, table

ROOT = Path(__file__).resolve().parents[2]
RECORD = "docs/results/estimators.json"


def estimators() -> str:
    """The comparison: a row per best response, then where the runs came from."""
    path = ROOT / RECORD
    if not path.exists():
        return f"Not measured yet (`{RECORD}`)."
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    order = {"fresh": 0, "curriculum": 1, "warm": 2}
    runs = sorted(data["runs"], key=lambda r: (r["table"], order.get(r["start"].split()[0], 3), r["seed"]))
    rows = []
    for r in runs:
        network = "×".join(map(str, r["hidden"])) + (", padded" if r["padded"] else "")
        curve = ", ".join(f"{rate(w)}" for _, w in r["curve"]) or "–"
        rows.append(
            [
                r["table"],
                f"`{r['start']}`",
                str(r["seed"]),
                network,
                f"{r['train_cpu_seconds']:,.0f}",
                curve,
                f"{rate(r['win_rate'])} {interval(*r['ci'])}",
                f"{1 / int(r['table'].split('/')[1]):.3f}",
            ]
        )
    header = ["table", "start", "seed", "network", "training CPU-s", "curve", "win rate (95% interval)"]
    header.append("fair share")
    first = runs[0]
    commits = ", ".join(dict.fromkeys(r["git_commit"] for r in runs))
    cpus = ", ".join(dict.fromkeys(r["cpu_model"] for r in runs if r.get("cpu_model")))
    loads = ", ".join(f"{r['load_average']:.1f}" for r in runs)
    return (
        table(header, rows, "llrlrlrr")
        + f"\n\nEach row a best response to `{first['target']}` at its table (standard rules, N players), "
        f"trained for {first['steps']:,} learner steps (2M rounded up to whole rollouts) at the "
        "`strong` preset, its network the preset's 256×256 unless the start took the target's "
        f"(`warm`), then scored in {first['games']:,} duplicate-format games on its seed. Curve: the "
        "win rate at a quarter, half, three quarters and all of the budget, 200 games each on seed + 1; "
        "fair share 1/N. "
        "Training CPU-s: `time.process_time` around training (the targets' own decisions included, "
        f"curve games not). Command: `{data['command']}` (each run's own command, date, load "
        f"and commit in `{RECORD}`); machine: {data['machine']}, CPU {cpus or '–'}; commit {commits}; "
        f"load average as each run ended {loads}; last measured {data['measured']}."
    )


FIGURES = {"estimators": estimators}
