"""``hoity-league``: a league run on the fast learner (snapshots, exploiters, PFSP) from the command line.

Examples::

    hoity-league --pool "self,expert@2,collector,thief,detective" --steps 20000000 \\
        --league-snapshot-every 2000000 --exploiter-every 4000000 --pfsp hard --out runs/league
    hoity-league --resume runs/league

The main agent's flags are ``hoity-learn``'s, the league's own add snapshots, exploiters and PFSP weights
(:mod:`hoity_env.league.members`); resumes, signals and errors are :mod:`hoity_env.cli.runs`'s.
See docs/league.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hoity_env.cli.args import add_settings_flags, given_dests
from hoity_env.cli.learn import build_parser as learner_parser
from hoity_env.cli.learn import changes as learner_changes
from hoity_env.cli.learn import print_evaluations
from hoity_env.cli.learn import settings_from as learner_settings
from hoity_env.cli.runs import announce, check_out, command, refuse_changes, session_of, stopped
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import check_specs
from hoity_env.league.members import PFSP, LeagueSettings
from hoity_env.learning.settings import LearnerSettings

DEFAULTS = LeagueSettings(main=learner_settings(learner_parser().parse_args([])))

# LeagueSettings field -> (flag, type, help)
FLAGS: dict[str, tuple[str, type, str]] = {
    "snapshot_every": ("--league-snapshot-every", int, "learner steps between snapshots joining the pool"),
    "snapshot_weight": ("--snapshot-weight", float, "base draw weight of a snapshot"),
    "exploiter_every": ("--exploiter-every", int, "learner steps between exploiters (0: none)"),
    "exploiter_budget": ("--exploiter-budget", int, "each exploiter's best-response budget"),
    "exploiter_games": ("--exploiter-games", int, "games scoring each exploiter"),
    "exploiter_weight": ("--exploiter-weight", float, "base draw weight of an exploiter"),
    "pfsp_power": ("--pfsp-power", float, "PFSP's p in (1 - win rate)^p"),
    "pfsp_floor": ("--pfsp-floor", float, "the least PFSP factor"),
    "pfsp_every": ("--pfsp-every", int, "learner steps between PFSP scorings besides events (0: none)"),
    "pfsp_games": ("--pfsp-games", int, "games per member at each PFSP scoring"),
    "max_members": ("--max-members", int, "added members kept before the oldest retires"),
    "cpu_budget": ("--cpu-budget", float, "CPU-seconds after which the run ends (0: steps only)"),
}


def build_parser() -> argparse.ArgumentParser:
    p = learner_parser()
    p.prog = "hoity-league"
    p.description = "Train a main agent in a league: snapshots, exploiters and PFSP on the fast learner."
    p.epilog = "Examples:\n  " + "\n  ".join(line.strip() for line in __doc__.splitlines()[4:7])
    p.set_defaults(out=Path("runs/league"))
    league = p.add_argument_group("league")
    add_settings_flags(league, FLAGS, DEFAULTS, prefix="league_")
    league.add_argument(
        "--pfsp", default=DEFAULTS.pfsp, choices=PFSP, help="opponent weighting (%(default)s)"
    )
    league.add_argument(
        "--exploiter-settings", default="{}", help="JSON overrides of the fast best responder's settings"
    )
    league.add_argument(
        "--eval-against", default="expert,collector,thief,detective,random", help="agents for --eval-games"
    )
    return p


def league_settings(args: argparse.Namespace) -> LeagueSettings:
    """The :class:`LeagueSettings` the flags describe (bad values raise :class:`ConfigError`)."""
    try:
        overrides = json.loads(args.exploiter_settings)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--exploiter-settings must be a JSON object: {exc}") from None
    if not isinstance(overrides, dict):
        raise ConfigError(f"--exploiter-settings must be a JSON object, got {args.exploiter_settings!r}")
    values = {name: getattr(args, f"league_{name}") for name in FLAGS}
    return LeagueSettings(
        main=learner_settings(args),
        pfsp=args.pfsp,
        exploiter_settings=overrides,
        **values,
    )


def changes(given: set[str], args: argparse.Namespace, saved: LeagueSettings) -> list[tuple[str, Any, Any]]:
    """``(flag, given value, the run's value)`` of each settings flag in ``given`` (for a resume)."""
    out = learner_changes(given, args, saved.main)
    for name, (flag, _, _) in FLAGS.items():
        if f"league_{name}" in given:
            out.append((flag, getattr(args, f"league_{name}"), getattr(saved, name)))
    if "pfsp" in given:
        out.append(("--pfsp", args.pfsp, saved.pfsp))
    if "exploiter_settings" in given:
        overrides = league_settings(args).exploiter_settings
        out.append(("--exploiter-settings", overrides, saved.exploiter_settings))
    return out


def eval_against(args: argparse.Namespace, s: LearnerSettings) -> list[str]:
    """The ``--eval-against`` agents, each checked now (not after hours of training).

    ``--eval-games N`` then plays the main agent, by sampling, against copies of each and prints the table.
    """
    against = [a.strip() for a in args.eval_against.split(",") if a.strip()]
    if args.eval_games:
        for spec in against:
            n = s.player_counts[0]  # a league trains at one count (LeagueSettings)
            check_specs([spec] * n, n, s.rules)
    return against


def main(argv: Sequence[str] | None = None) -> int:
    return command("hoity-league", build_parser(), argv, _main)


def _main(
    parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str] | None, where: list[Path]
) -> int:
    from hoity_env.league.run import SETTINGS, League

    start = time.process_time()
    limit = args.time_limit_minutes * 60
    if args.resume is not None:
        league = League.resume(args.resume)
        given = given_dests(parser, argv)
        check_out(given, args.out, league.path)
        refuse_changes(changes(given, args, league.settings), league.path, SETTINGS)
        against = eval_against(args, league.settings.main)
        where.append(league.path)
        if league.finished:
            print(
                f"hoity-league: the run in {league.path} is finished ({league.learner.steps:,} learner steps)"
            )
        elif league.resumed is not None:
            league.resumed.session = session_of(args)
            total = league.settings.main.total_steps
            announce("hoity-league", league.path, league.learner.steps, total, league.resumed.session)
    else:
        settings = league_settings(args)
        against = eval_against(args, settings.main)
        league = League.start(settings, args.out, next_free=True)
        where.append(league.path)
    league.run(limit)
    if league.stop is not None:
        code = stopped(
            "hoity-league", league.path, league.stop, league.learner.steps, league.settings.main.total_steps
        )
        if code is not None:
            return code
    s = league.settings.main
    added = sum(m.kind != "start" for m in league.members)
    print(
        f"league: {league.learner.steps:,} learner steps, {added} members added, "
        f"{time.process_time() - start:.1f} CPU-s in this process ({league.cpu_now():.1f} in the run)"
    )
    print(
        f"main agent: ppo-sample:{league.path / 'policy.zip'}; "
        f"population: population:{league.path / 'population.json'}"
    )
    if args.eval_games:
        spec = f"ppo-sample:{league.path / 'policy.zip'}"
        print_evaluations(spec, against, s, args.eval_games, s.seed + 1, args.workers)
    return 0


__all__ = ["FLAGS", "build_parser", "changes", "league_settings", "main"]


if __name__ == "__main__":
    sys.exit(main())
