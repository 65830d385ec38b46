"""First use of the batched engine: numba compiling its kernels on a cold cache, and a warm start.

The batched engine's kernels compile on their first call after an install and load from
numba's on-disk cache afterwards (docs/design.md §7).  This times, in fresh processes, the
first ``BatchedHoityEnv`` reset and two steps (a location step and an action step: every
kernel of the env called once) of the standard rules, then of the original rules in the
same process (the kernels both share are compiled by then), with ``NUMBA_CACHE_DIR`` set to
an empty folder (a cold cache, the user's own cache untouched); then the same again, warm,
from that folder.  Prints CPU and wall seconds of each; ``--record PATH.json`` writes them
with the command and the machine.  Usage::

    python benchmarks/bench_compile.py [--repeats 1] [--record PATH.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

from bench_record import Recorder, add_record_option

FIRST_USE = """
import json, time
import numpy as np
out = {}
clock = lambda: (time.process_time(), time.perf_counter())
cpu, wall = clock()
import hoity_env
out["import"] = [time.process_time() - cpu, time.perf_counter() - wall]
for rules in ("standard", "original"):
    cpu, wall = clock()
    env = hoity_env.BatchedHoityEnv(num_envs=8, num_players=4, rules=rules)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(2):
        env.step(env.sample_actions(rng))
    out[rules] = [time.process_time() - cpu, time.perf_counter() - wall]
print(json.dumps(out))
"""
"""What a fresh process does; prints ``{part: [CPU s, wall s]}``."""


def first_use(cache: str) -> dict[str, list[float]]:
    """Run :data:`FIRST_USE` in a fresh process with numba's cache in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_USE], capture_output=True, text=True, env=env, check=True
    )
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Time cold and warm first uses; print and optionally record them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="cold/warm pairs (the median is kept)")
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    runs: dict[str, list[dict[str, list[float]]]] = {"cold": [], "warm": []}
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            runs["cold"].append(first_use(cache))
            runs["warm"].append(first_use(cache))
    figures: dict[str, Any] = {}
    for kind, results in runs.items():
        figures[kind] = {
            part: [statistics.median(r[part][i] for r in results) for i in (0, 1)] for part in results[0]
        }
    print(f"{'first use':12} {'part':10} {'CPU s':>8} {'wall s':>8}")
    for kind, parts in figures.items():
        for part, (cpu, wall) in parts.items():
            print(f"{kind:12} {part:10} {cpu:8.1f} {wall:8.1f}")
    if recorder:
        recorder.write(figures, settings=vars(args))
    return figures


if __name__ == "__main__":
    main()
