"""The league page's figures (docs/league.md), from committed result files.

``docs/_generate/figures.py`` registers them: ``league-ablation`` reads ``docs/results/league_ablation.json``
(``benchmarks/league_ablation.py``), ``champion-v2`` reads ``docs/results/champion_v2.json``
(``benchmarks/champion_v2.py``), ``champion-v1-fast`` ``docs/results/champion_v1_exploit.json``
(the same script on the first champion), ``ladder-v2-reading`` the ladder of
``docs/reference/ladder-v2/result.json`` (``hoity-eval ladder``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hoity_env.evaluation.reports.markdown import interval, rate, table

ROOT = Path(__file__).resolve().parents[2]


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


LADDER = "docs/reference/ladder-v2/result.json"
"""The ladder with champion v2, the population agent and the zoo."""
POPULATION = "population:docs/reference/population/population.json"


def ladder_reading() -> str:
    """What the ladder with champion v2 shows, from :data:`LADDER`."""
    ladder = _load(LADDER)
    rows = {r["agent"]: r for r in ladder["rows"]}
    pairs = {(p["agent"], p["opponent"]): p for p in ladder["pairs"]}

    def exploit(agent: str) -> str:
        row = rows[agent]
        return f"{rate(row['exploit_win_rate'])} {interval(row['exploit_low'], row['exploit_high'])}"

    def name(agent: str) -> str:
        return "the population" if agent == POPULATION else f"`{agent}`"

    ranked = sorted(rows, key=lambda a: rows[a]["exploit_win_rate"])
    top = max(rows, key=lambda a: rows[a]["rating"])
    tied = [a for a in rows if rows[a]["rating_high"] >= rows[top]["rating_low"]]
    rest = [a for a in rows if a not in ("champion", "champion-v1", POPULATION)]
    weakest = min(rest, key=lambda a: pairs[("champion", a)]["ci_low"])
    v1 = pairs[("champion", "champion-v1")]
    mixed, v2 = rows[POPULATION]["exploit_win_rate"], rows["champion"]["exploit_win_rate"]
    per_agent = len(ladder.get("sweep", ())) // len(rows) or 1
    ratings = (
        f"{', '.join(name(a) for a in tied)} share the top of the Plackett-Luce rating "
        "(their intervals overlap)"
        if len(tied) > 1
        else f"{name(top)} tops the Plackett-Luce rating"
    )
    return (
        f"* **Least exploitable first**: {', '.join(f'{name(a)} {exploit(a)}' for a in ranked[:4])}; "
        f"each the highest of {per_agent} best responses (the fair share is {ladder['fair_share']:.2f}).\n"
        f"* **The population** (one of `champion`, `champion-v1` and v3 drawn per game, equal weights) "
        f"is {'less' if mixed < v2 else 'more'} exploitable than `champion`, its least exploitable member, "
        f"at this budget (a best response must beat all three at once, not knowing which sits at the table). "
        f"Head to head it wins {rate(pairs[(POPULATION, 'champion')]['win_rate'])} against three "
        f"`champion` and {rate(pairs[(POPULATION, 'expert')]['win_rate'])} against three `expert`.\n"
        f"* **Ratings**: {ratings}. `champion` against three `champion-v1` wins {rate(v1['win_rate'])} "
        f"{interval(v1['ci_low'], v1['ci_high'])}, and against three copies of every other agent its "
        f"lowest 95% bound is {pairs[('champion', weakest)]['ci_low']:.3f} (against `{weakest}`)."
    )


MIX_TARGETS = {2_000_000: 0.45, 10_000_000: 0.55}
"""The exploitability the league issue aimed for at each best-response budget."""


def champion_mix() -> str:
    """``champion-mix`` against the targets: the ladder's 2M best responses, the 10M ones of
    ``docs/results/population.json`` and MaskablePPO's 2M one of ``population_sb3.json``
    (both ``benchmarks/champion_v2.py``)."""
    ladder, record = _load(LADDER), _load("docs/results/population.json")
    sb3 = _load("docs/results/population_sb3.json")
    responses = [e for e in ladder["sweep"] if e["target"] == POPULATION]
    responses += record["exploitability"] + sb3["exploitability"]
    rows = []
    for budget, aim in MIX_TARGETS.items():
        at = [e for e in responses if e["budget"] == budget]
        best = max(at, key=lambda e: e["win_rate"])
        each = ", ".join(f"{e['learner']} seed {e['seed']}: {rate(e['win_rate'])}" for e in at)
        verdict = "met" if best["win_rate"] <= aim else "missed"
        rows.append([f"{budget:,}", each, f"**{rate(best['win_rate'])}**", f"≤ {aim}", verdict])
    heads = {h["opponent"]: h for h in record["head_to_head"]}
    v1 = heads["champion-v1"]
    header = ["best response (learner steps)", "each", "maximum", "target", "verdict"]
    return (
        f"{table(header, rows, 'lllll')}\n\n"
        f"Head to head ({record['games']:,} games each) it wins {rate(v1['win_rate'])} "
        f"{interval(v1['ci_low'], v1['ci_high'])} against three `champion-v1`, "
        + ", ".join(
            f"{rate(h['win_rate'])} {interval(h['ci_low'], h['ci_high'])} against three `{o}`"
            for o, h in heads.items()
            if o != "champion-v1"
        )
        + f". The fast 2M best responses are the ladder's (`{LADDER}`); the 10M ones and the head "
        f"to head `docs/results/population.json`: `{record['command']}`; the MaskablePPO one "
        f"`docs/results/population_sb3.json`: `{sb3['command']}`; {record['machine']}; {record['date']}."
    )


__all__ = ["LADDER", "POPULATION", "champion", "champion_mix", "ladder_reading", "league_ablation"]
