"""What the shipped league populations' float32 members played: the record their float16 copies meet.

``benchmarks/ship_population.py`` stores a league's members as float16 to keep the wheel small.
The float32 files stay outside the repository (the league's run folder), so this record keeps
what they did: on :data:`ROWS` fixed rows of seeded games at the member's table, each member's
greedy action and its action sampled with fixed uniforms.
``tests/agents/test_float16_populations.py`` replays it against the shipped float16 members.

Written when a population ships, from its float32 export (say so in the commit)::

    python -m tests.agents.float16_record standard-3=runs/export-standard-3 ...

A population joined with a second league (``ship_population.py --join``) keeps the record of the
members it kept and adds the second league's, read from that league's float32 export under
their shipped names (``s<seed>-<name>``); the members it dropped leave the record::

    python -m tests.agents.float16_record standard-3+=runs/export-standard-3-s1
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

from hoity_env.agents.policies.mlp import MlpPolicy, load_policy
from hoity_env.agents.policies.population import read_population
from tests.agents.test_batched_agents import collect_rows

RECORD = Path(__file__).with_name("float16_record.npz")
MODELS = Path(__file__).resolve().parents[2] / "hoity_env" / "agents" / "models"
JOINED = re.compile(r"^s\d+-")
"""The prefix of a joined league's members' shipped names."""
ROWS = 400


def table_rows(table: str) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``table`` (``"standard-3"``) the record is about: observations and masks."""
    rules, n = table.rsplit("-", 1)
    return collect_rows(int(n), ROWS, seed=7000 + int(n), rules=rules)


def plays(policy: MlpPolicy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(2, rows)``: the greedy action of each row, then the action sampled with fixed uniforms."""
    logits = np.where(masks.astype(bool), policy.logits(obs), -np.inf)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    cumulative = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
    u = np.random.default_rng(0).random((len(obs), 1))
    sampled = np.minimum((cumulative < u).sum(axis=1), masks.shape[1] - 1)
    return np.stack([logits.argmax(axis=1), sampled])


def members(folder: Path) -> list[str]:
    """The member files of the population in ``folder``, as its manifest names them."""
    return [m.spec.removeprefix("npz:") for m in read_population(folder / "population.json")]


def record(exports: dict[str, Path]) -> dict[str, np.ndarray]:
    """Each table's members' plays, keyed ``"{table}/{file}"``."""
    out: dict[str, np.ndarray] = {}
    for table, folder in exports.items():
        obs, masks = table_rows(table)
        for name in members(folder):
            out[f"{table}/{name}"] = plays(load_policy(folder / name), obs, masks).astype(np.int16)
    return out


def record_joined(table: str, export: Path) -> dict[str, np.ndarray]:
    """The plays of the shipped ``table``'s members that came from the joined league's ``export``."""
    obs, masks = table_rows(table)
    out: dict[str, np.ndarray] = {}
    for name in members(MODELS / f"champion-mix-{table}"):
        if JOINED.match(name):
            policy = load_policy(export / JOINED.sub("", name))
            out[f"{table}/{name}"] = plays(policy, obs, masks).astype(np.int16)
    return out


def main(argv: list[str]) -> None:
    """``TABLE=FOLDER`` for each float32 export, ``TABLE+=FOLDER`` for a joined league's; tables
    not named are kept as they are."""
    kept = dict(np.load(RECORD)) if RECORD.exists() else {}
    joins = {a.split("+=")[0]: Path(a.split("+=")[1]) for a in argv if "+=" in a}
    exports = {a.split("=")[0]: Path(a.split("=")[1]) for a in argv if "+=" not in a}
    shipped = {f"{t}/{name}" for t in joins for name in members(MODELS / f"champion-mix-{t}")}
    kept = {
        k: v
        for k, v in kept.items()
        if k.split("/")[0] not in exports and (k.split("/")[0] not in joins or k in shipped)
    }
    for table, export in joins.items():
        kept.update(record_joined(table, export))
    np.savez_compressed(RECORD, **kept, **record(exports))  # type: ignore[arg-type]


if __name__ == "__main__":
    main(sys.argv[1:])
