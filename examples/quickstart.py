"""Quick start: a seeded 4-player game between uniformly random legal agents."""

import numpy as np

import hoity_env

env = hoity_env.parallel_env(num_players=4, render_mode="ansi")
observations, infos = env.reset(seed=42)
rng = np.random.default_rng(42)  # all randomness from seeded generators
while env.agents:
    actions = {
        agent: int(rng.choice(np.flatnonzero(obs["action_mask"])))  # a legal action
        for agent, obs in observations.items()
    }
    observations, rewards, terminations, truncations, infos = env.step(actions)
print(env.render())
print("rewards:", rewards)
