"""Evaluation harness, batched engine vs one-game engine: four-player games per CPU-second.

For each line-up it plays the same seeded evaluation through
:func:`hoity_env.evaluation.evaluate` with ``engine="batched"`` and with
``engine="one-game"`` (one process, no workers) and prints, as one table, the
median games per CPU-second (``time.process_time``) of ``--repeats`` runs and
their ratio (docs/design.md §7: ≥ 2,000 four-player games per CPU-second with
the scripted zoo; ≥ 20× the one-game engine under the original rules, issue 23).
The one-game engine plays fewer games (``--one-game-games``) because it is that
much slower; rates are per game, so they compare.  ``--rules original`` times
the original ruleset (RULES O-*), where the styles decide through
:mod:`hoity_env.agents.bots.styles_original`.

numpy's BLAS threads (issue 34, :mod:`hoity_env.threads`): every figure plays under
one BLAS thread (``MatchSettings.blas_threads=1``, what ``hoity-eval`` runs), and the
batched engine is also timed in the same run with the limit off (numpy's default, one
thread per core: the harness before issue 34), so the *one thread × unlimited* column
is the limit's own gain.  The ``champion`` and ``champion-mix`` line-ups are numpy
networks; the scripted line-ups never call BLAS and are the control.

    python benchmarks/bench_harness_engines.py [--games 8192] [--one-game-games 200] [--repeats 3]
        [--lineups zoo,champion] [--record PATH.json]
    python benchmarks/bench_harness_engines.py --rules original
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_record import Recorder, add_record_option

from hoity_env.evaluation import evaluate
from hoity_env.threads import blas_threads

LINEUPS = {
    "zoo (expert, collector, thief, detective)": ["expert", "collector", "thief", "detective"],
    "zoo with expert-v1": ["expert-v1", "collector", "thief", "detective"],
    "random x4": ["random"] * 4,
    "champion x4": ["champion"] * 4,
    "champion-mix x4": ["champion-mix"] * 4,
}
SHORT = dict(zip(("zoo", "zoo-v1", "random", "champion", "champion-mix"), LINEUPS, strict=True))
"""``--lineups`` names of the line-ups."""


def rate(
    specs: list[str], games: int, engine: str, seed: int, rules: str = "standard", threads: int | None = 1
) -> float:
    """Games per CPU-second (every thread's CPU) of one evaluation under ``threads`` BLAS threads
    (``None``: numpy's own default)."""
    start = time.process_time()
    result = evaluate(
        specs,
        num_players=4,
        games=games,
        seed=seed,
        progress=False,
        engine=engine,
        rules=rules,
        blas_threads=threads,
    )
    return result.games / (time.process_time() - start)


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float, float]]:
    """Time both engines on every line-up and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8192, help="games per batched run (default 8192)")
    parser.add_argument(
        "--one-game-games", type=int, default=200, help="games per one-game run (default 200)"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs per figure; the median is shown (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed of the first run (default 0)")
    parser.add_argument(
        "--rules",
        default="standard",
        choices=["standard", "original"],
        help="ruleset: standard or original (default standard)",
    )
    parser.add_argument(
        "--lineups",
        default=",".join(SHORT),
        help=f"comma-separated: {', '.join(SHORT)} (default: all)",
    )
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    out = {}
    default = max(blas_threads() or [1])
    print(f"rules: {args.rules}; numpy's BLAS threads without a limit: {default}")
    print(
        "| line-up | batched, BLAS unlimited | batched, one BLAS thread | one thread × unlimited "
        "| one-game | batched × one-game |"
    )
    print("|---|---|---|---|---|---|")
    for name in (SHORT[short] for short in args.lineups.split(",")):
        specs = LINEUPS[name]
        rate(specs, 8, "batched", args.seed, args.rules)  # warm-up: imports, first allocations
        unlimited, batched = [], []
        for r in range(args.repeats):  # interleaved, so a change in the machine's load hits both
            unlimited.append(rate(specs, args.games, "batched", args.seed + r, args.rules, threads=None))
            batched.append(rate(specs, args.games, "batched", args.seed + r, args.rules))
        one = statistics.median(
            rate(specs, args.one_game_games, "one-game", args.seed + r, args.rules)
            for r in range(args.repeats)
        )
        b, u = statistics.median(batched), statistics.median(unlimited)
        out[name] = (b, one, u)
        print(f"| {name} | {u:,.0f} | {b:,.0f} | {b / u:.2f} | {one:,.0f} | {b / one:.1f} |", flush=True)
    if recorder:
        rows = [
            {"lineup": LINEUPS[n], "batched": b, "one_game": o, "batched_unlimited": u}
            for n, (b, o, u) in out.items()
        ]
        recorder.write({"rows": rows, "default_blas_threads": default}, settings=vars(args))
    return out


if __name__ == "__main__":
    main()
