"""Ship a league's exported population as a table's ``champion-mix``, its weights in float16.

A league's population (``hoity-league``, exported to ``npz`` members) is 2-3 MB in float32;
ten tables of them would not fit the wheel's 12 MB.  This copies one into
``hoity_env/agents/models/champion-mix-<rules>-<players>/`` with every member's weights
stored as float16 (:func:`~hoity_env.agents.policies.mlp.save_policy`'s ``half``), the
manifest unchanged, and the league's record (settings, progress curve, ``league.json``) into
``docs/reference/league-<rules>-<players>/`` beside the earlier leagues'.  The registry entry
is added by hand (``hoity_env/agents/models/registry.json``).

What float16 changes is measured, not assumed: ``tests/agents/test_float16_populations.py``
checks each shipped member against the float32 file it came from on a fixed set of
observations (docs/league.md).

    python benchmarks/ship_population.py --export runs/export-standard-3 --league runs/league-standard-3 \
        --rules standard --players 3

Refuses to overwrite a destination that exists (delete it first to ship again).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hoity_env.agents.policies.mlp import load_policy, save_policy  # noqa: E402
from hoity_env.agents.policies.population import read_population  # noqa: E402

RECORD_FILES = (
    "league.json",
    "league_settings.json",
    "population.json",
    "progress.jsonl",
    "run.json",
    "settings.json",
)
"""What ``docs/reference/league-*/`` keeps of a league's run folder: its command's settings, its
members and its curve; not the checkpoints or the zips (the shipped npz members are the weights)."""


def ship(export: Path, league: Path, models: Path, reference: Path) -> None:
    """Write the float16 population into ``models`` and the league's record into ``reference``."""
    for target in (models, reference):
        if target.exists():
            raise SystemExit(f"error: {target} exists; delete it to ship again")
    manifest = export / "population.json"
    members = read_population(manifest)
    staging = models.with_name(f".{models.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for member in members:
        if not member.spec.startswith("npz:"):
            raise SystemExit(f"error: member {member.spec!r} is not an npz file")
        name = member.spec.removeprefix("npz:")
        policy = load_policy(export / name)
        save_policy(staging / name, policy.weights, policy.biases, policy.metadata, half=True)
    shutil.copyfile(manifest, staging / "population.json")
    staging.rename(models)
    reference.mkdir(parents=True)
    for name in RECORD_FILES:
        shutil.copyfile(league / name, reference / name)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and ship."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--export", type=Path, required=True, help="the exported population's folder")
    p.add_argument("--league", type=Path, required=True, help="the league's run folder")
    p.add_argument("--rules", choices=["standard", "original"], required=True)
    p.add_argument("--players", type=int, choices=range(2, 7), required=True)
    args = p.parse_args(argv)
    table = f"{args.rules}-{args.players}"
    ship(
        args.export,
        args.league,
        ROOT / "hoity_env" / "agents" / "models" / f"champion-mix-{table}",
        ROOT / "docs" / "reference" / f"league-{table}",
    )
    print(f"shipped {args.export} as champion-mix at {args.rules}/{args.players}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
