"""CleanRL-style masked PPO in one file: one network shared by every seat of many games.

    pip install torch==2.13.0 && pip install -e ".[train]"
    python examples/integrations/cleanrl_ppo.py --total-steps 65536

The batched env plays ``--num-games`` games at once, every seat acting; each of
the ``games × players`` seats is one row of the rollout, so one policy learns from
all of them (parameter sharing, self-play).  Illegal actions get a logit of
``-1e8`` (the mask comes with every observation), so they are never sampled;
the env's own ``illegal_action`` flags are checked to prove it.  Same-step
autoreset: a row whose game ended holds the next game's first observation, and
the step's reward and done flag are the finished game's, which is what GAE
needs.  At the end the policy plays seat 0 against three masked-random seats, sampling
its actions as in training (see ``evaluate`` for why not the argmax), and the win
rate is printed with its 95% Wilson interval.  The fast learner
(``hoity_env.learning``, docs/learning.md) is this loop grown up: the same
parts, one module each, plus opponents, checkpoints and resume.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.evaluation.stats import wilson_interval


def layer(n_in: int, n_out: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    out = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(out.weight, std)
    nn.init.constant_(out.bias, 0.0)
    return out


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0)
        )
        self.actor = nn.Sequential(
            layer(obs_dim, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, n_actions, 0.01),
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = torch.where(mask, self.actor(obs), torch.tensor(-1e8))  # masked-out: never sampled
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-steps", type=int, default=65536, help="seat decisions to train on")
    p.add_argument("--num-games", type=int, default=16)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=32, help="rollout length per game")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: more threads only contend on a busy machine
    gamma, lam, clip, ent_coef, vf_coef = 0.99, 0.95, 0.2, 0.01, 0.5

    env = BatchedHoityEnv(num_envs=args.num_games, num_players=args.players)
    rows = args.num_games * args.players  # one row per seat of every game
    agent = Agent(env.obs_dim, env.num_actions)
    optim = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    T, A, D = args.num_steps, env.num_actions, env.obs_dim
    obs_buf = torch.zeros(T, rows, D)
    mask_buf = torch.zeros(T, rows, A, dtype=torch.bool)
    act_buf = torch.zeros(T, rows, dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros(T, rows) for _ in range(4))

    obs, masks, _ = env.reset(seed=args.seed)
    next_obs = torch.as_tensor(obs.reshape(rows, D))
    next_mask = torch.as_tensor(masks.reshape(rows, A) == 1)
    iterations = max(1, args.total_steps // (T * rows))
    start = time.process_time()
    illegal = games = 0
    for _ in range(iterations):
        for t in range(T):
            obs_buf[t], mask_buf[t] = next_obs, next_mask
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, masks, rewards, terminated, truncated, infos = env.step(
                action.numpy().reshape(-1, args.players)
            )
            illegal += int(infos["illegal_action"].sum())
            done = np.repeat(terminated | truncated, args.players)  # every seat of a game ends together
            games += int((terminated | truncated).sum())
            rew_buf[t] = torch.as_tensor(rewards.reshape(rows))
            done_buf[t] = torch.as_tensor(done, dtype=torch.float32)
            next_obs = torch.as_tensor(obs.reshape(rows, D))
            next_mask = torch.as_tensor(masks.reshape(rows, A) == 1)

        with torch.no_grad():  # GAE; done at t means step t ended its game (the next row is a new game)
            adv = torch.zeros(T, rows)
            last, next_value = torch.zeros(rows), agent.value(next_obs)
            for t in reversed(range(T)):
                alive = 1.0 - done_buf[t]
                delta = rew_buf[t] + gamma * next_value * alive - val_buf[t]
                last = delta + gamma * lam * alive * last
                adv[t], next_value = last, val_buf[t]
            returns = adv + val_buf

        b_obs, b_mask, b_act = obs_buf.reshape(-1, D), mask_buf.reshape(-1, A), act_buf.reshape(-1)
        b_logp, b_adv, b_ret = logp_buf.reshape(-1), adv.reshape(-1), returns.reshape(-1)
        size = b_obs.shape[0]
        for _ in range(args.epochs):
            order = torch.randperm(size)
            for mb in order.split(size // args.minibatches):
                _, logp, entropy, value = agent.act(b_obs[mb], b_mask[mb], b_act[mb])
                ratio = (logp - b_logp[mb]).exp()
                a = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip, 1 + clip)).mean()
                loss = pg_loss + vf_coef * ((value - b_ret[mb]) ** 2).mean() - ent_coef * entropy.mean()
                optim.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optim.step()
        assert b_mask[torch.arange(size), b_act].all(), "an action outside its mask was sampled"

    assert illegal == 0, f"the env flagged {illegal} illegal actions"
    steps = iterations * T * rows
    print(
        f"cleanrl PPO: {steps} seat decisions ({iterations * T * args.num_games} env steps of "
        f"{args.num_games} games), {games} games, 0 illegal actions, {time.process_time() - start:.1f} CPU-s"
    )
    rate, low, high = evaluate(agent, args)
    print(
        f"win rate of seat 0 (sampling its policy) against 3 masked-random seats: "
        f"{rate:.3f} [95% CI {low:.3f}, {high:.3f}] (fair share {1 / args.players:.2f})"
    )


def evaluate(agent: Agent, args: argparse.Namespace, games: int = 1000) -> tuple[float, float, float]:
    """Seat 0 plays the policy, the other seats masked-random; (win rate, 95% Wilson interval).

    Seat 0 *samples* from the policy, as it did in training.  Its argmax is a pure
    strategy (the same castle role and bid every time in a given position), and pure
    strategies are what this game punishes: self-play learns a mixed strategy whose
    mode alone stalls on the track (that greedy evaluation printed 0.05, below the
    fair share 0.25, while the same policy sampled beats random).
    """
    env = BatchedHoityEnv(num_envs=64, num_players=args.players)
    rng = np.random.default_rng(args.seed + 1)
    gen = torch.Generator().manual_seed(args.seed + 2)
    obs, masks, _ = env.reset(seed=args.seed + 1000)
    wins = finished = 0
    while finished < games:
        actions = np.argmax(np.where(masks == 1, rng.random(masks.shape), -1.0), axis=-1)
        with torch.no_grad():
            logits = agent.actor(torch.as_tensor(obs[:, 0]))
        masked = torch.where(torch.as_tensor(masks[:, 0] == 1), logits, torch.tensor(-1e8))
        actions[:, 0] = torch.multinomial(torch.softmax(masked, -1), 1, generator=gen).squeeze(1).numpy()
        obs, masks, rewards, terminated, truncated, _ = env.step(actions)
        done = terminated | truncated
        wins += int((rewards[done, 0] > 0).sum())
        finished += int(done.sum())
    low, high = wilson_interval(wins, finished)
    return wins / finished, low, high


if __name__ == "__main__":
    main()
