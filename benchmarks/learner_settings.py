"""The fast learner's defaults beside a few variants: CPU time and strength after the same steps.

Each variant is :class:`~hoity_env.learning.LearnerSettings` with a few fields
changed; each trains ``--steps`` self-play learner steps from the same seed, then
its sampled policy (``ppo-sample:``) plays ``--games`` duplicate-format games
against three copies of ``random`` and of ``expert``.  Printed (and with
``--record PATH.json`` written, with the command and the machine, for the table of
docs/learning.md): the training's CPU seconds (``time.process_time`` around
``learn``) and each win rate with its 95% Wilson interval.  One seed per variant,
so the spread between seeds is part of what a row shows; this is how the defaults
were chosen, not a tuning study.

    python benchmarks/learner_settings.py [--steps 1000000] [--games 400] [--only 0,3]

Never used in tests: minutes of CPU.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_record import Recorder, add_record_option

from hoity_env.evaluation import evaluate
from hoity_env.learning import Learner, LearnerSettings

VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"hidden": (64, 64), "epochs": 2},
    {"hidden": (64, 64), "epochs": 2, "activation": "tanh"},
    {"hidden": (64, 64), "epochs": 2, "learning_rate": 3e-4},
    {"num_games": 128, "rollout_steps": 32, "minibatch_size": 4096},
    {"hidden": (64, 64), "epochs": 2, "num_games": 128, "rollout_steps": 32, "minibatch_size": 4096},
    {"learning_rate": 2e-3},
)
"""The settings compared: each dict is the fields changed from the defaults (``{}``: the defaults)."""
OPPONENTS = ("random", "expert")


def measure(changes: dict[str, Any], steps: int, games: int, folder: Path) -> dict[str, Any]:
    """Train one variant and score its sampled policy against each of :data:`OPPONENTS`."""
    learner = Learner(LearnerSettings(total_steps=steps).replace(**changes))
    start = time.process_time()
    learner.learn()
    cpu = time.process_time() - start
    policy = learner.save_policy(folder / f"policy_{len(list(folder.iterdir()))}.zip")
    scores = {}
    for opponent in OPPONENTS:
        result = evaluate([f"ppo-sample:{policy}", *[opponent] * 3], games=games, progress=False)
        first = result.agent_stats[0]
        scores[opponent] = {"win_rate": first.win_rate, "ci_low": first.ci_low, "ci_high": first.ci_high}
    return {"changes": changes, "steps": learner.steps, "cpu_seconds": cpu, "scores": scores}


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="learner steps per variant")
    parser.add_argument("--games", type=int, default=400, help="evaluation games per opponent")
    parser.add_argument("--only", default=None, help="comma-separated indices into VARIANTS (default all)")
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    chosen = [int(i) for i in args.only.split(",")] if args.only else range(len(VARIANTS))
    rows = []
    print("| changes from the defaults | CPU-s | " + " | ".join(f"vs {o}" for o in OPPONENTS) + " |")
    print("|---|---|" + "---|" * len(OPPONENTS))
    with tempfile.TemporaryDirectory() as tmp:
        for index in chosen:
            row = measure(VARIANTS[index], args.steps, args.games, Path(tmp))
            rows.append(row)
            cells = [
                f"{s['win_rate']:.3f} [{s['ci_low']:.3f}, {s['ci_high']:.3f}]" for s in row["scores"].values()
            ]
            print(
                f"| {row['changes'] or 'defaults'} | {row['cpu_seconds']:.0f} | " + " | ".join(cells) + " |"
            )
    if recorder:
        recorder.write({"rows": rows, "defaults": LearnerSettings().to_dict()}, settings=vars(args))
    return rows


if __name__ == "__main__":
    main()
