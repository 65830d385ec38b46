"""TorchRL: MAPPO with grouped agents and a masked categorical policy on Hoity Toity.

    pip install torch==2.13.0 && pip install -e ".[integrations]"
    python examples/integrations/torchrl_mappo.py --frames 4096

The env goes in as it is (``use_mask=True`` finds ``obs["action_mask"]``, the
default place); TorchRL groups the four seats as one ``"player"`` group with
tensors ``[..., 4, ...]``.  The policy is one shared MLP per seat (parameter
sharing) feeding a ``MaskedCategorical``; the critic is centralized (MAPPO: it
sees every seat's observation).  At the end it checks that every collected action
was legal under its mask and that the env never flagged an illegal action.
"""

from __future__ import annotations

import argparse
import time

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, MultiAgentMLP, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss, ValueEstimators

import hoity_env

GROUP = "player"


def make_env(seed: int, num_players: int) -> PettingZooWrapper:
    return PettingZooWrapper(
        hoity_env.parallel_env(num_players=num_players),
        use_mask=True,  # obs["action_mask"] -> ("player", "action_mask")
        categorical_actions=True,
        group_map=None,  # one group, named after the agents' prefix: "player"
        seed=seed,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=4096, help="env steps to collect (all seats act each)")
    parser.add_argument("--frames-per-batch", type=int, default=512)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: more threads only contend on a busy machine
    env = make_env(args.seed, args.players)
    n = args.players
    obs_dim = env.observation_spec[GROUP, "observation", "observation"].shape[-1]
    n_actions = env.full_action_spec[GROUP, "action"].space.n

    logits = TensorDictModule(
        MultiAgentMLP(
            obs_dim, n_actions, n_agents=n, centralized=False, share_params=True, depth=2, num_cells=64
        ),
        in_keys=[(GROUP, "observation", "observation")],
        out_keys=[(GROUP, "logits")],
    )
    policy = ProbabilisticActor(
        logits,
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "action_log_prob"),
    )
    critic = TensorDictModule(
        MultiAgentMLP(obs_dim, 1, n_agents=n, centralized=True, share_params=True, depth=2, num_cells=64),
        in_keys=[(GROUP, "observation", "observation")],
        out_keys=[(GROUP, "state_value")],
    )
    collector = Collector(
        env,
        policy,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.frames,
        auto_register_policy_transforms=False,  # a feed-forward policy needs no env transforms
    )
    loss = ClipPPOLoss(policy, critic, clip_epsilon=0.2, entropy_coeff=0.01, normalize_advantage=False)
    loss.set_keys(
        reward=(GROUP, "reward"),
        action=(GROUP, "action"),
        sample_log_prob=(GROUP, "action_log_prob"),
        value=(GROUP, "state_value"),
        done=(GROUP, "done"),
        terminated=(GROUP, "terminated"),
    )
    loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
    optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
    buffer = ReplayBuffer(
        storage=LazyTensorStorage(args.frames_per_batch), sampler=SamplerWithoutReplacement(), batch_size=128
    )

    start = time.process_time()
    frames = illegal = games = 0
    for batch in collector:
        # No illegal action, ever: the sampled action is legal under the mask it was sampled with,
        # and the env's own flag agrees.
        legal = batch[GROUP, "action_mask"].gather(-1, batch[GROUP, "action"].unsqueeze(-1))
        assert legal.all(), "the masked policy sampled an illegal action"
        illegal += int(batch["next", GROUP, "info", "illegal_action"].sum())
        games += int(batch["next", "done"].sum())
        frames += batch.numel()
        with torch.no_grad():
            loss.value_estimator(
                batch, params=loss.critic_network_params, target_params=loss.target_critic_network_params
            )
        buffer.extend(batch.reshape(-1))
        for _ in range(4):  # epochs
            for _ in range(args.frames_per_batch // 128):
                terms = loss(buffer.sample())
                total = terms["loss_objective"] + terms["loss_critic"] + terms["loss_entropy"]
                optim.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optim.step()
        collector.update_policy_weights_()
    collector.shutdown()
    assert illegal == 0, f"the env flagged {illegal} illegal actions"
    print(
        f"torchrl MAPPO: {frames} env steps ({frames * n} seat decisions), {games} games, "
        f"0 illegal actions, {time.process_time() - start:.1f} CPU-s"
    )


if __name__ == "__main__":
    main()
