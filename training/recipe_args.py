"""The recipes' settings: the knobs every recipe shares, and a command line made from a dataclass.

Each recipe declares a typed ``Args`` dataclass (CleanRL style) that extends
:class:`RecipeArgs` with its own knobs and defaults; :func:`parse_args` turns it
into ``--flags`` (one per field, with the one-line help of :data:`FLAG_HELP`) and,
for ``--resume``, takes the run's own settings from its ``args.json``
(:func:`run_folder.resume_settings`).  ``--verbose`` is not a setting of the run (it
is never in ``args.json`` and may change on a resume): it says what this session prints.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the recipes' modules sit side by side
from arg_checks import VEC_ENVS, ZOO, specs
from run_folder import Resume, resume_settings

from hoity_env.agents import SPEC_FORMS
from hoity_env.environment.rewards import REWARD_MODES

A = TypeVar("A")


@dataclass
class RecipeArgs:
    """The knobs every recipe has (each is a ``--flag``); a recipe's ``Args`` adds its own."""

    name: str = "run"
    num_players: int = 4
    rules: str = "standard"  # "original": the published 1990 rules (docs/rulesets.md)
    reward: str = "progress"  # win_loss plus track-progress shaping (see the README)
    total_timesteps: int = 500_000
    time_limit_minutes: float = 0.0  # stop earlier when this much wall time has passed (0 = off)
    seed: int = 0
    learning_rate: float = 3e-4
    final_lr_fraction: float = 1.0  # <1: decay the rate linearly to this fraction over total_timesteps
    n_steps: int = 256
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_width: int = 128
    eval_every: int = 100_000
    eval_games: int = 100
    final_eval_games: int = 400
    select_best: int = 0  # >0: final model = best of the last k curve snapshots + the last model
    validation_games: int = 400  # per opponent, on seed + 2, for --select-best
    checkpoint_every: int = 100_000
    workers: int = 2
    resume: str = ""
    runs_dir: str = "runs"
    verbose: ClassVar[bool] = False
    """``--verbose``: print SB3's training log here too (it is always in the run's ``log.txt``); set by
    :func:`parse_args` on the instance, a class variable so that it is no setting of the run."""


_SPEC_SYNTAX = f"comma-separated agent specs ({SPEC_FORMS}), or 'zoo' for {','.join(ZOO)}"
FLAG_HELP = {
    "name": "run name: writes to RUNS_DIR/NAME (NAME_2, ... when taken)",
    "num_players": "players per game, 2-6",
    "rules": "rules preset: standard | original (both play on the batched engine)",
    "opponents": f"training opponents drawn per seat each episode: {_SPEC_SYNTAX}; repeat one to weight it",
    "zoo": f"scripted members of the league: {_SPEC_SYNTAX}",
    "zoo_weights": "comma-separated draw weights, one integer per --zoo member (default: 1 each)",
    "shared_games": (
        "selfplay: also this many self-play games with the learner in every seat (parameter sharing; "
        "batched only); 0 = off"
    ),
    "reward": f"reward mode: {' | '.join(REWARD_MODES)} (progress = win_loss + track-progress shaping)",
    "total_timesteps": "learner steps to train (rounded up to whole rollouts of N_ENVS x N_STEPS)",
    "time_limit_minutes": "stop training after this many minutes of wall time; 0 = no limit",
    "n_envs": "training games played at once (envs of the vector env)",
    "num_games": "games in the batch; SB3 sees NUM_GAMES x NUM_PLAYERS envs, one per seat",
    "vec_env": (
        f"vector env: {' | '.join(VEC_ENVS)} (batched: one batched engine with batched bots, the fastest; "
        "subproc/dummy: one-game envs in worker processes / in this process)"
    ),
    "seed": "seed of the model and envs; evaluations use SEED (curve), SEED+1 (final), SEED+2 (validation)",
    "learning_rate": "Adam learning rate (the start value when FINAL_LR_FRACTION < 1)",
    "final_lr_fraction": "in [0, 1]: decay the learning rate linearly to this fraction of it; 1 = constant",
    "n_steps": "rollout steps per env between updates",
    "batch_size": "PPO minibatch size",
    "n_epochs": "PPO epochs per update",
    "gamma": "discount factor",
    "gae_lambda": "GAE lambda",
    "ent_coef": "entropy bonus coefficient",
    "net_width": "units in each of the two hidden layers of the policy and value networks",
    "gate_every": "steps between gates (scoring the learner against the league)",
    "gate_games": "games per league member at each gate",
    "gate_win_rate": "in [0, 1]: mean win rate against the league that admits the learner as a snapshot",
    "max_snapshots": "snapshots kept in the league (the oldest leaves)",
    "snapshot_weight": "a snapshot is drawn this many times as often as one zoo member",
    "eval_every": "steps between learning-curve points (each saves checkpoints/curve_<N>.zip)",
    "eval_games": "games per opponent at each learning-curve point",
    "final_eval_games": "games per opponent in the final evaluation (seed SEED+1)",
    "select_best": "k > 0: keep the best of the last k curve snapshots and the end model; 0 = off",
    "validation_games": "games per opponent for --select-best, on seed SEED+2",
    "eval_opponents": f"yardsticks of the learning curve and final evaluation: {_SPEC_SYNTAX}",
    "checkpoint_every": "steps between checkpoints/NAME_<N>_steps.zip (none where a curve snapshot is)",
    "workers": "evaluation worker processes",
    "resume": (
        "continue an unfinished run: RUNS_DIR/NAME (its latest complete checkpoint) or one of its "
        "checkpoint .zip files; the run keeps its own args.json settings (only --time-limit-minutes "
        "and --workers may change)"
    ),
    "runs_dir": "folder that holds the run folders",
    "learner": (
        "sb3: MaskablePPO (the default) | fast: the fast learner of hoity_env.learning (--n-steps, "
        "--batch-size, --n-epochs, --learning-rate and the game count at their defaults mean its own, "
        "see training/fast_run.py)"
    ),
}
"""One-line help of every recipe flag, with its choices or syntax (``--help`` shows the default too)."""

VERBOSE_HELP = (
    "print MaskablePPO's training log (its tables, the evaluations' lines) here instead of a progress bar; "
    "the log is always written to RUNS_DIR/NAME/log.txt"
)


def parse_args(cls: type[A], argv: Sequence[str] | None, description: str) -> tuple[A, Resume | None]:
    """A command line with one ``--flag`` per field of the ``Args`` dataclass ``cls``.

    Returns the settings and, for ``--resume``, where the run continues: its own
    ``args.json`` then supplies every setting the command line does not override
    (:func:`run_folder.resume_settings` refuses a flag that contradicts it).
    """
    parser = argparse.ArgumentParser(description=description)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        flag = "--" + f.name.replace("_", "-")
        default = f.default
        text = FLAG_HELP.get(f.name, "")
        # SUPPRESS: the namespace holds only the flags given, which a resume must tell apart.
        if isinstance(default, bool):
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=text
            )
        else:
            kind = type(default) if default is not None else str
            parser.add_argument(
                flag, type=kind, default=argparse.SUPPRESS, help=f"{text} (default: {default!r})".strip()
            )
    parser.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    given: dict[str, Any] = vars(parser.parse_args(argv))
    verbose = given.pop("verbose")
    args, resume = resume_settings(cls, given) if given.get("resume") else (cls(**given), None)
    if verbose:
        args.verbose = True  # type: ignore[attr-defined]
    return args, resume


__all__ = ["FLAG_HELP", "ZOO", "RecipeArgs", "parse_args", "specs"]
