"""Reward modes (docs/environment.md): ``win_loss``, ``rank`` and ``progress``, zero-sum at the end.

``win_loss`` gives a truncated game 0 to everyone; ``rank`` ranks truncated games too, in the
end-of-game order (track position, then best exhibition, RULES S-7).  The batched forms follow
the one-game arithmetic operation by operation (the differential tests compare them bit for bit).
"""

from __future__ import annotations

import functools

import numpy as np

from hoity_env.engine.config import RulesConfig
from hoity_env.engine.game import Game
from hoity_env.engine.state import GameState

REWARD_MODES = ("win_loss", "rank", "progress")


def win_loss(num_players: int, winners: list[int]) -> list[float]:
    """Winners share +1, losers share -1; everyone 0 when nobody (or everybody) won."""
    k = len(winners)
    if k == 0 or k == num_players:
        return [0.0] * num_players
    win, lose = 1.0 / k, -1.0 / (num_players - k)
    return [win if p in winners else lose for p in range(num_players)]


def rank_rewards(keys: list[tuple[int, tuple[int, int]]]) -> list[float]:
    """Map ranks linearly to [+1, -1]; tied players share the mean of their ranks' values."""
    n = len(keys)
    order = sorted(range(n), key=lambda p: keys[p], reverse=True)
    values = [1.0 - 2.0 * r / (n - 1) for r in range(n)]
    out = [0.0] * n
    r = 0
    while r < n:
        t = r
        while t + 1 < n and keys[order[t + 1]] == keys[order[r]]:
            t += 1
        share = sum(values[r : t + 1]) / (t - r + 1)
        for i in range(r, t + 1):
            out[order[i]] = share
        r = t + 1
    return out


def final_rewards(mode: str, game: Game, state: GameState, *, decided: bool) -> list[float]:
    """Rewards of the step that ends the game (``decided`` = terminated, not truncated)."""
    if mode == "rank":
        return rank_rewards(game.rank_keys(state))
    return win_loss(state.num_players, state.winners if decided else [])


def progress_shaping(before: list[int], after: list[int], rules: RulesConfig) -> list[float]:
    """Own track gain minus the mean gain of the others, over the finish (sums to 0)."""
    n = len(before)
    gains = [a - b for a, b in zip(after, before, strict=True)]
    total = sum(gains)
    return [(g - (total - g) / (n - 1)) / rules.finish for g in gains]


# --------------------------------------------------------------------------- batches
# The batched environments compute the same rewards for ``[B, n]`` arrays; the
# differential tests compare them with the functions above bit for bit, so the
# arithmetic below follows theirs operation by operation.


def win_loss_batch(winners: np.ndarray) -> np.ndarray:
    """:func:`win_loss` for ``[B, n]`` bool winner flags → ``[B, n]`` float64."""
    n = winners.shape[1]
    k = winners.sum(axis=1, keepdims=True)
    decided = (k > 0) & (k < n)
    win = 1.0 / np.maximum(k, 1)
    lose = -1.0 / np.maximum(n - k, 1)
    return np.where(decided, np.where(winners, win, lose), 0.0)  # type: ignore[no-any-return]


@functools.cache
def _rank_share_table(n: int) -> np.ndarray:
    """``[r, t]``: the reward shared by ``t`` players tied from rank ``r`` (as :func:`rank_rewards`)."""
    values = [1.0 - 2.0 * r / (n - 1) for r in range(n)]
    table = np.zeros((n, n + 1))
    for r in range(n):
        for t in range(1, n - r + 1):
            table[r, t] = sum(values[r : r + t]) / t
    return table


def rank_rewards_batch(keys: np.ndarray) -> np.ndarray:
    """:func:`rank_rewards` for ``[B, n]`` integer rank keys (larger is better) → ``[B, n]``."""
    n = keys.shape[1]
    better = (keys[:, None, :] > keys[:, :, None]).sum(axis=2)  # players ranked above
    tied = (keys[:, None, :] == keys[:, :, None]).sum(axis=2)
    return _rank_share_table(n)[better, tied]  # type: ignore[no-any-return]


def progress_shaping_batch(before: np.ndarray, after: np.ndarray, finish: int) -> np.ndarray:
    """:func:`progress_shaping` for ``[B, n]`` positions → ``[B, n]`` float64."""
    n = before.shape[1]
    gains = (after - before).astype(np.int64)
    total = gains.sum(axis=1, keepdims=True)
    return (gains - (total - gains) / (n - 1)) / finish  # type: ignore[no-any-return]
