"""Meta-solver mixtures of a shipped population, beside equal weights: which is harder to exploit?

The issue that asked for the meta-solver (docs/league.md, weighing a population) expected its
mixture to ship.  At 3 standard players it did not: the meta-Nash of the league's population put
everything on the final agent, and a best response beat it far more often than the same
population at equal weights.  This script repeats that comparison at other tables, on the
populations that ship there, with the tables' own estimators (``benchmarks/tables.py``), and adds
a second solver that answers the obvious objection ("the meta-Nash concentrates because it trusts
a noisy table too much"):

* **meta-Nash**: ``hoity-eval meta``'s mixture (the run's ``population/``), as it ships;
* **max-entropy ε-Nash** (:func:`max_entropy`): of the mixtures no member beats by more than
  ``ε`` beyond the least any mixture allows (in the table: ``max_i u(i | σ) ≤ v* + ε``, ``v*``
  the minimax value of the table, a linear program), the most even one (largest entropy).  With
  ``ε`` at twice a score's standard error (0.03 at 1,000 games a cell) it keeps every member the
  table cannot tell apart from an equilibrium's, rather than the one the noise happened to favour.

``maxent`` writes that mixture as a population folder (the members' files copied beside its
manifest, so it plays as ``population:FOLDER/population.json`` without
``HOITY_POPULATION_PATHS=any``); ``collect`` writes the record
(``docs/results/meta_mixtures.json``) from the best responses' ``result.json`` files
(``hoity-eval exploit --out``), without the machine's paths.  Equal weights' row is read from
``docs/results/tables.json`` (the same estimators and seed against the shipped population), so the
figure (``docs/_generate/meta_figures.py``, ``meta-mixtures``) compares like with like::

    hoity-eval meta --population hoity_env/agents/models/champion-mix-original-2 --players 2 \\
        --rules original --games 1000 --seed 0 --out runs/meta-original-2
    python benchmarks/meta_mixtures.py maxent runs/meta-original-2 --slack 0.03 --out runs/maxent-original-2
    hoity-eval exploit --target population:runs/maxent-original-2/population.json --players 2 \\
        --rules original --budget 2000000 --seed 0 --games 1000 --start warm --out runs/maxent-o2-warm
    python benchmarks/meta_mixtures.py collect --table original/2 --meta runs/meta-original-2 \\
        --meta-cpu 90 --slack 0.03 --mixture "meta-Nash|runs/meta-o2-warm/result.json,..." ...

To ship such a mixture as a table's ``champion-mix`` (the members are the shipped float16 files,
so ``tests/agents/float16_record.py``'s record already covers them)::

    python benchmarks/meta_mixtures.py maxent runs/meta-original-6 --slack 0.03 \
        --out runs/maxent-original-6 --reference docs/reference/league-original-6
    rm -r hoity_env/agents/models/champion-mix-original-6
    mv runs/maxent-original-6 hoity_env/agents/models/champion-mix-original-6

``--reference`` keeps the payoff table beside the league's record (``meta_solution.json``), so the
weights can be solved again from the repository.  Needs scipy (the ``dev`` extra): the linear
program and the entropy's maximisation.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hoity_env.agents.policies.population import Member, read_population, write_population  # noqa: E402
from hoity_env.engine.errors import ConfigError  # noqa: E402
from hoity_env.files import read_json, write_atomically  # noqa: E402
from hoity_env.league.meta import check_payoffs  # noqa: E402

RECORD = ROOT / "docs" / "results" / "meta_mixtures.json"
THRESHOLD = 0.01
"""Members below this fraction of the heaviest are dropped, as ``hoity-eval meta --threshold``."""


def minimax_value(payoffs: np.ndarray) -> float:
    """``v* = min_σ max_i u(i | σ)`` of a ``k x k`` table (a linear program): the least that the
    best-deviating member can be held to."""
    from scipy.optimize import linprog

    k = payoffs.shape[0]
    cost = np.r_[np.zeros(k), 1.0]  # variables: σ, then t; minimise t subject to Aσ <= t
    result = linprog(
        cost,
        A_ub=np.c_[payoffs, -np.ones(k)],
        b_ub=np.zeros(k),
        A_eq=np.r_[np.ones(k), 0.0][None],
        b_eq=[1.0],
        bounds=[(0, None)] * k + [(None, None)],
    )
    if not result.success:
        raise RuntimeError(f"the minimax linear program failed: {result.message}")
    return float(result.x[-1])


def max_entropy(payoffs: Sequence[Sequence[float]] | np.ndarray, slack: float) -> np.ndarray:
    """The most even mixture whose best deviation is within ``slack`` of the least possible.

        ``payoffs`` is a ``k x k`` table (``payoffs[i, j]``: member ``i``'s score against the others
        all playing ``j``; ``hoity-eval meta``'s ``solution.json``).  Maximises the entropy of ``σ``
        subject to ``payoffs @ σ <= v* + slack`` (:func:`minimax_value`): a convex problem, so the
        answer is unique.  ``slack`` 0 gives the table's most even minimax mixture (at 2 players, a
    constant-sum game, its most even meta-Nash);
        a ``slack`` at least the uniform mixture's excess gives the uniform mixture.
    """
    from scipy.optimize import minimize

    table = check_payoffs(payoffs)
    if table.ndim != 2:
        raise ConfigError(f"max_entropy takes a k x k table, got shape {table.shape}")
    if not np.isfinite(slack) or slack < 0:
        raise ConfigError(f"slack must be a number >= 0, got {slack!r}")
    k = table.shape[0]
    bound = minimax_value(table) + slack
    uniform = np.full(k, 1.0 / k)
    if (table @ uniform).max() <= bound + 1e-12:
        return uniform

    def negative_entropy(sigma: np.ndarray) -> float:
        return float(np.sum(sigma * np.log(np.maximum(sigma, 1e-300))))

    def gradient(sigma: np.ndarray) -> np.ndarray:
        gradient_: np.ndarray = np.log(np.maximum(sigma, 1e-300)) + 1.0
        return gradient_

    result = minimize(
        negative_entropy,
        uniform,
        jac=gradient,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * k,
        constraints=[
            {"type": "eq", "fun": lambda s: s.sum() - 1.0, "jac": lambda s: np.ones(k)},
            {"type": "ineq", "fun": lambda s: bound - table @ s, "jac": lambda s: -table},
        ],
        options={"maxiter": 2000, "ftol": 1e-12},
    )
    sigma = np.maximum(result.x, 0.0)
    sigma /= sigma.sum()
    if not result.success or (table @ sigma).max() > bound + 1e-6:
        raise RuntimeError(f"the entropy's maximisation failed: {result.message}")
    return sigma


def write_maxent(meta_run: Path, slack: float, out: Path, reference: Path | None = None) -> list[Member]:
    """Write ``meta_run``'s max-entropy ``slack``-Nash mixture to the new folder ``out``: its
    ``population.json`` and the kept members' files (at the same relative paths).  With
    ``reference``, also ``reference/meta_solution.json``: the payoff table it was solved from,
    without the machine's paths, so the weights can be solved again from the repository."""
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"--out {out} is not empty: pick a new folder")
    solution = read_json(meta_run / "solution.json", "meta run's solution")
    payoffs = np.array(solution["payoffs"])
    solved = max_entropy(payoffs, slack)
    sigma = np.where(solved >= THRESHOLD * solved.max(), solved, 0.0)
    sigma /= sigma.sum()
    folder = Path(solution["population"]).parent  # the manifest the meta run read
    manifest = {m.spec: m for m in read_population(folder / "population.json")}
    kept = []
    out.mkdir(parents=True, exist_ok=True)
    for member, weight in zip(solution["members"], sigma, strict=True):
        if weight <= 0:
            continue
        spec = member["spec"]
        relative = spec.split(":", 1)[1]
        (out / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / relative, out / relative)
        kept.append(Member(spec, float(weight), manifest[spec].origin if spec in manifest else ""))
    write_population(out / "population.json", kept)
    if reference is not None:
        record = {
            "solver": "max-entropy ε-Nash (benchmarks/meta_mixtures.py)",
            "slack": slack,
            "threshold": THRESHOLD,
            "minimax_value": minimax_value(payoffs),
            "num_players": solution["num_players"],
            "rules": solution["rules"],
            "games": solution["games"],
            "seed": solution["seed"],
            "members": [m["spec"] for m in solution["members"]],
            "payoffs": solution["payoffs"],
            "solved": solved.tolist(),
            "shipped": sigma.tolist(),
        }
        reference.mkdir(parents=True, exist_ok=True)
        write_atomically(reference / "meta_solution.json", json.dumps(record, indent=1) + "\n")
    return kept


def _estimator(result: dict[str, Any]) -> str:
    """The tables' name for a best response's settings (``benchmarks/tables.py`` ESTIMATORS)."""
    if result.get("start", "fresh") == "warm":
        return "warm"
    return "memory" if result.get("memory", 0) else "strong"


def collect_table(
    table: str, meta_run: Path, meta_cpu: float, slack: float, mixtures: Sequence[str], ships: str
) -> dict[str, Any]:
    """One table's record: the meta run's command, CPU and gap, the content hash of the population
    it weighed (equal weights' runs in ``docs/results/tables.json`` are those with this
    ``target_hash``, shipped or superseded), which mixture ships (``ships``), and each mixture's
    best responses (``NAME|RESULT_JSON,RESULT_JSON,...``) read from their ``result.json``.
    Collect a table before its ``champion-mix`` is replaced: the hash is of the manifest the meta
    run read, as it is then."""
    from hoity_env.agents.policies.content import content_hash

    settings = read_json(meta_run / "meta.json", "meta run's settings")
    solution = read_json(meta_run / "solution.json", "meta run's solution")
    rules, players = table.split("/")
    names = ["equal weights"] + [text.split("|")[0] for text in mixtures]
    if ships not in names:
        raise ConfigError(f"--ships {ships!r} is none of the mixtures {names}")
    equal_hash = content_hash(f"population:{solution['population']}", rules=rules, num_players=int(players))
    rows = []
    for text in mixtures:
        name, paths = text.split("|")
        runs = []
        target_members: int | None = None
        for path in paths.split(","):
            result = read_json(Path(path), "best response's result")
            (entry,) = result["entries"]
            if result["budget"] != 2_000_000 or result["seed"] != 0:
                raise ConfigError(f"{path}: the tables' runs are 2M steps at seed 0")
            target = entry["target"].removeprefix("population:")
            members = read_population(target) if Path(target).exists() else ()
            target_members = len(members) or target_members
            heaviest = max((m.weight for m in members), default=0.0) / max(
                sum(m.weight for m in members), 1e-300
            )
            runs.append(
                {
                    "estimator": _estimator(result),
                    "win_rate": entry["win_rate"],
                    "ci": [round(entry["ci_low"], 4), round(entry["ci_high"], 4)],
                    "games": entry["games"],
                    "cpu_seconds": round(entry["train_cpu_seconds"], 1),
                    "target_hash": entry["target_hash"],
                    "heaviest": round(heaviest, 4),
                }
            )
        rows.append({"name": name, "members": target_members, "runs": runs})
    return {
        "table": table,
        "members": len(solution["members"]),
        "equal_hash": equal_hash,
        "ships": ships,
        "meta_command": (
            f"hoity-eval meta --population hoity_env/agents/models/champion-mix-{rules}-{players} "
            f"--players {players} --rules {rules} --games {settings['games']} --seed {settings['seed']}"
        ),
        "meta_cpu_seconds": meta_cpu,
        "meta_gap": solution["gap"],
        "slack": slack,
        "mixtures": rows,
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("maxent", help="write a meta run's max-entropy ε-Nash mixture as a population")
    m.add_argument("meta_run", type=Path, help="a finished hoity-eval meta run folder")
    m.add_argument("--slack", type=float, required=True, help="ε, in score units (0.03)")
    m.add_argument("--out", type=Path, required=True, help="a new folder")
    m.add_argument("--reference", type=Path, help="also write meta_solution.json (the payoff table) here")
    c = sub.add_parser("collect", help="add one table's measurements to the record")
    c.add_argument("--table", required=True, help="RULES/N")
    c.add_argument("--meta", type=Path, required=True, help="the table's hoity-eval meta run folder")
    c.add_argument("--meta-cpu", type=float, required=True, help="its CPU seconds (user + sys)")
    c.add_argument("--slack", type=float, required=True)
    c.add_argument("--mixture", action="append", required=True, help="NAME|RESULT_JSON,RESULT_JSON,...")
    c.add_argument("--ships", default="equal weights", help="the mixture that ships (default equal weights)")
    c.add_argument("--machine", required=True)
    c.add_argument("--measured", required=True, help="the date")
    args = p.parse_args(argv)
    if args.command == "maxent":
        kept = write_maxent(args.meta_run, args.slack, args.out, args.reference)
        for member in sorted(kept, key=lambda m: -m.weight):
            print(f"{member.weight:.3f}  {member.spec}")
        return 0
    record: dict[str, Any] = read_json(RECORD, "meta mixtures record") if RECORD.exists() else {"tables": []}
    row = collect_table(args.table, args.meta, args.meta_cpu, args.slack, args.mixture, args.ships)
    tables = [t for t in record["tables"] if t["table"] != args.table] + [row]
    record["tables"] = sorted(tables, key=lambda t: (t["table"].split("/")[0], int(t["table"].split("/")[1])))
    record.update(machine=args.machine, measured=args.measured)
    write_atomically(RECORD, json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
