"""The ten tables' figure: exploitability and head to head at 2–6 players, both rulesets (docs/_generate/).

Reads ``docs/results/tables.json``, written by ``benchmarks/tables.py`` (its docstring says what
each run is).  Per table: the fair share 1/N; each best response at 2M learner steps (estimator
and seed) and the maximum over them, against the 2M bar min(1.8/N, 1/N + 0.2); the strongest
estimator at 10M against min(2.2/N, 1/N + 0.3); ``champion`` against N−1 ``expert`` with its 95%
interval, whose lower bound must clear 1/N; and the verdict.  A part not measured yet is said so
in the verdict: a table is never dropped, and a verdict is "met" only when every part was
measured and cleared its bar.  A 10M run is not needed where a 2M best response already won
more than the 10M bar: a best response within the 10M budget has then beaten it (training it on
would only be looked at for the figure), so the verdict says "10M missed, settled at 2M" and
``benchmarks/tables.py`` leaves that run out.  A bar cleared by best responses that all won less than the fair
share is flagged: such a learner has not learned the game yet, and its estimate from below says
little.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RECORD = "docs/results/tables.json"
UNSHIPPED = "docs/results/unshipped_populations.json"
TABLES = tuple(f"{rules}/{n}" for rules in ("standard", "original") for n in range(2, 7))
SHORT, LONG = 2_000_000, 10_000_000
SHORT_RUNS = 6
"""Best responses a table needs at 2M: two seeds of each of the three estimators (``benchmarks/tables.py``'s
``ESTIMATORS``: ``strong``, ``memory`` and ``warm``; a record's runs name theirs)."""


def bars(n: int) -> tuple[float, float]:
    """The 2M and 10M bars on a best response's win rate at ``n`` players."""
    return min(1.8 / n, 1 / n + 0.2), min(2.2 / n, 1 / n + 0.3)


def settled_at_short(short_max: float | None, n: int) -> bool:
    """Whether a 2M best response already won more than the 10M bar at ``n`` players."""
    return short_max is not None and short_max > bars(n)[1]


def _load() -> dict[str, Any]:
    path = ROOT / RECORD
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"runs": []}


def _ci(run: dict[str, Any]) -> str:
    return f"{run['win_rate']:.3f} [{run['ci'][0]:.3f}, {run['ci'][1]:.3f}]"


def verdicts(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per table: its runs, maxima, bars and verdict parts (every table, measured or not)."""
    rows = []
    for table in TABLES:
        n = int(table.split("/")[1])
        short_bar, long_bar = bars(n)
        here = [r for r in runs if r["table"] == table]
        short = sorted(
            (r for r in here if r["kind"] == "exploit" and r["budget"] == SHORT),
            key=lambda r: (r["estimator"] != "strong", r["estimator"], r["seed"]),
        )
        long = [r for r in here if r["kind"] == "exploit" and r["budget"] == LONG]
        h2h = next((r for r in here if r["kind"] == "h2h"), None)
        parts: list[str] = []
        weak: list[str] = []
        short_max = max((r["win_rate"] for r in short), default=None)
        long_max = max((r["win_rate"] for r in long), default=None)
        for name, value, bar, complete in (
            ("2M", short_max, short_bar, len(short) >= SHORT_RUNS),
            ("10M", long_max, long_bar, bool(long)),
        ):
            if value is None and name == "10M" and settled_at_short(short_max, n):
                parts.append("10M missed, settled at 2M")
            elif value is None:
                parts.append(f"{name} not measured")
            elif value > bar:
                parts.append(f"{name} missed")
            else:
                parts.append(
                    f"{name} met" if complete else f"{name} met so far ({len(short)} of {SHORT_RUNS} runs)"
                )
                if value < 1 / n:  # the learner has not even learned the game: an estimate of little weight
                    weak.append(name)
        if h2h is None:
            parts.append("expert not measured")
        else:
            parts.append("expert met" if h2h["ci"][0] > 1 / n else "expert missed")
        met = all(p.endswith(" met") for p in parts)
        caution = (
            f" ({' and '.join(weak)}: every best response stayed below the fair share, a weak estimate)"
            if weak
            else ""
        )
        rows.append(
            {
                "table": table,
                "n": n,
                "short": short,
                "long": long,
                "h2h": h2h,
                "short_max": short_max,
                "long_max": long_max,
                "bars": (short_bar, long_bar),
                "verdict": ("**met**" if met else "; ".join(parts)) + caution,
            }
        )
    return rows


def _rate(value: float | None, bar: float) -> str:
    return "–" if value is None else f"{value:.3f} (≤ {bar:.3f})"


def _provenance(data: dict[str, Any], runs: list[dict[str, Any]]) -> str:
    cpu = sum(r.get("cpu_seconds", 0.0) for r in runs)
    return (
        f"Command: `{data.get('command', 'python benchmarks/tables.py --record ' + RECORD)}`; "
        f"{len(runs)} runs, {cpu / 3600:.1f} CPU-hours in all; machine: {data.get('machine', '–')}; "
        f"last measured {data.get('measured', '–')} (`{RECORD}`)."
    )


def tables_short() -> str:
    """The README's table: one line per table, the maxima against their bars, the verdict."""
    data = _load()
    lines = [
        "| table | fair share | best response at 2M (max) | at 10M | `champion` vs `expert` | verdict |",
        "| :--- | ---: | ---: | ---: | ---: | :--- |",
    ]
    for row in verdicts(data["runs"]):
        h2h = "–" if row["h2h"] is None else _ci(row["h2h"])
        lines.append(
            f"| {row['table']} | {1 / row['n']:.3f} | {_rate(row['short_max'], row['bars'][0])} | "
            f"{_rate(row['long_max'], row['bars'][1])} | {h2h} | {row['verdict']} |"
        )
    return "\n".join(lines) + "\n\n" + _provenance(data, data["runs"])


def tables_full() -> str:
    """docs/league.md's table: every best response by estimator and seed, then the maxima and verdict."""
    data = _load()
    lines = [
        "| table | fair share | best responses at 2M (estimator, seed: win rate [95% CI]) | max at 2M "
        "| at 10M (estimator) | `champion` vs `expert` (games) | verdict |",
        "| :--- | ---: | :--- | ---: | ---: | ---: | :--- |",
    ]
    for row in verdicts(data["runs"]):
        short = "; ".join(f"{r['estimator']}, {r['seed']}: {_ci(r)}" for r in row["short"]) or "–"
        long = "; ".join(f"{r['estimator']}: {_ci(r)}" for r in row["long"]) or "–"
        h2h = "–" if row["h2h"] is None else f"{_ci(row['h2h'])} ({row['h2h']['games']})"
        lines.append(
            f"| {row['table']} | {1 / row['n']:.3f} | {short} | {_rate(row['short_max'], row['bars'][0])} | "
            f"{long} (≤ {row['bars'][1]:.3f}) | {h2h} | {row['verdict']} |"
        )
    return "\n".join(lines) + "\n\n" + _provenance(data, data["runs"])


def tables_superseded() -> str:
    """One sentence: the best responses to agents shipped earlier under ``champion-mix`` (the
    record's ``superseded`` runs, which ``benchmarks/tables.py`` set aside), table by table."""
    data = _load()
    old = data.get("superseded", [])
    if not old:
        return "No table's `champion-mix` has been replaced since it was first measured."
    parts = []
    for table in TABLES:
        here = [r for r in old if r["table"] == table]
        if here:
            top = max(here, key=lambda r: r["win_rate"])
            budget = f"{top['budget'] / 1e6:.0f}M"
            parts.append(
                f"{table}: {len(here)} run{'s' if len(here) > 1 else ''}, the most {_ci(top)} "
                f"({top['estimator']}, seed {top['seed']}, {budget})"
            )
    return (
        "Best responses to the `champion-mix` shipped before at a table (the record's `superseded` "
        f"runs, `{RECORD}`): {'; '.join(parts)}."
    )


def unshipped_populations() -> str:
    """Populations made for ``champion-mix`` and measured but not shipped (``UNSHIPPED``), each beside
    the shipped population's strongest 2M best response at its table: why a longer league did not
    replace what ships."""
    path = ROOT / UNSHIPPED
    if not path.exists():
        return "No population was measured and left unshipped."
    data = json.loads(path.read_text(encoding="utf-8"))
    shipped = {row["table"]: row for row in verdicts(_load()["runs"])}
    lines = [
        "| table | population | members | league CPU-s | best responses at 2M (estimator, seed: win rate) "
        "| max | shipped `champion-mix`'s max | why not shipped |",
        "| :--- | :--- | :--- | ---: | :--- | ---: | ---: | :--- |",
    ]
    for pop in data["populations"]:
        runs = sorted(pop["runs"], key=lambda r: (r["seed"], r["estimator"] != "strong", r["estimator"]))
        each = "; ".join(f"{r['estimator']}, {r['seed']}: {r['win_rate']:.3f}" for r in runs)
        top = max(runs, key=lambda r: r["win_rate"])
        row = shipped[pop["table"]]
        ours = "–" if row["short_max"] is None else f"{row['short_max']:.3f}"
        lines.append(
            f"| {pop['table']} | {pop['name']} | {pop['members']} | {pop['league_cpu_seconds']:,.0f} "
            f"| {each} | {_ci(top)} | {ours} (≤ {row['bars'][0]:.3f}) | {pop['why_not']} |"
        )
    commands = " ".join(f"{pop['table']}, {pop['name']}: `{pop['league']}`." for pop in data["populations"])
    return (
        "\n".join(lines)
        + f"\n\n{data['note']} League commands: {commands} Machine: {data['machine']} (`{UNSHIPPED}`)."
    )


FIGURES = {
    "tables-short": tables_short,
    "tables-full": tables_full,
    "tables-superseded": tables_superseded,
    "unshipped-populations": unshipped_populations,
}
