"""The result file a benchmark writes with ``--record PATH.json``: figures plus where they came from.

Every measured table in the README and ``docs/`` is rendered by ``docs/_generate/figures.py`` from a
committed result file, so a benchmark that feeds one writes, beside its printed table, a
JSON record of the same figures together with what a reader needs to judge them: the exact
command, the machine (CPUs, platform, Python, the load average while it ran: the
development machine is shared), the package versions and git commit measured, the date,
and the run's own wall and CPU time.  One format for every benchmark, so one renderer
module reads them all.  Usage in a script::

    recorder = Recorder.start(args.record, argv)   # None: nothing is written
    ...measure...
    recorder.write({"rows": rows}, settings=vars(args))

A command without a ``--record`` option of its own (an example script) is recorded by
running it through this module, which keeps its standard output and its children's CPU
time::

    python benchmarks/bench_record.py OUT.json -- python examples/integrations/cleanrl_ppo.py

The file is written atomically (``hoity_env.files.write_atomically``): a run killed while
writing leaves the previous record, never half of one.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoity_env.files import write_atomically

ROOT = Path(__file__).resolve().parent.parent
FORMAT = 1
"""Bumped when a field's meaning changes, so a renderer can refuse a record it misreads."""
PACKAGES = (
    "hoity_env",
    "numpy",
    "numba",
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "gymnasium",
    "pettingzoo",
    "open_spiel",
    "pgx",
    "jax",
)
"""Versions worth recording (those installed): the package itself and what the benchmarks time."""


def add_record_option(parser: argparse.ArgumentParser) -> None:
    """The ``--record PATH.json`` option every recording benchmark shares."""
    parser.add_argument(
        "--record",
        metavar="PATH.json",
        default=None,
        help="also write the figures, the command, the machine and the versions to this JSON file",
    )


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; "" where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "cpus": os.cpu_count(),
        "arch": platform.machine(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average": round(os.getloadavg()[0], 2),
    }


def versions() -> dict[str, str]:
    """Versions of the installed packages of :data:`PACKAGES`, and the git commit measured."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    commit = _git("rev-parse", "--short", "HEAD")
    if commit:  # "+modified": the package's files differ from that commit
        out["git_commit"] = commit + ("+modified" if _git("status", "--porcelain", "--", "hoity_env") else "")
    return out


def _git(*args: str) -> str:
    """``git ARGS`` in the repository, its stdout ("" when git is missing or fails)."""
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def command_of(argv: list[str] | None) -> str:
    """The command line that ran, as a user would type it from the repository root."""
    script = Path(sys.argv[0]).resolve()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return shlex.join(["python", str(shown), *(sys.argv[1:] if argv is None else argv)])


@dataclass
class Recorder:
    """Collects a run's provenance from its start; :meth:`write` adds the figures and saves."""

    path: Path
    command: str
    wall_start: float = field(default_factory=time.perf_counter)
    cpu_start: float = field(default_factory=time.process_time)
    load_start: float = field(default_factory=lambda: round(os.getloadavg()[0], 2))
    measured_versions: dict[str, str] = field(default_factory=versions)
    """Taken at the start: the code that ran, not what the tree holds when the run ends."""

    @classmethod
    def start(cls, path: str | None, argv: list[str] | None = None) -> Recorder | None:
        """A recorder for ``--record PATH`` (``None`` when no path was given)."""
        if path is None:
            return None
        if not path.endswith(".json"):
            raise ValueError(f"--record must name a .json file, got {path!r}")
        return cls(Path(path), command_of(argv))

    def write(self, figures: dict[str, Any], settings: dict[str, Any] | None = None) -> Path:
        """Write the record (figures, settings, command, machine, versions, times); returns its path."""
        import json

        box = machine()
        box["load_average"] = [self.load_start, box["load_average"]]  # at start, at end
        record = {
            "format": FORMAT,
            "command": self.command,
            "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": box,
            "versions": self.measured_versions,
            "wall_seconds": round(time.perf_counter() - self.wall_start, 1),
            "cpu_seconds": round(time.process_time() - self.cpu_start, 1),
            "settings": {k: v for k, v in (settings or {}).items() if k != "record"},
            "figures": figures,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, json.dumps(record, indent=1) + "\n")
        print(f"recorded {self.path}", file=sys.stderr)
        return self.path


def main(argv: list[str] | None = None) -> int:
    """Run ``COMMAND``, print its output, and record it (stdout, wall and children's CPU time)."""
    import resource

    parser = argparse.ArgumentParser(description="run a command and record its output with the machine")
    parser.add_argument("out", metavar="OUT.json", help="the record to write")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    recorder = Recorder.start(args.out, argv)
    assert recorder is not None
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        print(f"not recorded: the command exited {done.returncode}", file=sys.stderr)
        return done.returncode
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    recorder.cpu_start -= children.ru_utime + children.ru_stime  # the command's CPU counts as the run's
    recorder.write({"stdout": done.stdout}, settings={"command": command})
    return 0


if __name__ == "__main__":
    sys.exit(main())
