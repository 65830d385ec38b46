"""Evaluation harness speed: four-player games per second per core, scaling with workers (docs/design.md §7).

For each line-up of scripted agents (``expert,collector,thief,detective`` and
``random`` ×4) it times :func:`hoity_env.evaluation.evaluate` end to end
(duplicate rotation, records, summary) and prints medians of ``--repeats`` runs:

* ``1 worker``: games/s in this process after a warm-up game (agents built,
  env created), so start-up is excluded: this is the per-core figure;
* ``N workers`` (each count of ``--workers``): the marginal rate of a process pool, ``(G2 - G1) / (T2 - T1)``
  from runs of ``G1`` and ``G2 = 2·G1`` games, which cancels the pool's start-up
  (spawning workers, importing, building agents); the wall-clock rate of the
  bigger run, start-up included, is printed beside it;
* CPU time per game in the pool (workers included, from ``getrusage``), which
  says what speed-up ``N`` idle cores would give when the machine is shared;
* where the time goes: agent-steps per game and microseconds per agent-step,
  split into the env (``reset``/``step``) and the agents (``act``).

Usage::

    python benchmarks/bench_eval.py [--games 400] [--repeats 3] [--workers 2,4]

It times the one-game engine (``engine="one-game"``); ``bench_harness_engines.py``
puts the batched engine beside it.

Never used in tests: timings on shared machines are noisy (the load average is
printed; other processes on the machine slow every figure).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

import hoity_env
from hoity_env.agents import make
from hoity_env.evaluation import agent_seeds, deal_seed, evaluate

LINEUPS = {
    "scripted": ["expert", "collector", "thief", "detective"],
    "random": ["random"] * 4,
}


def timed_evaluate(specs: list[str], games: int, workers: int, seed: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its reaped workers) for one ``evaluate`` call."""
    cpu0 = _cpu()
    start = time.perf_counter()
    evaluate(specs, num_players=4, games=games, seed=seed, workers=workers, progress=False, engine="one-game")
    return time.perf_counter() - start, _cpu() - cpu0


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def pool_rates(
    specs: list[str], games: int, workers: int, seed: int, repeats: int
) -> tuple[float, float, float]:
    """Medians: marginal games/s, wall games/s of the bigger run, marginal CPU ms per game."""
    marginal, wall, cpu = [], [], []
    for r in range(repeats):
        t1, c1 = timed_evaluate(specs, games, workers, seed + r)
        t2, c2 = timed_evaluate(specs, 2 * games, workers, seed + r)
        marginal.append(games / max(t2 - t1, 1e-9))
        wall.append(2 * games / t2)
        cpu.append(1e3 * (c2 - c1) / games)
    return statistics.median(marginal), statistics.median(wall), statistics.median(cpu)


def split_env_agents(specs: list[str], games: int, seed: int) -> tuple[float, float, int]:
    """(env seconds, agent seconds, agent-steps) over ``games`` games played by hand."""
    env = hoity_env.parallel_env(num_players=4)
    agents = [make(s, num_players=4, rules="standard", num_actions=env.codec.size) for s in specs]
    names = env.possible_agents
    t_env = t_agents = 0.0
    steps = 0
    for g in range(games):
        for agent, s in zip(agents, agent_seeds(seed, g, 0, 4), strict=True):
            agent.reset(s)
        t0 = time.perf_counter()
        obs, _ = env.reset(seed=deal_seed(seed, g))
        t_env += time.perf_counter() - t0
        while env.agents:
            t0 = time.perf_counter()
            actions = {
                a: agent.act(obs[a]["observation"], obs[a]["action_mask"])
                for a, agent in zip(names, agents, strict=True)
            }
            t1 = time.perf_counter()
            obs = env.step(actions)[0]
            t2 = time.perf_counter()
            t_agents += t1 - t0
            t_env += t2 - t1
            steps += 4
    return t_env, t_agents, steps


def main() -> None:
    """Run every line-up and print the medians."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=400, help="games per timed run (multiple of 4)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per setting (the median is shown)")
    p.add_argument("--workers", default="2", help="worker counts to try, comma-separated (e.g. 2,4,8)")
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    args = p.parse_args()
    g1 = args.games
    counts = [int(w) for w in args.workers.split(",")]
    cores = os.cpu_count()
    print(f"cpus: {cores}, load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"games per run: {g1} (1 worker), {g1} and {2 * g1} (workers {args.workers}); "
        f"median of {args.repeats}"
    )
    for label, specs in LINEUPS.items():
        timed_evaluate(specs, 4, 1, args.seed)  # warm-up: build agents and env in this process
        runs = [timed_evaluate(specs, g1, 1, args.seed + r) for r in range(args.repeats)]
        scaling = {w: pool_rates(specs, g1, w, args.seed, args.repeats) for w in counts}
        t_env, t_agents, steps = split_env_agents(specs, min(g1, 200), args.seed)
        per_core = statistics.median(g1 / t for t, _ in runs)
        cpu_one = statistics.median(1e3 * c / g1 for _, c in runs)
        print(f"\n{label}: {','.join(specs)}")
        print(f"  1 worker : {per_core:8.1f} games/s per core (start-up excluded); CPU {cpu_one:.2f} ms/game")
        for w, (par, wall, cpu) in scaling.items():
            print(
                f"  {w} workers: {par:8.1f} games/s marginal (start-up excluded), "
                f"speed-up {par / per_core:.2f}x; wall incl. start-up {wall:.1f} games/s"
            )
            print(
                f"             CPU {cpu:.2f} ms/game in the pool: on {w} idle cores the speed-up would be "
                f"about {w * cpu_one / cpu:.2f}x"
            )
        print(
            f"  per game : {steps / min(g1, 200):.0f} agent-steps; per agent-step "
            f"env {1e6 * t_env / steps:.1f} µs + agents {1e6 * t_agents / steps:.1f} µs"
        )
        print(f"  target   : 2000 games/s per core -> {per_core / 2000:.0%} of it")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
