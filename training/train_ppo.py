"""MaskablePPO against the scripted zoo: the reference training recipe (docs/design.md §4).

One learner seat (drawn every episode) against opponents drawn from the zoo
for each seat and episode.  Writes under ``runs/<name>/`` (``runs/<name>_2/``, …
when an earlier run holds it): TensorBoard logs (``tb/``), checkpoints
(``checkpoints/``), ``final_model.zip``, the evaluation report
(``evaluation.json``, ``evaluation.md``) and ``learning_curve.png`` (win rate
against each zoo member over training).

    python training/train_ppo.py                          # the README's small run
    python training/train_ppo.py --name ref --time-limit-minutes 60 --total-timesteps 100000000
    python training/train_ppo.py --resume runs/ppo/checkpoints/curve_200000.zip
    python training/train_ppo.py --select-best 4     # keep the best of the last snapshots

``--select-best k`` compares the last ``k`` learning-curve snapshots before the end
and the end-of-training model (each once) on a validation seed (``seed + 2``) and
keeps the best as ``final_model.zip``; the reported evaluation uses another seed
(``seed + 1``).  Checkpoints: ``checkpoints/curve_<N>.zip`` every ``--eval-every``
steps (the models on the learning curve) and ``<name>_<N>_steps.zip`` every
``--checkpoint-every`` steps where no curve snapshot was saved; any of them resumes.
Saved models carry no TensorBoard path (no path of this machine).

Resuming continues the timestep count, the TensorBoard run and the curve, in the
run folder the checkpoint belongs to (its ``args.json`` is kept; each resume is
appended to ``resumes.jsonl``).  ``--total-timesteps`` is a total: a run resumed
at 200,000 steps with ``--total-timesteps 250000`` trains 50,000 more.  Ctrl-C
saves a checkpoint, prints the command that resumes it and exits with status 130.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    build_model,
    learn_and_finish,
    make_vec_env,
    parse_args,
    specs,
    start_run,
)
from run_folder import run_cli


@dataclass
class Args:
    """Every knob of the recipe (each is a ``--flag``)."""

    name: str = "ppo"
    num_players: int = 4
    rules: str = "standard"  # "original": the published 1990 rules (one-game envs, see the README)
    opponents: str = "zoo"  # comma-separated specs drawn per seat each episode; "zoo" = common.ZOO
    reward: str = "progress"  # win_loss plus track-progress shaping (see the README)
    total_timesteps: int = 250_000
    time_limit_minutes: float = 0.0  # stop earlier when this much wall time has passed (0 = off)
    n_envs: int = 16
    vec_env: str = "batched"  # batched engine + batched bots; or "subproc"/"dummy" (one-game envs)
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
    eval_opponents: str = "zoo"
    checkpoint_every: int = 100_000
    workers: int = 2
    resume: str = ""
    runs_dir: str = "runs"


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    """Train, evaluate, write the run folder; returns the final scores."""
    args = parse_args(Args, argv, __doc__.splitlines()[0])
    run_dir = start_run(args)
    torch.set_num_threads(1)  # many small matrices: threads only add overhead here

    env = make_vec_env(
        args.n_envs,
        args.vec_env,
        num_players=args.num_players,
        rules=args.rules,
        opponent_pool=specs(args.opponents),
        reward=args.reward,
    )
    model = build_model(args, env, run_dir)
    final, scores, table = learn_and_finish(
        model,
        env,
        args,
        run_dir,
        specs(args.eval_opponents),
        script="training/train_ppo.py",
        tb_log_name="ppo",
    )
    print(f"\n{final} against {args.num_players - 1} copies of each scripted agent:\n\n{table}\n")
    return {"scores": scores, "run_dir": str(run_dir)}


if __name__ == "__main__":
    sys.exit(run_cli(main, "train_ppo.py"))
