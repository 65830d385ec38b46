"""MaskablePPO self-play: a league of frozen snapshots of the learner plus the zoo (docs/design.md §4).

Opponent seats are drawn every episode from the league: the scripted zoo and the
snapshots that earned a place.  Every ``gate_every`` timesteps the current policy
is scored against three copies of each league member; when its mean win rate
passes ``gate_win_rate`` (above the even 1/n), it is frozen into
``runs/<name>/league/`` and joins the pool of every env worker (oldest snapshots
leave beyond ``max_snapshots``).  Also writes TensorBoard logs, checkpoints,
``final_model.zip``, the evaluation report and ``learning_curve.png`` (win rate
against the zoo over training), like ``train_ppo.py``.

    python training/selfplay.py --name league --total-timesteps 2000000
    python training/selfplay.py --name champion --shared-games 8 ...   # the champion's run (README)
    python training/selfplay.py --name league --resume runs/league/checkpoints/curve_400000.zip

With ``--shared-games G > 0`` the learner also plays every seat of G self-play games
(parameter sharing, :class:`~hoity_env.wrappers.sb3_vec_env.HoityLeagueSB3VecEnv`):
each rollout then holds ``G × num_players`` self-play seats beside the ``--n-envs``
games against the league pool (batched engine only).  ``--zoo-weights`` draws the
zoo's members unevenly.

``--learner fast`` trains on the fast learner of :mod:`hoity_env.learning`
(:class:`FastLeague`: the same gate, the league drawn per game; ``training/fast_run.py``
says what carries over from the flags); ``--learner sb3`` (the default) on MaskablePPO.

A resumed run (``--resume RUN_FOLDER``) continues in its own run folder with its own
settings and finds its league again in its ``league/``; ``--total-timesteps`` is a
total, a finished run is final, and Ctrl-C or SIGTERM saves a checkpoint and exits
with status 130 or 143, as in ``train_ppo.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fast_run import FastModel, build_learner, fast_settings, learn_and_finish_fast
from final_report import score_checkpoint
from model_setup import build_model, make_vec_env
from recipe_args import RecipeArgs, parse_args, specs
from run_callbacks import next_multiple
from run_folder import Resume, copy_file, run_folder, save_model
from run_training import learn_and_finish, run_cli

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import rules_batchable
from hoity_env.learning import Learner
from hoity_env.learning.settings import SELF, SNAPSHOT
from hoity_env.wrappers.sb3_vec_env import HoityLeagueSB3VecEnv


@dataclass
class Args(RecipeArgs):
    """Every knob of the recipe (each is a ``--flag``): the shared ones of ``RecipeArgs`` and these."""

    name: str = "selfplay"
    learner: str = "sb3"  # "sb3": MaskablePPO; "fast": hoity_env.learning's learner
    zoo: str = "zoo"  # scripted members of the league
    zoo_weights: str = ""  # comma-separated draw weights, one per zoo member (default: 1 each)
    n_envs: int = 16
    shared_games: int = 0  # >0: also G self-play games, the learner in every seat (batched only)
    vec_env: str = "batched"  # batched engine + batched bots; or "subproc"/"dummy" (one-game envs)
    gate_every: int = 100_000
    gate_games: int = 100
    gate_win_rate: float = 0.35
    max_snapshots: int = 4
    snapshot_weight: int = 2  # a snapshot is drawn this many times as often as one zoo member


class League(BaseCallback):  # type: ignore[misc]
    """The win-rate gate: freezes the learner into the league when it beats the league."""

    def __init__(self, args: Args, league_dir: Path, env: VecEnv) -> None:
        super().__init__()
        self.args, self.league_dir, self.env = args, league_dir, env
        self.zoo = specs(args.zoo)
        self.snapshots = sorted(league_dir.glob("snapshot_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
        self.next_gate = args.gate_every
        self.history: list[dict[str, object]] = []

    def pool(self) -> list[str]:
        """Zoo members ``--zoo-weights`` times each (default once), snapshots ``snapshot_weight`` times."""
        frozen = [f"ppo-sample:{p}" for p in self.snapshots] * self.args.snapshot_weight
        weighted = [spec for spec, w in zip(self.zoo, zoo_weights(self.args), strict=True) for _ in range(w)]
        return [*weighted, *frozen]

    def _on_training_start(self) -> None:
        self.env.env_method("set_opponent_pool", self.pool())
        self.next_gate = (self.num_timesteps // self.args.gate_every + 1) * self.args.gate_every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_gate:
            self.next_gate += self.args.gate_every
            self.gate()
        return True

    def gate(self) -> None:
        """Score the learner against every league member; admit it if it passes."""
        self.snapshots, record = run_gate(
            self.args,
            self.league_dir,
            self.snapshots,
            self.num_timesteps,
            lambda path: save_model(self.model, path),
            self.logger.log,
        )
        self.history.append(record)
        self.logger.record("league/mean_win_rate", record["mean_win_rate"])
        if record["admitted"]:
            self.env.env_method("set_opponent_pool", self.pool())
        self.logger.record("league/snapshots", len(self.snapshots))


def run_gate(
    args: Args,
    league_dir: Path,
    snapshots: list[Path],
    timesteps: int,
    save: Callable[[Path], None],
    log: Callable[[str], None],
) -> tuple[list[Path], dict[str, object]]:
    """One gate, either learner: score the candidate (``save(path)`` writes it) against the league.

    Returns the league's snapshots afterwards (the candidate admitted as
    ``snapshot_<timesteps>.zip`` when its mean win rate reaches ``--gate-win-rate``; the
    oldest leave beyond ``--max-snapshots``) and the gate's record.
    """
    candidate = league_dir / "candidate.zip"
    save(candidate)
    members = [*specs(args.zoo), *(f"ppo:{p}" for p in snapshots)]
    scores = score_checkpoint(
        candidate,
        members,
        games=args.gate_games,
        seed=args.seed + timesteps,
        workers=args.workers,
        num_players=args.num_players,
        desc=f"[gate @ {timesteps:,}]",
        rules=args.rules,
    )
    mean = sum(s.win_rate for s in scores.values()) / len(scores)
    admitted = mean >= args.gate_win_rate
    log(
        f"[gate @ {timesteps:,}] mean win rate vs league {mean:.3f} "
        f"({'admitted' if admitted else 'not admitted'}; gate {args.gate_win_rate})"
    )
    if admitted:
        snapshot = league_dir / f"snapshot_{timesteps}.zip"
        copy_file(candidate, snapshot)
        snapshots = [*snapshots, snapshot][-args.max_snapshots :]
    return snapshots, {"timesteps": timesteps, "mean_win_rate": mean, "admitted": admitted}


class FastLeague:
    """The league on the fast learner: zoo members and admitted snapshots drawn per game.

    The pool is the zoo (``--zoo-weights``), one ``snapshot`` entry (the fast learner's
    frozen copies, added only by the gate: the snapshots together weigh
    ``snapshot_weight`` × their number, as on SB3's path) and, with ``--shared-games G``,
    ``self`` games (the learner in every seat) drawn G / ``--n-envs`` as often as the rest.
    """

    def __init__(self, args: Args, league_dir: Path, learner: Learner) -> None:
        self.args, self.league_dir, self.learner = args, league_dir, learner
        self.snapshots = sorted(league_dir.glob("snapshot_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
        self.next_gate = next_multiple(learner.steps, args.gate_every)
        self.history: list[dict[str, object]] = []

    @staticmethod
    def pool(args: Args, snapshots: int = 1) -> tuple[tuple[str, float], ...]:
        """The learner's pool and its weights with ``snapshots`` admitted (``snapshot`` entries are
        not drawn before the first, whatever their weight)."""
        zoo = [(spec, float(w)) for spec, w in zip(specs(args.zoo), zoo_weights(args), strict=True) if w > 0]
        pool = [*zoo, (SNAPSHOT, float(args.snapshot_weight * max(snapshots, 1)))]
        if args.shared_games:
            rest = sum(w for _, w in zoo) + args.snapshot_weight * snapshots
            pool.append((SELF, rest * args.shared_games / args.n_envs))
        return tuple(pool)

    def __call__(self, learner: Learner) -> None:
        """After each iteration: a gate when due."""
        if learner.steps < self.next_gate:
            return
        self.next_gate = next_multiple(learner.steps, self.args.gate_every)
        self.snapshots, record = run_gate(
            self.args,
            self.league_dir,
            self.snapshots,
            learner.steps,
            lambda path: save_model(FastModel(learner), path),
            print,
        )
        self.history.append(record)
        if record["admitted"]:
            learner.seating.add_snapshot(learner.policy)
            learner.seating.set_weights([w for _, w in self.pool(self.args, len(self.snapshots))])


def main_fast(args: Args, resume: Resume | None) -> dict[str, object]:
    """:func:`main` on the fast learner (``--learner fast``; ``training/fast_run.py``)."""
    if not rules_batchable(args.rules):
        raise ConfigError(f"--learner fast trains on the batched engine, which does not play {args.rules!r}")
    settings = fast_settings(args, FastLeague.pool(args), "n_envs")
    settings = settings.replace(
        num_games=settings.num_games + args.shared_games, snapshot_every=0, snapshots_kept=args.max_snapshots
    )
    with run_folder(args, resume, "league") as run_dir:
        learner = build_learner(settings, args, run_dir, resume)
        league = FastLeague(args, run_dir / "league", learner)
        final, scores, table = learn_and_finish_fast(
            learner,
            args,
            run_dir,
            specs(args.zoo),
            script="training/selfplay.py",
            each_iteration=league,
            meta=lambda: {"league": [str(p) for p in league.snapshots], "gates": league.history},
        )
    print(
        f"\nleague: {len(league.snapshots)} snapshot(s); {final} against "
        f"{args.num_players - 1} copies of each scripted agent:\n\n{table}\n"
    )
    return {"scores": scores, "run_dir": str(run_dir), "league": league.snapshots, "gates": league.history}


def zoo_weights(args: Args) -> list[int]:
    """``--zoo-weights`` as integers, one per zoo member (all 1 when not given)."""
    zoo = specs(args.zoo)
    if not args.zoo_weights.strip():
        return [1] * len(zoo)
    try:
        weights = [int(w) for w in args.zoo_weights.split(",")]
    except ValueError:
        weights = []
    if len(weights) != len(zoo) or min(weights) < 0 or sum(weights) < 1:
        raise ConfigError(
            f"--zoo-weights needs {len(zoo)} comma-separated integers >= 0 (one per zoo member, "
            f"not all 0), got {args.zoo_weights!r}"
        )
    return weights


def league_env(args: Args) -> VecEnv:
    """The pool games (``--n-envs``), plus ``--shared-games`` self-play games when asked.

    The pool given here is the unweighted zoo; :class:`League` sets the weighted pool
    with its snapshots when training starts."""
    common = {"num_players": args.num_players, "rules": args.rules, "reward": args.reward}
    if args.shared_games <= 0:
        return make_vec_env(args.n_envs, args.vec_env, opponent_pool=specs(args.zoo), **common)
    return HoityLeagueSB3VecEnv(
        num_games=args.shared_games, num_pool_games=args.n_envs, opponent_pool=specs(args.zoo), **common
    )


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    """Train with the league, evaluate against the zoo, write the run folder."""
    args, resume = parse_args(Args, argv, __doc__.splitlines()[0])
    if args.shared_games < 0:
        raise ConfigError(f"--shared-games must be >= 0, got {args.shared_games}")
    zoo_weights(args)  # bad weights fail before the run folder exists
    if args.learner == "fast":
        return main_fast(args, resume)
    if args.shared_games and (args.vec_env != "batched" or not rules_batchable(args.rules)):
        raise ConfigError("--shared-games needs --vec-env batched")
    with run_folder(args, resume, "league") as run_dir:
        league_dir = run_dir / "league"
        torch.set_num_threads(1)

        env = league_env(args)
        model = build_model(args, env, run_dir, resume)
        league = League(args, league_dir, env)
        final, scores, table = learn_and_finish(
            model,
            env,
            args,
            run_dir,
            specs(args.zoo),
            script="training/selfplay.py",
            callbacks=[league],
            meta=lambda: {"league": [str(p) for p in league.snapshots], "gates": league.history},
        )
    print(
        f"\nleague: {len(league.snapshots)} snapshot(s); {final} against "
        f"{args.num_players - 1} copies of each scripted agent:\n\n{table}\n"
    )
    return {"scores": scores, "run_dir": str(run_dir), "league": league.snapshots, "gates": league.history}


if __name__ == "__main__":
    sys.exit(run_cli(main, "selfplay.py"))
