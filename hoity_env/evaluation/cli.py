"""``hoity-eval``: the evaluation harness on the command line.

Usage::

    hoity-eval --agents expert,random,random,random --games 2000 --seed 0 --workers 2 --out results/
    hoity-eval tournament --pool expert,collector,thief,detective,random --games 200 --out results/
    hoity-eval h2h --pool expert,collector,random --players 4 --games 200
    hoity-eval --agents expert,random,random,random --games 2000 --backend ray --address auto
    hoity-eval exploit --target expert --budget 200000
    hoity-eval ladder --budget 2000000 --out docs/reference/ladder

The default command evaluates one table (one agent spec per seat; ``--players``
defaults to the number of agents).  ``tournament`` runs a rated round robin over
a pool, ``h2h`` a head-to-head matrix, ``exploit`` an approximate exploitability
(:mod:`hoity_env.evaluation.exploit_cli`), ``ladder`` all of these for a list of
agents (:mod:`hoity_env.evaluation.ladder_cli`).  Each prints its Markdown table on stdout
(the progress bar and timing go to stderr) and, with ``--out DIR``, writes
``result.json``, ``result.csv``, ``result.md`` and ``result.png`` there.

A bad agent name, a missing or corrupt checkpoint, or one trained for another
player count or ruleset is reported as one line, ``hoity-eval: error: ...``, with
exit status 2 (argparse's convention for usage errors) and no traceback.
Agent specs are comma-separated, so checkpoint paths cannot contain commas.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from hoity_env.agents import SPEC_FORMS
from hoity_env.engine.config import PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation import exploit_cli, ladder_cli
from hoity_env.evaluation.exploit import ExploitResult
from hoity_env.evaluation.harness import ENGINES, evaluate
from hoity_env.evaluation.ladder import LadderResult
from hoity_env.evaluation.output import check_destination, write_results
from hoity_env.evaluation.ray_backend import BACKENDS
from hoity_env.evaluation.replays import save_replays
from hoity_env.evaluation.report import EvaluationResult, HeadToHeadResult, TournamentResult
from hoity_env.evaluation.tournament import head_to_head, tournament
from hoity_env.evaluation.workers import WorkerDied

__all__ = ["build_parser", "main"]

PROG = "hoity-eval"
COMMANDS = ("evaluate", "tournament", "h2h", "exploit", "ladder")
Result = EvaluationResult | TournamentResult | HeadToHeadResult | ExploitResult | LadderResult


def _specs(text: str) -> list[str]:
    """Comma-separated agent specs; empty items are an error, not silently dropped."""
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise argparse.ArgumentTypeError(f"expected comma-separated agent specs, got {text!r}")
    return items


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _common(p: argparse.ArgumentParser, games: int, players_help: str) -> None:
    p.add_argument("--players", type=_positive, default=None, help=players_help)
    p.add_argument(
        "--games",
        type=_positive,
        default=games,
        help=f"games (per table); rounded up to whole deals of --players games (default {games})",
    )
    p.add_argument("--seed", type=_seed, default=0, help="evaluation seed (default 0)")
    p.add_argument("--workers", type=_positive, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--rules",
        default="standard",
        choices=sorted(PRESETS),
        help=f"rules preset: {' | '.join(sorted(PRESETS))} (default standard)",
    )
    p.add_argument("--out", type=Path, default=None, help="write result.{json,csv,md,png} to this folder")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (it is shown only when stderr is a terminal)",
    )
    p.add_argument(
        "--engine",
        default="auto",
        choices=ENGINES,
        help="auto (default): the batched engine when every agent decides in batches; batched; one-game",
    )
    p.add_argument(
        "--backend",
        default="local",
        choices=BACKENDS,
        help="local (default): --workers processes here; ray: the games' chunks as Ray tasks "
        "(needs the rllib extra; same results as local for the same seed)",
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the cluster to join ('auto' = the one `ray start` began here); "
        "default: a local Ray instance",
    )


def build_parser(command: str) -> argparse.ArgumentParser:
    """The parser of one command (``evaluate`` is the default command)."""
    if command == "exploit":
        return exploit_cli.build_parser(PROG, _specs, _positive, _seed)
    if command == "ladder":
        return ladder_cli.build_parser(PROG, _specs, _positive, _seed)
    agents = f"agents: {SPEC_FORMS}"
    if command == "evaluate":
        p = argparse.ArgumentParser(
            prog=PROG,
            description="Evaluate agents in duplicate format (every deal replayed with every seat rotation).",
            epilog=f"Other commands: {PROG} tournament --help, {PROG} h2h --help, {PROG} exploit --help, "
            f"{PROG} ladder --help. {agents}.",
        )
        p.add_argument(
            "--agents",
            type=_specs,
            required=True,
            help="one agent spec per seat, comma-separated: NAME, ppo:PATH or ppo-sample:PATH "
            "(e.g. expert,random,random,random)",
        )
        _common(p, 1000, "number of players, 2-6 (default: the number of agents)")
        p.add_argument(
            "--save-replays",
            type=_positive,
            default=None,
            metavar="N",
            help="also write replays of the first N games to OUT/replays/ (needs --out; "
            "view them with hoity-replay)",
        )
        return p
    what = "Rated round robin over a pool" if command == "tournament" else "Head-to-head win-rate matrix"
    p = argparse.ArgumentParser(prog=f"{PROG} {command}", description=f"{what}. {agents}.")
    p.add_argument(
        "--pool",
        type=_specs,
        required=True,
        help="distinct agent specs, comma-separated: NAME, ppo:PATH or ppo-sample:PATH "
        "(e.g. expert,thief,random)",
    )
    _common(p, 200, "number of players, 2-6 (default 4)")
    return p


def run(command: str, args: argparse.Namespace) -> Result:
    """Run one parsed command."""
    if command == "exploit":
        return exploit_cli.run(args)
    if command == "ladder":
        return ladder_cli.run(args)
    common = {
        "games": args.games,
        "seed": args.seed,
        "workers": args.workers,
        "rules": args.rules,
        "progress": not args.no_progress,
        "engine": args.engine,
        "backend": args.backend,
        "address": args.address,
    }
    if command == "evaluate":
        players = args.players if args.players is not None else len(args.agents)
        return evaluate(args.agents, num_players=players, **common)
    players = args.players if args.players is not None else 4
    if command == "tournament":
        return tournament(args.pool, num_players=players, **common)
    return head_to_head(args.pool, num_players=players, **common)


def write_outputs(result: Result, out: Path) -> list[Path]:
    """``result.json``, ``result.csv``, ``result.md`` and ``result.png`` in ``out`` (created), all or none."""
    return write_results(result, out)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``hoity-eval``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv.pop(0) if argv and argv[0] in COMMANDS else "evaluate"
    parser = build_parser(command)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed by argparse
        return exc.code if isinstance(exc.code, int) else 2
    start = time.perf_counter()
    try:
        if args.out is not None:  # before the games: a bad destination must not cost the results
            check_destination(args.out)
        if getattr(args, "save_replays", None) is not None and args.out is None:
            raise ConfigError("--save-replays needs --out (the replays go to OUT/replays/)")
        result = run(command, args)
    except ConfigError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    except WorkerDied as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    elapsed = time.perf_counter() - start
    print(result.to_markdown())
    if args.out is not None:
        try:
            paths = write_outputs(result, args.out)
        except ConfigError as exc:  # the destination changed while the games were played
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"{parser.prog}: error: cannot write results to {args.out}: {exc}", file=sys.stderr)
            return 2
        if isinstance(result, EvaluationResult) and args.save_replays is not None:
            try:
                paths += save_replays(
                    result.agents,
                    num_players=result.num_players,
                    rules=args.rules,
                    seed=args.seed,
                    count=args.save_replays,
                    folder=args.out / "replays",
                )
            except OSError as exc:
                print(f"{parser.prog}: error: cannot write replays to {args.out}: {exc}", file=sys.stderr)
                return 2
        for path in paths:
            print(f"wrote {path}", file=sys.stderr)
    rate = result.games / max(elapsed, 1e-9)
    print(f"{result.games} games in {elapsed:.1f}s ({rate:.0f} games/s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
