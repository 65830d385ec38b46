"""Play one seeded game between random legal agents and print it with the text render.

Usage: ``python examples/random_game.py [--players 4] [--seed 0] [--quiet]``

The README suggests it for watching a single game: it shows the whole round
structure (location step, then action step) event by event, as the public text
render sees it.
"""

from __future__ import annotations

import argparse

import numpy as np

import hoity_env
from hoity_env.engine import PRESETS


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Play the game; return the final rewards."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, help="number of players, 2-6 (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and of the agents (default 0)")
    parser.add_argument(
        "--rules", default="standard", choices=sorted(PRESETS), help="rules preset (default standard)"
    )
    parser.add_argument("--quiet", action="store_true", help="print only the final board")
    args = parser.parse_args(argv)

    env = hoity_env.parallel_env(num_players=args.players, rules=args.rules, render_mode="ansi")
    observations, _ = env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    rewards: dict[str, float] = {}
    while env.agents:
        actions = {
            agent: int(rng.choice(np.flatnonzero(obs["action_mask"]))) for agent, obs in observations.items()
        }
        observations, rewards, _, _, _ = env.step(actions)
        if not args.quiet:
            print(env.render(), end="\n\n")
    if args.quiet:
        print(env.render())
    print("final rewards:", {agent: round(r, 3) for agent, r in rewards.items()})
    return rewards


if __name__ == "__main__":
    main()
