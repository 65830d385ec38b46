"""Cost of the largest rules the environment supports (``hoity_env.engine.config.LIMITS``).

Builds a 6-player environment with the largest deck (100 copies of every
series) and the largest ``starting_money``, in a fresh process so nothing is
cached, and prints the time and peak traced memory of construction plus the first
``reset``, then plays one whole game with random legal moves.  The limits were
chosen so that construction stays well under half a second.  Usage::

    python benchmarks/bench_max_rules.py

Never used in tests: timings on shared machines are noisy.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from hoity_env import HoityParallelEnv, RulesConfig
from hoity_env.engine.config import LIMITS


def largest_rules() -> RulesConfig:
    """Every size field at its maximum (the year multiplier 1 is coprime with any deck)."""
    top = LIMITS["series_copies"][1]
    return RulesConfig(
        name="largest",
        series_copies=(top,) * 6,
        series_copies_six=(top,) * 6,
        year_multiplier=1,
        starting_money=LIMITS["starting_money"][1],
    )


def main() -> dict[str, float]:
    """Measure construction, then play one game; returns the figures printed."""
    rules = largest_rules()
    start = time.perf_counter()
    env = HoityParallelEnv(num_players=6, rules=rules)
    obs, _ = env.reset(seed=0)
    build_s = time.perf_counter() - start
    tracemalloc.start()
    HoityParallelEnv(num_players=6, rules=rules).reset(seed=0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while env.agents:
        legal = {a: np.flatnonzero(o["action_mask"]) for a, o in obs.items()}
        obs = env.step({a: int(m[rng.integers(m.size)]) for a, m in legal.items()})[0]
        steps += 1
    game_s = time.perf_counter() - start
    out = {
        "deck": float(env.game.deck.size),
        "actions": float(env.codec.size),
        "build_and_reset_s": build_s,
        "peak_mib": peak / 2**20,
        "game_steps": float(steps),
        "game_s": game_s,
    }
    print(
        f"6 players, {env.game.deck.size} cards, {env.codec.size} actions: construction + reset "
        f"{build_s * 1000:.0f} ms (peak {peak / 2**20:.0f} MiB traced); one game {steps} steps "
        f"in {game_s:.2f} s"
    )
    return out


if __name__ == "__main__":
    main()
