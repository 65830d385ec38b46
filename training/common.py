"""Shared plumbing of the training recipes: CLI from a dataclass, vec envs, evaluation, curves.

The recipes (``train_ppo.py``, ``selfplay.py``) stay one readable file each;
what they share (turning ``Args`` into a command line, building vector envs,
scoring a checkpoint against the zoo, the learning-curve callback) lives here.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run_folder sits beside this file
from run_folder import (
    check_args,
    copy_file,
    curve_timesteps,
    interrupted,
    record_resume,
    resume_folder,
    save_model,
)
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from hoity_env.agents import SPEC_FORMS
from hoity_env.environment.rewards import REWARD_MODES
from hoity_env.evaluation import AgentStats, evaluate_tables
from hoity_env.evaluation.harness import rules_batchable
from hoity_env.files import fresh_folder, write_atomic, write_atomically
from hoity_env.wrappers import SingleAgentEnv
from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

ZOO = ("expert", "collector", "thief", "detective", "random")
"""The scripted zoo: training opponents and evaluation yardsticks (``expert-v1``, the first
expert, is left out: name it to add it)."""

A = TypeVar("A")

VEC_ENVS = ("batched", "subproc", "dummy")

_SPEC_SYNTAX = f"comma-separated agent specs ({SPEC_FORMS}), or 'zoo' for {','.join(ZOO)}"
FLAG_HELP = {
    "name": "run name: writes to RUNS_DIR/NAME (NAME_2, ... when taken)",
    "num_players": "players per game, 2-6",
    "rules": "rules preset: standard | original (original: one-game envs, --vec-env batched becomes dummy)",
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
        "PATH of a checkpoint .zip to continue from, in its own run folder "
        "(TOTAL_TIMESTEPS stays a total; curve and TensorBoard continue)"
    ),
    "runs_dir": "folder that holds the run folders",
}
"""One-line help of every recipe flag, with its choices or syntax (``--help`` shows the default too)."""


def parse_args(cls: type[A], argv: Sequence[str] | None, description: str) -> A:
    """A command line with one ``--flag`` per field of the ``Args`` dataclass ``cls``."""
    parser = argparse.ArgumentParser(description=description)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        flag = "--" + f.name.replace("_", "-")
        default = f.default
        text = FLAG_HELP.get(f.name, "")
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=text)
        else:
            kind = type(default) if default is not None else str
            parser.add_argument(
                flag, type=kind, default=default, help=f"{text} (default: {default!r})".strip()
            )
    return cls(**vars(parser.parse_args(argv)))


def specs(text: str) -> list[str]:
    """``"expert,random"`` → ``["expert", "random"]``; ``"zoo"`` → the scripted zoo."""
    out = [s.strip() for s in text.split(",") if s.strip()]
    return list(ZOO) if out == ["zoo"] else out


def run_directory(runs_dir: str, name: str, resume: str) -> Path:
    """The run folder ``runs_dir/name``, or ``name_2``, ``name_3``, … if that one is taken.

    A fresh run never writes into an older run's folder: its curve would be appended
    to the old one and ``--select-best`` could pick the old run's snapshots.  Resuming
    (``resume`` set) continues in ``runs_dir/name`` itself.
    """
    base = Path(runs_dir) / name
    if resume:
        return base
    run_dir = fresh_folder(base)
    if run_dir != base:
        print(f"{base} holds an earlier run; writing to {run_dir}", flush=True)
    return run_dir


def _check_vec_env(kind: str) -> None:
    if kind not in VEC_ENVS:
        raise ValueError(f"--vec-env must be one of {VEC_ENVS}, got {kind!r}")


def _check_lr_fraction(frac: float) -> None:
    if not 0.0 <= frac <= 1.0:
        raise ValueError(f"--final-lr-fraction must be in [0, 1], got {frac}")


def start_run(args: Any, *subdirs: str) -> Path:
    """Check the recipe's ``Args``, then make its run folder and write ``args.json`` there.

    Bad arguments (agent specs included) fail before any folder or worker process
    exists (``run_folder.check_args``). The folder is :func:`run_directory`'s, with
    ``checkpoints/`` and ``subdirs`` inside; a resume continues in the folder its
    checkpoint belongs to and leaves that run's ``args.json`` as it was (the resume
    is recorded in ``resumes.jsonl``).
    """
    check_args(args, specs, VEC_ENVS)
    resumed = resume_folder(args)
    run_dir = resumed or run_directory(args.runs_dir, args.name, "")
    for sub in ("checkpoints", *subdirs):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    if resumed is None:
        write_atomically(run_dir / "args.json", json.dumps(dataclasses.asdict(args), indent=1))
    else:
        print(f"resuming in {run_dir} (its args.json is kept; this resume goes to resumes.jsonl)")
    return run_dir


def remaining_timesteps(model: MaskablePPO, total: int) -> int:
    """Timesteps still to train: ``--total-timesteps`` is a total, also on resume."""
    left = max(total - model.num_timesteps, 0)
    if not left:
        print(f"the model already has {model.num_timesteps:,} >= --total-timesteps {total:,}; not training")
    return left


def make_vec_env(n_envs: int, vec_env: str = "batched", **env_kwargs: Any) -> VecEnv:
    """``n_envs`` games of the single-agent view.

    ``"batched"`` (the default) plays them all in one batched engine with batched bots
    (:class:`~hoity_env.wrappers.sb3_vec_env.HoityVsBotsSB3VecEnv`), the fastest by far
    (``benchmarks/profile_training.py``).  ``"subproc"`` runs :class:`SingleAgentEnv`
    copies in subprocesses (one env alone stays in-process);
    ``"dummy"`` steps them all in this process, which on two cores was the faster of
    the two with 16 envs (``benchmarks/profile_training.py``): the env step is short
    next to the pipe round trip.
    """
    _check_vec_env(vec_env)
    rules = env_kwargs.get("rules", "standard")
    if vec_env == "batched" and not rules_batchable(rules):
        print(
            f"the batched engine plays only the standard rules: {rules!r} trains on --vec-env dummy",
            flush=True,
        )
        vec_env = "dummy"
    if vec_env == "batched":
        return HoityVsBotsSB3VecEnv(num_envs=n_envs, **env_kwargs)
    if vec_env == "subproc" and n_envs > 1:

        def worker_env() -> SingleAgentEnv:
            # Runs in the worker (pickled by value): Ctrl-C is the main process's to handle.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            return SingleAgentEnv(**env_kwargs)

        return SubprocVecEnv([worker_env] * n_envs)  # type: ignore[list-item]
    fns: list[Callable[[], SingleAgentEnv]] = [lambda: SingleAgentEnv(**env_kwargs) for _ in range(n_envs)]
    return DummyVecEnv(fns)  # type: ignore[arg-type, list-item]


def build_model(args: Any, env: VecEnv, run_dir: Path) -> MaskablePPO:
    """A new MaskablePPO from the recipe's ``Args``, or the one ``args.resume`` names."""
    if args.resume:
        model = MaskablePPO.load(args.resume, env=env, device="cpu", tensorboard_log=str(run_dir / "tb"))
        print(f"resumed from {args.resume} at {model.num_timesteps:,} timesteps")
        record_resume(run_dir, args, model.num_timesteps)
        return model
    # ``final_lr_fraction < 1`` decays the rate linearly over ``total_timesteps`` (a run
    # cut short by its time limit stops part-way down): late, smaller updates keep the
    # last snapshots from swinging between checkpoints.
    frac = getattr(args, "final_lr_fraction", 1.0)
    _check_lr_fraction(frac)
    learning_rate = (
        LinearSchedule(args.learning_rate, args.learning_rate * frac, 1.0) if frac < 1 else args.learning_rate
    )
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=learning_rate,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        ent_coef=args.ent_coef,
        seed=args.seed,
        device="cpu",
        policy_kwargs={"net_arch": [args.net_width, args.net_width]},
        tensorboard_log=str(run_dir / "tb"),
    )


class Checkpoints(BaseCallback):  # type: ignore[misc]
    """Every ``every`` timesteps, ``<prefix>_<N>_steps.zip``, unless ``curve`` saved this very model.

    With ``--checkpoint-every`` equal to ``--eval-every`` (the defaults) the learning
    curve's ``curve_<N>.zip`` is the checkpoint (it resumes the same way), so the
    same model is not written twice.
    """

    def __init__(self, every: int, folder: Path, prefix: str, curve: LearningCurve | None = None) -> None:
        super().__init__()
        self.every, self.folder, self.prefix, self.curve = every, folder, prefix, curve
        self.next_save = every

    def _on_training_start(self) -> None:
        self.next_save = (self.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_save:
            self.next_save = (self.num_timesteps // self.every + 1) * self.every
            if self.curve is None or self.num_timesteps not in self.curve.scored:
                save_model(self.model, self.folder / f"{self.prefix}_{self.num_timesteps}_steps.zip")
        return True


def select_best(
    candidates: Sequence[Path],
    opponents: Sequence[str],
    *,
    games: int,
    seed: int,
    workers: int,
    num_players: int,
    rules: str = "standard",
) -> tuple[Path, list[dict[str, Any]]]:
    """The candidate with the best mean win rate against ``opponents`` on a validation seed.

    The validation seed must differ from the final evaluation's, so that picking a
    checkpoint does not bias the reported result.
    """
    table = []
    for path in candidates:
        scores = score_checkpoint(
            path,
            opponents,
            games=games,
            seed=seed,
            workers=workers,
            num_players=num_players,
            desc=f"[select] {path.name}",
            rules=rules,
        )
        mean = sum(s.win_rate for s in scores.values()) / len(scores)
        table.append(
            {
                "checkpoint": str(path),
                "mean_win_rate": mean,
                **{name: s.win_rate for name, s in scores.items()},
            }
        )
        print(f"[select] {path.name}: mean win rate {mean:.3f}", flush=True)
    best = max(range(len(table)), key=lambda i: table[i]["mean_win_rate"])
    return Path(candidates[best]), table


def learn_and_finish(
    model: MaskablePPO,
    env: VecEnv,
    args: Any,
    run_dir: Path,
    opponents: Sequence[str],
    *,
    script: str,
    tb_log_name: str,
    callbacks: Sequence[BaseCallback] = (),
    meta: Callable[[], dict[str, Any]] = dict,
) -> tuple[Path, dict[str, AgentStats], str]:
    """Train to ``--total-timesteps`` with the learning curve and checkpoints, then :func:`finish`.

    What every recipe does around ``model.learn``: ``callbacks`` run before the curve
    (selfplay's league), ``meta()`` adds to the report once training is over, and
    Ctrl-C saves a checkpoint and exits with status 130 (``run_folder.interrupted``).
    """
    curve = LearningCurve(
        run_dir,
        args.eval_every,
        opponents,
        args.eval_games,
        args.seed,
        args.workers,
        args.num_players,
        time_limit_s=args.time_limit_minutes * 60,
    )
    curve.rules = getattr(args, "rules", "standard")
    checkpoints = Checkpoints(args.checkpoint_every, run_dir / "checkpoints", args.name, curve)
    start = time.time()
    try:
        model.learn(
            total_timesteps=remaining_timesteps(model, args.total_timesteps),
            callback=CallbackList([*callbacks, curve, checkpoints]),
            reset_num_timesteps=not args.resume,
            tb_log_name=tb_log_name,
        )
        train_seconds = time.time() - start
        env.close()
        curve.evaluate()  # the last point of the curve
        return finish(model, args, run_dir, opponents, train_seconds, **meta())
    except KeyboardInterrupt:
        env.close()
        interrupted(model, args, run_dir, script)


def finish(
    model: MaskablePPO,
    args: Any,
    run_dir: Path,
    opponents: Sequence[str],
    train_seconds: float,
    **meta: Any,
) -> tuple[Path, dict[str, AgentStats], str]:
    """Save ``final_model.zip``, score it against ``opponents`` and write the evaluation report.

    With ``args.select_best = k > 0`` the final model is the best of the last ``k``
    learning-curve snapshots before the end and the end-of-training model, judged on
    ``args.validation_games`` games per opponent with seed ``args.seed + 2`` (the
    report uses ``args.seed + 1``).  The end-of-training model is the curve's
    snapshot at the final timestep when there is one (the recipes score it), else
    ``checkpoints/last_model.zip``; each model is a candidate once.
    """
    final = run_dir / "final_model.zip"
    save_model(model, final)
    k = getattr(args, "select_best", 0)
    if k > 0:
        snapshots = sorted(
            (run_dir / "checkpoints").glob("curve_*.zip"), key=lambda p: int(p.stem.split("_")[1])
        )
        end = run_dir / "checkpoints" / f"curve_{model.num_timesteps}.zip"
        earlier = [p for p in snapshots if p != end]
        if not end.exists():
            end = run_dir / "checkpoints" / "last_model.zip"
            copy_file(final, end)
        candidates = [*earlier[-k:], end]
        print(
            f"[select] choosing the final model among {len(candidates)} on seed {args.seed + 2} "
            f"({args.validation_games} games per opponent) ...",
            flush=True,
        )
        best, table = select_best(
            candidates,
            opponents,
            games=args.validation_games,
            seed=args.seed + 2,
            workers=args.workers,
            num_players=args.num_players,
            rules=getattr(args, "rules", "standard"),
        )
        copy_file(best, final)
        meta = {**meta, "selected_from": table, "selected": str(best)}
    print(
        f"trained {model.num_timesteps:,} timesteps in {train_seconds / 60:.1f} min; evaluating "
        f"{final.name} in {args.final_eval_games} games against each of {len(opponents)} opponents ...",
        flush=True,
    )
    scores = score_checkpoint(
        final,
        opponents,
        games=args.final_eval_games,
        seed=args.seed + 1,
        workers=args.workers,
        num_players=args.num_players,
        desc="final evaluation",
        rules=getattr(args, "rules", "standard"),
    )
    meta = {
        "model": str(final),
        "timesteps": model.num_timesteps,
        "train_minutes": train_seconds / 60,
        "games_per_opponent": args.final_eval_games,
        "seed": args.seed + 1,
        **meta,
    }
    return final, scores, write_report(run_dir, scores, args.num_players, meta)


def score_checkpoint(
    model_path: Path,
    opponents: Sequence[str],
    *,
    games: int,
    seed: int,
    workers: int,
    num_players: int = 4,
    desc: str = "",
    rules: str = "standard",
) -> dict[str, AgentStats]:
    """The checkpoint against ``num_players - 1`` copies of each opponent, duplicate format.

    Shows a progress bar labelled ``desc`` on a terminal (these evaluations take
    minutes); in a log file it stays silent and the caller's own lines tell the story.
    """
    learner = f"ppo:{model_path}"
    tables = [[learner, *([o] * (num_players - 1))] for o in opponents]
    results = evaluate_tables(
        tables,
        num_players=num_players,
        games=games,
        seed=seed,
        workers=workers,
        progress=True,
        desc=desc,
        rules=rules,
    )
    return {
        opponent: next(s for s in result.agent_stats if s.agent == learner)
        for opponent, result in zip(opponents, results, strict=True)
    }


def stats_markdown(scores: dict[str, AgentStats], num_players: int) -> str:
    """Markdown table: the learner against copies of each opponent."""
    rows = [
        f"| opponent (×{num_players - 1}) | games | win rate | 95% interval | mean rank | mean rounds |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in scores.items():
        rows.append(
            f"| {name} | {s.games} | {s.win_rate:.3f} | [{s.ci_low:.3f}, {s.ci_high:.3f}] | "
            f"{s.mean_rank:.2f} | {s.mean_rounds:.1f} |"
        )
    return "\n".join(rows)


def write_report(run_dir: Path, scores: dict[str, AgentStats], num_players: int, meta: dict[str, Any]) -> str:
    """``evaluation.json`` and ``evaluation.md`` in ``run_dir``; returns the Markdown."""
    table = stats_markdown(scores, num_players)
    write_atomically(
        run_dir / "evaluation.json",
        json.dumps({"meta": meta, "scores": {k: dataclasses.asdict(v) for k, v in scores.items()}}, indent=1),
    )
    write_atomically(run_dir / "evaluation.md", f"# Evaluation of {meta.get('model')}\n\n{table}\n")
    return table


class LearningCurve(BaseCallback):  # type: ignore[misc]
    """Every ``every`` timesteps: save a snapshot, score it against the zoo, extend the curve.

    Writes ``curve.csv`` and ``learning_curve.png`` in the run folder and prints a
    progress line (timesteps, steps/s, elapsed, the latest win rates).  Stops
    training once ``time_limit_s`` has passed (0 = no limit).
    """

    def __init__(
        self,
        run_dir: Path,
        every: int,
        opponents: Sequence[str],
        games: int,
        seed: int,
        workers: int,
        num_players: int,
        time_limit_s: float = 0.0,
        on_score: Callable[[int, dict[str, AgentStats]], None] | None = None,
    ) -> None:
        super().__init__()
        self.run_dir, self.every, self.opponents = run_dir, every, list(opponents)
        self.games, self.seed, self.workers, self.num_players = games, seed, workers, num_players
        self.time_limit_s, self.on_score = time_limit_s, on_score
        self.rules = "standard"
        """Rules preset the curve scores under (the recipe's ``--rules``)."""
        self.start = time.time()
        self.next_eval = every
        self.last_print = 0.0
        self.csv_path = run_dir / "curve.csv"
        self.scored = curve_timesteps(self.csv_path)
        """Timesteps already on the curve (a resumed run never scores one twice)."""

    def _on_training_start(self) -> None:
        self.start = time.time()
        self.start_steps = self.num_timesteps
        self.next_eval = (self.num_timesteps // self.every + 1) * self.every
        if (
            self.num_timesteps % self.every == 0
            and self.num_timesteps
            and self.num_timesteps not in self.scored
        ):
            self.next_eval = self.num_timesteps  # interrupted during this evaluation: redo it first

    def _on_step(self) -> bool:
        now = time.time()
        if now - self.last_print > 15:
            self.last_print = now
            rate = (self.num_timesteps - self.start_steps) / max(now - self.start, 1e-9)
            print(
                f"[{now - self.start:6.0f}s] timesteps {self.num_timesteps:>9,}  {rate:6.0f} steps/s",
                flush=True,
            )
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.every
            self.evaluate()
        return not (self.time_limit_s and now - self.start > self.time_limit_s)

    def evaluate(self) -> dict[str, AgentStats] | None:
        """Score the current policy now and extend the curve (once per timestep count)."""
        if self.num_timesteps in self.scored:
            return None
        path = self.run_dir / "checkpoints" / f"curve_{self.num_timesteps}.zip"
        save_model(self.model, path)
        print(f"[eval @ {self.num_timesteps:,}] scoring against {', '.join(self.opponents)} ...", flush=True)
        scores = score_checkpoint(
            path,
            self.opponents,
            games=self.games,
            seed=self.seed,
            workers=self.workers,
            num_players=self.num_players,
            desc=f"[eval @ {self.num_timesteps:,}]",
            rules=self.rules,
        )
        # The whole curve is rewritten atomically: a kill mid-write never leaves half a row.
        out = io.StringIO()
        if self.csv_path.exists():
            out.write(self.csv_path.read_text())
        else:
            out.write("timesteps,opponent,win_rate,ci_low,ci_high,games\n")
        writer = csv.writer(out, lineterminator="\n")
        for name, s in scores.items():
            writer.writerow([self.num_timesteps, name, s.win_rate, s.ci_low, s.ci_high, s.games])
            self.logger.record(f"eval/win_rate_vs_{name}", s.win_rate)
        write_atomic(self.csv_path, lambda fh: fh.write(out.getvalue()))
        self.scored.add(self.num_timesteps)
        plot_curve(self.csv_path, self.run_dir / "learning_curve.png", self.num_players)
        summary = ", ".join(f"{k} {v.win_rate:.2f}" for k, v in scores.items())
        print(f"[eval @ {self.num_timesteps:,}] win rate vs 3 copies of: {summary}", flush=True)
        if self.on_score is not None:
            self.on_score(self.num_timesteps, scores)
        return scores


def plot_curve(csv_path: Path, png_path: Path, num_players: int) -> None:
    """Win rate against each opponent over training, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float, float, float]]] = {}
    with csv_path.open() as fh:
        for row in csv.DictReader(fh):
            series.setdefault(row["opponent"], []).append(
                (int(row["timesteps"]), float(row["win_rate"]), float(row["ci_low"]), float(row["ci_high"]))
            )
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, points in series.items():
        points.sort()
        xs = [p[0] for p in points]
        ax.plot(xs, [p[1] for p in points], marker="o", label=f"vs {num_players - 1}× {name}")
        ax.fill_between(xs, [p[2] for p in points], [p[3] for p in points], alpha=0.15)
    ax.axhline(1.0 / num_players, linestyle="--", color="grey", label="even")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    fig.tight_layout()
    write_atomic(png_path, lambda fh: fig.savefig(fh, format="png", dpi=100), binary=True)
    plt.close(fig)
