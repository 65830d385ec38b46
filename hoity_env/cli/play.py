"""``hoity-play``: play Hoity Toity in the terminal against agents.

``--opponents`` takes one agent spec per other seat, as ``hoity-eval`` reads them; they sit in the seats
after yours, in order, wrapping around.  ``--save`` writes the game as a replay when it ends or when you
quit, which ``hoity-replay FILE`` checks and shows.  See docs/play.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from hoity_env.agents import SPEC_FORMS, make
from hoity_env.cli.args import CHECKPOINT_WARNING, add_blas_threads, add_rules, non_negative, parse, specs
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.play.session import play
from hoity_env.replays.recorder import RecordingEnv
from hoity_env.threads import limit_blas

__all__ = ["build_parser", "main"]

PROG = "hoity-play"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``hoity-play``."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Play Hoity Toity in the terminal against agents (you see only what your seat may know).",
        epilog=f"agents: {SPEC_FORMS}. {CHECKPOINT_WARNING}.",
    )
    p.add_argument(
        "--opponents",
        type=specs,
        metavar="SPECS",
        default=["expert", "expert", "expert"],
        help="one agent spec per other seat, comma-separated, 1-5 of them: NAME, ppo:PATH or "
        "ppo-sample:PATH; they fill the seats after yours in order, wrapping around "
        "(default expert,expert,expert)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 to players-1 (default 0)")
    p.add_argument("--seed", type=non_negative, default=0, help="seed of the deal and the agents (default 0)")
    add_rules(p, sorted(PRESETS))
    p.add_argument(
        "--save", type=Path, default=None, metavar="FILE", help="save the game as a replay (JSON lines)"
    )
    add_blas_threads(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = parse(build_parser(), argv)
    if isinstance(args, int):
        return args
    n = len(args.opponents) + 1
    try:
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ConfigError(
                f"{n} players: give 1 to {MAX_PLAYERS - 1} opponents, got {len(args.opponents)}"
            )
        if not 0 <= args.seat < n:
            raise ConfigError(f"--seat must be 0 to {n - 1} with {n} players, got {args.seat}")
        if args.save is not None and not args.save.parent.is_dir():
            raise ConfigError(f"cannot save to {args.save}: folder {args.save.parent} does not exist")
        names = [""] * n
        names[args.seat] = "human"
        for k, spec in enumerate(args.opponents, start=1):  # opponents sit in seat order after you
            names[(args.seat + k) % n] = spec
        env = RecordingEnv(num_players=n, rules=args.rules, agent_names=names, meta={"source": PROG})
        opponents = [
            make(spec, seed=args.seed, num_players=n, rules=env.rules, num_actions=env.codec.size)
            for spec in args.opponents
        ]
    except ConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    print(
        "seats: "
        + ", ".join(f"player_{p} {'(you)' if p == args.seat else name}" for p, name in enumerate(names))
    )
    with limit_blas(args.blas_threads):
        play(env, args.seat, opponents, seed=args.seed)
    if args.save is not None:
        try:
            env.save_replay(args.save)
        except OSError as exc:
            print(f"{PROG}: error: cannot save the replay to {args.save}: {exc}", file=sys.stderr)
            return 2
        print(
            f"replay saved to {args.save}; check and view it with: hoity-replay {args.save} --html game.html"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
