"""Peak memory of checking a replay file, for growing files: it must not grow with the file.

Records games that run to the round limit (everybody plays Thief at the Castle,
so nobody ever moves) for growing ``max_rounds``, six players, then checks each
file in a fresh Python process and prints that process's peak resident set size
(``VmHWM``) for:

* ``hoity-replay --quiet`` (streams: one line in memory at a time);
* ``read_replay`` (collects every step into a ``Replay``: grows with the file,
  shown for comparison);
* a bare import of ``hoity_env`` (the floor both start from).

A last file appends junk lines to the longest game until it is 56 MB (a file
that is no replay past its valid prefix): the checker refuses it at the first
extra line, so its peak stays at the floor too.  Usage::

    python benchmarks/bench_replay_memory.py [--rounds 625,1250,2500,5000,10000] [--out DIR]

Never used in tests (memory on a shared machine is a measurement, not an assertion).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from hoity_env.engine.actions import CASTLE, THIEF
from hoity_env.engine.config import RulesConfig
from hoity_env.replays import RecordingEnv

PROBES = {
    "hoity-replay --quiet": "from hoity_env.cli.replay import main; main([PATH, '--quiet'])",
    "read_replay": "from hoity_env.replays import read_replay; read_replay(PATH)",
    "import only": "import hoity_env.cli.replay",
}


def record_long_game(max_rounds: int, path: Path) -> int:
    """A six-player game truncated at ``max_rounds`` (all thieves: no exhibition ever scores)."""
    env = RecordingEnv(num_players=6, rules=RulesConfig(max_rounds=max_rounds))
    env.reset(seed=max_rounds)
    while env.agents:
        location_step = env.game_state.locations[0] < 0
        env.step(dict.fromkeys(env.agents, CASTLE if location_step else THIEF))
    env.save_replay(path)
    return len(env.replay.steps)


def peak_mb(probe: str, path: Path) -> float:
    """Peak RSS in MB of a fresh interpreter running ``probe`` on ``path``."""
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent across exec.
    code = (
        f"PATH = {str(path)!r}\n"
        "try:\n"
        f"    {probe}\n"
        "except Exception as exc:  # the junk file is refused: that is the point\n"
        "    print(type(exc).__name__)\n"
        "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1]) / 1024  # kB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", default="625,1250,2500,5000,10000", help="max_rounds of the games")
    parser.add_argument("--out", type=Path, default=None, help="folder for the files (default: temporary)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        for rounds in (int(r) for r in args.rounds.split(",")):
            path = folder / f"long-{rounds}.jsonl"
            files.append((f"{record_long_game(rounds, path)} steps", path))
        padded = folder / "padded-56MB.jsonl"
        longest = files[-1][1].read_bytes()
        junk = b'{"step": 0, "round": 0, "phase": "location", "actions": [], "events": []}\n'
        padded.write_bytes(longest + junk * ((56_000_000 - len(longest)) // len(junk)))
        files.append(("valid prefix + junk", padded))
        names = list(PROBES)
        print(f"{'file':<24} {'MB':>6}  " + "  ".join(f"{n:>20}" for n in names) + "   (peak RSS, MB)")
        for label, path in files:
            peaks = [peak_mb(PROBES[n], path) for n in names]
            size = path.stat().st_size / 1e6
            print(f"{label:<24} {size:6.1f}  " + "  ".join(f"{p:20.0f}" for p in peaks))


if __name__ == "__main__":
    main()
