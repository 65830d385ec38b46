"""How hard an agent is to exploit, and how it fares head to head: the champion's measurements.

For the agent under test (``--agent``, default the league run's main agent, sampling):

* **exploitability**: a fresh best response per (learner, seed, budget) in ``--plan``
  (``fast:0:2000000,fast:1:2000000,fast:0:10000000,...``; ``fast`` is the fast learner at
  ``FAST_SETTINGS``, as these records were measured, ``strong`` at ``STRONG_SETTINGS``,
  ``sb3`` MaskablePPO), trained against three copies
  of it and scored over ``--games`` duplicate-format games: each estimate, and their
  maximum (still an estimate from below);
* **head to head**: its win rate against three copies of each ``--opponents`` agent over
  ``--games`` games (the targets: above 0.25 against ``champion-v1``, above 0.50 against
  the zoo and the reference agent, by the 95% interval's lower bound).

Every finished measurement is written to the record (``--out``) at once, and a rerun
skips the measurements already there, so an interrupted run continues where it stopped.

    python benchmarks/champion_v2.py --agent ppo-sample:docs/reference/champion-v2/final_model.zip
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hoity_env.evaluation import evaluate  # noqa: E402
from hoity_env.files import write_atomically  # noqa: E402
from hoity_env.strength import exploitability  # noqa: E402

PLAN = "fast:0:2000000,fast:1:2000000,fast:0:10000000,fast:1:10000000,sb3:0:2000000"
PLAN_LEARNERS = {"fast": ("fast", "fast"), "strong": ("fast", "strong"), "sb3": ("sb3", None)}
"""A plan's learner name → (learner, preset) of the best response."""
OPPONENTS = (
    "npz:docs/reference/retired/champion-v1.npz,expert,expert-v1,collector,thief,detective,random,reference"
)


def _interval(stats: Any) -> dict[str, float]:
    return {"win_rate": stats.win_rate, "ci_low": stats.ci_low, "ci_high": stats.ci_high}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agent", default="ppo-sample:docs/reference/champion-v2/final_model.zip")
    p.add_argument("--plan", default=PLAN, help="best responses: learner:seed:budget, comma-separated")
    p.add_argument("--opponents", default=OPPONENTS, help="head-to-head opponents, comma-separated")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--runs", type=Path, default=Path("runs/champion_v2"))
    p.add_argument("--out", type=Path, default=ROOT / "docs/results/champion_v2.json")
    args = p.parse_args(argv)
    command = "python benchmarks/champion_v2.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    record: dict[str, Any] = {"agent": args.agent, "exploitability": [], "head_to_head": []}
    if args.out.exists():
        record = json.loads(args.out.read_text(encoding="utf-8"))
    record.update(
        command=command, machine=f"{platform.machine()}, {platform.python_version()}", games=args.games
    )

    def save() -> None:
        estimates = [e["win_rate"] for e in record["exploitability"]]
        record["max_exploitability"] = max(estimates) if estimates else None
        record["date"] = datetime.date.today().isoformat()
        write_atomically(args.out, json.dumps(record, indent=1) + "\n")

    done = {(e["learner"], e["seed"], e["budget"]) for e in record["exploitability"]}
    for item in (i.strip() for i in args.plan.split(",") if i.strip()):
        learner, seed, budget = item.split(":")
        key = (learner, int(seed), int(budget))
        if key in done:
            continue
        cpu = time.process_time()
        trainer, preset = PLAN_LEARNERS[learner]
        result = exploitability(
            args.agent,
            budget=int(budget),
            learner=trainer,
            preset=preset,
            seed=int(seed),
            curve_points=0,
            games=args.games,
            runs_dir=args.runs / f"{learner}_{seed}_{budget}",
        )
        entry = result.entries[0]
        record["exploitability"].append(
            {
                "learner": learner,
                "seed": int(seed),
                "budget": int(budget),
                **_interval(entry),
                "train_seconds": round(entry.train_seconds, 1),
                "cpu_s": round(time.process_time() - cpu, 1),
            }
        )
        save()
        print(json.dumps(record["exploitability"][-1]), flush=True)
    played = {h["opponent"] for h in record["head_to_head"]}
    for opponent in (o.strip() for o in args.opponents.split(",") if o.strip()):
        if opponent in played:
            continue
        result = evaluate([args.agent] + [opponent] * 3, num_players=4, games=args.games, seed=1)
        stats = next(a for a in result.agent_stats if a.agent == args.agent)
        record["head_to_head"].append({"opponent": opponent, **_interval(stats)})
        save()
        print(json.dumps(record["head_to_head"][-1]), flush=True)
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
