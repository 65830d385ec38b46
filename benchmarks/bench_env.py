"""Environment speed beside its peers, in one process (docs/design.md §7).

Plays random legal games and prints agent-steps per second and microseconds per
agent-step for:

* hoity_env's 4-player parallel env (full observations, masks and infos),
* PettingZoo ``rps_v2`` parallel (2 players),
* OpenSpiel goofspiel through ``open_spiel.python.rl_environment`` (4 players),

with the ratios.  "env" time counts only ``reset``/``step`` calls; "loop" time
adds the random legal action choice (the same cheap method for every env).
All times are CPU time (``time.process_time``: a shared machine blurs it less than
wall time).  Each figure is the median of ``--repeats`` runs.  Usage::

    pip install -e ".[bench]"
    python benchmarks/bench_env.py [--steps 20000] [--repeats 5] [--record PATH.json]

Never used in tests: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from bench_record import Recorder, add_record_option

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # rps_v2 imports pygame


def bench_hoity(steps: int, seed: int) -> tuple[float, float, int]:
    """(env seconds, loop seconds, agent-steps) for hoity_env, 4 players."""
    import hoity_env

    env = hoity_env.parallel_env(num_players=4)
    rng = np.random.default_rng(seed)
    uniforms = rng.random((steps, 4)).tolist()
    t_env = 0.0
    t0 = time.process_time()
    t = time.process_time()
    obs, _ = env.reset(seed=seed)
    t_env += time.process_time() - t
    agent_steps = 0
    for i in range(steps):
        u = uniforms[i]
        actions = {}
        for k, (agent, o) in enumerate(obs.items()):
            legal = np.flatnonzero(o["action_mask"])
            actions[agent] = int(legal[int(u[k] * len(legal))])
        t = time.process_time()
        obs, _, _, _, _ = env.step(actions)
        if not env.agents:
            obs, _ = env.reset()
        t_env += time.process_time() - t
        agent_steps += len(actions)
    return t_env, time.process_time() - t0, agent_steps


def bench_rps(steps: int, seed: int) -> tuple[float, float, int]:
    """(env seconds, loop seconds, agent-steps) for PettingZoo rps_v2 parallel."""
    from pettingzoo.classic import rps_v2

    env = rps_v2.parallel_env()
    rng = np.random.default_rng(seed)
    choices = rng.integers(0, 3, size=(steps, 2)).tolist()
    t_env = 0.0
    t0 = time.process_time()
    t = time.process_time()
    env.reset(seed=seed)
    t_env += time.process_time() - t
    agent_steps = 0
    for i in range(steps):
        c = choices[i]
        actions = {agent: c[k] for k, agent in enumerate(env.agents)}
        t = time.process_time()
        env.step(actions)
        if not env.agents:
            env.reset()
        t_env += time.process_time() - t
        agent_steps += len(actions)
    return t_env, time.process_time() - t0, agent_steps


def bench_goofspiel(steps: int, seed: int) -> tuple[float, float, int]:
    """(env seconds, loop seconds, agent-steps) for OpenSpiel goofspiel rl_environment, 4 players."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("goofspiel", players=4)
    rng = np.random.default_rng(seed)
    uniforms = rng.random((steps, 4)).tolist()
    t_env = 0.0
    t0 = time.process_time()
    t = time.process_time()
    ts = env.reset()
    t_env += time.process_time() - t
    agent_steps = 0
    for i in range(steps):
        u = uniforms[i]
        legal = ts.observations["legal_actions"]
        actions = [legal[p][int(u[p] * len(legal[p]))] for p in range(4)]
        t = time.process_time()
        ts = env.step(actions)
        if ts.last():
            ts = env.reset()
        t_env += time.process_time() - t
        agent_steps += 4
    return t_env, time.process_time() - t0, agent_steps


BenchFn = Callable[[int, int], tuple[float, float, int]]


def median_rate(fn: BenchFn, steps: int, repeats: int) -> dict[str, float]:
    """Median microseconds per agent-step (env-only and loop) over ``repeats`` runs."""
    env_us, loop_us = [], []
    for r in range(repeats):
        t_env, t_loop, n = fn(steps, r)
        env_us.append(t_env / n * 1e6)
        loop_us.append(t_loop / n * 1e6)
    return {"env_us": statistics.median(env_us), "loop_us": statistics.median(loop_us)}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Run all three and print the table."""
    parser = argparse.ArgumentParser(description="hoity_env speed beside rps_v2 and OpenSpiel goofspiel")
    parser.add_argument("--steps", type=int, default=20000, help="parallel step() calls per run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per env (the median is shown)")
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    results = {
        "hoity_env 4p parallel": median_rate(bench_hoity, args.steps, args.repeats),
        "pettingzoo rps_v2 parallel": median_rate(bench_rps, args.steps, args.repeats),
        "openspiel goofspiel 4p rl_env": median_rate(bench_goofspiel, args.steps, args.repeats),
    }
    ours = results["hoity_env 4p parallel"]
    print(f"{'environment':32} {'env µs/agent-step':>18} {'agent-steps/s':>14} {'loop µs':>9} {'ours ×':>7}")
    for name, r in results.items():
        ratio = r["env_us"] / ours["env_us"]
        print(f"{name:32} {r['env_us']:18.2f} {1e6 / r['env_us']:14,.0f} {r['loop_us']:9.2f} {ratio:7.2f}")
    print("(ours × = how many times faster hoity_env is, env time only; medians of", args.repeats, "runs)")
    if recorder:
        recorder.write({"rows": results}, settings=vars(args))
    return results


if __name__ == "__main__":
    main()
