"""One best response in its run folder: trained (or continued), scored, written down.

:func:`exploitability_of` is the unit every strength measurement is made of (``exploit``, the sweeps,
the ladder, the league's exploiters), so all of them share one folder format, one resume rule and one
scoring.  Progress lines go to the ``hoity_env.strength.exploit`` logger.
See docs/evaluation.md (approximate exploitability).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoity_env.agents.policies.content import content_hash
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import evaluate
from hoity_env.evaluation.reports.plots import PLOTS_INSTALL, can_plot
from hoity_env.evaluation.reports.rows import AgentStats
from hoity_env.evaluation.reports.serialize import rows_from_csv, rows_to_csv
from hoity_env.evaluation.settings import MatchSettings
from hoity_env.files import read_json, write_atomic, write_atomically
from hoity_env.learning.runs.folder import FORMAT, RESPONSE, RunFolder, read_record
from hoity_env.strength.response import BestResponse, caveat
from hoity_env.strength.results import CurvePoint, ExploitEntry, ExploitResult
from hoity_env.strength.training import train

if TYPE_CHECKING:  # torch only when something is trained
    from hoity_env.learning.runs.session import Stop

__all__ = [
    "IDENTITY",
    "STOPPED",
    "ResponseStopped",
    "exploitability_of",
    "identity",
    "read_identity",
    "response_folder",
]

logger = logging.getLogger("hoity_env.strength.exploit")

IDENTITY = "response.json"
STOPPED = "stopped.json"


class ResponseStopped(Exception):
    """A best response stopped by a signal before its end, checkpointed in ``run_dir`` at ``steps``."""

    def __init__(self, run_dir: Path, steps: int) -> None:
        super().__init__(f"best response in {run_dir} stopped at {steps:,} learner steps")
        self.run_dir, self.steps = run_dir, steps


def identity(
    target: str, settings: MatchSettings, response: BestResponse, target_hash: str
) -> dict[str, Any]:
    """What a best response is (``response.json``): a stopped one continues only under the same."""
    return {
        "target": target,
        "target_hash": target_hash,
        "num_players": settings.num_players,
        "rules": settings.rules_name,
        "seed": settings.seed,
        "games": settings.deals * settings.num_players,
        "budget": response.budget,
        "curve_points": response.curve_points,
        "curve_games": response.curve_games,
        "settings": response.settings,
    }


def response_folder(path: Path) -> RunFolder | None:
    """The best-response run folder ``path`` of this format, or ``None`` (missing, another kind's,
    another format's, damaged: never reused, never continued)."""
    try:
        record = read_record(path)
    except ConfigError:
        return None
    if record["kind"] != RESPONSE or record["format"] != FORMAT:
        return None
    return RunFolder(path, RESPONSE)


def read_identity(path: Path) -> dict[str, Any] | None:
    """``response.json`` of the best-response folder ``path`` (its one reader); ``None`` if unreadable."""
    try:
        data = read_json(path / IDENTITY)
    except ConfigError:
        return None
    return data if isinstance(data, dict) else None


def _score(path: Path, target: str, settings: MatchSettings) -> AgentStats:
    """The results of a saved learner against copies of the target (its row of the evaluation)."""
    learner = f"ppo:{path}"
    result = evaluate([learner, *([target] * (settings.num_players - 1))], settings.replace(progress=False))
    return next(a for a in result.agent_stats if a.agent == learner)


def _stopped_at(run_dir: Path) -> dict[str, Any] | None:
    """``stopped.json`` of a best response stopped earlier (its one reader), if it is whole and its
    checkpoint inside the folder is still there, else ``None`` (the run starts over)."""
    try:
        record = read_json(run_dir / STOPPED)
    except ConfigError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("checkpoint"), str):
        return None
    numbers = [record.get(k) for k in ("steps", "train_seconds", "train_cpu_seconds")]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in numbers):
        return None
    checkpoint = (run_dir / record["checkpoint"]).resolve()
    if run_dir.resolve() not in checkpoint.parents or not checkpoint.is_file():
        return None
    return record


def _curve_until(run_dir: Path, steps: int) -> list[CurvePoint]:
    """The curve points a stopped run had scored (``curve.csv``), up to ``steps``."""
    try:
        rows = rows_from_csv((run_dir / "curve.csv").read_text(encoding="utf-8"), CurvePoint)
    except (OSError, ValueError):
        return []
    return [p for p in rows if p.timesteps <= steps]


def exploitability_of(
    target: str, settings: MatchSettings, response: BestResponse, run_dir: Path, stop: Stop | None = None
) -> ExploitEntry:
    """One target's best response in the run folder ``run_dir`` (made by
    :meth:`~hoity_env.learning.runs.folder.RunFolder.create`; arguments checked before that).

    It trains with :mod:`hoity_env.strength.training`, scores the learning curve and the final
    policy, and writes ``exploit.json``, then ``finished.json``.  ``response.json``
    (:func:`identity`) says what the run is; a folder holding a stopped run of the same best
    response (``stopped.json``) continues it; a ``stop`` request checkpoints the run and raises
    :class:`ResponseStopped`.  The target's content hash is taken again after the scoring: a file
    replaced during the measurement is a :class:`ConfigError`, not a mixed result.  The folder's
    lock is held throughout: a second process training in it is refused.
    """
    folder = RunFolder(run_dir, RESPONSE)
    with folder.locked():
        return _measure(target, settings, response, folder, stop)


def _measure(
    target: str, settings: MatchSettings, response: BestResponse, folder: RunFolder, stop: Stop | None
) -> ExploitEntry:
    """:func:`exploitability_of` holding the folder's lock."""
    run_dir = folder.path
    target_hash = content_hash(target, rules=settings.rules, num_players=settings.num_players)
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    # The learner's settings beside its results: a ladder reuses a finished run only with these.
    write_atomically(
        run_dir / "settings.json", json.dumps(response.settings, indent=1, sort_keys=True) + "\n"
    )
    write_atomically(
        run_dir / IDENTITY, json.dumps(identity(target, settings, response, target_hash), indent=1) + "\n"
    )
    earlier = _stopped_at(run_dir)
    steps_before = int(earlier["steps"]) if earlier else 0
    curve = _curve_until(run_dir, steps_before) if earlier else []
    on_curve = settings.replace(games=response.curve_games, seed=settings.seed + 1)
    scoring = [0.0]  # CPU seconds of the curve evaluations, left out of the training's

    def point(timesteps: int, save: Callable[[Path], None]) -> None:
        path = run_dir / "checkpoints" / f"curve_{timesteps}.zip"
        save(path)
        before = time.process_time()
        s = _score(path, target, on_curve)
        scoring[0] += time.process_time() - before
        curve.append(CurvePoint(timesteps=timesteps, **s.win_fields()))
        write_atomically(run_dir / "curve.csv", rows_to_csv(curve, CurvePoint))
        logger.info(
            "[exploit %s] %s steps: win rate %.3f [%.3f, %.3f]",
            target,
            f"{timesteps:,}",
            s.win_rate,
            s.ci_low,
            s.ci_high,
        )

    logger.info(
        "[exploit %s] run folder %s%s",
        target,
        run_dir,
        f", resumed at {steps_before:,} steps" if earlier else "",
    )
    start, cpu = time.perf_counter(), time.process_time()
    resume_from = run_dir / earlier["checkpoint"] if earlier else None
    trained = train(target, settings, response, run_dir, point, stop, resume_from)
    train_seconds = time.perf_counter() - start + (earlier["train_seconds"] if earlier else 0.0)
    train_cpu = time.process_time() - cpu - scoring[0] + (earlier["train_cpu_seconds"] if earlier else 0.0)
    if trained.checkpoint is not None:  # stopped by a signal: say how far, for the resume
        record = {
            "steps": trained.steps,
            "checkpoint": str(trained.checkpoint.relative_to(run_dir)),
            "train_seconds": train_seconds,
            "train_cpu_seconds": train_cpu,
        }
        write_atomically(run_dir / STOPPED, json.dumps(record, indent=1) + "\n")
        if resume_from is not None and resume_from != trained.checkpoint:
            resume_from.unlink(missing_ok=True)  # superseded by the newer checkpoint
        logger.warning(
            "[exploit %s] stopped at %s steps; checkpoint %s",
            target,
            f"{trained.steps:,}",
            trained.checkpoint,
        )
        raise ResponseStopped(run_dir, trained.steps)
    logger.info(
        "[exploit %s] trained %s steps in %.1f s (%.1f CPU-s, %.1f more for the curve)",
        target,
        f"{trained.steps:,}",
        train_seconds,
        train_cpu,
        scoring[0],
    )
    final = run_dir / "final_model.zip"
    trained.save(final)
    started = time.perf_counter()
    s = _score(final, target, settings)
    eval_seconds = time.perf_counter() - started
    if content_hash(target, rules=settings.rules, num_players=settings.num_players) != target_hash:
        raise ConfigError(f"{target} changed while its best response was measured: measure it again")
    entry = ExploitEntry(
        target=target,
        timesteps=trained.steps,
        **s.win_fields(),
        mean_rank=s.mean_rank,
        train_seconds=train_seconds,
        run_dir=str(run_dir),
        curve=tuple(curve),
        train_cpu_seconds=train_cpu,
        eval_seconds=eval_seconds,
        target_hash=target_hash,
    )
    one = ExploitResult(
        num_players=settings.num_players,
        rules=settings.rules_name,
        budget=response.budget,
        seed=settings.seed,
        fair_share=1.0 / settings.num_players,
        entries=(entry,),
        **response.estimator(),
    )
    write_atomically(run_dir / "exploit.json", one.to_json() + "\n")
    write_atomically(run_dir / "exploit.md", one.to_markdown())
    if curve and can_plot():
        write_atomic(run_dir / "learning_curve.png", lambda fh: one.plot_png(fh), binary=True)
    elif curve:
        logger.info("no learning_curve.png: charts need matplotlib (%s)", PLOTS_INSTALL)
    if resume_from is not None:  # finished: the resume state is spent
        resume_from.unlink(missing_ok=True)
        (run_dir / STOPPED).unlink(missing_ok=True)
    folder.finish({"steps": trained.steps})
    logger.info(
        "[exploit %s] best response wins %.3f [%.3f, %.3f]; %s",
        target,
        entry.win_rate,
        entry.ci_low,
        entry.ci_high,
        caveat(response.budget, trained.steps),
    )
    return entry
