"""Best-response estimators compared where they were weak: standard rules, 5 players, ``champion-mix``.

At 5 and 6 players every 2M-step best response to ``champion-mix`` in ``docs/results/tables.json``
won *less* than the fair share (issue 45): a learner that loses to the agent it is aimed at has
not learned the game, and its estimate says little.  This script trains one best response per
estimator of :data:`ESTIMATORS` (``hoity-eval exploit``'s ``--start``: ``fresh``, the default;
``warm``, from the target's own weights; ``curriculum``, against ``expert`` for the first quarter
of the budget) at that table (``--players``: another count), :data:`BUDGET` learner steps at the
default ``strong`` preset, one seed, each scored in :data:`GAMES` duplicate-format games with a
learning curve of :data:`CURVE_POINTS` points, and records each run as it ends in
``docs/results/estimators.json`` (its command, machine, CPU model, load, commit, training CPU
seconds; docs/evaluation.md describes the comparison)::

    nice -n 5 python benchmarks/compare_estimators.py --record docs/results/estimators.json
    nice -n 5 python benchmarks/compare_estimators.py --record RECORD --estimators warm --seed 1
    nice -n 5 python benchmarks/compare_estimators.py --record RECORD --estimators warm --players 6

A run already in the record is skipped, and one stopped by Ctrl-C or SIGTERM continues from its
checkpoint in ``--runs-dir`` (the same command carries on).  Torch and numpy's BLAS run one
thread, one process (``workers=1``).  Never used in tests: each run is several CPU-minutes.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_record import add_record_option, command_of, cpu_model, versions
from tune_best_response import add_run

from hoity_env.strength.jobs import Interrupted

TARGET = "champion-mix"
RULES, PLAYERS = "standard", 5
"""The table compared (``--players`` picks another count of the standard rules)."""
BUDGET = 2_000_000
GAMES = 1000
CURVE_POINTS, CURVE_GAMES = 4, 200
ESTIMATORS: dict[str, dict[str, Any]] = {
    "fresh": {},
    "warm": {"start": "warm"},
    "curriculum": {"start": "curriculum"},
}
"""Each estimator's :class:`~hoity_env.strength.BestResponse` fields beside the ``strong`` preset."""
KEY = ("estimator", "seed", "table")
TEMPLATE = (
    "nice -n 5 python benchmarks/compare_estimators.py --record docs/results/estimators.json "
    "[--estimators NAME,...] [--seed S] [--players N]"
)


def measure(estimator: str, seed: int, runs_dir: Path, players: int = PLAYERS) -> dict[str, Any]:
    """One best response of ``estimator`` to :data:`TARGET` at ``players`` standard players, trained
    and scored (resumed if stopped)."""
    from hoity_env.evaluation import MatchSettings
    from hoity_env.strength import BestResponse, exploitability

    network = BestResponse(budget=BUDGET, preset="strong", **ESTIMATORS[estimator]).fast_settings(
        TARGET, MatchSettings(num_players=players, rules=RULES, seed=seed), BUDGET
    )
    result = exploitability(
        TARGET,
        num_players=players,
        rules=RULES,
        budget=BUDGET,
        learner="fast",
        preset="strong",
        **ESTIMATORS[estimator],
        curve_points=CURVE_POINTS,
        curve_games=CURVE_GAMES,
        games=GAMES,
        seed=seed,
        runs_dir=runs_dir / (f"{estimator}_seed{seed}" + ("" if players == PLAYERS else f"_{players}p")),
        progress=False,
        resume=True,
        workers=1,
    )
    (entry,) = result.entries
    return {
        "table": f"{RULES}/{players}",
        "target": TARGET,
        "budget": BUDGET,
        "start": result.start,
        "settings": result.settings,
        "hidden": list(network.hidden),
        "padded": network.padded,
        "steps": entry.timesteps,
        "games": entry.games,
        "wins": entry.wins,
        "win_rate": round(entry.win_rate, 4),
        "ci": [round(entry.ci_low, 4), round(entry.ci_high, 4)],
        "curve": [[p.timesteps, round(p.win_rate, 4)] for p in entry.curve],
        "train_cpu_seconds": round(entry.train_cpu_seconds, 1),
        "target_hash": entry.target_hash,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--estimators", default=",".join(ESTIMATORS), help="NAME,... (default all)")
    p.add_argument("--seed", type=int, default=0, help="the best responses' seed (default 0)")
    p.add_argument(
        "--players", type=int, default=PLAYERS, help=f"players, standard rules (default {PLAYERS})"
    )
    p.add_argument("--runs-dir", type=Path, default=Path("runs/estimators"))
    add_record_option(p)
    args = p.parse_args(argv)
    if args.record is None or not args.record.endswith(".json"):
        p.error("--record PATH.json is needed: the record is what makes the runs resumable")
    chosen = [e.strip() for e in args.estimators.split(",")]
    if not set(chosen) <= set(ESTIMATORS):
        p.error(f"--estimators: unknown {sorted(set(chosen) - set(ESTIMATORS))}; known: {list(ESTIMATORS)}")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    import json

    import torch

    torch.set_num_threads(1)
    record, command, measured_versions = Path(args.record), command_of(argv), versions()
    for estimator in chosen:
        done = json.loads(record.read_text()).get("runs", []) if record.exists() else []
        table = f"{RULES}/{args.players}"
        if any(
            (r.get("estimator"), r.get("seed"), r.get("table")) == (estimator, args.seed, table) for r in done
        ):
            print(f"{estimator}, seed {args.seed}, {table}: in the record already", file=sys.stderr)
            continue
        start = time.process_time()
        try:
            measured = measure(estimator, args.seed, args.runs_dir, args.players)
        except Interrupted as exc:  # checkpointed: the same command continues it
            print(f"interrupted: {exc}; run the same command to continue", file=sys.stderr)
            return 128 + exc.signum
        run = {"estimator": estimator, "seed": args.seed, **measured}
        run |= {"cpu_seconds": round(time.process_time() - start, 1), "cpu_model": cpu_model()}
        print(json.dumps(run), flush=True)
        add_run(record, {**run, "command": command}, measured_versions, TEMPLATE, KEY)
    return 0


if __name__ == "__main__":
    sys.exit(main())
