"""Record one seeded game between scripted agents: its replay, its board pictures, and one PNG.

Usage: ``python examples/record_game.py [--players 5] [--seed 3] [--out recorded/] [--step 24]
[--rules standard|original]``

Writes ``game.jsonl`` (a replay: ``hoity-replay OUT/game.jsonl --html game.html``
shows it), ``game.gif`` (every step's board picture, ``render_mode="rgb_array"``)
and ``board.png`` (the picture after step ``--step``).  The README's pictures are
``python examples/record_game.py && cp recorded/board.png docs/board.png`` and, for the
original rules, ``python examples/record_game.py --rules original --step 32 --out recorded_original
&& cp recorded_original/board.png docs/board_original.png``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image

from hoity_env.agents import make
from hoity_env.replays import RecordingEnv
from hoity_env.wrappers.frames import FrameRecorder

AGENTS = ("expert", "collector", "thief", "detective", "random", "expert")


def main(argv: list[str] | None = None) -> Path:
    """Play and write the three files; return the folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5, help="number of players, 2-6 (default 5)")
    parser.add_argument("--seed", type=int, default=3, help="seed of the deal and of the agents (default 3)")
    parser.add_argument("--out", type=Path, default=Path("recorded"), help="folder for the files (created)")
    parser.add_argument("--step", type=int, default=24, help="step whose picture is board.png (default 24)")
    parser.add_argument(
        "--rules", choices=("standard", "original"), default="standard", help="ruleset (default standard)"
    )
    args = parser.parse_args(argv)

    names = AGENTS[: args.players]
    env = FrameRecorder(
        RecordingEnv(num_players=args.players, rules=args.rules, agent_names=names, render_mode="rgb_array")
    )
    agents = [
        make(name, seed=args.seed + k, num_players=args.players, rules=args.rules)
        for k, name in enumerate(names)
    ]
    observations, _ = env.reset(seed=args.seed)
    while env.agents:
        actions = {
            player: agent.act(observations[player]["observation"], observations[player]["action_mask"])
            for player, agent in zip(env.possible_agents, agents, strict=True)
        }
        observations = env.step(actions)[0]
    args.out.mkdir(parents=True, exist_ok=True)
    env.env.save_replay(args.out / "game.jsonl")  # type: ignore[attr-defined]
    env.save(args.out / "game.gif")
    Image.fromarray(env.frames[min(args.step, len(env.frames) - 1)]).save(args.out / "board.png")
    seats = ", ".join(f"player_{p}: {name}" for p, name in enumerate(names))
    print(f"{len(env.frames) - 1} steps ({seats}); wrote game.jsonl, game.gif and board.png to {args.out}")
    return args.out


if __name__ == "__main__":
    main()
