"""One MaskablePPO policy playing every seat at once (parameter sharing) on the batched engine.

Self-play the classic PettingZoo + SB3 way, with action masks: each of
``--num-games`` games on the batched engine contributes all its seats as SB3
envs (:class:`hoity_env.wrappers.sb3_vec_env.HoitySharedSB3VecEnv`), so the policy
plays against copies of itself and learns from every seat's experience.  It is
then scored against the scripted zoo like the other recipes (docs/design.md §4).

``--learner fast`` trains with the fast learner of
:mod:`hoity_env.learning` (every seat of every game through one forward pass, on
the batched engine; ``training/fast_run.py`` says what carries over from the flags),
``--learner sb3`` (the default) with MaskablePPO on
:class:`~hoity_env.wrappers.sb3_vec_env.HoitySharedSB3VecEnv`.

Writes under ``runs/<name>/`` as ``train_ppo.py`` does (TensorBoard ``tb/``,
``checkpoints/``, ``final_model.zip``, ``evaluation.json``/``.md``,
``curve.csv`` and ``learning_curve.png``), and resumes, finishes and stops on a
signal as ``train_ppo.py`` does (``--resume RUN_FOLDER``).

    python training/shared_ppo.py                                 # a small run
    python training/shared_ppo.py --num-games 64 --total-timesteps 5000000
    python training/shared_ppo.py --learner fast                  # the fast learner
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fast_run import build_learner, fast_settings, learn_and_finish_fast
from model_setup import build_model
from recipe_args import RecipeArgs, parse_args, specs
from run_folder import run_folder
from run_training import learn_and_finish, run_cli

from hoity_env.wrappers.sb3_vec_env import HoitySharedSB3VecEnv


@dataclass
class Args(RecipeArgs):
    """Every knob of the recipe (each is a ``--flag``): the shared ones of ``RecipeArgs`` and these."""

    name: str = "shared"
    learner: str = "sb3"  # "sb3": MaskablePPO; "fast": hoity_env.learning's learner
    num_games: int = 16  # games in the batch; SB3 sees num_games * num_players envs
    total_timesteps: int = 500_000  # agent-steps summed over every seat
    batch_size: int = 1024
    eval_opponents: str = "zoo"  # comma-separated specs for the learning curve and final report
    eval_every: int = 200_000
    checkpoint_every: int = 200_000
    workers: int = 1


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    """Train with parameter sharing, evaluate against the zoo, write the run folder."""
    args, resume = parse_args(Args, argv, __doc__.splitlines()[0])
    opponents = specs(args.eval_opponents)
    common = {"script": "training/shared_ppo.py", "meta": lambda: {"parameter_sharing": True}}
    if args.learner == "fast":
        settings = fast_settings(args, (("self", 1.0),), "num_games")  # bad values fail before the folder
        with run_folder(args, resume) as run_dir:
            learner = build_learner(settings, args, run_dir, resume)
            final, scores, table = learn_and_finish_fast(learner, args, run_dir, opponents, **common)
    else:
        with run_folder(args, resume) as run_dir:
            torch.set_num_threads(1)  # many small matrices: threads only add overhead here
            env = HoitySharedSB3VecEnv(
                num_games=args.num_games, num_players=args.num_players, reward=args.reward, rules=args.rules
            )
            model = build_model(args, env, run_dir, resume)
            final, scores, table = learn_and_finish(model, env, args, run_dir, opponents, **common)
    print(f"\n{final} against {args.num_players - 1} copies of each scripted agent:\n\n{table}\n")
    return {"scores": scores, "run_dir": str(run_dir)}


if __name__ == "__main__":
    sys.exit(run_cli(main, "shared_ppo.py"))
