"""The standard styles' recorded decisions: a golden record their kernels are held to.

Until the kernels became the styles' one batched implementation, a differential test held
each kernel to a numpy twin of its rule; the twins were removed, and this record took their
place.  It was written when both existed and agreed on every row (the commit that added it
says so): each style's decisions on rows of seeded standard games, 2-6 players, with three
sets of uniforms (random, all 0 and all just below 1, the last two on every branch's
boundary).  ``tests/agents/test_agent_kernels.py`` replays it.

Regenerate it only when a style's rule changes on purpose, and say so in the commit::

    python -m tests.agents.recorded_decisions
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hoity_env.agents import AGENT_NAMES, make
from tests.agents.test_batched_agents import collect_rows

RECORD = Path(__file__).with_name("recorded_decisions.npz")
PLAYER_COUNTS = (2, 3, 4, 5, 6)
ROWS = 400
"""Rows per player count (every step is among them: the test checks)."""


def game_rows(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``n``-player standard games the record is about (observations, masks)."""
    return collect_rows(n, ROWS, seed=3000 + n)


def draw_sets(rows: int, k: int, seed: int) -> np.ndarray:
    """``(3, rows, k)`` uniforms: random ones, all 0, all just below 1."""
    random = np.random.default_rng(seed).random((rows, k))
    return np.stack([random, np.zeros((rows, k)), np.full((rows, k), np.nextafter(1.0, 0.0))])


def decisions(name: str, n: int, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(3, rows)`` int64: the style's decision of every row under each set of uniforms."""
    agent = make(name, seed=0, num_players=n, rules="standard")
    draws = draw_sets(len(obs), agent.DRAWS, seed=n)  # type: ignore[attr-defined]
    bools = masks.astype(bool)
    return np.stack([agent.decide(obs, bools, d) for d in draws])  # type: ignore[attr-defined]


def record() -> dict[str, np.ndarray]:
    """Every style's decisions at every player count, keyed ``"{name}/{n}"``."""
    out: dict[str, np.ndarray] = {}
    for n in PLAYER_COUNTS:
        obs, masks = game_rows(n)
        for name in AGENT_NAMES:
            out[f"{name}/{n}"] = decisions(name, n, obs, masks).astype(np.int8)
    return out


def main() -> None:
    np.savez_compressed(RECORD, **record())  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
