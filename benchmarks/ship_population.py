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

**Joining a second league** (``--join``): the population shipped at the table and a second
league's export, run with another seed, become one population of the same size (the same
bytes in the wheel).  Each side keeps its final agent, its last two exploiters and every other
snapshot, the newest first (:func:`thinned`); the second league's oldest kept snapshots are
dropped until the count is the shipped one's, and its files are named ``s<seed>-<name>``
(:func:`joined`).  Every member's origin says which league's seed it came from.  Its record
goes to ``docs/reference/league-<rules>-<players>-s<seed>/``; the shipped league's stays::

    python benchmarks/ship_population.py --join --export runs/export-standard-3-s1 \
        --league runs/league-standard-3-s1 --rules standard --players 3

The hope: two leagues of different seeds are two lines of play, and a best response must beat
both.  Measured, not assumed: at standard/3 every best response won less against the joined
population, so it ships there; at standard/4, original/2 and original/5 the strongest won
more, and the joined populations were not shipped (docs/results/strength.md, populations not shipped).
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
from hoity_env.agents.policies.population import Member, read_population, write_population  # noqa: E402
from hoity_env.files import read_json  # noqa: E402

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


SNAPSHOT = "npz:members-main_"
EXPLOITER = "npz:exploiters-"
FINAL = "npz:policy.npz"
"""How an exported league population names its members: the main agent's snapshots (oldest
first), its exploiters (oldest first) and the main agent as the league ended."""


def thinned(members: Sequence[Member]) -> tuple[list[Member], list[Member]]:
    """A league population's members a join keeps: ``(snapshots, the rest)``.

    Every other snapshot counted from the newest, then the last two exploiters and the final
    agent.  A member of another kind (a population joined before) is refused: a join is of two
    leagues' own populations.
    """
    kinds = (SNAPSHOT, EXPLOITER, FINAL)
    for m in members:
        if not any(m.spec.startswith(k) for k in kinds):
            raise SystemExit(f"error: member {m.spec!r} is not a league's snapshot, exploiter or final agent")
    snapshots = [m for m in members if m.spec.startswith(SNAPSHOT)][::-1][::2][::-1]
    exploiters = [m for m in members if m.spec.startswith(EXPLOITER)][-2:]
    return snapshots, exploiters + [m for m in members if m.spec == FINAL]


def joined(
    shipped: Sequence[Member], added: Sequence[Member], seeds: tuple[int, int]
) -> tuple[list[Member], list[tuple[str, str]]]:
    """The joined population's members, and for each added one its ``(file, file shipped as)``.

    ``seeds`` are the shipped and the added league's seeds; the added members' files get the
    ``s<seed>-`` prefix.  As many members as ``shipped`` has: the added side's oldest kept
    snapshots make way.
    """
    snaps_a, rest_a = thinned(shipped)
    snaps_b, rest_b = thinned(added)
    excess = len(snaps_a) + len(rest_a) + len(snaps_b) + len(rest_b) - len(shipped)
    if excess > len(snaps_b):
        raise SystemExit(f"error: the shipped population's {len(shipped)} members leave no room to join")
    side_a = snaps_a + rest_a
    side_b = snaps_b[max(excess, 0) :] + rest_b
    out = [Member(m.spec, 1.0, f"seed {seeds[0]} league: {m.origin}") for m in side_a]
    files = []
    for m in side_b:
        name = m.spec.removeprefix("npz:")
        files.append((name, f"s{seeds[1]}-{name}"))
        out.append(Member(f"npz:s{seeds[1]}-{name}", 1.0, f"seed {seeds[1]} league: {m.origin}"))
    return out, files


def league_seed(folder: Path) -> int:
    """The seed of the league whose record (or run folder) is ``folder``."""
    seed = read_json(folder / "league_settings.json")["main"]["seed"]
    if not isinstance(seed, int):
        raise SystemExit(f"error: {folder}/league_settings.json has no integer seed")
    return seed


def ship_joined(export: Path, league: Path, models: Path, reference: Path) -> None:
    """Replace the population in ``models`` by its join with ``export`` (``--join``); the second
    league's record into ``reference`` (``-s<seed>`` added to its name).  The new folder is
    written beside the old and swapped in by two renames; the old one is removed last."""
    shipped_record = reference
    seeds = (league_seed(shipped_record), league_seed(league))
    reference = reference.with_name(f"{reference.name}-s{seeds[1]}")
    if seeds[0] == seeds[1]:
        raise SystemExit(f"error: both leagues ran with seed {seeds[0]}; join a league of another seed")
    if reference.exists():
        raise SystemExit(f"error: {reference} exists; delete it to ship again")
    members, files = joined(
        read_population(models / "population.json"), read_population(export / "population.json"), seeds
    )
    staging = models.with_name(f".{models.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for m in members[: len(members) - len(files)]:
        name = m.spec.removeprefix("npz:")
        shutil.copyfile(models / name, staging / name)  # already float16: the shipped bytes
    for name, shipped_as in files:
        policy = load_policy(export / name)
        save_policy(staging / shipped_as, policy.weights, policy.biases, policy.metadata, half=True)
    write_population(staging / "population.json", members)
    old = models.with_name(f".{models.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    models.rename(old)
    staging.rename(models)
    shutil.rmtree(old)
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
    p.add_argument("--join", action="store_true", help="join the export to the table's shipped population")
    args = p.parse_args(argv)
    table = f"{args.rules}-{args.players}"
    (ship_joined if args.join else ship)(
        args.export,
        args.league,
        ROOT / "hoity_env" / "agents" / "models" / f"champion-mix-{table}",
        ROOT / "docs" / "reference" / f"league-{table}",
    )
    print(f"shipped {args.export} as champion-mix at {args.rules}/{args.players}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
