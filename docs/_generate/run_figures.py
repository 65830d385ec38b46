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

from perf_figures import span, transcribed, transcribed_note

from hoity_env.evaluation.reports.markdown import interval, rate

ROOT = Path(__file__).resolve().parents[2]
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
        f"{interval(first['ci_low'], first['ci_high'])} (seed 0, [The expert](../agents.md#the-expert))"
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
        points = [
            (int(r["timesteps"]), float(r["win_rate"]))
            for r in csv.DictReader(fh)
            if r["opponent"] == "random"
        ]
    at_1m = next(w for t, w in points if t >= 1_000_000)
    late = [w for t, w in points if t >= 2_500_000]
    return (
        f"More steps: against randoms the learning curve (100 games a point, `{REFERENCE}/curve.csv`) reads "
        f"{at_1m:.2f} at 1 M steps and {span(late, '.2f')} from 2.5 M on."
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


AIM = 0.45
"""The exploitability the champion was meant to stay under."""
CHAMPION_SPECS = {
    "sampling": "ppo-sample:docs/reference/champion/final_model.zip",
    "greedy": "ppo:docs/reference/champion/final_model.zip",
}
REFERENCE_SPECS = {
    "greedy": "ppo:docs/reference/final_model.zip",
    "sampling": "ppo-sample:docs/reference/final_model.zip",
}


def ladder_reading() -> str:
    """What the ladder shows about the champion, from ``docs/reference/ladder/result.json``."""
    ladder = _json("docs/reference/ladder/result.json")
    rows = {r["agent"]: r for r in ladder["rows"]}
    pairs = {(p["agent"], p["opponent"]): p for p in ladder["pairs"]}
    sampling, greedy = CHAMPION_SPECS["sampling"], CHAMPION_SPECS["greedy"]
    top = sorted(rows, key=lambda a: -rows[a]["rating"])[:2]
    others = [p for (a, o), p in pairs.items() if a == sampling and o != greedy]
    weakest = min(others, key=lambda p: p["win_rate"])
    lows = {
        a: min(p["ci_low"] for (x, o), p in pairs.items() if x == a and o not in CHAMPION_SPECS.values())
        for a in CHAMPION_SPECS.values()
    }
    steps = {e["timesteps"] for e in ladder["exploit"]}

    def exploit(agent: str) -> str:
        return rate(rows[agent]["exploit_win_rate"])

    tops = "Both ways of playing it top" if set(top) == set(CHAMPION_SPECS.values()) else "It ranks high in"
    below = "above" if min(lows.values()) > 0.5 else "not all above"
    return (
        f"Exploitability is the win rate of a MaskablePPO best response against three copies of the "
        f"agent, trained for {', '.join(f'{t:,}' for t in sorted(steps))} learner steps (the budget "
        f"rounded up to whole rollouts). It is an estimate from below at that budget: a longer or "
        f"better best response can only win more. What it shows:\n\n"
        f"* **The champion is the strongest agent here.** {tops} the Plackett-Luce rating. Each form "
        f"plays three copies of every other agent head to head with every 400-game interval's lower "
        f"bound {below} 0.50. For the sampling champion the lowest such rate is "
        f"{rate(weakest['win_rate'])}, against `{weakest['opponent']}`. The one exception is the other "
        f"form of the champion: the sampling one wins {rate(pairs[(sampling, greedy)]['win_rate'])} "
        f"against three greedy ones, and the greedy one {rate(pairs[(greedy, sampling)]['win_rate'])} "
        f"against three sampling ones.\n"
        f"* **Every agent is very exploitable at this budget.** The sampling champion gives up "
        f"{exploit(sampling)} {interval(rows[sampling]['exploit_low'], rows[sampling]['exploit_high'])}, "
        f"against {exploit('expert')} for `expert`, {exploit('expert-v1')} for `expert-v1` and "
        f"{exploit(REFERENCE_SPECS['greedy'])} (greedy) and {exploit(REFERENCE_SPECS['sampling'])} "
        f"(sampling) for the reference agent; played greedily, the champion gives up "
        f"{exploit(greedy)}, as a deterministic policy does. Even the least exploitable is "
        f"{'far above' if rows[sampling]['exploit_win_rate'] > 2 * ladder['fair_share'] else 'above'} the "
        f"fair share {ladder['fair_share']:.2f} and "
        f"{'above' if rows[sampling]['exploit_win_rate'] > AIM else 'within'} "
        f"the {AIM} we aimed for."
    )


def detective_reward() -> str:
    """Why the standard detective reward is 2 (a transcribed simulation)."""
    record = transcribed("detective_reward", "docs/results/rules")
    f = record["figures"]
    spans = {k: f"{100 * lo:.0f}–{100 * hi:.0f}%" for k, (lo, hi) in f["detective_only_win_rate"].items()}
    return (
        f"**Standard `detective_reward` is 2, not 3**: in {f['games']:,}-game simulations a detective-only "
        f"policy won {spans['3']} of {f['players']}-player games against opponents who sometimes steal "
        f"with 3, and {spans['2']} with 2; the castle stays a rock-paper-scissors. "
        f"{transcribed_note('detective_reward', record, 'docs/results/rules')}"
    )


def random_play() -> str:
    """Game length and seat fairness under random play, from the zoo baseline's random table."""
    path = "docs/results/baseline/random/result.json"
    result = _json(path)
    agent = result["agent_stats"][0]
    seats = [s["win_rate"] for s in result["seat_stats"]]
    fair = all(s["ci_low"] <= 1 / result["num_players"] <= s["ci_high"] for s in result["seat_stats"])
    return (
        f"Measured facts about the standard defaults ({result['num_players']} players, {result['games']:,} "
        f"games of random agents, `{path}`): random play ends after {agent['mean_rounds']:.1f} rounds on "
        f"average, and the seats win {span(seats, '.3f')} of the games "
        f"({'every' if fair else 'not every'} seat's 95% interval holding the fair share "
        f"{1 / result['num_players']:.2f})."
    )


FIGURES = {
    "champion-run": champion_run,
    "detective-reward": detective_reward,
    "random-play": random_play,
    "champion-vs-reference": champion_vs_reference,
    "ladder-reading": ladder_reading,
    "ladder-times": ladder_times,
    "reference-curve": reference_curve,
    "reference-run": reference_run,
    "reference-verdict": reference_verdict,
}
