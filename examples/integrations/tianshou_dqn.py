"""Tianshou: a masked DQN seat against masked-random seats, collected from subprocess envs.

    pip install torch==2.13.0 && pip install -e ".[integrations]"
    python examples/integrations/tianshou_dqn.py --steps 4000

Tianshou's ``PettingZooEnv`` takes the AEC form (``hoity_env.env()``) as it is:
it reads ``obs["action_mask"]`` (the default place) into ``obs.mask``, which
``DiscreteQLearningPolicy`` uses to rule out illegal actions, and the replay
buffer stores our infos (``phase``, ``illegal_action``: plain numbers) as they
are.  ``player_0`` learns; the other seats are Tianshou's masked-random agent;
``MultiAgentOffPolicyAlgorithm`` routes each turn to its seat's algorithm.  At
the end every stored action is checked against its mask and the env's flags.
"""

from __future__ import annotations

import argparse
import logging
import time

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import SubprocVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import hoity_env

PLAYERS = 4


def make_env() -> PettingZooEnv:
    return PettingZooEnv(hoity_env.env(num_players=PLAYERS))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps", type=int, default=4000, help="AEC steps to train for (one seat's move each)"
    )
    parser.add_argument("--envs", type=int, default=2, help="subprocess envs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: more threads only contend on a busy machine
    # Multi-agent returns are (episodes, seats); Tianshou's stats code says so on every epoch.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    env = make_env()
    obs_dim = env.observation_space["observation"].shape[0]
    learner = DQN(
        policy=DiscreteQLearningPolicy(
            model=Net(state_shape=obs_dim, action_shape=env.action_space.n, hidden_sizes=[64, 64]),
            action_space=env.action_space,
            eps_training=0.1,
            eps_inference=0.0,
        ),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.99,
        n_step_return_horizon=1,
        target_update_freq=100,
    )
    others = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(PLAYERS - 1)
    ]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)

    train_envs = SubprocVectorEnv([make_env for _ in range(args.envs)])
    train_envs.seed(args.seed)
    buffer = VectorReplayBuffer(max(args.steps, 1000), len(train_envs))
    collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    collector.reset()
    start = time.process_time()
    per_epoch = 1000
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=max(1, args.steps // per_epoch),
            epoch_num_steps=per_epoch,
            collection_step_num_env_steps=50,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            multi_agent_return_reduction=lambda rews: rews[:, 0],  # the learner's return
            show_progress=False,
            verbose=False,
        )
    )
    train_envs.close()

    assert len(buffer), "nothing was collected"
    data = buffer[buffer.sample_indices(0)]  # every stored transition (the sub-buffers have gaps)
    steps = len(data)
    legal = np.asarray(data.obs.mask)[np.arange(steps), np.asarray(data.act)]
    assert legal.all(), "an action outside its mask was stored"
    flags = np.asarray(data.info.illegal_action)
    assert not flags.any(), f"the env flagged {int(flags.sum())} illegal actions"
    print(
        f"tianshou DQN: {steps} AEC steps collected from {args.envs} subprocess envs, "
        f"0 illegal actions, {time.process_time() - start:.1f} CPU-s (main process)"
    )


if __name__ == "__main__":
    main()
