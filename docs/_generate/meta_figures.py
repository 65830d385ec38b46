"""The meta-solver's figures (docs/league.md): one population's mixtures and how exploitable each is.

``docs/_generate/figures.py`` registers them.  Both read ``docs/results/psro_standard_3.json``, which
:func:`collect` writes from the runs themselves (``python docs/_generate/meta_figures.py collect ...``,
its ``--help`` says what it takes): each PSRO run's ``solution.json`` (``hoity-eval meta
--psro-iterations``) and, for each mixture measured, the ``result.json`` of its best response
(``hoity-eval exploit --out``), each with the command that made it.

* ``psro-standard-3``: each mixture of the population, how it was weighed, and what one best
  response trained against it wins, beside the fair share and the 2M bar;
* ``psro-iterations-standard-3``: each iteration of each PSRO run: its best response's win
  rate against the mixture it was trained against, the new member's gain in the table, and
  the members the new solution keeps.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tables_figures import RECORD as TABLES  # noqa: E402
from tables_figures import bars  # noqa: E402

from hoity_env.evaluation.reports.markdown import interval, rate, table  # noqa: E402
from hoity_env.files import read_json, write_atomically  # noqa: E402

RECORD = "docs/results/psro_standard_3.json"
CHAMPION = "docs/results/champion_exploit_standard_4.json"
MIXTURES = "docs/results/meta_mixtures.json"
ESTIMATORS = ("warm", "strong", "memory")


def _load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / RECORD).read_text(encoding="utf-8"))
    return data


def _bar(n: int) -> float:
    """The 2M bar on a best response's win rate at ``n`` players (docs/league.md, every table)."""
    return bars(n)[0]


def psro_mixtures() -> str:
    """Each mixture of the population and its best response's win rate against it."""
    data = _load()
    rows = []
    for m in data["mixtures"]:
        (entry,) = m["result"]["entries"]
        rows.append(
            [
                m["name"],
                str(m["members"]),
                rate(entry["win_rate"]),
                interval(entry["ci_low"], entry["ci_high"]),
                f"{entry['train_cpu_seconds']:.0f}",
            ]
        )
    header = ["mixture", "members", "best response wins", "95% interval", "its training CPU-s"]
    first = data["mixtures"][0]["result"]
    n = first["num_players"]
    estimator = (
        f"Each best response: the fast learner at `{first['settings']}` settings, {first['budget']:,} "
        f"learner steps, seed {first['seed']}, scored in {first['entries'][0]['games']:,} games against "
        f"{n - 1} copies of the mixture (each seat draws its own member per game); fair share "
        f"{1 / n:.3f}, 2M bar {_bar(n):.3f}."
    )
    commands = " ".join(f"{m['name']}: `{m['command']}`." for m in data["mixtures"])
    return (
        f"{table(header, rows, 'lrrrr')}\n\n{estimator} {data['population']} Commands (from the run "
        f"folder): {commands} {data['machine']}; measured {data['measured']}."
    )


def psro_iterations() -> str:
    """Each PSRO run's iterations: each best response against its mixture, then the new solution."""
    data = _load()
    rows = []
    for run in data["runs"]:
        for it in run["iterations"]:
            kept = sorted(it["kept"].items(), key=lambda kv: -kv[1])
            rows.append(
                [
                    run["name"],
                    str(it["iteration"]),
                    rate(it["win_rate"]),
                    interval(it["ci_low"], it["ci_high"]),
                    f"{it['member_gain']:+.3f}",
                    f"{len(kept)} of {it['members']}",
                    ", ".join(f"{spec} {weight:.2f}" for spec, weight in kept[:3]),
                ]
            )
    header = [
        "run",
        "iteration",
        "best response wins vs its mixture",
        "95% interval",
        "new member's gain (table)",
        "members kept",
        "heaviest",
    ]
    commands = " ".join(
        f"{run['name']}: `{run['command']}` ({run['cpu_seconds'] / 60:.1f} CPU-minutes, user + sys)."
        for run in data["runs"]
    )
    return f"{table(header, rows, 'lrrrrrl')}\n\nCommands: {commands}"


def champion_exploit() -> str:
    """The single ``champion`` at 4 standard players against ``exploit``'s default estimator."""
    data = json.loads((ROOT / CHAMPION).read_text(encoding="utf-8"))
    (entry,) = data["entries"]
    n = data["num_players"]
    row = [
        f"`{entry['target']}`",
        f"{data['settings']}, {data['budget']:,} steps, seed {data['seed']}",
        f"{entry['games']:,}",
        rate(entry["win_rate"]),
        interval(entry["ci_low"], entry["ci_high"]),
        f"{entry['train_cpu_seconds']:.0f}",
    ]
    header = ["target", "best response", "games", "wins", "95% interval", "its training CPU-s"]
    return (
        f"{table(header, [row], 'llrrrr')}\n\nFair share {1 / n:.3f}, 2M bar {_bar(n):.3f}. Command: "
        f"`{data['command']}`; {data['cpu_seconds'] / 60:.1f} CPU-minutes in all; {data['machine']}; "
        f"measured {data['measured']} (`{CHAMPION}`)."
    )


def _equal_weights(record: dict[str, Any], table_name: str, target_hash: str) -> list[dict[str, Any]]:
    """The seed-0 2M best responses of ``benchmarks/tables.py``'s ``record`` at ``table_name``
    against the population at equal weights (``target_hash``), shipped now or superseded since."""
    return [
        r
        for r in [*record["runs"], *record.get("superseded", [])]
        if r["kind"] == "exploit"
        and r["table"] == table_name
        and r["seed"] == 0
        and r["budget"] == 2_000_000
        and r.get("target_hash") == target_hash
    ]


def _cell(runs: list[dict[str, Any]], estimator: str) -> str:
    """One estimator's win rate and interval, or "not measured"."""
    found = [r for r in runs if r["estimator"] == estimator]
    if not found:
        return "not measured"
    (run,) = found
    return f"{rate(run['win_rate'])} {interval(*run['ci'])}"


def meta_mixtures() -> str:
    """Each table's shipped population at equal weights beside the meta-solver's mixtures of it."""
    data = json.loads((ROOT / MIXTURES).read_text(encoding="utf-8"))
    record = json.loads((ROOT / TABLES).read_text(encoding="utf-8"))
    rows = []
    notes = []
    for t in data["tables"]:
        n = int(t["table"].split("/")[1])
        runs = _equal_weights(record, t["table"], t["equal_hash"])
        equal = {"name": "equal weights", "members": t["members"], "runs": runs}
        mixtures = [equal, *t["mixtures"]]
        for m in mixtures:
            most = max((r["win_rate"] for r in m["runs"]), default=None)
            heaviest = max((r.get("heaviest", 0.0) for r in m["runs"]), default=0.0)
            rows.append(
                [
                    t["table"],
                    f"{m['name']} (ships)" if m["name"] == t["ships"] else m["name"],
                    str(m["members"]),
                    f"{heaviest:.2f}" if heaviest else f"{1 / m['members']:.2f}",
                    *(_cell(m["runs"], e) for e in ESTIMATORS),
                    "—" if most is None else f"**{rate(most)}**",
                    f"{_bar(n):.3f}",
                ]
            )
        cpu = t["meta_cpu_seconds"] + sum(r["cpu_seconds"] for m in t["mixtures"] for r in m["runs"])
        before = (
            ""
            if t["ships"] == "equal weights"
            else ", run on the same members at equal weights, as they shipped before"
        )
        notes.append(
            f"{t['table']}: `{t['meta_command']}`{before} (meta-Nash gap in the table {t['meta_gap']:.4f}); "
            f"ε = {t['slack']}; {cpu / 60:.0f} CPU-minutes for the meta run and these best responses"
        )
    header = ["table", "mixture", "members", "heaviest", *ESTIMATORS, "most", "2M bar"]
    return (
        f"{table(header, rows, 'llrrlllrr')}\n\nEach cell: a best response of `benchmarks/tables.py`'s "
        "estimator of that name (2,000,000 learner steps, seed 0, 1,000 games; `warm` starts from the "
        "mixture's heaviest member, the first of equal weights), its win rate against N−1 copies of "
        "the mixture and its 95% interval; equal weights' cells are that population's runs in "
        "`docs/results/tables.json` (shipped or superseded). "
        "Mixtures: the meta-Nash is `hoity-eval meta`'s; the max-entropy ε-Nash is the most even "
        "mixture no member beats by more than ε beyond the table's minimax value "
        "(`benchmarks/meta_mixtures.py maxent`). Commands: "
        + "; ".join(notes)
        + f". {data['machine']}; measured {data['measured']} (`{MIXTURES}`)."
    )


FIGURES = {
    "meta-mixtures": meta_mixtures,
    "psro-standard-3": psro_mixtures,
    "psro-iterations-standard-3": psro_iterations,
    "champion-exploit-standard-4": champion_exploit,
}


def _iteration(it: dict[str, Any], specs: Sequence[str]) -> dict[str, Any]:
    """A PSRO iteration of ``solution.json`` without its paths, its kept members named."""
    keys = ("iteration", "member", "steps", "games", "win_rate", "ci_low", "ci_high", "member_gain", "gap")
    kept = {spec: w for spec, w in zip(specs, it["shipped"], strict=False) if w > 0}
    return {**{k: it[k] for k in keys}, "members": len(it["shipped"]), "kept": kept}


def collect(runs: Sequence[dict[str, Any]], mixtures: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The figures' record: each PSRO run (``name``, ``cpu_seconds``, ``command``, ``solution``: the
    path of its ``solution.json``) and each measured mixture (``name``, ``members``, ``command``,
    ``result``: the path of its best response's ``result.json``), read here, without paths of the
    machine they ran on."""
    recorded = []
    for r in runs:
        solution = read_json(Path(r["solution"]))
        specs = [m["spec"] for m in solution["members"]]
        recorded.append(
            {
                **{k: r[k] for k in ("name", "cpu_seconds", "command")},
                "iterations": [_iteration(it, specs) for it in solution["psro"]],
                "shipped": {
                    m["spec"]: m["shipped_weight"] for m in solution["members"] if m["shipped_weight"] > 0
                },
            }
        )
    measured = []
    for m in mixtures:
        result = read_json(Path(m["result"]))
        for entry in result["entries"]:
            entry.pop("run_dir", None)
            entry.pop("curve", None)
        measured.append({**m, "result": result})
    return {"runs": recorded, "mixtures": measured}


def main(argv: Sequence[str] | None = None) -> int:
    """``collect``: write :data:`RECORD` from the runs' files."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["collect"])
    p.add_argument(
        "--run", action="append", default=[], help="a PSRO run: NAME|CPU_SECONDS|COMMAND|SOLUTION_JSON"
    )
    p.add_argument(
        "--mixture", action="append", default=[], help="a measured mixture: NAME|MEMBERS|COMMAND|RESULT_JSON"
    )
    p.add_argument("--population", required=True, help="a sentence: which population, where it came from")
    p.add_argument("--machine", required=True)
    p.add_argument("--measured", required=True, help="the date")
    args = p.parse_args(argv)
    runs = []
    for text in args.run:
        name, cpu, command, solution = text.split("|")
        runs.append({"name": name, "cpu_seconds": float(cpu), "command": command, "solution": solution})
    mixtures = []
    for text in args.mixture:
        name, members, command, result = text.split("|")
        mixtures.append({"name": name, "members": int(members), "command": command, "result": result})
    record = {
        "population": args.population,
        "machine": args.machine,
        "measured": args.measured,
        **collect(runs, mixtures),
    }
    write_atomically(ROOT / RECORD, json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
