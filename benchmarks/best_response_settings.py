"""Which fast best response is strongest at a budget: one ``exploit`` run per setting, target and seed.

``hoity-eval exploit``'s default best response is chosen for strength at the budget, not
for speed (issue 36).  This script trains one fast best response with a named setting of
:data:`CANDIDATES` (changes from ``FAST_SETTINGS``, ``hoity_env/strength/response.py``),
optionally with memory of the last ``--memory`` rounds, against copies of ``--target``
through :func:`hoity_env.strength.exploitability` (the code path of ``hoity-eval exploit
--learner fast``: the same training, CPU accounting and greedy 1,000-game duplicate-format
evaluation on the learner's seed), and prints one JSON line: learner steps, training
CPU-seconds, the whole run's CPU-seconds (evaluation included), the win rate and its 95%
interval.

``--record PATH.json`` adds the run to a record of several commands (each run with its own
command line, date, load average and commit; a run with the same setting, memory, target and
seed replaces the old one; written atomically), and a run already in the record is skipped
unless ``--force``, so a list of commands re-run after an interruption continues where it
stopped.  ``docs/evaluation.md`` renders ``docs/results/best_response_settings.json``::

    python benchmarks/best_response_settings.py --name strong --target champion-mix --seed 0 \\
        --runs-dir runs/best_response_settings --record docs/results/best_response_settings.json

Numpy's BLAS is held to one thread here (the targets are numpy MLPs; a second BLAS thread
spin-waits on a busy 2-core machine); torch runs on one thread as every best response does.
Never used in tests: a run is several CPU-minutes.
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

import torch
from bench_record import add_record_option, command_of, versions
from threadpoolctl import threadpool_limits
from tune_best_response import add_run

from hoity_env.strength import exploitability
from hoity_env.strength.response import FAST_SETTINGS

TEMPLATE = (
    "python benchmarks/best_response_settings.py --name <name> [--memory <K>] --target <target> "
    "--seed <seed> --runs-dir runs/best_response_settings --record docs/results/best_response_settings.json"
)
"""The command every run of the record is an instance of (each run keeps its own too)."""

CANDIDATES: dict[str, dict[str, Any]] = {
    "fast": {},
    "strong": {"hidden": [256, 256], "epochs": 2, "learning_rate": 1e-3},
    "wide": {"hidden": [512, 512], "epochs": 2, "learning_rate": 1e-3},
    "epochs-4": {"hidden": [256, 256], "epochs": 4, "learning_rate": 1e-3},
    "epochs-8": {"hidden": [256, 256], "epochs": 8, "learning_rate": 1e-3},
}
"""The settings compared, as changes from ``FAST_SETTINGS``: the speed-tuned ones (``fast``); issue
36's candidate (``strong``: a 256×256 network, two epochs, rate 1e-3, the first guess at
``STRONG_SETTINGS``); a wider network; more epochs (``epochs-4`` won, and is ``STRONG_SETTINGS``;
``epochs-8`` asks whether more still helps)."""

KEY = ("name", "memory", "target", "seed")
"""What makes a run of the record: a second run with the same values replaces the first."""


def settings_of(name: str, memory: int) -> dict[str, Any]:
    """The full fast-learner settings of candidate ``name`` with memory of ``memory`` rounds."""
    settings = {**FAST_SETTINGS, **CANDIDATES[name]}
    return {**settings, "memory": memory} if memory else settings


def recorded(path: Path, run: dict[str, Any]) -> bool:
    """Whether the record at ``path`` already holds a run with ``run``'s :data:`KEY` values."""
    if not path.exists():
        return False
    runs = json.loads(path.read_text()).get("runs", [])
    return any(all(r.get(k) == run[k] for k in KEY) for r in runs)


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--name", choices=sorted(CANDIDATES), required=True, help="the setting to train with")
    p.add_argument("--memory", type=int, default=0, help="rounds of public history in the input (default 0)")
    p.add_argument("--target", default="champion-mix", help="the agent to exploit (default champion-mix)")
    p.add_argument("--seed", type=int, default=0, help="the learner's and the evaluation's seed (default 0)")
    p.add_argument("--budget", type=int, default=2_000_000, help="learner steps (default 2,000,000)")
    p.add_argument("--games", type=int, default=1000, help="evaluation games (default 1000)")
    p.add_argument("--runs-dir", type=Path, default=Path("runs/best_response_settings"))
    p.add_argument("--force", action="store_true", help="run even if the record holds this run")
    add_record_option(p)
    args = p.parse_args(argv)
    if args.record is not None and not args.record.endswith(".json"):
        p.error("--record needs a .json path")
    key = {"name": args.name, "memory": args.memory, "target": args.target, "seed": args.seed}
    if args.record is not None and not args.force and recorded(Path(args.record), key):
        print(f"skipped: {key} is in {args.record}", file=sys.stderr)
        return None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    command, measured_versions = command_of(argv), versions()
    torch.set_num_threads(1)
    settings = settings_of(args.name, args.memory)
    label = f"{args.name}, memory {args.memory}" if args.memory else args.name
    start = time.process_time()
    with threadpool_limits(limits=1):
        result = exploitability(
            args.target,
            budget=args.budget,
            learner="fast",
            ppo=settings,
            curve_points=0,
            games=args.games,
            seed=args.seed,
            runs_dir=args.runs_dir / f"{label.replace(', ', '_').replace(' ', '')}_seed{args.seed}",
            progress=False,
        )
    entry = result.entries[0]
    run: dict[str, Any] = {
        **key,
        "label": label,
        "budget": args.budget,
        "settings": settings,
        "steps": entry.timesteps,
        "train_cpu_seconds": round(entry.train_cpu_seconds, 1),
        "cpu_seconds": round(time.process_time() - start, 1),
        "win_rate": round(entry.win_rate, 3),
        "ci": [round(entry.ci_low, 3), round(entry.ci_high, 3)],
        "games": entry.games,
        "run_dir": entry.run_dir,
    }
    print(json.dumps(run), flush=True)
    if args.record is not None:
        add_run(Path(args.record), {**run, "command": command}, measured_versions, TEMPLATE, KEY)
    return run


if __name__ == "__main__":
    main()
