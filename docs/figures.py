"""Measured figures of the README and docs pages, generated from committed result files.

A page holds a figure between two markers::

    <!-- figure: NAME -->
    ...generated Markdown, never edited by hand...
    <!-- end figure -->

and ``FIGURES[NAME]`` makes that Markdown from result files in the repository (a run's
``evaluation.json``, a ladder's ``result.json``, ``docs/results/*.json``), using the
result classes' own renderers, together with the command that produced the file and the
machine it ran on.  ``python docs/figures.py`` rewrites every block; ``--check`` changes
nothing and exits 1 naming each page whose block differs (``tests/test_figures.py`` runs
it), so a page cannot drift from its result file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hoity_env.evaluation import AgentStats  # noqa: E402
from hoity_env.evaluation.markdown import interval, rate, table  # noqa: E402
from hoity_env.files import write_atomically  # noqa: E402

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- figure: ([\w-]+) -->\n)(.*?)(<!-- end figure -->)", re.S)


def _load(path: str) -> Any:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def scores_table(scores: dict[str, Any], num_players: int) -> str:
    """One learner against copies of each opponent: the table a training run reports."""
    rows = []
    for name, data in scores.items():
        s = AgentStats(**data)
        rows.append(
            [
                name,
                str(s.games),
                rate(s.win_rate),
                interval(s.ci_low, s.ci_high),
                f"{s.mean_rank:.2f}",
                f"{s.mean_rounds:.1f}",
            ]
        )
    header = [
        f"opponent (×{num_players - 1})",
        "games",
        "win rate",
        "95% interval",
        "mean rank",
        "mean rounds",
    ]
    return table(header, rows, "lrrrrr")


def _provenance(record: dict[str, Any]) -> str:
    parts = [f"Command: `{record['command']}`"]
    if record.get("machine"):
        parts.append(f"machine: {record['machine']}")
    if record.get("measured"):
        parts.append(f"measured {record['measured']}")
    return "; ".join(parts) + "."


def main_job() -> str:
    """The main job's printed table (``docs/results/main_job.json``, made by running it)."""
    record = _load("docs/results/main_job.json")
    evaluation = record["evaluation"]
    text = scores_table(evaluation["scores"], record["num_players"])
    return f"{text}\n\n{_provenance(record)} {record['note']}"


def command_of(args_path: str, script: str) -> str:
    """The training command a run's ``args.json`` records (every setting spelled out)."""
    args = _load(args_path)
    flags = [
        f"--{key.replace('_', '-')} {value}"
        for key, value in args.items()
        if key not in ("resume", "runs_dir") and value not in ("", None)
    ]
    return f"python training/{script} " + " ".join(flags)


def _run_report(folder: str, script: str) -> str:
    evaluation = _load(f"{folder}/evaluation.json")
    meta = evaluation["meta"]
    players = _load(f"{folder}/args.json")["num_players"]
    return (
        f"{scores_table(evaluation['scores'], players)}\n\n"
        f"`{meta['model']}` played greedily after {meta['timesteps']:,} learner steps; "
        f"{meta['games_per_opponent']:,} games per opponent, evaluation seed {meta['seed']} "
        f"(`{folder}/evaluation.json`). Trained by `{command_of(f'{folder}/args.json', script)}`."
    )


def reference() -> str:
    """The reference agent's final evaluation."""
    return _run_report("docs/reference", "train_ppo.py")


def champion() -> str:
    """The champion's final evaluation."""
    return _run_report("docs/reference/champion", "selfplay.py")


def ladder() -> str:
    """The ladder of the built-in agents, the reference agent and the champion."""
    from hoity_env.evaluation.ladder import LadderResult

    path = "docs/reference/ladder/result.json"
    result = LadderResult.from_json((ROOT / path).read_text(encoding="utf-8"))
    return f"{result.to_markdown()}\n\n(`{path}`.)"


def _baseline(folder: str) -> str:
    sys.path.insert(0, str(ROOT / "examples"))
    from zoo_baseline import baseline_markdown

    record = _load(f"{folder}/command.json")
    return f"{baseline_markdown(ROOT / folder, level=3)}\n\n{_provenance(record)}"


def zoo_baseline() -> str:
    """The scripted zoo measured against itself, standard rules."""
    return _baseline("docs/results/baseline")


def zoo_baseline_original() -> str:
    """The scripted zoo measured against itself, original rules."""
    return _baseline("docs/results/baseline_original")


FIGURES: dict[str, Callable[[], str]] = {
    "main-job": main_job,
    "reference": reference,
    "champion": champion,
    "ladder": ladder,
    "zoo-baseline": zoo_baseline,
    "zoo-baseline-original": zoo_baseline_original,
}


def render(text: str) -> str:
    """``text`` with every figure block regenerated."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in FIGURES:
            raise SystemExit(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
        return f"{m.group(1)}{FIGURES[name]().strip()}\n{m.group(4)}"

    return BLOCK.sub(fill, text)


def stale_pages() -> list[Path]:
    """Pages whose figure blocks differ from what their result files give."""
    return [p for p in PAGES if render(p.read_text(encoding="utf-8")) != p.read_text(encoding="utf-8")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page is stale")
    args = parser.parse_args(argv)
    stale = stale_pages()
    if args.check:
        for page in stale:
            print(f"stale figures: {page.relative_to(ROOT)} (run python docs/figures.py)", file=sys.stderr)
        return 1 if stale else 0
    for page in stale:
        write_atomically(page, render(page.read_text(encoding="utf-8")))
        print(f"updated {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
