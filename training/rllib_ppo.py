"""PPO on RLlib's new API stack: one masked policy shared by every seat (extra ``rllib``).

    # ray[rllib] 2.60 pins gymnasium 1.2.2: give it a virtual environment of its own.
    python3 -m venv .venv-rllib && .venv-rllib/bin/pip install torch==2.13.0 \\
        && .venv-rllib/bin/pip install -e ".[rllib]"
    .venv-rllib/bin/python training/rllib_ppo.py --iterations 2 --env-runners 0
    .venv-rllib/bin/python training/rllib_ppo.py --address auto --env-runners 8   # on a cluster

Two small pieces of ours:

* :class:`HoityRLlibEnv`, a thin ``MultiAgentEnv`` over the parallel env: RLlib
  wants ``"__all__"`` in the done dicts, and every seat ends at once here.  It is
  built with ``illegal_action="raise"``, so one illegal action anywhere stops the
  run: the masking is checked on every step.
* :class:`MaskedPPOModule`, RLlib's default PPO module fed ``obs["observation"]``,
  with ``obs["action_mask"]`` applied to its logits (RLlib's own action-masking
  example module expects the key ``"observations"``; ours reads our dict as it is).

Not here yet (issue 11): the league mode (``main`` against frozen snapshots and
scripted bots), ``rllib:PATH`` agent specs and ``hoity-eval --backend ray``.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import gymnasium as gym
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hoity_env.environment.parallel_env import HoityParallelEnv

SHARED = "shared"


class HoityRLlibEnv(MultiAgentEnv):  # type: ignore[misc]
    """The parallel env as RLlib's ``MultiAgentEnv``; ``config`` holds the env's keyword arguments."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        kwargs = {"illegal_action": "raise", **dict(config or {})}
        self.env = HoityParallelEnv(**kwargs)
        self.possible_agents = list(self.env.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        return obs, infos

    def step(self, action_dict: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        obs, rewards, terms, truncs, infos = self.env.step(action_dict)
        self.agents = list(self.env.agents)
        # Every seat ends at once (the env's contract), so "__all__" is any seat's flag.
        terms["__all__"] = all(terms.values())
        truncs["__all__"] = all(truncs.values())
        return obs, rewards, terms, truncs, infos


class MaskedPPOModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
    """RLlib's PPO module on ``obs["observation"]``, logits of masked-out actions set to FLOAT_MIN."""

    def __init__(self, *, observation_space: gym.spaces.Dict | None = None, **kwargs: Any) -> None:
        if (
            not isinstance(observation_space, gym.spaces.Dict)
            or "action_mask" not in observation_space.spaces
        ):
            raise ValueError("MaskedPPOModule needs the env's default Dict(observation, action_mask) space")
        self.dict_space = observation_space
        super().__init__(observation_space=observation_space["observation"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.dict_space

    def _masked(self, forward: Any, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        out: dict[str, Any] = forward({**batch, Columns.OBS: obs["observation"]}, **kwargs)
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(obs["action_mask"] == 0, FLOAT_MIN)
        return out

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_inference, batch, **kwargs)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_exploration, batch, **kwargs)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_train, batch, **kwargs)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch = {**batch, Columns.OBS: obs["observation"]}
        return super().compute_values(batch, embeddings)


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
