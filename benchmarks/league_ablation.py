"""What makes a league agent hard to exploit: plain league, + exploiters, + magnet, + both.

Each arm trains a main agent with ``hoity-league``'s library (:mod:`hoity_env.league.run`)
for the same CPU budget (``--cpu-budget`` CPU-seconds, exploiters and PFSP scoring
included), from the same starting pool and seed; only the league's flags differ:

* ``plain``: self-play, the zoo, champion-v1 and the main agent's snapshots (even weights);
* ``exploiters``: plus an exploiter (a best response to the main agent) every
  ``--exploiter-every`` steps, and PFSP weights;
* ``magnet``: plain, with a KL pull toward the uniform-legal magnet annealed to 0;
* ``both``: exploiters and the magnet.

Then every arm's main agent (sampling, as shipped) is measured: a fresh fast best
response of ``--budget`` learner steps against three copies of it (its exploitability,
an estimate from below) and its win rate against three copies of ``expert`` and of
``champion-v1``, each over ``--games`` duplicate-format games.  The record
(``--out``) holds every arm's settings, steps, CPU, league and results; ``docs/_generate/figures.py``
renders it.  A run folder already there is resumed (a finished arm is reused), so an
interrupted ablation continues where it stopped.

    python benchmarks/league_ablation.py --cpu-budget 600 --budget 2000000 --games 1000
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hoity_env.evaluation import evaluate  # noqa: E402
from hoity_env.files import write_atomically  # noqa: E402
from hoity_env.league.members import LeagueSettings  # noqa: E402
from hoity_env.league.run import League  # noqa: E402
from hoity_env.learning import LearnerSettings  # noqa: E402
from hoity_env.learning.settings import parse_pool  # noqa: E402
from hoity_env.strength import exploitability  # noqa: E402

POOL = (
    "self@2,expert@2,expert-v1,collector,thief,detective,random,npz:docs/reference/retired/champion-v1.npz@2"
)
MAIN = {"num_games": 512, "rollout_steps": 32, "minibatch_size": 1024, "epochs": 1, "hidden": (128, 128)}
"""The main agent's learner: FAST_SETTINGS' shape of update (many small minibatches), wider."""
MAGNET = {"magnet": "uniform", "magnet_coef": 0.05, "magnet_final_coef": 0.0}
ARMS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "plain": ({}, {"pfsp": "none"}),
    "exploiters": ({}, {"exploiter_every": 1_500_000, "pfsp": "hard"}),
    "magnet": (MAGNET, {"pfsp": "none"}),
    "both": (MAGNET, {"exploiter_every": 1_500_000, "pfsp": "hard"}),
}


def arm_settings(arm: str, args: argparse.Namespace) -> LeagueSettings:
    """The league of ``arm`` (module docstring) at the command's budget and seed."""
    learner, league = ARMS[arm]
    main = LearnerSettings(
        **MAIN,
        **learner,
        opponents=parse_pool(args.pool),
        total_steps=args.total_steps,
        seed=args.seed,
        checkpoint_every=1_000_000,
    )
    return LeagueSettings(
        main=main,
        snapshot_every=1_000_000,
        exploiter_budget=args.exploiter_budget,
        cpu_budget=float(args.cpu_budget),
        **league,
    )


def train(arm: str, args: argparse.Namespace) -> League:
    folder = args.runs / arm
    league = League.resume(folder) if (folder / "league_settings.json").exists() else None
    if league is None:
        league = League.start(arm_settings(arm, args), folder)
    league.run()
    return league


def measure(arm: str, league: League, args: argparse.Namespace) -> dict[str, Any]:
    me = f"ppo-sample:{league.path / 'policy.zip'}"
    n = league.settings.main.num_players
    cpu = time.process_time()
    result = exploitability(
        me,
        budget=args.budget,
        learner="fast",
        preset="fast",  # FAST_SETTINGS, as the committed ablation was measured
        curve_points=0,
        games=args.games,
        seed=args.seed,
        runs_dir=args.runs / "exploit" / arm,
    )
    entry = result.entries[0]
    row: dict[str, Any] = {
        "arm": arm,
        "steps": league.learner.steps,
        "train_cpu_s": round(league.cpu_now(), 1),
        "members_added": sum(m.kind != "start" for m in league.members),
        "exploitability": {
            "win_rate": entry.win_rate,
            "ci_low": entry.ci_low,
            "ci_high": entry.ci_high,
            "budget": args.budget,
            "cpu_s": round(time.process_time() - cpu, 1),
        },
        "league": {
            "settings": league.settings.to_dict(),
            "exploiter_win_rates": [m.exploiter_win_rate for m in league.members if m.kind == "exploiter"],
        },
    }
    for opponent, key in (("expert", "expert"), ("npz:docs/reference/retired/champion-v1.npz", "champion")):
        stats = evaluate([me] + [opponent] * (n - 1), num_players=n, games=args.games, seed=args.seed + 1)
        s = next(a for a in stats.agent_stats if a.agent == me)
        row[f"vs_{key}"] = {"win_rate": s.win_rate, "ci_low": s.ci_low, "ci_high": s.ci_high}
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arms", default=",".join(ARMS), help="arms to run, comma-separated")
    p.add_argument("--cpu-budget", type=float, default=600.0, help="CPU-seconds of training per arm")
    p.add_argument("--total-steps", type=int, default=6_000_000, help="step cap (the magnet anneals over it)")
    p.add_argument("--exploiter-budget", type=int, default=500_000)
    p.add_argument("--budget", type=int, default=2_000_000, help="the measuring best response's budget")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--pool", default=POOL)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--runs", type=Path, default=Path("runs/ablation"))
    p.add_argument("--out", type=Path, default=ROOT / "docs/results/league_ablation.json")
    args = p.parse_args(argv)
    rows = []
    for arm in args.arms.split(","):
        league = train(arm, args)
        rows.append(measure(arm, league, args))
        print(
            json.dumps({k: rows[-1][k] for k in ("arm", "steps", "train_cpu_s", "exploitability")}),
            flush=True,
        )
        record = {
            "command": "python benchmarks/league_ablation.py "
            + shlex.join(sys.argv[1:] if argv is None else argv),
            "date": datetime.date.today().isoformat(),
            "machine": f"{platform.machine()}, {platform.python_version()}",
            "rows": rows,
        }
        write_atomically(args.out, json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
