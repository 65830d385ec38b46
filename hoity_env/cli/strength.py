"""The strength commands of ``hoity-eval``: ``exploit`` (approximate exploitability) and ``ladder``.

``exploit`` trains a best response against copies of each target and reports its win rate, an estimate
from below at that budget (:mod:`hoity_env.strength.sweep` for several estimators); ``ladder`` plays every
agent against copies of every other, rates them and trains a best response against each
(:mod:`hoity_env.strength.ladder`).  The flags become one :class:`~hoity_env.evaluation.MatchSettings`
and one :class:`~hoity_env.strength.response.BestResponse`.  See docs/evaluation.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from hoity_env.agents import AGENT_NAMES
from hoity_env.cli.args import add_rules, non_negative, positive, specs
from hoity_env.cli.evaluate import AGENTS_HELP, SPECS_HELP, match_settings_of
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.registry import BATCHED_RULESETS
from hoity_env.evaluation.workers import usable_cpus
from hoity_env.strength.exploit import exploitability
from hoity_env.strength.ladder import LADDER_GAMES, LadderResult, ladder
from hoity_env.strength.response import (
    DEFAULT_PRESET,
    LEARNERS,
    PPO_SETTINGS,
    PRESETS,
    STRONG_SETTINGS,
    BestResponse,
)
from hoity_env.strength.results import ExploitResult, SweepResult
from hoity_env.strength.start import CURRICULUM_FRACTION, CURRICULUM_OPPONENT, DEFAULT_START, STARTS
from hoity_env.strength.sweep import Sweep, exploitability_sweep

__all__ = ["COMMANDS", "DEFAULT_BUDGET", "build_parser", "run", "timing"]

COMMANDS = ("exploit", "ladder")
DEFAULT_BUDGET = 2_000_000
"""The budget the README's ladder is measured at (issue 14 asks for at least 2M steps)."""


def build_parser(prog: str, command: str) -> argparse.ArgumentParser:
    """The ``exploit`` or ``ladder`` parser."""
    if command == "exploit":
        p = argparse.ArgumentParser(
            prog=f"{prog} exploit",
            description="Approximate exploitability: train a best response (the fast learner, or "
            "MaskablePPO) against copies of an agent for a fixed budget of learner steps, then score it "
            "in duplicate format. The result is an estimate from below at that budget. Needs the train "
            f"extra. {AGENTS_HELP}.",
        )
        p.add_argument("--target", required=True, help=f"the agent spec to exploit: {SPECS_HELP}")
        p.add_argument(
            "--pool",
            type=specs,
            default=[],
            help=f"more targets, comma-separated: {SPECS_HELP}; each gets its own best response with the "
            "same budget and seeds",
        )
        p.add_argument(
            "--resume",
            action="store_true",
            help="continue an interrupted run of this command: best responses in --runs-dir with the same "
            "settings (and the same target files) are read back when finished, continued from their "
            "checkpoint when stopped, and the others trained",
        )
        budget, budget_help = (
            None,
            (
                "learner steps per target (required unless --budgets), rounded up to whole rollouts (fast: "
                f"{STRONG_SETTINGS['num_games']} games x {STRONG_SETTINGS['rollout_steps']} steps; sb3: "
                f"{PPO_SETTINGS['n_envs']} envs x {PPO_SETTINGS['n_steps']} steps)"
            ),
        )
        games, games_help = 1000, "games of the final evaluation (default 1000)"
        runs_dir, runs_help = (
            Path("runs/exploit"),
            "each target's run folder is RUNS_DIR/<target> (_2, ... when taken); with --budgets, --seeds "
            "or --learners RUNS_DIR/<target>/<learner>_seed<seed>_<budget>",
        )
    else:
        p = argparse.ArgumentParser(
            prog=f"{prog} ladder",
            description="The ladder: each agent against copies of each other agent (head to head), "
            "Plackett-Luce and OpenSkill ratings over those games, and approximate exploitability at one "
            "budget (a best response per agent, --learner fast or sb3; finished ones in --runs-dir are "
            "reused). "
            f"Needs the train extra. {AGENTS_HELP}.",
        )
        p.add_argument(
            "--agents",
            type=specs,
            default=list(AGENT_NAMES),
            help=f"distinct agent specs, comma-separated: {SPECS_HELP} "
            f"(default: the scripted zoo, {','.join(AGENT_NAMES)})",
        )
        p.add_argument(
            "--exploit-games",
            type=positive,
            default=1000,
            help="games of each best response's final evaluation (default 1000)",
        )
        budget, budget_help = (
            None,
            f"best-response learner steps per agent (default {DEFAULT_BUDGET:,} unless --budgets)",
        )
        games, games_help = LADDER_GAMES, f"head-to-head games per ordered pair (default {LADDER_GAMES})"
        runs_dir = Path("runs/ladder")
        runs_help = (
            "best-response run folders, RUNS_DIR/<agent>; finished ones with the same settings are reused"
        )
    p.add_argument(
        "--learner",
        choices=LEARNERS,
        default="fast",
        help="who trains the best responses: fast (the fast learner on the batched engine, "
        "hoity_env.learning; the default) or sb3 (MaskablePPO, the reference recipes' learner: several "
        "times the CPU, no stronger at 2M steps, docs/evaluation.md)",
    )
    p.add_argument(
        "--preset",
        choices=tuple(PRESETS),
        default=None,
        help="the fast learner's settings: strong (STRONG_SETTINGS, chosen for strength at 2M steps) or "
        f"fast (FAST_SETTINGS, chosen for speed; what league exploiters use); default {DEFAULT_PRESET}",
    )
    p.add_argument(
        "--memory",
        type=_integers(0),
        default=None,
        help="rounds of public history the fast learner's best responses read beside the observation "
        "(every seat's location, castle role and bid in the rounds before last; default 0: none); "
        "several, comma-separated, train one best response per value and report the maximum",
    )
    p.add_argument(
        "--start",
        type=_starts,
        default=None,
        help=f"how the fast learner's best responses start: fresh (the default), warm (the actor from the "
        "target's own weights, a population's heaviest member with weights; the network's shape is the "
        f"target's; a scripted target has none) or curriculum (against {CURRICULUM_OPPONENT} for the first "
        "--curriculum-fraction of the budget, then the target); several, comma-separated, train one best "
        "response per start and report the maximum",
    )
    p.add_argument(
        "--curriculum-fraction",
        type=float,
        default=None,
        help=f"with --start curriculum: the fraction of the budget played against {CURRICULUM_OPPONENT} "
        f"first, in (0, 1) (default {CURRICULUM_FRACTION:g})",
    )
    p.add_argument("--budget", type=positive, default=budget, help=budget_help)
    p.add_argument(
        "--budgets",
        type=_integers(1),
        default=None,
        help="several budgets, comma-separated (instead of --budget): a separate best response at each",
    )
    p.add_argument(
        "--seeds",
        type=_integers(0),
        default=None,
        help="several best-response seeds, comma-separated (instead of --seed; the ladder's head-to-head "
        "games keep --seed): a best response per seed",
    )
    p.add_argument(
        "--learners",
        type=_learners,
        default=None,
        help=f"several learners, comma-separated (instead of --learner), of {','.join(LEARNERS)}; with "
        "--budgets, --seeds or --learners a target's estimate is the maximum over its best responses",
    )
    p.add_argument("--games", type=positive, default=games, help=games_help)
    p.add_argument("--players", type=positive, default=4, help="number of players, 2-6 (default 4)")
    p.add_argument(
        "--curve-points",
        type=non_negative,
        default=4,
        help="learning-curve points over the budget (default 4)",
    )
    p.add_argument(
        "--curve-games", type=positive, default=200, help="games per curve point, seed SEED+1 (default 200)"
    )
    p.add_argument(
        "--seed",
        type=non_negative,
        default=0,
        help="seed of the learner, its envs and the evaluation (default 0)",
    )
    add_rules(p, BATCHED_RULESETS, " the batched engine plays")
    p.add_argument("--runs-dir", type=Path, default=runs_dir, help=f"{runs_help} (default {runs_dir})")
    cpus = usable_cpus()
    p.add_argument(
        "--workers",
        type=positive,
        default=cpus,
        help="processes: several best responses train at once, one per process on one torch and one BLAS "
        "thread (the same results as one after another); a single one plays its evaluation games on "
        f"them (default: the usable CPUs, {cpus} here)",
    )
    p.add_argument("--out", type=Path, default=None, help="write result.{json,csv,md,png} to this folder")
    p.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    return p


def _integers(least: int) -> Callable[[str], list[int]]:
    """A comma-separated list of integers >= ``least`` (argparse type)."""
    one = positive if least == 1 else non_negative

    def parse(text: str) -> list[int]:
        return [one(item.strip()) for item in text.split(",")]

    return parse


def _learners(text: str) -> list[str]:
    """A comma-separated list of learners (argparse type)."""
    items = [s.strip() for s in text.split(",")]
    for item in items:
        if item not in LEARNERS:
            raise argparse.ArgumentTypeError(f"learners are {', '.join(LEARNERS)}, got {item!r}")
    return items


def _starts(text: str) -> list[str]:
    """A comma-separated list of starts (argparse type)."""
    items = [s.strip() for s in text.split(",")]
    for item in items:
        if item not in STARTS:
            raise argparse.ArgumentTypeError(f"starts are {', '.join(STARTS)}, got {item!r}")
    return items


def torch_on_one_thread() -> None:
    """Torch on one thread, as the training recipes run it: many small matrices, threads only add overhead."""
    try:
        import torch
    except ImportError:  # pragma: no cover - the commands say which extra is missing
        return
    torch.set_num_threads(1)


def _memories(args: argparse.Namespace) -> list[int]:
    """``--memory``'s values (``[0]`` without it), refused where no fast learner trains."""
    memories = args.memory if args.memory is not None else [0]
    if len(set(memories)) != len(memories):
        raise ConfigError(f"--memory must not repeat a value, got {','.join(map(str, memories))}")
    if any(memories) and "fast" not in (args.learners or [args.learner]):
        raise ConfigError("--memory is the fast learner's: use --learner fast (the default)")
    return memories


def _starts_of(args: argparse.Namespace) -> tuple[list[str], float]:
    """``--start``'s values (``[fresh]`` without it) and the curriculum fraction, refused where no fast
    learner trains, repeated, or a fraction without a curriculum."""
    starts = args.start if args.start is not None else [DEFAULT_START]
    if len(set(starts)) != len(starts):
        raise ConfigError(f"--start must not repeat a value, got {','.join(starts)}")
    if starts != [DEFAULT_START] and "fast" not in (args.learners or [args.learner]):
        raise ConfigError(
            "--start warm and curriculum are the fast learner's: use --learner fast (the default)"
        )
    if args.curriculum_fraction is not None and "curriculum" not in starts:
        raise ConfigError("--curriculum-fraction needs --start curriculum")
    fraction = CURRICULUM_FRACTION if args.curriculum_fraction is None else args.curriculum_fraction
    return starts, fraction


def _sweep_of(args: argparse.Namespace, command: str) -> Sweep | None:
    """The :class:`Sweep` of a command with ``--budgets``, ``--seeds``, ``--learners`` or several
    ``--memory`` values, else ``None``.

    The ladder's ``--budget`` defaults to :data:`DEFAULT_BUDGET` (:func:`_budget`); ``exploit``
    needs one of the two.
    """
    if args.budgets is not None and args.budget is not None:
        raise ConfigError("give --budget or --budgets, not both")
    if args.budget is None and args.budgets is None and command == "exploit":
        raise ConfigError("give --budget BUDGET or --budgets B1,B2,... (learner steps per best response)")
    memories = _memories(args)
    starts, fraction = _starts_of(args)
    one = args.budgets is None and args.seeds is None and args.learners is None
    if one and len(memories) == 1 and len(starts) == 1:
        return None
    return Sweep(
        budgets=tuple(args.budgets or [_budget(args)]),
        seeds=tuple(args.seeds if args.seeds is not None else [args.seed]),
        learners=tuple(args.learners or [args.learner]),
        curve_points=args.curve_points,
        curve_games=args.curve_games,
        runs_dir=args.runs_dir,
        memories=tuple(memories),
        preset=args.preset,
        starts=tuple(starts),
        curriculum=fraction,
    )


def _budget(args: argparse.Namespace) -> int:
    """``--budget``; else the largest of ``--budgets``; else :data:`DEFAULT_BUDGET` (the ladder's)."""
    if args.budget is not None:
        return int(args.budget)
    return int(max(args.budgets or [DEFAULT_BUDGET]))


def run(command: str, args: argparse.Namespace) -> ExploitResult | LadderResult | SweepResult:
    """Run one parsed ``exploit`` or ``ladder`` command."""
    torch_on_one_thread()
    settings = match_settings_of(args, args.players)
    targets = [args.target, *[s for s in args.pool if s != args.target]] if command == "exploit" else []
    sweep = _sweep_of(args, command)
    if sweep is not None and command == "exploit":
        return exploitability_sweep(targets, sweep, settings, resume=args.resume)
    (memory,) = _memories(args) if sweep is None else [0]
    (start,), fraction = _starts_of(args) if sweep is None else ([DEFAULT_START], CURRICULUM_FRACTION)
    response = BestResponse(
        budget=_budget(args),
        curve_points=args.curve_points,
        curve_games=args.curve_games,
        runs_dir=args.runs_dir,
        ppo={"memory": memory} if memory else None,
        learner=args.learner,
        preset=args.preset,
        start=start,
        curriculum=fraction,
    )
    if command == "exploit":
        return exploitability(targets, settings, response, resume=args.resume)
    return ladder(args.agents, settings, response, exploit_games=args.exploit_games, sweep=sweep)


def timing(result: ExploitResult | LadderResult | SweepResult, seconds: float) -> str:
    """What the command's time went to: the best responses' training and final evaluations (wall
    seconds, summed over them: with several workers they overlap), and the whole command."""
    entries = (result.sweep or result.exploit) if isinstance(result, LadderResult) else result.entries
    train = sum(e.train_seconds for e in entries)
    evaluation = sum(e.eval_seconds for e in entries)
    played = sum(e.games for e in entries)
    head = f"{result.games} head-to-head games and " if isinstance(result, LadderResult) else ""
    return (
        f"{head}{len(entries)} best responses: {train:.1f} s of training and {evaluation:.1f} s for their "
        f"{played} evaluation games (wall time summed over the best responses; a ladder's found ones are "
        f"their own runs' times); the whole command took {seconds:.1f} s"
    )
