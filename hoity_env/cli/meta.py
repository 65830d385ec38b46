"""``hoity-eval meta``: a population's weights from the meta-solver.

Plays the members of ``--population`` against each other at the table, solves the payoff table for the
mixture a deviating member gains least against, and writes the cells, the solution and the shipped
population to ``--out``, then checks it (:mod:`hoity_env.league.meta_run`); ``--psro-iterations`` first
grows the population with best responses (:mod:`hoity_env.league.psro`).  See docs/league.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from hoity_env.cli.args import add_rules, fail, non_negative, positive
from hoity_env.engine.config import PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.workers import WorkerDied
from hoity_env.league.meta_run import DEFAULT_THRESHOLD, MetaSettings, population_manifest, solve_population
from hoity_env.league.psro import DEFAULT_BUDGET, DEFAULT_GAMES, DEFAULT_PRESET, STARTS, PsroSettings
from hoity_env.strength.jobs import Interrupted
from hoity_env.strength.response import PRESETS as LEARNER_PRESETS

__all__ = ["COMMAND", "build_parser", "run"]

COMMAND = "meta"


def _fraction(text: str) -> float:
    """A number in [0, 1) (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}")
    return value


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The ``meta`` parser."""
    p = argparse.ArgumentParser(
        prog=f"{prog} {COMMAND}",
        description="Population weights from a meta-solver: play the members of a population against each "
        "other (each against N-1 copies of each other, duplicate format), solve the payoff table for the "
        "mixture a deviating member gains least against (meta-Nash at 2 players), write the weighted "
        "population without its negligible members, and check it: every member against N-1 copies of it.",
    )
    p.add_argument(
        "--population",
        required=True,
        help="the population: a population.json manifest, the folder holding one, or a named population",
    )
    p.add_argument("--players", type=positive, required=True, help="the table's number of players, 2-6")
    add_rules(p, sorted(PRESETS))
    p.add_argument(
        "--games", type=positive, default=300, help="games per cell of the payoff table (default 300)"
    )
    p.add_argument(
        "--check-games", type=positive, default=None, help="games per member in the check (default: --games)"
    )
    p.add_argument(
        "--seed",
        type=non_negative,
        default=0,
        help="seed of the games (the check's is SEED+1) and the solver",
    )
    p.add_argument(
        "--threshold",
        type=_fraction,
        default=DEFAULT_THRESHOLD,
        help=f"drop members whose weight is below this fraction of the largest (default {DEFAULT_THRESHOLD})",
    )
    psro = p.add_argument_group("PSRO: grow the population with best responses to its mixture")
    psro.add_argument(
        "--psro-iterations",
        type=non_negative,
        default=0,
        help="best responses to train, each against the mixture solved so far, then added as a member "
        "and solved again (default 0: the population's own members only)",
    )
    psro.add_argument(
        "--psro-budget",
        type=positive,
        default=None,
        help=f"learner steps of each best response (default {DEFAULT_BUDGET:,})",
    )
    psro.add_argument(
        "--psro-preset",
        choices=sorted(LEARNER_PRESETS),
        default=None,
        help=f"the fast learner's settings of each best response (default {DEFAULT_PRESET})",
    )
    psro.add_argument(
        "--psro-games",
        type=positive,
        default=None,
        help=f"games of each best response's score against its mixture (default {DEFAULT_GAMES})",
    )
    psro.add_argument(
        "--psro-start",
        choices=STARTS,
        default=None,
        help="what the meta-game starts from: the population's members, each weighed by the solver "
        "(solution, the default), or the population at its own weights as one strategy, so that only "
        "the best responses' additions are weighed (population)",
    )
    p.add_argument("--workers", type=positive, default=1, help="processes playing cells at once (default 1)")
    p.add_argument(
        "--out", type=Path, required=True, help="the run folder: new or empty (or, with --resume, this run's)"
    )
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out (same flags)")
    return p


def run(prog: str, args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run a parsed ``meta`` command; returns the exit status."""
    try:
        settings = MetaSettings(
            psro=_psro(args),
            population=population_manifest(args.population, args.rules, args.players),
            num_players=args.players,
            rules=args.rules,
            games=args.games,
            check_games=args.check_games,
            seed=args.seed,
            threshold=args.threshold,
            workers=args.workers,
            blas_threads=args.blas_threads,
        )
        result = solve_population(settings, args.out, resume=args.resume)
    except ConfigError as exc:
        return fail(prog, exc)
    except WorkerDied as exc:
        return fail(prog, exc, 1)
    except (KeyboardInterrupt, Interrupted) as exc:
        detail = f": {exc}" if isinstance(exc, Interrupted) else ""
        print(f"{prog}: interrupted{detail}", file=sys.stderr)
        resume = [] if args.resume else ["--resume"]
        print(f"continue with: {shlex.join([*prog.split(), COMMAND, *argv, *resume])}", file=sys.stderr)
        return 128 + exc.signum if isinstance(exc, Interrupted) else 130
    print(result.to_markdown())
    return 0


def _psro(args: argparse.Namespace) -> PsroSettings:
    """The PSRO settings of the flags; a PSRO flag without ``--psro-iterations`` is refused."""
    given = {
        "budget": args.psro_budget,
        "preset": args.psro_preset,
        "games": args.psro_games,
        "start": args.psro_start,
    }
    if not args.psro_iterations:
        named = [f"--psro-{name}" for name, value in given.items() if value is not None]
        if named:
            raise ConfigError(f"{', '.join(named)} set without --psro-iterations: nothing to apply it to")
    chosen = {name: value for name, value in given.items() if value is not None}
    return PsroSettings(iterations=args.psro_iterations, **chosen)
