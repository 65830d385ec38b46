"""AgileRL: IPPO with one shared policy for every seat, over subprocess envs, with action masks.

    # AgileRL 2.58 pins pettingzoo<1.27, so it gets a virtual environment of its own:
    examples/integrations/agilerl/run.sh          # creates .venv-agilerl, then runs this file
    python examples/integrations/agilerl/agilerl_ippo.py --steps 4096   # inside that venv

AgileRL wants a flat observation and the mask in infos, which is
``observation_format="flat"`` (the mask goes to ``infos[agent]["action_mask"]``).
The agents ``player_0 … player_3`` form one group, ``player``, so IPPO trains one
actor and one critic for all of them.

**The workaround.** ``IPPO.extract_action_masks`` collects each group's masks in a
list and tests ``None in group_masks``; with NumPy masks (what every vectorized
PettingZoo env returns) that comparison is elementwise and raises "The truth value
of an array with more than one element is ambiguous".  ``MaskedIPPO`` below
overrides that one method: same result (one stacked tensor per group, or None),
with ``is None`` tests.  At the end every action is checked against its mask and
the env's own ``illegal_action`` flags.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch
from agilerl.algorithms import IPPO
from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv

import hoity_env

PLAYERS = 4


class MaskedIPPO(IPPO):
    """IPPO whose mask extraction accepts NumPy masks (see the module docstring)."""

    def extract_action_masks(self, infos: dict[str, Any]) -> dict[str, torch.Tensor | None]:
        groups: dict[str, list[np.ndarray]] = {group: [] for group in self.observation_space}
        for agent_id, info in infos.items():
            if isinstance(info, dict) and info.get("action_mask") is not None:
                group = self.get_group_id(agent_id) if self.has_grouped_agents() else agent_id
                groups[group].append(np.asarray(info["action_mask"]))
        return {
            g: torch.as_tensor(np.array(m), dtype=torch.float32) if m else None for g, m in groups.items()
        }


def make_env() -> Any:
    return hoity_env.parallel_env(num_players=PLAYERS, observation_format="flat")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4096, help="env steps (every seat acts in each)")
    parser.add_argument("--envs", type=int, default=2, help="subprocess envs")
    parser.add_argument("--learn-step", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: more threads only contend on a busy machine

    env = AsyncPettingZooVecEnv([make_env for _ in range(args.envs)])
    single = make_env()
    agent_ids = list(single.possible_agents)
    agent = MaskedIPPO(
        observation_spaces=[single.observation_space(a) for a in agent_ids],
        action_spaces=[single.action_space(a) for a in agent_ids],
        agent_ids=agent_ids,
        net_config={"encoder_config": {"hidden_size": [64]}, "head_config": {"hidden_size": [64]}},
        learn_step=args.learn_step,
        batch_size=128,
        lr=3e-4,
    )
    print("groups:", dict(agent.grouped_agents))
    obs, info = env.reset(seed=args.seed)
    start = time.process_time()
    steps = illegal = games = 0
    while steps < args.steps:
        states, actions, log_probs, rewards, dones, values = ({a: [] for a in agent_ids} for _ in range(6))
        done = {a: np.zeros(args.envs) for a in agent_ids}
        for _ in range(args.learn_step // args.envs):
            action, log_prob, _, value = agent.get_action(obs=obs, infos=info)
            for a in agent_ids:  # the policy never picks an action outside its mask
                mask = np.asarray(info[a]["action_mask"])
                assert mask[np.arange(args.envs), np.asarray(action[a]).astype(int)].all(), a
            next_obs, reward, term, trunc, info = env.step(action)
            illegal += sum(int(np.asarray(info[a]["illegal_action"]).sum()) for a in agent_ids)
            for a in agent_ids:
                states[a].append(obs[a])
                actions[a].append(action[a])
                log_probs[a].append(log_prob[a])
                rewards[a].append(reward[a])
                values[a].append(value[a])
                dones[a].append(done[a])
            done = {a: np.logical_or(term[a], trunc[a]).astype(float) for a in agent_ids}
            games += int(done[agent_ids[0]].sum())
            obs = next_obs
            steps += args.envs
        agent.learn((states, actions, log_probs, rewards, dones, values, obs, done))
    env.close()
    assert illegal == 0, f"the env flagged {illegal} illegal actions"
    print(
        f"agilerl IPPO: {steps} env steps ({steps * PLAYERS} seat decisions) over {args.envs} "
        f"subprocess envs, {games} games, 0 illegal actions, {time.process_time() - start:.1f} CPU-s"
    )


if __name__ == "__main__":
    main()
