"""Agent speed: decisions per CPU-second, one-game ``act`` loop vs ``act_batch`` at several batch sizes.

Every built-in agent decides a batch at once and its ``act`` is the same code
at ``B = 1`` (docs/design.md §3).  This prints, for each agent, decisions per
CPU-second (``time.process_time``, median of ``--repeats`` runs) over the same
real observations (every seat of seeded four-player games played by the zoo):

* ``act loop``: ``agent.act(observation, mask)`` row by row, as the one-game
  harness calls it;
* ``B = …``: ``agent.act_batch`` on consecutive chunks of ``B`` rows;

and the ratio of each batch size to the loop.

``--before TREE`` adds a second table: the CPU cost per decision (microseconds,
median of ``--repeats``) of every scripted agent at each batch size, through
``act_batch`` (input checks included) and through the checked entry the batched
envs and the harness call (``act_batch(agent, ..., checked=True)``), measured here
and, in a separate process, with the ``hoity_env`` of the source tree ``TREE``
(e.g. a checkout of an earlier commit) on its first ``sys.path`` entry, and the
ratio before / after.  ``--costs-only`` prints only that table.  ``--ppo PATH`` adds a
``MaskablePPO`` checkpoint (4 players) to the table, with torch on one thread
(``--torch-threads``): on a shared machine torch's spinning worker threads
burn CPU time without making a small network faster.

Usage::

    python benchmarks/bench_agents.py [--rows 2048] [--repeats 3] [--batch 1,64,1024]
        [--ppo PATH [--torch-threads 1]] [--before TREE [--costs-only]] [--record PATH.json]

``--record PATH.json`` also writes both tables' figures with the command and the machine
(``bench_record.py``), for the docs' tables.

Never used in tests: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
from bench_record import Recorder, add_record_option

import hoity_env
from hoity_env.agents import AGENT_NAMES, make
from hoity_env.agents.batch import act_batch

NUM_PLAYERS = 4


def real_rows(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` observations and masks of every seat of seeded games between zoo agents."""
    env = hoity_env.parallel_env(num_players=NUM_PLAYERS)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    game = 0
    while len(obs_rows) < rows:
        specs = [AGENT_NAMES[(game + i) % len(AGENT_NAMES)] for i in range(NUM_PLAYERS)]
        agents = [make(s, seed=seed + 10 * game + i, num_players=NUM_PLAYERS) for i, s in enumerate(specs)]
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


def costs(
    obs: np.ndarray, masks: np.ndarray, batches: list[int], repeats: int
) -> dict[str, list[list[float]]]:
    """Per scripted agent and batch size: [act_batch, checked entry] CPU microseconds per decision."""
    bools = masks.astype(bool)
    out = {}
    for spec in AGENT_NAMES:
        agent = make(spec, seed=0, num_players=NUM_PLAYERS)
        row = []
        for b in batches:

            def plain(b: int = b, agent: object = agent) -> None:
                for start in range(0, len(obs), b):
                    agent.act_batch(obs[start : start + b], masks[start : start + b])  # type: ignore[attr-defined]

            def checked(b: int = b, agent: object = agent) -> None:
                for start in range(0, len(obs), b):
                    act_batch(agent, obs[start : start + b], bools[start : start + b], checked=True)

            row.append([1e6 / rate(plain, len(obs), repeats), 1e6 / rate(checked, len(obs), repeats)])
        out[spec] = row
    return out


def print_costs(
    after: dict[str, list[list[float]]], before: dict[str, list[list[float]]], batches: list[int], tree: str
) -> None:
    """The before/after table of :func:`costs`."""
    print(f"\nCPU µs per decision, before = {tree}, after = this tree (median of the runs)\n")
    print(
        "| agent | B | act_batch before | after | before / after | checked before | after | before / after |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for spec, rows in after.items():
        for b, (plain, checked), (plain0, checked0) in zip(batches, rows, before[spec], strict=True):
            print(
                f"| `{spec}` | {b:,} | {plain0:.2f} | {plain:.2f} | {plain0 / plain:.1f}× "
                f"| {checked0:.2f} | {checked:.2f} | {checked0 / checked:.1f}× |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2048, help="observations decided per run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median)")
    parser.add_argument("--batch", default="1,64,1024", help="batch sizes, comma-separated")
    parser.add_argument("--ppo", default=None, help="also time this MaskablePPO checkpoint (4 players)")
    parser.add_argument("--torch-threads", type=int, default=1, help="torch threads with --ppo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before", default=None, help="also time the hoity_env of this source tree")
    parser.add_argument("--costs-only", action="store_true", help="with --before: only the cost table")
    parser.add_argument("--json-costs", action="store_true", help=argparse.SUPPRESS)  # the --before child
    add_record_option(parser)
    args = parser.parse_args()
    recorder = Recorder.start(args.record)
    figures: dict[str, object] = {"batches": batches_of(args.batch)}
    if args.ppo:
        import torch

        torch.set_num_threads(args.torch_threads)
    batches = batches_of(args.batch)
    obs, masks = real_rows(args.rows, args.seed)
    if args.json_costs:
        print(json.dumps(costs(obs, masks, batches, args.repeats)))
        return
    before = None
    if args.before:  # the earlier tree first, in its own process, on the same rows (same seeded games)
        child = [sys.executable, __file__, "--json-costs", f"--rows={args.rows}", f"--batch={args.batch}"]
        child += [f"--repeats={args.repeats}", f"--seed={args.seed}"]
        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.before))
        before = json.loads(subprocess.run(child, env=env, check=True, capture_output=True, text=True).stdout)
    if before is not None:
        figures["costs"] = {"before_tree": args.before, "before": before}
    if before is not None and args.costs_only:
        figures["costs"]["after"] = after = costs(obs, masks, batches, args.repeats)  # type: ignore[index]
        print_costs(after, before, batches, args.before)
        _record(recorder, figures, args)
        return
    specs = list(AGENT_NAMES) + ([f"ppo:{args.ppo}", f"ppo-sample:{args.ppo}"] if args.ppo else [])
    print(f"decisions per CPU-second, {len(obs)} real {NUM_PLAYERS}-player rows, median of {args.repeats}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (shared machines: noisy)\n")
    head = ["agent", "act loop", *(f"B = {b}" for b in batches), *(f"B = {b} / loop" for b in batches)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    figures["rates"] = rates = {}
    for spec in specs:
        loop, *batched = rates[spec] = measure(spec, obs, masks, batches, args.repeats)
        name = spec if len(spec) < 24 else spec[:21] + "…"
        cells = [f"{loop:,.0f}", *(f"{r:,.0f}" for r in batched), *(f"{r / loop:.2f}×" for r in batched)]
        print(f"| `{name}` | " + " | ".join(cells) + " |")
    if before is not None:
        figures["costs"]["after"] = after = costs(obs, masks, batches, args.repeats)  # type: ignore[index]
        print_costs(after, before, batches, args.before)
    _record(recorder, figures, args)


def batches_of(text: str) -> list[int]:
    """The batch sizes of ``--batch``."""
    return [int(b) for b in text.split(",")]


def _record(recorder: Recorder | None, figures: dict[str, object], args: argparse.Namespace) -> None:
    """Write the ``--record`` file, if one was asked for."""
    if recorder:
        recorder.write(figures, settings=vars(args))


if __name__ == "__main__":
    main()
