"""Learner steps per CPU-second: MaskablePPO on the SB3 vec envs vs the fast learner, in one run.

Three learners, each in self-play (parameter sharing: every seat of B games
learns) and against the zoo (one learner seat per game, the other seats scripted),
at B = 16, 256 and 1,024 games:

* ``sb3``: MaskablePPO at the reference recipe's settings (128×128 tanh MLP, 4 epochs,
  minibatch 512, gamma 0.995, ent 0.01, ``progress`` reward) on
  ``HoitySharedSB3VecEnv`` / ``HoityVsBotsSB3VecEnv``, with the reference rollout
  of 4,096 learner steps per update (16 envs × 256 steps; ``n_steps`` is 4,096 /
  envs, at least 1, so that every B collects the same data per update);
* ``fast-same``: the fast learner at the same network, epochs, minibatch size and
  rollout size per update;
* ``fast``: the fast learner at its defaults (:class:`~hoity_env.learning.LearnerSettings`).

A learner step is one decision of a learner seat (SB3's timestep).  CPU time is
``time.process_time`` around ``learn`` only (model construction excluded), the
median of ``--repeats`` runs of at least ``--steps`` learner steps each (and at
least one whole update).  The shares split it into the batched env's ``step``,
the scripted opponents' batched decisions, and learning (everything else: forward
passes while collecting, the update, and for SB3 its vec-env layer).

    python benchmarks/bench_learner.py                       # the full table (minutes)
    python benchmarks/bench_learner.py --sizes 16,256 --steps 8192 --repeats 1   # a short run
    python benchmarks/bench_learner.py --learners fast --players 2,3,4,5,6      # one policy, 2-6 players

``--record PATH.json`` also writes every cell with the command and the machine
(``bench_record.py``), for the docs' table, and the matrix-product bound of each setting
measured at the end of the same run (``flop_bound.py``: FLOP per learner step counted from
the layer shapes, one thread's GFLOP per CPU-second on large square products and on the
policy's own shapes).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from typing import Any

import torch
from bench_record import Recorder, add_record_option
from flop_bound import bound
from profile_training import ZOO, timed

import hoity_env.wrappers.batched_vs_bots as batched_vs_bots
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.learning import Learner, LearnerSettings
from hoity_env.learning.settings import parse_counts

REFERENCE_ROLLOUT = 4096
"""Learner steps per update in the reference recipe (16 envs × n_steps 256)."""
REFERENCE = {"hidden": (128, 128), "epochs": 4, "minibatch_size": 512}
LEARNERS = ("sb3", "fast-same", "fast")
MODES = ("self-play", "vs-zoo")


def sb3_run(mode: str, games: int, steps: int) -> tuple[int, float, dict[str, float]]:
    """MaskablePPO at the reference settings; (learner steps, CPU-s, CPU-s by part)."""
    from sb3_contrib import MaskablePPO

    from hoity_env.wrappers.sb3_vec_env import HoitySharedSB3VecEnv, HoityVsBotsSB3VecEnv

    totals = {"env": 0.0, "opponents": 0.0}
    patches = {"step": BatchedHoityEnv.step, "act_batch": batched_vs_bots.act_batch}
    BatchedHoityEnv.step = timed(totals, "env", patches["step"])  # type: ignore[method-assign]
    batched_vs_bots.act_batch = timed(totals, "opponents", patches["act_batch"])
    try:
        if mode == "self-play":
            vec: Any = HoitySharedSB3VecEnv(num_games=games, reward="progress")
        else:
            vec = HoityVsBotsSB3VecEnv(num_envs=games, opponent_pool=ZOO, reward="progress")
        n_steps = max(1, REFERENCE_ROLLOUT // vec.num_envs)
        model = MaskablePPO(
            "MlpPolicy",
            vec,
            n_steps=n_steps,
            batch_size=REFERENCE["minibatch_size"],
            n_epochs=REFERENCE["epochs"],
            gamma=0.995,
            ent_coef=0.01,
            policy_kwargs={"net_arch": list(REFERENCE["hidden"])},  # type: ignore[call-overload]
            seed=0,
            device="cpu",
        )
        rollout = n_steps * vec.num_envs
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.process_time()
            model.learn(total_timesteps=max(steps, rollout))
            cpu = time.process_time() - start
    finally:
        BatchedHoityEnv.step = patches["step"]  # type: ignore[method-assign]
        batched_vs_bots.act_batch = patches["act_batch"]
    return model.num_timesteps, cpu, totals


def fast_settings(learner: str, mode: str, games: int, players: int | tuple[int, ...] = 4) -> LearnerSettings:
    """The fast learner's settings for one cell of the table (``players``: a count, or counts)."""
    opponents = (("self", 1.0),) if mode == "self-play" else tuple((spec, 1.0) for spec in ZOO)
    base = LearnerSettings(num_games=games, num_players=players, opponents=opponents, reward="progress")
    if learner == "fast":
        return base
    counts = base.player_counts  # learner rows per env step, over the envs of all counts
    seats = games * (sum(counts) if mode == "self-play" else len(counts))
    return base.replace(rollout_steps=max(1, REFERENCE_ROLLOUT // seats), **REFERENCE)


def fast_run(
    learner: str, mode: str, games: int, steps: int, players: int | tuple[int, ...] = 4
) -> tuple[int, float, dict[str, float]]:
    """The fast learner; (learner steps, CPU-s, CPU-s by part)."""
    model = Learner(fast_settings(learner, mode, games, players))
    start = time.process_time()
    model.iterate()  # at least one whole update
    model.learn(steps)
    cpu = time.process_time() - start
    return model.steps, cpu, {"env": model.cpu["env"], "opponents": model.cpu["opponents"]}


def measure(
    learner: str, mode: str, games: int, steps: int, repeats: int, players: int | tuple[int, ...] = 4
) -> dict[str, float]:
    """Median steps per CPU-second over ``repeats`` runs, with the shares of the median run."""
    runs = []
    for _ in range(repeats):
        if learner == "sb3":
            done, cpu, parts = sb3_run(mode, games, steps)
        else:
            done, cpu, parts = fast_run(learner, mode, games, steps, players)
        runs.append({"rate": done / cpu, "cpu": cpu, **parts})
    runs.sort(key=lambda r: r["rate"])
    median = runs[len(runs) // 2]
    median["rate"] = statistics.median(r["rate"] for r in runs)
    return median


def flop_settings() -> dict[str, dict[str, object]]:
    """The network, epochs and minibatch of each learner (``sb3`` and ``fast-same`` share them)."""
    d = LearnerSettings()
    return {
        "same": {"hidden": list(REFERENCE["hidden"]), "epochs": REFERENCE["epochs"],
                 "minibatch": REFERENCE["minibatch_size"], "learners": ["sb3", "fast-same"]},
        "fast": {"hidden": list(d.hidden), "epochs": d.epochs, "minibatch": d.minibatch_size,
                 "learners": ["fast"]},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> dict[tuple[str, str, int], dict[str, float]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--sizes", default="16,256,1024", help="comma-separated game counts B (default 16,256,1024)"
    )
    p.add_argument(
        "--modes", default=",".join(MODES), help="comma-separated: self-play, vs-zoo (default both)"
    )
    p.add_argument("--learners", default=",".join(LEARNERS), help="comma-separated: sb3, fast-same, fast")
    p.add_argument(
        "--steps", type=int, default=32_768, help="learner steps per run, at least (default 32768)"
    )
    p.add_argument("--repeats", type=int, default=3, help="runs per cell; the median is shown (default 3)")
    p.add_argument(
        "--players",
        type=parse_counts,
        default=4,
        help="players per game, or counts (2,3,4,5,6) for the fast learners' multi-count runs (default 4)",
    )
    add_record_option(p)
    args = p.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    torch.set_num_threads(1)
    sizes = [int(s) for s in args.sizes.split(",")]
    modes, learners = args.modes.split(","), args.learners.split(",")
    if args.players != 4 and "sb3" in learners:
        p.error("sb3 plays the 4-player reference setup only: --learners fast,fast-same with --players")
    fast_run("fast", "vs-zoo", 4, 1)  # warm-up: numba kernels and torch's first calls
    results: dict[tuple[str, str, int], dict[str, float]] = {}
    print(f"learner steps per CPU-second (median of {args.repeats}, >= {args.steps:,} steps per run)\n")
    print("| mode | B | learner | steps / CPU-s | × sb3 | env | opponents | learning |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in modes:
        for games in sizes:
            for learner in learners:
                r = results[(learner, mode, games)] = measure(
                    learner, mode, games, args.steps, args.repeats, args.players
                )
                base = results.get(("sb3", mode, games))
                ratio = f"{r['rate'] / base['rate']:.1f}" if base else "–"
                env, opponents = r["env"] / r["cpu"], r["opponents"] / r["cpu"]
                print(
                    f"| {mode} | {games} | {learner} | {r['rate']:,.0f} | {ratio} "
                    f"| {env:.0%} | {opponents:.0%} | {1 - env - opponents:.0%} |",
                    flush=True,
                )
    if recorder:
        cells = [{"learner": k[0], "mode": k[1], "games": k[2], **r} for k, r in results.items()]
        env = BatchedHoityEnv(num_envs=1)
        flop = bound(env.obs_dim, env.num_actions, flop_settings())
        recorder.write({"cells": cells, "flop_bound": flop}, settings=vars(args))
    return results


if __name__ == "__main__":
    main()
