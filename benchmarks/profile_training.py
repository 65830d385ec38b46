"""Where MaskablePPO training time goes, batched vec env vs one-game envs, in one process.

Trains MaskablePPO briefly twice with the same hyperparameters (the reference
run's: 16 envs, 256 rollout steps per env, a 128×128 network): once on the
batched vec env (``HoityVsBotsSB3VecEnv``: every game in one batched engine,
bots deciding in batches) and once on a ``DummyVecEnv`` of one-game
``SingleAgentEnv``s (the recipes' previous default in-process form).  Timers
around the environment and the opponents' decisions split the CPU time
(``time.process_time``) into environment, scripted opponents and PPO itself;
the table gives learner steps per CPU-second and the speed-up
(docs/design.md §7: ≥ 3×, environment + opponents ≤ 25% of training time).

    python benchmarks/profile_training.py [--timesteps 60000] [--n-envs 16] [--n-steps 256] [--opponents zoo]
        [--record PATH.json]
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch
from bench_record import Recorder, add_record_option
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

import hoity_env.wrappers.batched_vs_bots as batched_vs_bots
from hoity_env.agents import make
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.wrappers import SingleAgentEnv
from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

ZOO = ["expert", "collector", "thief", "detective", "random"]


def timed(totals: dict[str, float], key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its CPU time added to ``totals[key]``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[key] += time.process_time() - start

    return wrapper


def one_game_vec_env(pool: list[str], n_envs: int, totals: dict[str, float]) -> VecEnv:
    """``DummyVecEnv`` of ``SingleAgentEnv``s, opponents' ``act`` timed."""

    def env_fn() -> SingleAgentEnv:
        agents = []
        for spec in pool:
            agent = make(spec, num_players=4, rules="standard")  # SingleAgentEnv's defaults
            agent.act = timed(totals, "opponents", agent.act)  # type: ignore[method-assign]
            agents.append(agent)
        return SingleAgentEnv(opponent_pool=agents, reward="progress")

    return DummyVecEnv([env_fn for _ in range(n_envs)])


def train(vec: VecEnv, args: argparse.Namespace) -> tuple[int, float]:
    """MaskablePPO with the reference hyperparameters; returns (timesteps, CPU seconds)."""
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=args.n_steps,
        batch_size=512,
        n_epochs=4,
        gamma=0.995,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
        seed=0,
        device="cpu",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.process_time()
        model.learn(total_timesteps=args.timesteps)
        cpu = time.process_time() - start
    return model.num_timesteps, cpu


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Train briefly on both vec envs with timers in place and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=60_000, help="learner steps per run (default 60000)")
    parser.add_argument("--n-envs", type=int, default=16, help="games / envs in the vec env (default 16)")
    parser.add_argument("--n-steps", type=int, default=256, help="rollout steps per env (default 256)")
    parser.add_argument("--opponents", default="zoo", help="comma-separated agent specs, or 'zoo' (default)")
    parser.add_argument("--skip-one-game", action="store_true", help="train on the batched vec env only")
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    torch.set_num_threads(1)
    pool = ZOO if args.opponents == "zoo" else args.opponents.split(",")

    rows: dict[str, dict[str, float]] = {}
    # Batched: time the batched env's reset/step and every batch decision of the bots.
    totals = {"env": 0.0, "opponents": 0.0}
    patches = {
        "step": BatchedHoityEnv.step,
        "reset": BatchedHoityEnv.reset,
        "act_batch": batched_vs_bots.act_batch,
    }
    BatchedHoityEnv.step = timed(totals, "env", patches["step"])  # type: ignore[method-assign]
    BatchedHoityEnv.reset = timed(totals, "env", patches["reset"])  # type: ignore[method-assign]
    batched_vs_bots.act_batch = timed(totals, "opponents", patches["act_batch"])
    try:
        vec = HoityVsBotsSB3VecEnv(num_envs=args.n_envs, opponent_pool=pool, reward="progress")
        steps, cpu = train(vec, args)
    finally:
        BatchedHoityEnv.step = patches["step"]  # type: ignore[method-assign]
        BatchedHoityEnv.reset = patches["reset"]  # type: ignore[method-assign]
        batched_vs_bots.act_batch = patches["act_batch"]
    # The env's timer includes nothing of the bots: they run in BatchedVsBots, outside env.step.
    # "numba" names the batched engine's one implementation (the records before it kept a numpy row too).
    rows["batched (numba)"] = {"steps": steps, "cpu": cpu, **totals}
    if args.skip_one_game:
        _print_table(rows, args, pool, base=None)
        if recorder:
            recorder.write({"rows": rows}, settings=vars(args))
        return rows

    totals = {"env": 0.0, "opponents": 0.0}
    step, reset = HoityParallelEnv.step, HoityParallelEnv.reset
    HoityParallelEnv.step = timed(totals, "env", step)  # type: ignore[method-assign]
    HoityParallelEnv.reset = timed(totals, "env", reset)  # type: ignore[method-assign]
    try:
        steps, cpu = train(one_game_vec_env(pool, args.n_envs, totals), args)
    finally:
        HoityParallelEnv.step, HoityParallelEnv.reset = step, reset  # type: ignore[method-assign]
    rows["dummy (one-game envs)"] = {"steps": steps, "cpu": cpu, **totals}

    _print_table(
        rows, args, pool, base=rows["dummy (one-game envs)"]["steps"] / rows["dummy (one-game envs)"]["cpu"]
    )
    if recorder:
        recorder.write({"rows": rows}, settings=vars(args))
    return rows


def _print_table(
    rows: dict[str, dict[str, float]], args: argparse.Namespace, pool: list[str], base: float | None
) -> None:
    """The markdown table of learner steps per CPU-second and the time shares."""
    what = f"{args.n_envs} envs, n_steps {args.n_steps}, {args.timesteps:,} steps, opponents {pool}"
    print(f"MaskablePPO, {what}\n")
    print("| vec env | learner steps / CPU-s | × one-game | env | opponents | PPO |")
    print("|---|---|---|---|---|---|")
    for name, r in rows.items():
        rate = r["steps"] / r["cpu"]
        ppo = r["cpu"] - r["env"] - r["opponents"]
        ratio = f"{rate / base:.2f}" if base else "–"
        print(
            f"| {name} | {rate:,.0f} | {ratio} | {100 * r['env'] / r['cpu']:.1f}% "
            f"| {100 * r['opponents'] / r['cpu']:.1f}% | {100 * ppo / r['cpu']:.1f}% |"
        )


if __name__ == "__main__":
    main()
