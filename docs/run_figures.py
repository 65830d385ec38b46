"""What the training pages say about the committed runs, rendered from the runs' own files.

The reference run (``docs/reference/``) and the champion (``docs/reference/champion/``)
keep their ``args.json``, ``evaluation.json`` (with the training minutes, the snapshots
compared and the league's gates) and ``curve.csv``; the ladder keeps each best response's
training time in ``result.json``.  The sentences around those runs' tables (how long they
trained, which snapshot was kept, what they beat) are made here from those files, so they
cannot disagree with the tables.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from hoity_env.evaluation.reports.markdown import interval, rate

ROOT = Path(__file__).resolve().parent.parent
REFERENCE, CHAMPION = "docs/reference", "docs/reference/champion"


def _json(path: str) -> Any:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def _run(folder: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(args, evaluation meta, scores) of a committed run."""
    evaluation = _json(f"{folder}/evaluation.json")
    return _json(f"{folder}/args.json"), evaluation["meta"], evaluation["scores"]


def _selected(meta: dict[str, Any]) -> tuple[str, float]:
    """The kept snapshot's step count in words and its validation mean win rate."""
    kept = next(c for c in meta["selected_from"] if c["checkpoint"] == meta["selected"])
    steps = int(Path(kept["checkpoint"]).stem.rsplit("_", 1)[1])
    return f"{steps / 1e6:g} M", kept["mean_win_rate"]


def _speed(meta: dict[str, Any]) -> str:
    return f"{meta['timesteps'] / (meta['train_minutes'] * 60):,.0f}"


def reference_run() -> str:
    """How long the reference run trained and which snapshot it kept."""
    args, meta, _ = _run(REFERENCE)
    kept, mean = _selected(meta)
    return (
        f"It trained {meta['timesteps'] / 1e6:.2f} M timesteps in {meta['train_minutes']:.0f} minutes "
        f"(about {_speed(meta)} steps/s of wall time, learning-curve evaluations included), kept the "
        f"{kept} snapshot (the best mean win rate against the zoo among the last {args['select_best']}, "
        f"{mean:.3f}, on validation seed 2, {args['validation_games']} games per opponent) and scored, in "
        f"{meta['games_per_opponent']:,} games per opponent with duplicate seat rotation (evaluation "
        f"seed {meta['seed']}); from `{REFERENCE}/evaluation.json`:"
    )


def reference_verdict() -> str:
    """The reference agent against the targets, and against today's expert."""
    _, _, scores = _run(REFERENCE)
    v1, rnd = scores["expert"], scores["random"]
    first = _json("docs/results/expert/reference_vs_expert/result.json")["agent_stats"][0]
    against = (
        f"against three of today's `expert` the agent wins {rate(first['win_rate'])} "
        f"{interval(first['ci_low'], first['ci_high'])} (seed 0, [The expert](agents.md#the-expert))"
    )
    return (
        f"This table was measured before the stronger expert existed: its `expert` row is today's "
        f"`expert-v1`; {against}. Against three `expert-v1` bots it wins far more than 1/4 (the "
        f"interval's lower bound is {v1['ci_low']:.3f}), and against three `random` bots it wins "
        f"{100 * rnd['win_rate']:.1f}% (target ≥ 90%)."
    )


def reference_curve() -> str:
    """What more steps bought the reference run, from its learning curve against ``random``."""
    with (ROOT / REFERENCE / "curve.csv").open(encoding="utf-8") as fh:
        points = [(int(r["timesteps"]), float(r["win_rate"])) for r in csv.DictReader(fh) if r["opponent"] == "random"]
    at_1m = next(w for t, w in points if t >= 1_000_000)
    late = [w for t, w in points if t >= 2_500_000]
    return (
        f"More steps: against randoms the learning curve (100 games a point, `{REFERENCE}/curve.csv`) reads "
        f"{at_1m:.2f} at 1 M steps and {min(late):.2f}–{max(late):.2f} from 2.5 M on."
    )


def champion_run() -> str:
    """How long the champion trained, its gates and the snapshot kept."""
    args, meta, _ = _run(CHAMPION)
    kept, mean = _selected(meta)
    gates = meta["gates"]
    admitted = sum(g["admitted"] for g in gates)
    return (
        f"It stopped at its {meta['train_minutes']:.0f}-minute limit after "
        f"{meta['timesteps'] / 1e6:.1f} M learner steps (about {_speed(meta)} steps/s of wall time, curve "
        f"and gate evaluations included). {admitted} of its {len(gates)} gates admitted a snapshot (the "
        f"league's last {args['max_snapshots']} are kept). `--select-best {args['select_best']}` kept the "
        f"{kept} snapshot: mean win rate {mean:.3f} against the pool on validation seed 2 "
        f"(`{CHAMPION}/evaluation.json`)."
    )


def champion_vs_reference() -> str:
    """The champion and the reference agent against three randoms."""
    champion, reference = _run(CHAMPION)[2]["random"], _run(REFERENCE)[2]["random"]
    word = "less" if champion["win_rate"] < reference["win_rate"] else "more"
    return (
        f"Against three randoms it wins {word} than the reference agent does "
        f"({rate(champion['win_rate'])} against {rate(reference['win_rate'])})."
    )


def ladder_times() -> str:
    """How long the ladder's best responses trained."""
    exploit = _json("docs/reference/ladder/result.json")["exploit"]
    minutes = sorted(e["train_seconds"] / 60 for e in exploit)
    slowest = max(exploit, key=lambda e: e["train_seconds"])["target"]
    return (
        f"The {len(exploit)} best responses trained {minutes[0]:.0f} to {minutes[-1]:.0f} minutes each "
        f"(`docs/reference/ladder/result.json`), the `{slowest}`'s the longest."
    )


FIGURES = {
    "champion-run": champion_run,
    "champion-vs-reference": champion_vs_reference,
    "ladder-times": ladder_times,
    "reference-curve": reference_curve,
    "reference-run": reference_run,
    "reference-verdict": reference_verdict,
}
