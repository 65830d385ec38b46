"""Time to quality: win rate against the zoo at fixed CPU budgets, MaskablePPO vs the fast learner.

Each learner trains against the zoo (one learner seat per game, the other seats
copies of a zoo member drawn per game) for every seed; whenever its training CPU
time (``time.process_time`` around training only, one torch thread) passes a budget,
the policy is saved.  Every saved policy then plays ``--games`` duplicate-format
games against three copies of each zoo member (evaluation seed 1, played greedily as
``ppo:PATH``); the mean of those win rates is the policy's quality.

* ``sb3``: MaskablePPO at the reference recipe's settings (``training/train_ppo.py``'s
  defaults: 16 envs × 256 steps, minibatch 512, 4 epochs, rate 3e-4, 128×128 tanh)
  on ``HoityVsBotsSB3VecEnv``;
* ``fast``: the fast learner (:mod:`hoity_env.learning`) at the settings of the
  fast best responses (``hoity_env.strength.response.FAST_SETTINGS``).

The record (``--out``, default ``docs/results/time_to_quality.json``) holds every
point with its learner steps, CPU seconds and per-member win rates with 95%
intervals, the command and the machine; ``docs/_generate/figures.py`` renders it.

    python benchmarks/time_to_quality.py          # 3 seeds, 1/2/5/10 CPU-minutes and 2M steps
    python benchmarks/time_to_quality.py --seeds 0 --budgets 60,120 --games 200  # a small run
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hoity_env.evaluation import evaluate_tables  # noqa: E402
from hoity_env.files import write_atomically  # noqa: E402
from hoity_env.learning import Learner, LearnerSettings  # noqa: E402
from hoity_env.strength.response import (  # noqa: E402
    FAST_SETTINGS,
    PPO_SETTINGS,
    fast_learner_settings,
    maskable_ppo,
)

ZOO = ["expert", "collector", "thief", "detective", "random"]
LEARNERS = ("fast", "sb3")
REFERENCE: dict[str, Any] = {
    "n_envs": 16,
    "n_steps": 256,
    "batch_size": 512,
    "n_epochs": 4,
    "learning_rate": 3e-4,
}


def fast_settings(seed: int) -> LearnerSettings:
    """The fast learner against the zoo: the best responses' settings, one zoo member per game."""
    one = fast_learner_settings(FAST_SETTINGS, "standard", 4, seed, 10**12, ZOO[0])
    return one.replace(opponents=tuple((spec, 1.0) for spec in ZOO))


class Marks:
    """When to save a policy: as training CPU passes each budget, and once as learner steps pass a mark.

    Both learners train until every mark has passed; each saved point records the CPU seconds
    and learner steps at which it was taken, and which mark took it (``budget`` for a CPU
    budget, ``at_steps`` for the steps mark; the other is ``None``).
    """

    def __init__(self, budgets: list[float], steps_mark: int, folder: Path, name: str) -> None:
        self.budgets, self.steps_mark, self.folder, self.name = budgets, steps_mark, folder, name
        self.points: list[dict[str, Any]] = []
        self.passed_budgets = 0
        self.steps_done = steps_mark <= 0
        self.start = time.process_time()

    def check(self, steps: int, save: Callable[[Path], None]) -> bool:
        """Save a point for every mark just passed; True once all have passed."""
        cpu = time.process_time() - self.start
        while self.passed_budgets < len(self.budgets) and cpu >= self.budgets[self.passed_budgets]:
            self._save(save, cpu, steps, budget=self.budgets[self.passed_budgets], at_steps=None)
            self.passed_budgets += 1
        if not self.steps_done and steps >= self.steps_mark:
            self._save(save, cpu, steps, budget=None, at_steps=self.steps_mark)
            self.steps_done = True
        return self.passed_budgets == len(self.budgets) and self.steps_done

    def _save(self, save: Callable[[Path], None], cpu: float, steps: int, **mark: Any) -> None:
        path = self.folder / f"{self.name}_{len(self.points)}.zip"
        save(path)
        self.points.append({**mark, "cpu": cpu, "steps": steps, "path": path})


def train_fast(seed: int, marks: Marks) -> list[dict[str, Any]]:
    """The fast learner until every mark has passed; a policy saved at each."""
    learner = Learner(fast_settings(seed))
    marks.start = time.process_time()
    learner.learn(10**12, on_iteration=lambda current, stats: marks.check(current.steps, current.save_policy))
    return marks.points


def train_sb3(seed: int, marks: Marks) -> list[dict[str, Any]]:
    """MaskablePPO at the reference settings until every mark has passed; a model saved at each."""
    from stable_baselines3.common.callbacks import BaseCallback

    from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

    env = HoityVsBotsSB3VecEnv(num_envs=REFERENCE["n_envs"], opponent_pool=ZOO, reward="progress")
    model = maskable_ppo(env, {**PPO_SETTINGS, **REFERENCE}, seed)
    marks.start = time.process_time()

    class Budgets(BaseCallback):  # type: ignore[misc]
        def _on_step(self) -> bool:
            return not marks.check(self.num_timesteps, self.model.save)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.learn(total_timesteps=10**12, callback=Budgets())
    env.close()
    return marks.points


def score(path: Path, games: int) -> dict[str, dict[str, float]]:
    """The policy against three copies of each zoo member: win rate, interval, games."""
    learner = f"ppo:{path}"
    tables = [[learner, member, member, member] for member in ZOO]
    results = evaluate_tables(tables, num_players=4, games=games, seed=1, progress=False)
    out = {}
    for member, result in zip(ZOO, results, strict=True):
        s = next(a for a in result.agent_stats if a.agent == learner)
        out[member] = {"win_rate": s.win_rate, "ci_low": s.ci_low, "ci_high": s.ci_high, "games": s.games}
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (default 0,1,2)")
    p.add_argument(
        "--budgets", default="60,120,300,600", help="CPU-seconds of training (default 60,120,300,600)"
    )
    p.add_argument(
        "--steps-mark", type=int, default=2_000_000, help="also save at this many learner steps (0: no)"
    )
    p.add_argument("--games", type=int, default=400, help="games against each zoo member (default 400)")
    p.add_argument("--learners", default=",".join(LEARNERS), help="comma-separated: fast, sb3")
    p.add_argument("--label", default="", help="what kind of run this is, kept in the record")
    p.add_argument("--out", type=Path, default=ROOT / "docs/results/time_to_quality.json")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    seeds = [int(s) for s in args.seeds.split(",")]
    budgets = sorted(float(b) for b in args.budgets.split(","))
    learners = args.learners.split(",")
    record: dict[str, Any] = {
        "command": "python benchmarks/time_to_quality.py "
        + shlex.join(argv if argv is not None else sys.argv[1:]),
        "machine": f"{os.cpu_count()} CPUs ({platform.machine()}), Python {platform.python_version()}",
        "measured": datetime.date.today().isoformat(),
        "label": args.label,
        "zoo": ZOO,
        "budgets_cpu_seconds": budgets,
        "steps_mark": args.steps_mark,
        "games_per_member": args.games,
        "fast_settings": fast_settings(0).to_dict(),
        "sb3_settings": REFERENCE,
        "points": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for learner in learners:
            for seed in seeds:
                marks = Marks(budgets, args.steps_mark, Path(tmp), f"{learner}_{seed}")
                trained = (train_fast if learner == "fast" else train_sb3)(seed, marks)
                for point in trained:
                    scores = score(point.pop("path"), args.games)
                    mean = sum(s["win_rate"] for s in scores.values()) / len(scores)
                    record["points"].append(
                        {"learner": learner, "seed": seed, **point, "mean_win_rate": mean, "scores": scores}
                    )
                    print(
                        f"{learner} seed {seed}: {point['cpu']:.0f} CPU-s, {point['steps']:,} steps, "
                        f"mean win rate vs the zoo {mean:.3f}",
                        flush=True,
                    )
                write_atomically(
                    args.out, json.dumps(record, indent=1) + "\n"
                )  # after each run: nothing lost
    return record


if __name__ == "__main__":
    main()
