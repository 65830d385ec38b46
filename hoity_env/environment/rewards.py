"""Reward modes (docs/design.md §2): ``win_loss``, ``rank`` and ``progress``.

All modes are zero-sum at the end of a game.  ``win_loss`` gives a truncated
game (no winner) 0 to everyone; ``rank`` ranks truncated games too, by the same
order as the end of game (track position, then best exhibition, RULES S-7).
"""

from __future__ import annotations

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
