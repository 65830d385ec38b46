"""hoity-eval's memory against the number of games: the peak RSS of one evaluation per game count.

Each count runs in a fresh subprocess (``python -m hoity_env.cli.eval``, so the
command line itself is measured, with nothing cached from an earlier count) and
reports its own peak resident set size (``ru_maxrss``).  The harness sums the games
as they stream in, so the peak should stay flat however many games are played;
``--save-records`` keeps every game and shows what the growth would be.  No timing
is measured or asserted.

    python benchmarks/bench_eval_memory.py [--games 4096,16384,65536,262144] [--agents random,random]
    python benchmarks/bench_eval_memory.py --save-records   # the records kept: memory grows
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from hoity_env.cli.args import specs

_CHILD = """
import resource, sys
from hoity_env.cli.eval import main
status = main(sys.argv[1:])
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
print(f"PEAK_KIB {peak_kib}", file=sys.stderr)
sys.exit(status)
"""


def peak_rss_mib(agents: list[str], games: int, save_records: bool, seed: int) -> float:
    """Peak RSS, in MiB, of one ``hoity-eval`` run of ``games`` games in a fresh process."""
    argv = ["--agents", ",".join(agents), "--games", str(games), "--seed", str(seed), "--no-progress"]
    argv += ["--save-records"] if save_records else []
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *argv], capture_output=True, text=True, check=False, timeout=3600
    )
    if proc.returncode != 0:
        raise SystemExit(f"hoity-eval failed ({proc.returncode}): {proc.stderr.strip()}")
    line = next(x for x in proc.stderr.splitlines() if x.startswith("PEAK_KIB "))
    return int(line.split()[1]) / 1024


def main(argv: list[str] | None = None) -> list[tuple[int, float]]:
    """Measure every game count and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[4096, 16384, 65536, 262144],
        help="comma-separated game counts (default 4096,16384,65536,262144)",
    )
    parser.add_argument(
        "--agents", type=specs, default=["random"] * 4, help="one spec per seat (default random x4)"
    )
    parser.add_argument("--save-records", action="store_true", help="keep every game's record (memory grows)")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    args = parser.parse_args(argv)
    rows = [(g, peak_rss_mib(args.agents, g, args.save_records, args.seed)) for g in args.games]
    kept = "kept" if args.save_records else "summed as they stream in"
    print(f"hoity-eval --agents {','.join(args.agents)}; records {kept}")
    print("| games | peak RSS (MiB) |")
    print("| ---: | ---: |")
    for games, mib in rows:
        print(f"| {games:,} | {mib:.1f} |")
    return rows


if __name__ == "__main__":
    main()
