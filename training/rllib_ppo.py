"""PPO on RLlib's new API stack: one masked policy shared by every seat (extra ``rllib``).

    # ray[rllib] 2.60 pins gymnasium 1.2.2: give it a virtual environment of its own.
    python3 -m venv .venv-rllib && .venv-rllib/bin/pip install torch==2.13.0 \\
        && .venv-rllib/bin/pip install -e ".[rllib]"
    .venv-rllib/bin/python training/rllib_ppo.py --iterations 2 --env-runners 0
    .venv-rllib/bin/python training/rllib_ppo.py --address auto --env-runners 8   # on a cluster

Our pieces are in :mod:`hoity_env.integrations.rllib`: ``HoityRLlibEnv`` (a thin
``MultiAgentEnv``, ``illegal_action="raise"``: one illegal action stops the run) and
``MaskedPPOModule`` (RLlib's PPO module reading our observation dict, mask applied to
the logits).  A saved run plays in the harness as ``rllib:PATH`` without starting Ray.

Not here yet (issue 11): the league mode (``main`` against frozen snapshots and
scripted bots) and ``hoity-eval --backend ray``.
"""

from __future__ import annotations

import argparse
import os
import time

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from hoity_env.integrations.rllib import SHARED, HoityRLlibEnv, MaskedPPOModule


def build_config(args: argparse.Namespace) -> PPOConfig:
    return (
        PPOConfig()
        # RLlib's env check steps with unmasked samples, which illegal_action="raise" refuses.
        .environment(HoityRLlibEnv, env_config={"num_players": args.players}, disable_env_checking=True)
        .multi_agent(policies={SHARED}, policy_mapping_fn=lambda agent_id, episode, **kw: SHARED)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    SHARED: RLModuleSpec(
                        module_class=MaskedPPOModule, model_config={"fcnet_hiddens": [64, 64]}
                    )
                }
            )
        )
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=128, num_epochs=2, lr=3e-4)
        .debugging(seed=args.seed)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2, help="PPO iterations (train() calls)")
    parser.add_argument("--batch", type=int, default=1000, help="env steps per iteration (all seats act)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--env-runners", type=int, default=0, help="0 = sample in this process")
    parser.add_argument("--address", default=None, help="Ray cluster address ('auto'); default: local")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="folder for the final checkpoint")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=False)
    algo = build_config(args).build_algo()
    start, cpu = time.perf_counter(), time.process_time()
    steps = 0
    for i in range(args.iterations):
        result = algo.train()
        steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        print(f"iteration {i + 1}: {steps} env steps sampled so far")
    wall = time.perf_counter() - start
    print(
        f"rllib PPO: {steps} env steps with {args.env_runners} env runners, {steps / wall:.0f} env "
        f"steps/s (wall), {time.process_time() - cpu:.1f} CPU-s in the driver, 0 illegal actions"
    )
    if args.save:
        print("checkpoint:", algo.save(os.path.abspath(args.save)).checkpoint.path)
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
