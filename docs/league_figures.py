"""The league page's figures (docs/league.md), from committed result files.

``docs/figures.py`` registers them: ``league-ablation`` reads ``docs/results/league_ablation.json``
(``benchmarks/league_ablation.py``), ``champion-v2`` reads ``docs/results/champion_v2.json``
(``benchmarks/champion_v2.py``), ``champion-v1-fast`` ``docs/results/champion_v1_exploit.json``
(the same script on the first champion).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hoity_env.evaluation.reports.markdown import interval, rate, table

ROOT = Path(__file__).resolve().parent.parent


def _load(path: str) -> Any:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def _cell(result: dict[str, Any]) -> list[str]:
    return [rate(result["win_rate"]), interval(result["ci_low"], result["ci_high"])]


def league_ablation() -> str:
    """Exploitability and strength of each league arm at one CPU budget."""
    record = _load("docs/results/league_ablation.json")
    rows = []
    for row in record["rows"]:
        exploiters = [w for w in row["league"]["exploiter_win_rates"] if w is not None]
        rows.append(
            [
                row["arm"],
                f"{row['train_cpu_s']:.0f}",
                f"{row['steps']:,}",
                str(row["members_added"]),
                *_cell(row["exploitability"]),
                *_cell(row["vs_expert"]),
                *_cell(row["vs_champion"]),
                ", ".join(f"{w:.2f}" for w in exploiters) or "–",
            ]
        )
    header = [
        "arm",
        "training CPU-s",
        "learner steps",
        "members added",
        "best response wins",
        "95% interval",
        "vs 3 expert",
        "95% interval",
        "vs 3 champion-v1",
        "95% interval",
        "exploiters' wins during training",
    ]
    budget = record["rows"][0]["exploitability"]["budget"] if record["rows"] else 0
    return (
        f"{table(header, rows, 'lrrrrrrrrrl')}\n\n"
        f"Best response: a fresh fast learner trained for {budget:,} learner steps against three copies "
        "of the arm's main agent (sampling), then `--games` duplicate-format games (the same number for "
        "the rows against `expert` and `champion-v1`); the fair share is 0.25, "
        "and a lower number is a harder agent to exploit (an estimate from below at that budget). "
        f"Command: `{record['command']}`; machine: {record['machine']}; {record['date']}."
    )


def champion(path: str = "docs/results/champion_v2.json") -> str:
    """An agent's exploitability estimates (each, and their maximum) and its head-to-head record
    (``benchmarks/champion_v2.py``'s record at ``path``)."""
    record = _load(path)
    estimates = [
        [e["learner"], str(e["seed"]), f"{e['budget']:,}", *_cell(e), f"{e['train_seconds']:.0f}"]
        for e in record["exploitability"]
    ]
    header = ["best responder", "seed", "budget (learner steps)", "wins", "95% interval", "training wall-s"]
    names = {"ppo-sample:docs/reference/champion/final_model.zip": "champion-v1"}
    heads = [[f"`{names.get(h['opponent'], h['opponent'])}` ×3", *_cell(h)] for h in record["head_to_head"]]
    best = record["max_exploitability"]
    against = f"{table(['opponents', 'win rate', '95% interval'], heads, 'lrr')}\n\n" if heads else ""
    return (
        f"{table(header, estimates, 'llrrrr')}\n\n"
        f"Exploitability of `{record['agent']}`: the most any best response won, **{best:.3f}** "
        "(an estimate from below: a longer or better best response can only win more; the fair "
        "share is 0.25).\n\n"
        f"{against}"
        f"{record['games']:,} duplicate-format games per row. Command: `{record['command']}`; "
        f"machine: {record['machine']}; {record['date']}."
    )


__all__ = ["champion", "league_ablation"]
