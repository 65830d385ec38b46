"""Joining a second league's population to the shipped one (``benchmarks/ship_population.py --join``).

The joined population replaces a table's ``champion-mix`` at the same size, so which members
each side keeps is a rule a test holds: every other snapshot from the newest, the last two
exploiters, the final agent; the second league makes way with its oldest snapshots.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hoity_env.agents.policies.population import Member

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from ship_population import joined, thinned


def league(snapshots: range, exploiters: range) -> list[Member]:
    """An exported league population as the league writes it: snapshots, exploiters, final agent."""
    members = [Member(f"npz:members-main_{s}000000.npz", 1.0, f"main agent at {s}M") for s in snapshots]
    members += [
        Member(f"npz:exploiters-exploiter_{k}-final_model.npz", 1.0, f"exploiter {k}") for k in exploiters
    ]
    return [*members, Member("npz:policy.npz", 1.0, "the main agent, latest")]


def test_thinned_keeps_every_other_snapshot_from_the_newest_the_last_two_exploiters_and_the_final() -> None:
    snapshots, rest = thinned(league(range(14, 26), range(5, 9)))
    assert [m.spec for m in snapshots] == [
        f"npz:members-main_{s}000000.npz" for s in (15, 17, 19, 21, 23, 25)
    ]
    assert [m.spec for m in rest] == [
        "npz:exploiters-exploiter_7-final_model.npz",
        "npz:exploiters-exploiter_8-final_model.npz",
        "npz:policy.npz",
    ]


def test_joined_has_the_shipped_size_and_names_the_second_league_by_its_seed() -> None:
    shipped = league(range(14, 26), range(5, 9))  # 17 members, as the 25M leagues ship
    members, files = joined(shipped, league(range(14, 26), range(5, 9)), (0, 1))
    assert len(members) == len(shipped)
    own = [m for m in members if m.origin.startswith("seed 0 league: ")]
    added = [m for m in members if m.origin.startswith("seed 1 league: ")]
    assert len(own) == 9 and len(added) == 8  # the second side gives up its oldest kept snapshot
    assert "npz:s1-members-main_15000000.npz" not in {m.spec for m in added}
    assert added[0].spec == "npz:s1-members-main_17000000.npz"
    assert [m.spec for m in added] == [f"npz:{shipped_as}" for _, shipped_as in files]
    assert all(shipped_as == f"s1-{name}" for name, shipped_as in files)
    assert {m.spec for m in own} <= {m.spec for m in shipped}
    assert all(m.weight == 1.0 for m in members)


def test_joined_refuses_a_population_joined_before() -> None:
    members, _ = joined(league(range(14, 26), range(5, 9)), league(range(14, 26), range(5, 9)), (0, 1))
    with pytest.raises(SystemExit, match="not a league's snapshot"):
        joined(members, league(range(14, 26), range(5, 9)), (0, 2))


def test_joined_refuses_when_the_shipped_population_leaves_no_room() -> None:
    with pytest.raises(SystemExit, match="leave no room"):
        joined(league(range(1, 3), range(1, 2)), league(range(1, 5), range(1, 4)), (0, 1))
