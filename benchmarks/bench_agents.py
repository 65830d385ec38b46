"""Agent speed: decisions per CPU-second, one-game ``act`` loop vs ``act_batch`` at several batch sizes.

Every built-in agent decides a batch with numpy and its ``act`` is the same code
at ``B = 1`` (docs/design.md §3).  This prints, for each agent, decisions per
CPU-second (``time.process_time``, median of ``--repeats`` runs) over the same
real observations (every seat of seeded four-player games played by the zoo):

* ``act loop``: ``agent.act(observation, mask)`` row by row, as the one-game
  harness calls it;
* ``B = …``: ``agent.act_batch`` on consecutive chunks of ``B`` rows;

and the ratio of each batch size to the loop.  ``--ppo PATH`` adds a
``MaskablePPO`` checkpoint (4 players) to the table, with torch on one thread
(``--torch-threads``): on a shared machine torch's spinning worker threads
burn CPU time without making a small network faster.

Usage::

    python benchmarks/bench_agents.py [--rows 2048] [--repeats 3] [--batch 1,64,1024]
        [--ppo PATH [--torch-threads 1]]

Never used in tests: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

import hoity_env
from hoity_env.agents import AGENT_NAMES, make

NUM_PLAYERS = 4


def real_rows(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` observations and masks of every seat of seeded games between zoo agents."""
    env = hoity_env.parallel_env(num_players=NUM_PLAYERS)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    game = 0
    while len(obs_rows) < rows:
        specs = [AGENT_NAMES[(game + i) % len(AGENT_NAMES)] for i in range(NUM_PLAYERS)]
        agents = [make(s, seed=seed + 10 * game + i) for i, s in enumerate(specs)]
        obs, _ = env.reset(seed=seed + game)
        while env.agents:
            actions = {}
            for agent, name in zip(agents, env.possible_agents, strict=True):
                obs_rows.append(obs[name]["observation"])
                mask_rows.append(obs[name]["action_mask"])
                actions[name] = agent.act(obs_rows[-1], mask_rows[-1])
            obs, *_ = env.step(actions)
        game += 1
    return np.stack(obs_rows[:rows]), np.stack(mask_rows[:rows])


def rate(run: Callable[[], None], decisions: int, repeats: int) -> float:
    """Median decisions per CPU-second of ``run`` (after one warm-up call)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return decisions / max(statistics.median(times), 1e-9)


def measure(spec: str, obs: np.ndarray, masks: np.ndarray, batches: list[int], repeats: int) -> list[float]:
    """[act loop, act_batch at each batch size] decisions per CPU-second for one agent."""
    agent = make(spec, seed=0, num_players=NUM_PLAYERS)

    def loop() -> None:
        for o, m in zip(obs, masks, strict=True):
            agent.act(o, m)

    out = [rate(loop, len(obs), repeats)]
    for b in batches:

        def batched(b: int = b) -> None:
            for start in range(0, len(obs), b):
                agent.act_batch(obs[start : start + b], masks[start : start + b])

        out.append(rate(batched, len(obs), repeats))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2048, help="observations decided per run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median)")
    parser.add_argument("--batch", default="1,64,1024", help="batch sizes, comma-separated")
    parser.add_argument("--ppo", default=None, help="also time this MaskablePPO checkpoint (4 players)")
    parser.add_argument("--torch-threads", type=int, default=1, help="torch threads with --ppo")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.ppo:
        import torch

        torch.set_num_threads(args.torch_threads)
    batches = [int(b) for b in args.batch.split(",")]
    obs, masks = real_rows(args.rows, args.seed)
    specs = list(AGENT_NAMES) + ([f"ppo:{args.ppo}", f"ppo-sample:{args.ppo}"] if args.ppo else [])
    print(f"decisions per CPU-second, {len(obs)} real {NUM_PLAYERS}-player rows, median of {args.repeats}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (shared machines: noisy)\n")
    head = ["agent", "act loop", *(f"B = {b}" for b in batches), *(f"B = {b} / loop" for b in batches)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for spec in specs:
        loop, *batched = measure(spec, obs, masks, batches, args.repeats)
        name = spec if len(spec) < 24 else spec[:21] + "…"
        cells = [f"{loop:,.0f}", *(f"{r:,.0f}" for r in batched), *(f"{r / loop:.2f}×" for r in batched)]
        print(f"| `{name}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
