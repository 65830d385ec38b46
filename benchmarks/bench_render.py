"""Milliseconds per board picture (``render_mode="rgb_array"``), beside the env step it follows.

Plays random legal games with 2, 4 and 6 players under each ruleset and times
``env.render()`` after every step (CPU time, ``time.process_time``), then the step
itself, and prints the median ms per frame over ``--repeats`` runs, the frames per
second that allows, and how many env steps one frame costs.  Usage::

    python benchmarks/bench_render.py [--frames 600] [--repeats 3] [--rules standard,original]
        [--record PATH.json]

Never used in tests: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from bench_record import Recorder, add_record_option

import hoity_env


def bench(num_players: int, frames: int, seed: int, rules: str = "standard") -> tuple[float, float]:
    """(CPU seconds per frame, CPU seconds per env step) over ``frames`` steps of random games."""
    env = hoity_env.parallel_env(num_players=num_players, rules=rules, render_mode="rgb_array")
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    env.render()  # the first frame draws the cached background: not what a recording pays per step
    t_render = t_step = 0.0
    for _ in range(frames):
        if not env.agents:
            obs, _ = env.reset()
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        start = time.process_time()
        obs = env.step(actions)[0]
        middle = time.process_time()
        env.render()
        t_render += time.process_time() - middle
        t_step += middle - start
    return t_render / frames, t_step / frames


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description="Board picture (rgb_array) render speed.")
    parser.add_argument("--frames", type=int, default=600, help="frames timed per run (default 600)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per player count; the median is shown")
    parser.add_argument("--rules", default="standard,original", help="rulesets, comma-separated")
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    rows = []
    print("| rules | players | ms per frame (CPU) | frames/s | ms per env step (CPU) | frame / step |")
    print("|---|---|---|---|---|---|")
    for rules in args.rules.split(","):
        for n in (2, 4, 6):
            runs = [bench(n, args.frames, seed, rules) for seed in range(args.repeats)]
            frame = statistics.median(r[0] for r in runs)
            step = statistics.median(r[1] for r in runs)
            ms, per_step = f"{frame * 1e3:.2f}", f"{step * 1e3:.3f}"
            print(f"| {rules} | {n} | {ms} | {1 / frame:.0f} | {per_step} | {frame / step:.0f}x |")
            rows.append({"rules": rules, "players": n, "frame_seconds": frame, "step_seconds": step})
    if recorder:
        recorder.write({"rows": rows}, settings=vars(args))


if __name__ == "__main__":
    main()
