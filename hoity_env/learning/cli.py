"""``hoity-learn`` (also ``python -m hoity_env.learning``): the fast learner from the command line.

Three modes, by who sits in the other seats::

    hoity-learn --steps 2000000                         # self-play, parameter sharing
    hoity-learn --pool "self@2,snapshot,expert,thief"   # a league: weighted per-game draws
    hoity-learn --against expert --steps 2000000        # a best response to copies of expert
    hoity-learn --resume runs/learn                     # continue a run with its own settings

Each run writes a run folder (``--out``, default ``runs/learn``; a taken name gets
``_2``, ``_3`` …) holding ``settings.json``, ``progress.jsonl``, checkpoints and
``policy.zip``, a ``MaskablePPO`` zip to pass on as ``ppo:PATH``.  ``--players 2,3,4,5,6``
trains one policy on all those player counts at once (padded observations; ``--padded``
pads a single count's too), and the saved policy plays each of them.  ``--eval-games N``
then plays the policy against copies of the target (``random`` for self-play and
pools), at each player count, with ``hoity_env.evaluation.evaluate`` and prints the table.
Results go to stdout, progress to stderr.  The run plays under ``--blas-threads``
numpy threads (default 1: an opponent such as ``champion`` is a numpy network;
:mod:`hoity_env.threads`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from hoity_env.cli_args import add_blas_threads, add_settings_flags, fail, parse_and_log
from hoity_env.engine.errors import ConfigError
from hoity_env.files import fresh_folder
from hoity_env.learning.runs import LATEST, resume, train_in_folder
from hoity_env.learning.settings import SELF, LearnerSettings, parse_counts, parse_pool
from hoity_env.threads import limit_blas

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
    "accelerator": ("--accelerator", str, "batched engine: auto, numpy or numba"),
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
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hoity-learn",
        description="Train a masked-PPO policy with the fast learner on the batched engine.",
        epilog="Examples:\n  " + "\n  ".join(line.strip() for line in __doc__.splitlines()[5:9]),
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
        "--eval-games", type=int, default=0, help="games against 3 copies of the target afterwards"
    )
    add_blas_threads(p)
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


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_and_log(build_parser(), argv)
    if isinstance(args, int):
        return args
    with limit_blas(args.blas_threads):
        return _train(args)


def _train(args: argparse.Namespace) -> int:
    start = time.process_time()
    try:
        if args.resume is not None:
            folder, learner = args.resume, resume(args.resume)
        else:
            settings = settings_from(args)
            folder = fresh_folder(args.out)
            learner = train_in_folder(settings, folder)
    except ConfigError as exc:
        return fail("hoity-learn", exc)
    cpu = time.process_time() - start
    s = learner.settings
    shares = ", ".join(f"{k} {v / max(cpu, 1e-9):.0%}" for k, v in learner.cpu.items())
    print(
        f"fast learner: {learner.steps} learner steps, {learner.updates} updates, {cpu:.1f} CPU-s ({shares})"
    )
    print(f"policy: {Path(folder) / LATEST}  (use it as ppo:{Path(folder) / LATEST})")
    if args.eval_games:
        target = next((spec for spec, _ in s.opponents if spec not in (SELF, "snapshot")), "random")
        if len(s.opponents) > 1:
            target = "random"
        print_evaluations(f"ppo:{Path(folder) / LATEST}", [target], s, args.eval_games, s.seed)
    return 0


def print_evaluations(me: str, targets: Iterable[str], s: LearnerSettings, games: int, seed: int) -> None:
    """``--eval-games``: the table of ``me`` in one seat against copies of each target, printed.

    ``s`` gives the players and rules of the games (the trained run's own; each of its counts).
    """
    from hoity_env.evaluation import evaluate

    for n in s.player_counts:
        for target in targets:
            table = [me] + [target] * (n - 1)
            result = evaluate(table, num_players=n, games=games, seed=seed, rules=s.rules)
            print(result.to_markdown())


__all__ = ["FLAGS", "build_parser", "main", "print_evaluations", "settings_from"]
