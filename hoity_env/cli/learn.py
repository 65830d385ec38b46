"""``hoity-learn`` (also ``python -m hoity_env.cli.learn``): the fast learner from the command line.

Three modes, by who sits in the other seats::

    hoity-learn --steps 2000000                         # self-play, parameter sharing
    hoity-learn --pool "self@2,snapshot,expert,thief"   # a league: weighted per-game draws
    hoity-learn --against expert --steps 2000000        # a best response to copies of expert
    hoity-learn --resume runs/learn                     # continue a run with its own settings

The run folder (``--out``: :mod:`hoity_env.learning.runs.folder`) ends with ``policy.zip``, to play by
sampling as ``ppo-sample:PATH``; resumes, signals and errors are :mod:`hoity_env.cli.runs`'s.
See docs/learning.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from hoity_env.cli.args import add_blas_threads, add_settings_flags, given_dests, non_negative
from hoity_env.cli.runs import (
    add_session_flags,
    announce,
    check_out,
    command,
    refuse_changes,
    session_of,
    stopped,
)
from hoity_env.engine.errors import ConfigError
from hoity_env.learning.runs.session import LATEST, SETTINGS, finished, new_run, open_run, run
from hoity_env.learning.settings import SELF, LearnerSettings, parse_counts, parse_pool

DEFAULTS = LearnerSettings()


def player_counts(text: str) -> int | tuple[int, ...]:
    """``--players``: a count, or comma-separated counts (a usage error otherwise)."""
    try:
        return parse_counts(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# settings field -> (flag, type, help); each flag's default is the field's default
FLAGS: dict[str, tuple[str, Callable[[str], Any], str]] = {
    "total_steps": ("--steps", int, "learner steps (decisions of learner seats) to train for"),
    "num_games": ("--games", int, "games B stepped together"),
    "num_players": ("--players", player_counts, "players per game, or counts (2,3,4,5,6): one padded policy"),
    "rules": ("--rules", str, "ruleset: standard or original"),
    "reward": ("--reward", str, "win_loss, rank or progress"),
    "rollout_steps": ("--rollout-steps", int, "env steps per game between updates"),
    "epochs": ("--epochs", int, "PPO epochs per update"),
    "minibatch_size": ("--minibatch", int, "PPO minibatch size (rows)"),
    "learning_rate": ("--lr", float, "Adam learning rate"),
    "lr_schedule": ("--lr-schedule", str, "constant, or linear (annealed to 0 over --steps)"),
    "gamma": ("--gamma", float, "discount factor"),
    "gae_lambda": ("--gae-lambda", float, "GAE lambda"),
    "ent_coef": ("--ent-coef", float, "entropy bonus coefficient"),
    "magnet": ("--magnet", str, "KL toward a magnet: none, uniform, frozen or ema"),
    "magnet_coef": ("--magnet-coef", float, "strength of the magnet KL term"),
    "magnet_final_coef": ("--magnet-final-coef", float, "anneal the magnet's strength to this by the end"),
    "magnet_refresh": ("--magnet-refresh", int, "updates between refreshes of a frozen magnet (0: never)"),
    "magnet_rate": ("--magnet-rate", float, "an EMA magnet's rate per update"),
    "snapshot_every": ("--snapshot-every", int, "updates between frozen snapshots (for 'snapshot')"),
    "seed": ("--seed", int, "seed of everything random in the run"),
    "threads": ("--threads", int, "torch threads"),
    "checkpoint_every": ("--checkpoint-every", int, "learner steps between checkpoints (0: at the end)"),
    "keep_checkpoints": ("--keep-checkpoints", int, "checkpoints kept, the newest (0: all)"),
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hoity-learn",
        description="Train a masked-PPO policy with the fast learner on the batched engine.",
        epilog="Examples:\n  " + "\n  ".join(line.strip() for line in __doc__.splitlines()[4:8]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--against",
        metavar="SPEC",
        help="best response: copies of this agent spec (expert, random, ppo:PATH ...) in the other seats",
    )
    who.add_argument(
        "--pool",
        metavar="LIST",
        help="comma-separated weighted pool of self, snapshot and agent specs (ppo:PATH ...), "
        "weights after @: 'self@2,snapshot,expert@0.5'",
    )
    who.add_argument("--resume", metavar="DIR", type=Path, help="continue the run in DIR (its own settings)")
    add_settings_flags(p, FLAGS, DEFAULTS)
    p.add_argument(
        "--padded",
        action="store_true",
        help="train a policy on padded observations (one layout for 2-6 players) at a single count too",
    )
    p.add_argument("--hidden", default="x".join(map(str, DEFAULTS.hidden)), help="hidden widths, e.g. 64x64")
    p.add_argument("--out", type=Path, default=Path("runs/learn"), help="run folder (a taken name gets _2 …)")
    p.add_argument(
        "--eval-games",
        type=non_negative,
        default=0,
        help="games of the policy (sampling) against 3 copies of the target afterwards",
    )
    add_blas_threads(p)
    add_session_flags(p)
    return p


def settings_from(args: argparse.Namespace) -> LearnerSettings:
    """The :class:`LearnerSettings` the flags describe (bad values raise :class:`ConfigError`)."""
    values = {name: getattr(args, name) for name in FLAGS}
    values["padded"] = args.padded
    try:
        values["hidden"] = tuple(int(w) for w in args.hidden.lower().split("x"))
    except ValueError:
        raise ConfigError(f"--hidden must look like 64x64, got {args.hidden!r}") from None
    if args.against:
        values["opponents"] = ((args.against, 1.0),)
    elif args.pool:
        values["opponents"] = parse_pool(args.pool)
    return LearnerSettings(**values)


def pool_text(opponents: tuple[tuple[str, float], ...]) -> str:
    """Opponents as ``--pool`` writes them (``self@2.0,expert@1.0``)."""
    return ",".join(f"{spec}@{weight:g}" for spec, weight in opponents)


def changes(given: set[str], args: argparse.Namespace, saved: LearnerSettings) -> list[tuple[str, Any, Any]]:
    """``(flag, given value, the run's value)`` of each settings flag in ``given`` (for a resume)."""
    out: list[tuple[str, Any, Any]] = []
    for name in given & set(FLAGS):
        out.append((FLAGS[name][0], getattr(args, name), getattr(saved, name)))
    if "hidden" in given:
        out.append(("--hidden", args.hidden, "x".join(map(str, saved.hidden))))
    if "padded" in given:
        out.append(("--padded", args.padded, saved.padded))
    if "against" in given:
        out.append(("--against", pool_text(((args.against, 1.0),)), pool_text(saved.opponents)))
    if "pool" in given:
        out.append(("--pool", pool_text(parse_pool(args.pool)), pool_text(saved.opponents)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    return command("hoity-learn", build_parser(), argv, _main)


def _main(
    parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str] | None, where: list[Path]
) -> int:
    start = time.process_time()
    limit = args.time_limit_minutes * 60
    if args.resume is not None:
        folder, learner, resumed = open_run(args.resume)
        given = given_dests(parser, argv)
        check_out(given, args.out, folder.path)
        refuse_changes(changes(given, args, learner.settings), folder.path, SETTINGS)
        where.append(folder.path)
        if finished(folder, learner):
            print(f"hoity-learn: the run in {folder.path} is finished ({learner.steps:,} learner steps)")
        else:
            resumed.session = session_of(args)
            announce("hoity-learn", folder.path, learner.steps, learner.settings.total_steps, resumed.session)
            stop = run(learner, folder, resumed, limit)
            code = stopped("hoity-learn", folder.path, stop, learner.steps, learner.settings.total_steps)
            if code is not None:
                return code
    else:
        folder, learner = new_run(settings_from(args), args.out, next_free=True)
        where.append(folder.path)
        stop = run(learner, folder, time_limit=limit)
        code = stopped("hoity-learn", folder.path, stop, learner.steps, learner.settings.total_steps)
        if code is not None:
            return code
    cpu = time.process_time() - start
    s = learner.settings
    shares = ", ".join(f"{k} {v / max(cpu, 1e-9):.0%}" for k, v in learner.cpu.items())
    print(
        f"fast learner: {learner.steps} learner steps, {learner.updates} updates, {cpu:.1f} CPU-s ({shares})"
    )
    spec = f"ppo-sample:{folder.path / LATEST}"
    print(f"policy: {folder.path / LATEST}  (play it by sampling: {spec})")
    if args.eval_games:
        target = next((spec for spec, _ in s.opponents if spec not in (SELF, "snapshot")), "random")
        if len(s.opponents) > 1:
            target = "random"
        print_evaluations(spec, [target], s, args.eval_games, s.seed, args.workers)
    return 0


def print_evaluations(
    me: str, targets: Iterable[str], s: LearnerSettings, games: int, seed: int, workers: int = 1
) -> None:
    """``--eval-games``: the table of ``me`` in one seat against copies of each target, printed.

    ``s`` gives the players and rules of the games (the trained run's own; each of its counts).
    """
    from hoity_env.evaluation import evaluate

    for n in s.player_counts:
        for target in targets:
            table = [me] + [target] * (n - 1)
            result = evaluate(table, num_players=n, games=games, seed=seed, rules=s.rules, workers=workers)
            print(result.to_markdown())


__all__ = ["FLAGS", "build_parser", "changes", "main", "pool_text", "print_evaluations", "settings_from"]


if __name__ == "__main__":
    sys.exit(main())
