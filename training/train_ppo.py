"""MaskablePPO against the scripted zoo: the reference training recipe (docs/design.md §4).

One learner seat (drawn every episode) against opponents drawn from the zoo
for each seat and episode.  Writes under ``runs/<name>/`` (``runs/<name>_2/``, …
when an earlier run holds it): TensorBoard logs (``tb/``), checkpoints
(``checkpoints/``), ``final_model.zip``, the evaluation report
(``evaluation.json``, ``evaluation.md``), ``learning_curve.png`` (win rate
against each zoo member over training) and SB3's training log (``log.txt``,
``progress.csv``).  It prints where the run is, a progress bar (on a terminal) and
the final table; ``--verbose`` prints the training log as well.

    python training/train_ppo.py                          # the README's small run
    python training/train_ppo.py --name ref --time-limit-minutes 60 --total-timesteps 100000000
    python training/train_ppo.py --resume runs/ppo/checkpoints/curve_200000.zip
    python training/train_ppo.py --select-best 4     # keep the best of the last snapshots
    python training/train_ppo.py --verbose           # SB3's training tables on stdout too

``--select-best k`` compares the last ``k`` learning-curve snapshots before the end
and the end-of-training model (each once) on a validation seed (``seed + 2``) and
keeps the best as ``final_model.zip``; the reported evaluation uses another seed
(``seed + 1``).  Checkpoints: ``checkpoints/curve_<N>.zip`` every ``--eval-every``
steps (the models on the learning curve) and ``<name>_<N>_steps.zip`` every
``--checkpoint-every`` steps where no curve snapshot was saved; any of them resumes.
Saved models carry no TensorBoard path (no path of this machine).

``--resume RUN_FOLDER`` (its latest complete checkpoint) or ``--resume CHECKPOINT``
continues in that run folder with the run's own settings (its ``args.json``; a flag
that contradicts them is refused, ``--time-limit-minutes`` and ``--workers`` may
change); the timestep count, TensorBoard and the curve continue, and each resume is
appended to ``resumes.jsonl``.  A finished run is final: resuming it is refused.
Ctrl-C and SIGTERM save a checkpoint, print the command that resumes the run and
exit with status 130 and 143; after a kill -9, ``--resume RUN_FOLDER``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_setup import build_model, make_vec_env
from recipe_args import RecipeArgs, parse_args, specs
from run_folder import run_folder
from run_training import learn_and_finish, run_cli


@dataclass
class Args(RecipeArgs):
    """Every knob of the recipe (each is a ``--flag``): the shared ones of ``RecipeArgs`` and these."""

    name: str = "ppo"
    total_timesteps: int = 250_000
    opponents: str = "zoo"  # comma-separated specs drawn per seat each episode; "zoo" = the scripted zoo
    n_envs: int = 16
    vec_env: str = "batched"  # batched engine + batched bots; or "subproc"/"dummy" (one-game envs)
    eval_opponents: str = "zoo"


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    """Train, evaluate, write the run folder; returns the final scores."""
    args, resume = parse_args(Args, argv, __doc__.splitlines()[0])
    with run_folder(args, resume) as run_dir:
        torch.set_num_threads(1)  # many small matrices: threads only add overhead here
        env = make_vec_env(
            args.n_envs,
            args.vec_env,
            num_players=args.num_players,
            rules=args.rules,
            opponent_pool=specs(args.opponents),
            reward=args.reward,
        )
        model = build_model(args, env, run_dir, resume)
        final, scores, table = learn_and_finish(
            model, env, args, run_dir, specs(args.eval_opponents), script="training/train_ppo.py"
        )
    print(f"\n{final} against {args.num_players - 1} copies of each scripted agent:\n\n{table}\n")
    return {"scores": scores, "run_dir": str(run_dir)}


if __name__ == "__main__":
    sys.exit(run_cli(main, "train_ppo.py"))
