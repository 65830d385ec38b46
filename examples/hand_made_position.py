"""Start a game from a position set up by hand (an endgame study) and play it out.

Usage: ``python examples/hand_made_position.py [--rules standard|original] [--seed 0] [--batch 256]``

The position: ``player_0`` is three spaces from the finish and holds an exhibition of
four cards, more than a deal gives and with no history behind it (``set_state`` would
refuse it: it checks what the money and hands say about past rounds).  The env takes it
through ``reset(options={"position": ...})``, checked by the rules' own invariants, and
from there plays the engine's own game.  ``player_0`` goes to the Castle and exhibits;
the others play random legal actions, and a Thief among them can spoil the exhibition.
Then the batched env plays the same position ``--batch`` times at once to say how often
``player_0`` wins from it.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import hoity_env
from hoity_env.engine import PRESETS
from hoity_env.environment.batched import BatchedHoityEnv

EXHIBITION = [0, 2, 8, 16]
"""Cards of series 1, 1, 2 and 3 (RULES.md's numbering): one exhibition of four."""


def give(position: dict[str, Any], player: int, cards: list[int]) -> None:
    """Move ``cards`` into ``player``'s hand, from wherever they are; the cards the hand held
    go to the bottom of a draw pile, so that every card stays in exactly one place (C-2)."""
    displayed = [position["lot"]] if "piles" not in position else position["lots"]
    pile = position["draw_pile"] if "piles" not in position else position["piles"][0]
    for hand in position["hands"]:
        hand[:] = [c for c in hand if c not in cards]
    for stack in [position["draw_pile"], *position.get("piles", [])]:
        stack[:] = [c for c in stack if c not in cards]
    pile[:0] = position["hands"][player]  # the bottom of a pile is its first element
    position["hands"][player] = list(cards)
    for k, lot in enumerate(displayed):
        if lot in cards:  # a card on display: the pile's top card takes its place
            displayed[k] = pile.pop()
    if "piles" in position:
        position["lots"] = displayed
    else:
        position["lot"] = displayed[0]


def endgame(env: Any, seed: int) -> dict[str, Any]:
    """A dealt game of ``env``'s rules, changed into the study's position."""
    position = env.game.new_state(seed).to_dict()
    give(position, 0, EXHIBITION)
    position["positions"] = [env.rules.finish - 3, env.rules.finish - 5, 10, 4]
    return position


def exhibitor(env: Any, mask: np.ndarray, other: int) -> int:
    """``player_0``'s plan: the Castle, and there its exhibition while it still has one; else ``other``."""
    for action in (env.codec.role("exhibit"), env.codec.location("castle")):
        if mask[action]:
            return int(action)
    return other


def main(argv: list[str] | None = None) -> float:
    """Play the study once in the parallel env, then ``--batch`` times in the batched env; return
    ``player_0``'s win rate there."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rules preset")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and of the others' play")
    parser.add_argument("--batch", type=int, default=256, help="games of the batched env (default 256)")
    args = parser.parse_args(argv)

    env = hoity_env.parallel_env(rules=args.rules, render_mode="ansi", illegal_action="raise")
    position = endgame(env, args.seed)
    observations, _ = env.reset(seed=args.seed, options={"position": position})
    print("the position:", env.render(), sep="\n", end="\n\n")
    rng = np.random.default_rng(args.seed)
    rewards: dict[str, float] = {}
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
        actions["player_0"] = exhibitor(env, observations["player_0"]["action_mask"], actions["player_0"])
        observations, rewards, _, _, _ = env.step(actions)
        print(env.render(), end="\n\n")
    print("final rewards:", {agent: round(r, 3) for agent, r in rewards.items()})

    # The same position in every game of a batch: how often does player_0 win from it?
    batched = BatchedHoityEnv(num_envs=args.batch, rules=args.rules, illegal_action="raise")
    _, masks, _ = batched.reset(seed=args.seed, options={"position": position})
    wins, playing = np.zeros(args.batch), np.ones(args.batch, dtype=bool)
    while playing.any():  # each game's first game only: the games after it are ordinary deals
        actions = batched.sample_actions(rng)
        actions[:, 0] = [exhibitor(env, m, a) for m, a in zip(masks[:, 0], actions[:, 0], strict=True)]
        _, masks, rewards_, terminated, truncated, _ = batched.step(actions)
        ended = playing & (terminated | truncated)
        wins[ended] = rewards_[ended, 0] > 0
        playing &= ~ended
    rate = float(wins.mean())
    print(f"player_0 wins {rate:.3f} of {args.batch} games from this position ({args.rules} rules)")
    return rate


if __name__ == "__main__":
    main()
