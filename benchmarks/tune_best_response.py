"""One fast best response with given settings: its training CPU time and its win rate (tuning aid).

Trains the fast learner against three copies of ``--target`` for ``--steps`` learner
steps with :class:`~hoity_env.learning.LearnerSettings` changed by ``--settings`` (a
JSON object of fields) from seed ``--seed``, then plays the policy greedily
(``ppo:PATH``) in ``--games`` duplicate-format games against three copies of the
target (seed 0, as ``hoity-eval exploit``'s final evaluation).  Prints one JSON line:
learner steps, training CPU seconds (``time.process_time`` around ``learn``), their
split (env, opponents, policy, learning) and the win rate with its 95% interval.

``--record PATH.json --label TEXT`` also adds the run to a tuning record (the runs of
several commands, each with its own command line, date, load average and commit): a
run with the same label and seed replaces the old one, and the file is rewritten
atomically.  How ``FAST_SETTINGS`` (``hoity_env/strength/response.py``) were chosen
(docs/learning.md renders ``docs/results/tune_best_response.json``)::

    python benchmarks/tune_best_response.py --settings '{"hidden": [64, 64], "minibatch_size": 1024}' \\
        --record docs/results/tune_best_response.json --label "64×64, minibatch 1,024"

Never used in tests: a run is over a CPU-minute.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_record import add_record_option, command_of, machine, versions

from hoity_env.evaluation import evaluate
from hoity_env.files import write_atomically
from hoity_env.learning import Learner, LearnerSettings

TEMPLATE = "python benchmarks/tune_best_response.py --settings '<changes>' --seed <seed>"
"""The command every run of a tuning record is an instance of (each run keeps its own too)."""


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--settings", default="{}", help="JSON object of LearnerSettings fields to change")
    p.add_argument("--target", default="expert", help="the agent spec to exploit (default expert)")
    p.add_argument("--steps", type=int, default=2_000_000, help="learner steps (default 2,000,000)")
    p.add_argument("--games", type=int, default=1000, help="evaluation games (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="the learner's seed (default 0)")
    p.add_argument("--label", default=None, help="the run's row label in the --record file")
    add_record_option(p)
    args = p.parse_args(argv)
    if args.record is not None and (not args.record.endswith(".json") or not args.label):
        p.error("--record needs a .json path and a --label")
    command, measured_versions = command_of(argv), versions()
    torch.set_num_threads(1)
    changes = json.loads(args.settings)
    if "hidden" in changes:
        changes["hidden"] = tuple(changes["hidden"])
    settings = LearnerSettings(
        opponents=((args.target, 1.0),), total_steps=args.steps, seed=args.seed, **changes
    )
    learner = Learner(settings)
    start = time.process_time()
    learner.learn()
    cpu = time.process_time() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = learner.save_policy(Path(tmp) / "best_response.zip")
        table = [f"ppo:{path}", *[args.target] * (settings.num_players - 1)]
        result = evaluate(table, num_players=settings.num_players, games=args.games, seed=0, progress=False)
        s = next(a for a in result.agent_stats if a.agent == table[0])
    record: dict[str, object] = {
        "settings": json.loads(args.settings),
        "seed": args.seed,
        "steps": learner.steps,
        "train_cpu_seconds": round(cpu, 1),
        "steps_per_cpu_second": round(learner.steps / cpu),
        "cpu_by_part": {k: round(v, 1) for k, v in learner.cpu.items()},
        "win_rate": round(s.win_rate, 3),
        "ci": [round(s.ci_low, 3), round(s.ci_high, 3)],
        "games": s.games,
    }
    print(json.dumps(record), flush=True)
    if args.record is not None:
        add_run(Path(args.record), {"label": args.label, **record, "command": command}, measured_versions)
    return record


def add_run(
    path: Path,
    run: dict[str, Any],
    measured_versions: dict[str, str],
    template: str = TEMPLATE,
    key: tuple[str, ...] = ("label", "seed"),
) -> None:
    """Add ``run`` to the tuning record at ``path`` (replacing the run with the same ``key`` fields).

    ``template`` is the command every run of the record is an instance of (each run keeps its own).
    """
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    box = machine()
    run = {
        **run,
        "measured": now,
        "load_average": box["load_average"],
        "git_commit": measured_versions.get("git_commit", ""),
    }
    data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    same = tuple(run[k] for k in key)
    runs = [r for r in data.get("runs", []) if tuple(r.get(k) for k in key) != same]
    data.update(
        command=template,
        note=data.get(
            "note", "one row per command; each run's own command, date, load and commit in the file"
        ),
        machine=f"{box['cpus']} CPUs ({box['arch']}), Python {box['python']}, shared with other jobs",
        measured=now,
        runs=[*runs, run],
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"recorded {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
