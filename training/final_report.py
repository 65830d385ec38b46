"""The end of a run: the final model (or the best recent snapshot), its evaluation and report.

Every score here is the duplicate-format match of :mod:`hoity_env.evaluation`: the
learner against ``num_players - 1`` copies of each yardstick, the same deals
replayed with the seats rotated, on a seed of its own (curve ``SEED``, final
``SEED+1``, snapshot choice ``SEED+2``) so that choosing a model never biases the
reported result.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_folder import copy_file, mark_finished, save_model
from sb3_contrib import MaskablePPO

from hoity_env.evaluation import AgentStats, evaluate_tables
from hoity_env.evaluation.reports.serialize import ordered_asdict
from hoity_env.files import write_atomically


def select_best(
    candidates: Sequence[Path],
    opponents: Sequence[str],
    *,
    games: int,
    seed: int,
    workers: int,
    num_players: int,
    rules: str = "standard",
    log: Callable[[str], None] = print,
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
        log(f"[select] {path.name}: mean win rate {mean:.3f}")
    best = max(range(len(table)), key=lambda i: table[i]["mean_win_rate"])
    return Path(candidates[best]), table


def finish(
    model: MaskablePPO | Any,
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
    match: dict[str, Any] = {"workers": args.workers, "num_players": args.num_players, "rules": args.rules}
    k = args.select_best
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
        model.logger.log(
            f"[select] choosing the final model among {len(candidates)} on seed {args.seed + 2} "
            f"({args.validation_games} games per opponent) ...",
        )
        best, table = select_best(
            candidates,
            opponents,
            games=args.validation_games,
            seed=args.seed + 2,
            log=model.logger.log,
            **match,
        )
        copy_file(best, final)
        meta = {**meta, "selected_from": table, "selected": str(best)}
    model.logger.log(
        f"trained {model.num_timesteps:,} timesteps in {train_seconds / 60:.1f} min; evaluating "
        f"{final.name} in {args.final_eval_games} games against each of {len(opponents)} opponents ..."
    )
    scores = score_checkpoint(
        final, opponents, games=args.final_eval_games, seed=args.seed + 1, desc="final evaluation", **match
    )
    meta = {
        "model": str(final),
        "timesteps": model.num_timesteps,
        "train_minutes": train_seconds / 60,
        "games_per_opponent": args.final_eval_games,
        "seed": args.seed + 1,
        **meta,
    }
    table = write_report(run_dir, scores, args.num_players, meta)
    mark_finished(run_dir, model.num_timesteps)  # written last: the run is final
    return final, scores, table


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
    progress: bool = True,
) -> dict[str, AgentStats]:
    """The checkpoint against ``num_players - 1`` copies of each opponent, duplicate format.

    Shows a progress bar labelled ``desc`` on a terminal unless ``progress`` is false
    (these evaluations take minutes); in a log file it stays silent and the caller's
    own lines tell the story.
    """
    learner = f"ppo:{model_path}"
    tables = [[learner, *([o] * (num_players - 1))] for o in opponents]
    match: dict[str, Any] = {
        "num_players": num_players,
        "games": games,
        "seed": seed,
        "workers": workers,
        "rules": rules,
    }
    results = evaluate_tables(tables, progress=progress, desc=desc, **match)
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
        json.dumps({"meta": meta, "scores": {k: ordered_asdict(v) for k, v in scores.items()}}, indent=1),
    )
    write_atomically(run_dir / "evaluation.md", f"# Evaluation of {meta.get('model')}\n\n{table}\n")
    return table
