"""The measured baseline of the scripted zoo, as the README shows it (docs/design.md §3, §5).

Runs, in 4-player games with duplicate seat rotation:

1. the head-to-head matrix: each agent against three copies of each other one;
2. the round-robin tournament of the zoo, rated by a Plackett-Luce fit over all games;
3. four ``random`` agents (each should win 1/4 within its interval);
4. a table of four different styles, for the win rate of each seat (fairness).

and writes every result (JSON, CSV, Markdown, PNG) under ``--out``, plus
``baseline.md`` with the four tables::

    python examples/zoo_baseline.py --games 2000 --workers 2 --out results/baseline
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hoity_env.engine import PRESETS
from hoity_env.evaluation import EvaluationResult, evaluate, head_to_head, tournament, wilson_interval

ZOO = ["expert", "collector", "thief", "detective", "random", "expert-v1"]
"""Every scripted agent; the first four also play the by-seat table."""


def _save(result: object, folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    markdown: str = result.to_markdown()  # type: ignore[attr-defined]
    (folder / "result.json").write_text(result.to_json())  # type: ignore[attr-defined]
    (folder / "result.csv").write_text(result.to_csv())  # type: ignore[attr-defined]
    (folder / "result.md").write_text(markdown + "\n")
    result.plot_png(folder / "result.png")  # type: ignore[attr-defined]
    return markdown


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
    randoms = evaluate(["random"] * 4, **common, records=True)  # _first_entry reads the games
    sections = [
        (
            "Head to head (row agent against three copies of the column agent)",
            _save(head_to_head(ZOO, **common), out / "h2h"),
        ),
        (
            "Round-robin tournament (Plackett-Luce ratings)",
            _save(tournament(ZOO, **common), out / "tournament"),
        ),
        ("Four random agents", _save(randoms, out / "random") + "\n\n" + _first_entry(randoms)),
        (
            "Win rate by seat (expert, collector, thief, detective)",
            _save(evaluate(ZOO[:4], **common), out / "seats"),
        ),
    ]
    text = "\n\n".join(f"#### {title}\n\n{body}" for title, body in sections)
    (out / "baseline.md").write_text(text + "\n")
    print(text)
    return text


if __name__ == "__main__":
    main()
