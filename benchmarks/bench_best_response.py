"""A fast best response's training CPU, this tree against an earlier one, in one run (issue 34).

Trains the fast learner at the best responder's settings
(``FAST_SETTINGS``, :mod:`hoity_env.strength.response`) against three copies of
``--target`` for ``--steps`` learner steps, and reports the CPU-seconds of training
(``time.process_time`` around ``learn``, every thread's time; torch and numpy's BLAS
on one thread, as ``hoity-eval exploit`` runs) split as :attr:`Learner.cpu`
splits it: the env, the opponents' decisions, the policy's rollout forward
passes and the learning (GAE and the PPO update).

``--before COMMIT`` also trains, in the same run, with the ``hoity_env`` of an earlier
commit (unpacked into a temporary folder with ``git archive``): every repeat
trains once with each, alternating, each in a fresh process of its own (numba's
compiled kernels come from each tree's cache, warmed before the clock starts), so
a change in the machine's load touches both alike; the figures are medians of
``--repeats`` and the ratio is of the medians.  The target (issue 34): a 2M-step
best response to ``expert`` in at most 40 CPU-seconds of training.

    python benchmarks/bench_best_response.py --before COMMIT [--steps 2000000] [--repeats 3]
        [--record PATH.json]

Never used in tests: a run is minutes of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_record import Recorder, add_record_option

PARTS = ("env", "opponents", "policy", "learning")
TARGET_CPU_SECONDS = 40.0


def train(target: str, steps: int, seed: int) -> dict[str, Any]:
    """One best response in this process; its steps, training CPU-s and CPU-s by part."""
    import torch
    from threadpoolctl import threadpool_limits

    from hoity_env.learning import Learner
    from hoity_env.strength.response import FAST_SETTINGS, fast_learner_settings

    torch.set_num_threads(1)
    threadpool_limits(limits=1, user_api="blas")
    settings = fast_learner_settings(dict(FAST_SETTINGS), "standard", 4, seed, steps, target)
    Learner(settings.replace(total_steps=1, num_games=8)).learn()  # warm-up: kernels, torch's first calls
    learner = Learner(settings)
    start = time.process_time()
    learner.learn()
    cpu = time.process_time() - start
    return {"steps": learner.steps, "cpu": cpu, **{part: learner.cpu[part] for part in PARTS}}


def run_child(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    """:func:`train` in a fresh process whose ``hoity_env`` is the one in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    command = [sys.executable, __file__, "--child", "--target", args.target, "--steps", str(args.steps)]
    command += ["--seed", str(args.seed)]
    done = subprocess.run(
        command, env=env, check=True, capture_output=True, text=True, cwd=Path(__file__).parent
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over runs: CPU-s, steps per CPU-s, and each part's CPU-s."""
    return {
        "cpu": statistics.median(r["cpu"] for r in runs),
        "steps": runs[0]["steps"],
        "rate": statistics.median(r["steps"] / r["cpu"] for r in runs),
        **{part: statistics.median(r[part] for r in runs) for part in PARTS},
        "runs": runs,
    }


def row(name: str, s: dict[str, Any]) -> str:
    parts = " | ".join(f"{s[p]:.1f} ({s[p] / s['cpu']:.0%})" for p in PARTS)
    return f"| {name} | {s['steps']:,} | {s['cpu']:.1f} | {s['rate']:,.0f} | {parts} |"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="expert", help="the agent spec to exploit (default expert)")
    p.add_argument("--steps", type=int, default=2_000_000, help="learner steps (default 2,000,000)")
    p.add_argument("--seed", type=int, default=0, help="the learner's seed (default 0)")
    p.add_argument("--repeats", type=int, default=3, help="runs per tree; medians are shown (default 3)")
    p.add_argument("--before", default=None, help="also train with the hoity_env of this git commit")
    p.add_argument(
        "--child", action="store_true", help="internal: train once here and print its figures as JSON"
    )
    add_record_option(p)
    args = p.parse_args(argv)
    if args.child:
        result = train(args.target, args.steps, args.seed)
        print(json.dumps(result), flush=True)
        return result
    recorder = Recorder.start(args.record, argv)
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        trees = {"after": here}
        if args.before:
            trees["before"] = Path(folder)
            archive = subprocess.run(
                ["git", "archive", args.before, "hoity_env"], cwd=here, check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for _ in range(args.repeats):
            for name in sorted(trees):  # before, then after: alternating
                runs[name].append(run_child(trees[name], args))
    figures = {name: summary(r) for name, r in runs.items()}
    header = " | ".join(f"{p} CPU-s" for p in PARTS)
    print(f"fast best response to {args.target}, {args.steps:,} steps, medians of {args.repeats}\n")
    print(f"| tree | learner steps | training CPU-s | steps / CPU-s | {header} |")
    print("|---|---|---|---|" + "---|" * len(PARTS))
    for name in sorted(figures):
        print(row(name, figures[name]))
    if "before" in figures:
        ratio = figures["before"]["cpu"] / figures["after"]["cpu"]
        print(f"\nbefore / after: {ratio:.2f}× the training CPU")
    verdict = figures["after"]["cpu"] <= TARGET_CPU_SECONDS
    print(f"target: at most {TARGET_CPU_SECONDS:.0f} CPU-s: {'met' if verdict else 'not met'}")
    if recorder:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        recorder.cpu_start -= children.ru_utime + children.ru_stime  # the runs' CPU counts as the run's
        recorder.write(figures, settings={k: v for k, v in vars(args).items() if k != "child"})
    return figures


if __name__ == "__main__":
    main()
