"""The match commands of ``hoity-eval``: evaluate one table, a rated round robin, a head-to-head matrix.

The default command evaluates one table (one agent spec per seat; ``--players`` defaults to the number
of agents).  The flags become one :class:`~hoity_env.evaluation.MatchSettings`, built here once and
passed down; :mod:`hoity_env.cli.eval` parses the command, sets up logging, takes ``--out`` and writes
the results.  See docs/evaluation.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hoity_env.agents import SPEC_FORMS
from hoity_env.cli.args import CHECKPOINT_WARNING, add_rules, non_negative, positive, specs
from hoity_env.engine.config import PRESETS
from hoity_env.evaluation.harness import evaluate
from hoity_env.evaluation.ray_backend import BACKENDS
from hoity_env.evaluation.reports.results import EvaluationResult, HeadToHeadResult, TournamentResult
from hoity_env.evaluation.settings import ENGINES, MatchSettings
from hoity_env.evaluation.tournament import head_to_head, tournament

__all__ = ["AGENTS_HELP", "COMMANDS", "add_match_args", "build_parser", "match_settings_of", "run"]

COMMANDS = ("evaluate", "tournament", "h2h")
AGENTS_HELP = (
    f"agents: {SPEC_FORMS} (ppo: and ppo-sample: MaskablePPO checkpoints, npz: numpy weights "
    "exported by hoity-export, rllib: a saved RLlib module, population: a "
    f"population.json mixture, one member per game). {CHECKPOINT_WARNING}"
)
"""What every command that takes agent specs says about them."""
SPECS_HELP = (
    "NAME, ppo:PATH, ppo-sample:PATH, npz:PATH, rllib:PATH or population:PATH (checkpoints are pickles: "
    "only trusted files)"
)

MatchResult = EvaluationResult | TournamentResult | HeadToHeadResult


def add_match_args(p: argparse.ArgumentParser, games: int, players_help: str) -> None:
    """The flags of :class:`~hoity_env.evaluation.MatchSettings` (and ``--out``)."""
    p.add_argument("--players", type=positive, default=None, help=players_help)
    p.add_argument(
        "--games",
        type=positive,
        default=games,
        help=f"games (per table); rounded up to whole deals of --players games (default {games})",
    )
    p.add_argument("--seed", type=non_negative, default=0, help="evaluation seed (default 0)")
    p.add_argument("--workers", type=positive, default=1, help="worker processes (default 1)")
    add_rules(p, sorted(PRESETS))
    p.add_argument("--out", type=Path, default=None, help="write result.{json,csv,md,png} to this folder")
    p.add_argument(
        "--save-records",
        action="store_true",
        help="keep every game's record in result.json (memory then grows with --games; "
        "by default the tables are summed as the games stream in)",
    )
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


def _specs_argument(p: argparse.ArgumentParser, flag: str, what: str, example: str) -> None:
    p.add_argument(
        flag,
        type=specs,
        required=True,
        help=f"{what}, comma-separated: {SPECS_HELP} (e.g. {example})",
    )


def build_parser(prog: str, command: str) -> argparse.ArgumentParser:
    """The parser of one match command (``evaluate`` is the default command)."""
    if command == "evaluate":
        p = argparse.ArgumentParser(
            prog=prog,
            description="Evaluate agents in duplicate format (every deal replayed with every seat rotation).",
            epilog=f"Other commands: {prog} tournament --help, {prog} h2h --help, {prog} exploit --help, "
            f"{prog} ladder --help. {AGENTS_HELP}.",
        )
        _specs_argument(p, "--agents", "one agent spec per seat", "expert,random,random,random")
        add_match_args(p, 1000, "number of players, 2-6 (default: the number of agents)")
        p.add_argument(
            "--save-replays",
            type=positive,
            default=None,
            metavar="N",
            help="also write replays of the first N games to OUT/replays/ (needs --out; "
            "view them with hoity-replay)",
        )
        return p
    what = "Rated round robin over a pool" if command == "tournament" else "Head-to-head win-rate matrix"
    p = argparse.ArgumentParser(prog=f"{prog} {command}", description=f"{what}. {AGENTS_HELP}.")
    _specs_argument(p, "--pool", "distinct agent specs", "expert,thief,random")
    add_match_args(p, 200, "number of players, 2-6 (default 4)")
    return p


def match_settings_of(args: argparse.Namespace, players: int) -> MatchSettings:
    """The one :class:`~hoity_env.evaluation.MatchSettings` of a parsed command."""
    return MatchSettings(
        num_players=players,
        games=args.games,
        seed=args.seed,
        rules=args.rules,
        workers=args.workers,
        engine=getattr(args, "engine", "auto"),
        backend=getattr(args, "backend", "local"),
        address=getattr(args, "address", None),
        progress=not args.no_progress,
        records=getattr(args, "save_records", False),
        blas_threads=getattr(args, "blas_threads", None),  # hoity-eval's flag (hoity_env.cli.eval)
    )


def run(command: str, args: argparse.Namespace) -> MatchResult:
    """Run one parsed match command."""
    if command == "evaluate":
        players = args.players if args.players is not None else len(args.agents)
        return evaluate(args.agents, match_settings_of(args, players))
    settings = match_settings_of(args, args.players if args.players is not None else 4)
    if command == "tournament":
        return tournament(args.pool, settings)
    return head_to_head(args.pool, settings)
