"""The deal both rulesets' batches share (S-1/O-1): the shuffle, the hands, a new game's fields."""

from __future__ import annotations

import numpy as np

from hoity_env.engine.actions import Phase
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.state import BatchState

_LOCATION = int(Phase.LOCATION)


def deal_hands(state: BatchState, table: CardTable, games: np.ndarray, seeds: list[int]) -> np.ndarray:
    """Shuffle game ``games[i]`` with ``PCG64(seeds[i])`` (the one-game engine's stream), deal the
    hands and reset every per-game field; returns ``[G, rest]``, the undealt cards, top card last.
    """
    n, size = table.num_players, table.deck.size
    per = table.rules.starting_antiques
    perms = np.empty((len(games), size), dtype=np.int16)
    for i, seed in enumerate(seeds):  # one shuffle per new game: the one-game engine's stream
        rng = np.random.Generator(np.random.PCG64(seed))
        perms[i] = rng.permutation(size)
        state.rngs[int(games[i])] = rng
    # Game.new_state pops from the end: seat 0 gets the last `per` cards, then seat 1, ….
    dealt = n * per
    owner = np.full((len(games), size), -1, dtype=np.int8)
    hands = perms[:, size - dealt :][:, ::-1].reshape(len(games), n, per)
    rows = np.arange(len(games))[:, None, None]
    owner[rows, hands] = np.arange(n)[None, :, None]
    state.owner[games] = owner
    state.public[games] = False
    state.positions[games] = 0
    state.start_player[games] = 0
    state.round[games] = 0
    state.phase[games] = _LOCATION
    state.locations[games] = -1
    state.last_locations[games] = -1
    state.last_actions[games] = -1
    state.tallies[games] = 0
    state.terminated[games] = False
    state.truncated[games] = False
    state.winners[games] = False
    return perms[:, : size - dealt]


__all__ = ["deal_hands"]
