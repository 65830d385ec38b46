"""Size of the ``hoity-replay --html`` viewer: bytes per round of seeded random games.

The viewer holds one PNG picture per round plus the events, so its size grows with the
game's length; this plays ``--games`` seeded games of masked-random agents through
:class:`~hoity_env.replays.recorder.RecordingEnv`, renders each one's page with
:func:`~hoity_env.replays.html.replay_html` (what ``hoity-replay --html`` writes) and
prints the rounds, the page's size and the size per round of each game.  With
``--record PATH.json`` it also writes them with the command and the machine, for
docs/play.md.

    python benchmarks/viewer_size.py [--games 5] [--players 4] [--record PATH.json]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from bench_record import Recorder, add_record_option

from hoity_env.replays.html import replay_html
from hoity_env.replays.recorder import RecordingEnv
from hoity_env.replays.simulate import rounds


def one_game(players: int, seed: int) -> dict[str, Any]:
    """Play one masked-random game from ``seed``; its rounds and its viewer page's size."""
    env = RecordingEnv(num_players=players)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, *_ = env.step(actions)
    views = rounds(env.replay)
    size = len(replay_html(env.replay, views).encode("utf-8"))
    return {"seed": seed, "rounds": len(views), "bytes": size}


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games to render (seeds 0, 1, …)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    games = [one_game(args.players, seed) for seed in range(args.games)]
    print("| seed | rounds | page bytes | KB per round |")
    print("|---|---|---|---|")
    for g in games:
        print(f"| {g['seed']} | {g['rounds']} | {g['bytes']:,} | {g['bytes'] / g['rounds'] / 1000:.1f} |")
    if recorder:
        recorder.write({"games": games}, settings=vars(args))
    return games


if __name__ == "__main__":
    main()
