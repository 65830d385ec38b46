"""One fast best response with given settings: its training CPU time and its win rate (tuning aid).

Trains the fast learner against three copies of ``--target`` for ``--steps`` learner
steps with :class:`~hoity_env.learning.LearnerSettings` changed by ``--settings`` (a
JSON object of fields), then plays the policy greedily (``ppo:PATH``) in ``--games``
duplicate-format games against three copies of the target (seed 0, as ``hoity-eval
exploit``'s final evaluation).  Prints one JSON line: learner steps, training CPU
seconds (``time.process_time`` around ``learn``), their split (env, opponents, policy,
learning) and the win rate with its 95% interval.  How ``FAST_SETTINGS``
(``hoity_env/strength/response.py``) were chosen (docs/evaluation.md)::

    python benchmarks/tune_best_response.py --settings '{"hidden": [64, 64], "minibatch_size": 1024}'
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hoity_env.evaluation import evaluate
from hoity_env.learning import Learner, LearnerSettings


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--settings", default="{}", help="JSON object of LearnerSettings fields to change")
    p.add_argument("--target", default="expert", help="the agent spec to exploit (default expert)")
    p.add_argument("--steps", type=int, default=2_000_000, help="learner steps (default 2,000,000)")
    p.add_argument("--games", type=int, default=1000, help="evaluation games (default 1000)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    changes = json.loads(args.settings)
    if "hidden" in changes:
        changes["hidden"] = tuple(changes["hidden"])
    settings = LearnerSettings(opponents=((args.target, 1.0),), total_steps=args.steps, **changes)
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
        "steps": learner.steps,
        "train_cpu_seconds": round(cpu, 1),
        "steps_per_cpu_second": round(learner.steps / cpu),
        "cpu_by_part": {k: round(v, 1) for k, v in learner.cpu.items()},
        "win_rate": round(s.win_rate, 3),
        "ci": [round(s.ci_low, 3), round(s.ci_high, 3)],
        "games": s.games,
    }
    print(json.dumps(record), flush=True)
    return record


if __name__ == "__main__":
    main()
