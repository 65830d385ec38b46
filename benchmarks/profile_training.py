"""Where MaskablePPO training time goes: the environment, the scripted opponents, or PPO itself.

Runs a short MaskablePPO training in one process (``DummyVecEnv``, so every
call is timed) with the recipe's default hyperparameters, timing
``HoityParallelEnv.reset/step`` (the environment: engine + adapter) and every
opponent's ``act`` (the scripted agents that ``SingleAgentEnv`` runs inside
``step``), and prints their shares of the wall time and the training throughput.
docs/design.md §7's target: environment and opponents together at most 25% of training time.

    python benchmarks/profile_training.py [--timesteps 50000] [--n-envs 2] [--n-steps 512] [--opponents zoo]
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from hoity_env.agents import make
from hoity_env.environment.parallel_env import HoityParallelEnv
from hoity_env.wrappers import SingleAgentEnv

ZOO = ["expert", "collector", "thief", "detective", "random"]


def timed(totals: dict[str, float], key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its wall time added to ``totals[key]``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[key] += time.perf_counter() - start

    return wrapper


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Train briefly with timers in place and print the shares."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--timesteps", type=int, default=50_000, help="learner steps to profile (default 50000)"
    )
    parser.add_argument("--n-envs", type=int, default=2, help="envs in the DummyVecEnv (default 2)")
    parser.add_argument(
        "--n-steps", type=int, default=512, help="rollout steps per env between updates (default 512)"
    )
    parser.add_argument("--opponents", default="zoo", help="comma-separated specs or 'zoo'")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    pool = ZOO if args.opponents == "zoo" else args.opponents.split(",")

    totals = {"env": 0.0, "opponents": 0.0}
    HoityParallelEnv.step = timed(totals, "env", HoityParallelEnv.step)  # type: ignore[method-assign]
    HoityParallelEnv.reset = timed(totals, "env", HoityParallelEnv.reset)  # type: ignore[method-assign]

    def env_fn() -> SingleAgentEnv:
        agents = []
        for spec in pool:
            agent = make(spec)
            agent.act = timed(totals, "opponents", agent.act)  # type: ignore[method-assign]
            agents.append(agent)
        return SingleAgentEnv(opponent_pool=agents, reward="progress")

    vec = DummyVecEnv([env_fn for _ in range(args.n_envs)])
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
        start = time.perf_counter()
        model.learn(total_timesteps=args.timesteps)
        wall = time.perf_counter() - start
    ppo = wall - totals["env"] - totals["opponents"]
    print(
        f"{model.num_timesteps:,} timesteps in {wall:.1f} s: {model.num_timesteps / wall:,.0f} env-steps/s "
        f"(one process, {args.n_envs} envs)"
    )
    print(f"environment (engine + adapter): {totals['env']:7.1f} s  {100 * totals['env'] / wall:5.1f}%")
    share = 100 * totals["opponents"] / wall
    print(f"scripted opponents' act():      {totals['opponents']:7.1f} s  {share:5.1f}%")
    print(f"MaskablePPO (rollout + update): {ppo:7.1f} s  {100 * ppo / wall:5.1f}%")
    return {"wall": wall, **totals}


if __name__ == "__main__":
    main()
