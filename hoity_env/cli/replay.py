"""``hoity-replay``: check a replay by re-simulating it, print it round by round, or write the viewer.

A replay is untrusted input: the file is streamed one line at a time, so memory does not grow with it,
and read twice, to check it and then to print it, so the printout starts only once the whole file
checked out.  Exit status 0: it re-simulates exactly; 1: it diverges (the first differing round is
named); 2: it cannot be read, is malformed or of another format version.  Every failure is one line on
stderr.  See docs/play.md and docs/replays.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from hoity_env.cli.args import fail, parse
from hoity_env.environment.render.text import render_text
from hoity_env.replays.format import Replay, ReplayError, ReplayMismatch, open_replay
from hoity_env.replays.html import write_html
from hoity_env.replays.simulate import RoundView, iter_rounds, resimulate

__all__ = ["build_parser", "main", "round_text"]

PROG = "hoity-replay"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``hoity-replay``."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Re-simulate a replay (JSON lines) from its seed and actions, check every event, "
        "and print the game round by round.",
    )
    p.add_argument(
        "file", type=Path, help="replay file (JSON lines, written by hoity-play, hoity-eval or RecordingEnv)"
    )
    p.add_argument("--html", type=Path, default=None, metavar="OUT", help="also write the HTML viewer to OUT")
    p.add_argument("--quiet", action="store_true", help="check only: print no rounds")
    return p


def round_text(view: RoundView) -> str:
    """One round of the printout: its events and the public board after it."""
    title = "== the deal" if view.round < 0 else f"== round {view.round + 1}"
    return f"{title}\n{render_text(view.state, view.events)}"


def _check(path: Path) -> tuple[Replay, int]:
    """Pass 1: re-simulate the whole file as it streams in; the replay header and its step count."""
    replay, steps = open_replay(path)
    count = sum(1 for _ in resimulate(replay, steps)) - 1  # the first yield is the deal
    return replay, count


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = parse(build_parser(), argv)
    if isinstance(args, int):
        return args
    try:
        replay, steps = _check(args.file)
        if not args.quiet:
            shown, lines = open_replay(args.file)  # pass 2: print round by round
            seats = ", ".join(f"player_{p}: {name}" for p, name in enumerate(shown.agents))
            print(f"{shown.num_players} players, {shown.rules.name} rules, seed {shown.seed}; {seats}")
            for view in iter_rounds(shown, lines):
                print(round_text(view))
        views = list(iter_rounds(*open_replay(args.file))) if args.html is not None else None
    except ReplayMismatch as exc:
        return fail(PROG, _one_line(exc), 1, "mismatch")
    except ReplayError as exc:
        return fail(PROG, _one_line(exc))
    end = replay.end["reason"] if replay.end else "not finished"
    print(f"{args.file}: OK, {steps} steps re-simulated, every event matches (end: {end})", file=sys.stderr)
    if args.html is not None and views is not None:
        try:
            write_html(replay, args.html, views)
        except OSError as exc:
            return fail(PROG, f"cannot write {args.html}: {_one_line(exc)}")
        print(f"wrote {args.html}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
