"""The ten tables: each one's least exploitable shipped agent against our strongest best responses.

The game is played by 2 to 6 players under two rulesets: ten tables.  At each one this
script measures, and records in ``docs/results/tables.json`` (docs/league.md and the
README render it through ``docs/_generate/tables_figures.py``):

* **exploitability** of :data:`TARGET` (``champion-mix``, the least exploitable agent we
  ship at every table): a best response trained against N−1 copies of it by each
  estimator of :data:`ESTIMATORS` (the fast learner at ``hoity-eval exploit``'s default
  ``strong`` preset: fresh, with memory of the last rounds' public reveals, and started from
  the target's own weights), seeds :data:`SEEDS`, at :data:`SHORT` learner steps, then the
  strongest of them at :data:`LONG` steps on one seed; each scored in 1,000 duplicate-format
  games;
* **head to head**: ``champion`` against N−1 copies of ``expert``, 1,000 duplicate games,
  sampling, seed :data:`H2H_SEED`.

The runs go in :func:`plan` order, cheapest knowledge first: every table's head to head,
then one seed of each estimator at every table, then the second seeds, then the long runs;
a table whose 2M bar a best response has already beaten (its verdict settled) has its
remaining runs put last, and a table where one has already won more than the 10M bar gets no
10M run (the figure says "10M missed, settled at 2M": a best response within that budget has
beaten it).
A run already in the record is skipped (unless it measured another agent than the one
shipped under that name now: :func:`retire_stale` moves it to the record's ``superseded``),
and a best response stopped by Ctrl-C or SIGTERM continues from its checkpoint
(``exploitability(..., resume=True)`` in ``--runs-dir``), so the same command, run again,
carries on where it stopped.  ``--max-runs`` bounds one sitting; ``--tables`` and ``--kinds``
pick a part (two sittings on different tables may share the record: its writes take a file
lock)::

    python benchmarks/tables.py --record docs/results/tables.json               # everything left
    python benchmarks/tables.py --record docs/results/tables.json --kinds h2h   # head to head only
    python benchmarks/tables.py --record docs/results/tables.json --tables original/3 --max-runs 1

Numpy's BLAS and torch run one thread each.  Never used in tests: a 2M-step best response
is several CPU-minutes, a 10M-step one about half an hour.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_generate"))

from bench_record import add_record_option, command_of, versions
from filelock import FileLock
from tables_figures import LONG, SHORT, bars, settled_at_short
from tune_best_response import add_run

from hoity_env.engine.errors import FileFormatError
from hoity_env.files import JsonObject, read_json, write_atomically
from hoity_env.strength.jobs import Interrupted

TABLES = tuple((rules, n) for rules in ("standard", "original") for n in range(2, 7))
TARGET = "champion-mix"
HEAD_TO_HEAD = "champion"
OPPONENT = "expert"
H2H_SEED = 7
ESTIMATORS: dict[str, dict[str, Any]] = {
    "strong": {},
    "memory": {"ppo": {"memory": 4}},
    "warm": {"start": "warm"},
}
"""Each estimator's ``hoity_env.strength.BestResponse`` fields beside the ``strong`` preset
(``STRONG_SETTINGS``): ``memory`` reads 4 rounds of history, ``warm`` starts from the target's own
weights (``hoity-eval exploit --start warm``; chosen over a curriculum from ``expert`` by
``benchmarks/compare_estimators.py``, docs/evaluation.md).  Runs recorded before ``warm`` existed
have no ``start`` field: they started fresh."""
SEEDS = (0, 1)
GAMES = 1000
KEY = ("kind", "table", "estimator", "seed", "budget")
TEMPLATE = (
    "python benchmarks/tables.py --record docs/results/tables.json [--tables RULES/N,...] [--kinds ...]"
)


def table_name(rules: str, n: int) -> str:
    return f"{rules}/{n}"


def read_record(record: Path) -> dict[str, Any]:
    """The record at ``record`` (``{}`` before the first run), checked: a JSON object whose ``runs``
    and ``superseded`` are lists of runs with the fields the plan reads, typed (a damaged record is
    one ``FileFormatError`` naming the file and the field, and is left as it is)."""
    if not record.exists() and not record.is_symlink():
        return {}
    where = f"tables record {record}"
    data = JsonObject(read_json(record, where), where)
    names = [table_name(*t) for t in TABLES]
    for key in ("runs", "superseded"):
        for i, run in enumerate(data.array(key, max_items=100_000, default=[])):
            row = JsonObject(run, where, f"{key}[{i}]")
            row.string("kind", choices=("h2h", "exploit"))
            row.string("table", choices=names)
            row.string("estimator", max_chars=64)
            row.integer("seed", 0, 2**63)
            row.integer("budget", 0, 2**63)
            row.number("win_rate", 0.0, 1.0)
            row.string("target_hash", max_chars=128, default="")
            row.string("start", max_chars=64, default="fresh")  # absent before there were starts
    return data.data


def _runs(record: Path) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = read_record(record).get("runs", [])
    return runs


def strongest(runs: list[dict[str, Any]], table: str) -> str:
    """The estimator whose best response won most at :data:`SHORT` at ``table`` (``strong`` before any)."""
    short = [r for r in runs if r["kind"] == "exploit" and r["table"] == table and r["budget"] == SHORT]
    return max(short, key=lambda r: r["win_rate"])["estimator"] if short else "strong"


def plan(tables: list[tuple[str, int]], runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every run of the measurement, in the order they are worth doing (module docstring)."""
    keys: list[dict[str, Any]] = [
        {"kind": "h2h", "table": table_name(*t), "estimator": "", "seed": H2H_SEED, "budget": 0}
        for t in tables
    ]
    for seed in SEEDS:
        for estimator in ESTIMATORS:
            keys += [
                {
                    "kind": "exploit",
                    "table": table_name(*t),
                    "estimator": estimator,
                    "seed": seed,
                    "budget": SHORT,
                }
                for t in tables
            ]
    keys += [
        {"kind": "exploit", "table": table_name(*t), "estimator": strongest(runs, table_name(*t)), "seed": 0}
        | {"budget": LONG}
        for t in tables
        if not settled_at_short(_short_max(runs, table_name(*t)), t[1])  # the figure's rule
    ]
    settled = {table_name(*t) for t in tables if _missed_short(runs, table_name(*t))}
    late = [k for k in keys if k["kind"] == "exploit" and k["table"] in settled]
    return [k for k in keys if k not in late] + late


def _short_max(runs: list[dict[str, Any]], table: str) -> float | None:
    """The most a best response at :data:`SHORT` won at ``table`` (``None`` before any)."""
    rates = [
        r["win_rate"] for r in runs if r["kind"] == "exploit" and r["table"] == table and r["budget"] == SHORT
    ]
    return max(rates, default=None)


def _missed_short(runs: list[dict[str, Any]], table: str) -> bool:
    """Whether a best response at :data:`SHORT` already beat the table's 2M bar: its verdict is
    settled (a maximum only grows), so its remaining runs go after every open table's."""
    short_max = _short_max(runs, table)
    # the bars are the figure's, which judges the record
    return short_max is not None and short_max > bars(int(table.split("/")[1]))[0]


def next_run(
    tables: list[tuple[str, int]], kinds: set[str], runs: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The first run of :func:`plan` of a part in ``kinds`` not in ``runs`` yet (one 10M run a table)."""
    for key in plan(tables, runs):
        part = "h2h" if key["kind"] == "h2h" else ("2m" if key["budget"] == SHORT else "10m")
        same = KEY if part != "10m" else ("kind", "table", "budget")
        if part in kinds and not any(all(r.get(k) == key[k] for k in same) for r in runs):
            return key
    return None


def retire_stale(record: Path, tables: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """Move the best responses to an agent no longer shipped under :data:`TARGET` at ``tables`` (their
    ``target_hash`` is not what the name plays now) from ``runs`` to ``superseded``: the figure
    judges what we ship, the record keeps the history, and the plan measures the new agent."""
    from hoity_env.agents.policies.content import content_hash

    data = read_record(record)
    if not data:
        return []
    now = {table_name(*t): content_hash(TARGET, rules=t[0], num_players=t[1]) for t in tables}
    stale = [
        r
        for r in data.get("runs", [])
        if r["kind"] == "exploit" and r["table"] in now and r.get("target_hash") != now[r["table"]]
    ]
    if stale:
        data["runs"] = [r for r in data["runs"] if r not in stale]
        data["superseded"] = [*data.get("superseded", []), *stale]
        write_atomically(record, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        for r in stale:
            logging.info("superseded: %s %s seed %s (%s is another agent now)", r["table"], r["estimator"],
                         r["seed"], TARGET)  # fmt: skip
    return stale


def head_to_head(rules: str, n: int) -> dict[str, Any]:
    """``champion`` against ``n - 1`` copies of ``expert``: its row of a 1,000-game evaluation."""
    from hoity_env.evaluation import evaluate

    result = evaluate(
        [HEAD_TO_HEAD] + [OPPONENT] * (n - 1),
        num_players=n,
        rules=rules,
        games=GAMES,
        seed=H2H_SEED,
        progress=False,
        blas_threads=1,
    )
    row = next(s for s in result.agent_stats if s.agent == HEAD_TO_HEAD)
    return {"agent": HEAD_TO_HEAD, "opponent": OPPONENT, "games": row.games, **_rates(row)}


def best_response(
    rules: str, n: int, estimator: str, seed: int, budget: int, runs_dir: Path
) -> dict[str, Any]:
    """One best response to :data:`TARGET` at the table, trained and scored (resumed if stopped)."""
    from hoity_env.strength import exploitability

    folder = runs_dir / f"{rules}-{n}" / f"{estimator}_seed{seed}_{budget}"
    result = exploitability(
        TARGET,
        num_players=n,
        rules=rules,
        budget=budget,
        learner="fast",
        preset="strong",
        **ESTIMATORS[estimator],
        curve_points=0,
        games=GAMES,
        seed=seed,
        runs_dir=folder,
        progress=False,
        resume=True,
        workers=1,
    )
    (entry,) = result.entries
    return {
        "target": TARGET,
        "steps": entry.timesteps,
        "train_cpu_seconds": round(entry.train_cpu_seconds, 1),
        "games": entry.games,
        **_rates(entry),
        "target_hash": entry.target_hash,
        "run_dir": entry.run_dir,
        "start": result.start,
    }


def _rates(row: Any) -> dict[str, Any]:
    return {
        "wins": row.wins,
        "win_rate": round(row.win_rate, 4),
        "ci": [round(row.ci_low, 4), round(row.ci_high, 4)],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--tables", default=",".join(table_name(*t) for t in TABLES), help="RULES/N,… (default all ten)"
    )
    p.add_argument("--kinds", default="h2h,2m,10m", help="parts to run: h2h, 2m, 10m (default all)")
    p.add_argument("--max-runs", type=int, default=0, help="stop after this many new runs (0: no limit)")
    p.add_argument("--runs-dir", type=Path, default=Path("runs/tables"))
    add_record_option(p)
    args = p.parse_args(argv)
    if args.record is None or not args.record.endswith(".json"):
        p.error("--record PATH.json is needed: the record is what makes the runs resumable")
    wanted = {t.strip() for t in args.tables.split(",")}
    tables = [t for t in TABLES if table_name(*t) in wanted]
    if len(tables) != len(wanted):
        p.error(f"--tables: unknown table(s) {sorted(wanted - {table_name(*t) for t in TABLES})}")
    kinds = {k.strip() for k in args.kinds.split(",")}
    if not kinds <= {"h2h", "2m", "10m"}:
        p.error(f"--kinds: unknown part(s) {sorted(kinds - {'h2h', '2m', '10m'})}")
    try:  # a damaged record is one line: before the lock file or anything else exists, or later
        read_record(Path(args.record))
        return _measure(args, tables, kinds, command_of(argv))
    except FileFormatError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")


def _measure(args: argparse.Namespace, tables: list[tuple[str, int]], kinds: set[str], command: str) -> int:
    """The runs left of the plan, each recorded as it ends (``main``'s arguments checked)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    import torch

    torch.set_num_threads(1)
    record, done = Path(args.record), 0
    measured_versions = versions()
    with FileLock(f"{record}.lock"):
        retire_stale(record, tables)
    while key := next_run(tables, kinds, _runs(record)):  # planned again after each run (the
        if args.max_runs and done >= args.max_runs:  # strongest estimator can change)
            break
        rules, n = key["table"].split("/")[0], int(key["table"].split("/")[1])
        start = time.process_time()
        if key["kind"] == "h2h":
            measured = head_to_head(rules, n)
        else:
            try:
                estimator, seed, budget = key["estimator"], key["seed"], key["budget"]
                measured = best_response(rules, n, estimator, seed, budget, args.runs_dir)
            except Interrupted as exc:  # checkpointed: the same command continues it
                print(f"interrupted: {exc}; run the same command to continue", file=sys.stderr)
                return 128 + exc.signum
        run = {**key, **measured, "cpu_seconds": round(time.process_time() - start, 1)}
        print(json.dumps(run), flush=True)
        with FileLock(f"{record}.lock"):  # two sittings on different --tables share the record
            add_run(record, {**run, "command": command}, measured_versions, TEMPLATE, KEY)
        done += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
