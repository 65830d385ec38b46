"""The measured baseline of the scripted zoo, as the README shows it (docs/design.md §3, §5).

Runs, in 4-player games with duplicate seat rotation:

1. the head-to-head matrix: each agent against three copies of each other one;
2. the round-robin tournament of the zoo, rated by a Plackett-Luce fit over all games;
3. four ``random`` agents (each should win 1/4 within its interval);
4. a table of four different styles, for the win rate of each seat (fairness).

and writes every result (JSON, CSV, Markdown, PNG) under ``--out``, plus
``baseline.md`` with the four tables.  The docs show the tables of the committed runs in
``docs/results/`` (``docs/_generate/figures.py`` renders them with :func:`baseline_markdown`)::

    python examples/zoo_baseline.py --games 2000 --workers 2 --out docs/results/baseline
    python examples/zoo_baseline.py --rules original --games 400 --workers 2 \
        --out docs/results/baseline_original
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hoity_env.engine import PRESETS
from hoity_env.evaluation import (
    EvaluationResult,
    HeadToHeadResult,
    TournamentResult,
    evaluate,
    head_to_head,
    tournament,
    wilson_interval,
)
from hoity_env.files import write_atomically

ZOO = ["expert", "collector", "thief", "detective", "random", "expert-v1"]
"""Every scripted agent; the first four also play the by-seat table."""


SECTIONS = [
    ("h2h", HeadToHeadResult, "Head to head (row agent against three copies of the column agent)"),
    ("tournament", TournamentResult, "Round-robin tournament (Plackett-Luce ratings)"),
    ("random", EvaluationResult, "Four random agents"),
    ("seats", EvaluationResult, "Win rate by seat (expert, collector, thief, detective)"),
]
"""(folder, result class, title) of each table, in the order the page shows them."""


def _save(result: object, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(folder / "result.json", result.to_json() + "\n")  # type: ignore[attr-defined]
    write_atomically(folder / "result.csv", result.to_csv())  # type: ignore[attr-defined]
    write_atomically(folder / "result.md", result.to_markdown() + "\n")  # type: ignore[attr-defined]
    result.plot_png(folder / "result.png")  # type: ignore[attr-defined]


def baseline_markdown(out: Path, level: int = 4) -> str:
    """The four tables of a finished run, read back from its ``result.json`` files."""
    parts = []
    for folder, cls, title in SECTIONS:
        result = cls.from_json((out / folder / "result.json").read_text(encoding="utf-8"))
        body = result.to_markdown()
        if folder == "random":
            body += "\n\n" + _first_entry(result)
        parts.append(f"{'#' * level} {title}\n\n{body}")
    return "\n\n".join(parts)


def provenance(argv: Sequence[str] | None) -> dict[str, Any]:
    """The command, machine and date a result came from (``docs/_generate/figures.py`` prints them)."""
    args = sys.argv[1:] if argv is None else list(argv)
    return {
        "command": " ".join(["python", "examples/zoo_baseline.py", *args]),
        "machine": f"{os.cpu_count()} CPUs ({platform.machine()}), Python {platform.python_version()}",
        "measured": datetime.date.today().isoformat(),
    }


def _first_entry(result: EvaluationResult) -> str:
    """One ``random`` entry against the three others: entry 0 sits in seat ``rotation``."""
    wins = sum(1 for r in result.records if r.rotation % result.num_players in r.winners)
    low, high = wilson_interval(wins, result.games)
    return (
        f"One `random` entry against three `random`: {wins}/{result.games} wins = "
        f"{wins / result.games:.3f}, 95% interval [{low:.3f}, {high:.3f}] "
        f"(even: {1 / result.num_players:.3f})."
    )


def main(argv: list[str] | None = None) -> str:
    """Play everything, write the files, print and return the Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=2000,
        help="games per table, rounded up to whole deals of 4 (default 2000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed of every table (default 0)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--rules", default="standard", choices=sorted(PRESETS), help="rules preset (default standard)"
    )
    parser.add_argument(
        "--out",
        default="results/baseline",
        help="folder for every table's files and baseline.md (default results/baseline)",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bars (shown only when stderr is a terminal)"
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    common = {
        "num_players": 4,
        "games": args.games,
        "seed": args.seed,
        "workers": args.workers,
        "progress": not args.no_progress,
        "rules": args.rules,
    }
    _save(head_to_head(ZOO, **common), out / "h2h")
    _save(tournament(ZOO, **common), out / "tournament")
    _save(evaluate(["random"] * 4, **common, records=True), out / "random")  # _first_entry reads the games
    _save(evaluate(ZOO[:4], **common), out / "seats")
    write_atomically(out / "command.json", json.dumps(provenance(argv), indent=1) + "\n")
    text = baseline_markdown(out)
    write_atomically(out / "baseline.md", text + "\n")
    print(text)
    return text


if __name__ == "__main__":
    main()
