"""Measured figures of the README and docs pages, generated from committed result files.

A page holds a figure between two markers::

    <!-- figure: NAME -->
    ...generated Markdown, never edited by hand...
    <!-- end figure -->

and ``FIGURES[NAME]`` makes that Markdown from result files in the repository (a run's
``evaluation.json``, a ladder's ``result.json``, ``docs/results/*.json``), using the
result classes' own renderers, together with the command that produced the file and the
machine it ran on; the speed figures (``perf_figures.py``, ``learning_figures.py``) read the
benchmarks' ``--record`` files in ``docs/results/performance/``, and ``run_figures.py``
the committed training runs' own files.  ``python docs/_generate/figures.py``, the one entry point,
rewrites every block (and ``hoity-serve``'s rules page, ``serve_rules.py``); ``--check`` changes
nothing and exits 1 naming each page whose block differs (``tests/docs/test_figures.py`` runs
it), so a page cannot drift from its result file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "_generate"))

import estimator_figures  # noqa: E402
import exploit_figures  # noqa: E402
import league_figures  # noqa: E402
import learning_figures  # noqa: E402
import meta_figures  # noqa: E402
import perf_figures  # noqa: E402
import run_figures  # noqa: E402
import suite_figures  # noqa: E402
import tables_figures  # noqa: E402

from hoity_env.evaluation import AgentStats  # noqa: E402
from hoity_env.evaluation.reports.markdown import interval, rate, table  # noqa: E402
from hoity_env.files import write_atomically  # noqa: E402

# The README keeps one block (the main job's); every other lives on a results page, docs/results/*.md.
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "results").glob("*.md")),
]
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


def _variable(name: str, value: str) -> str:
    """``NAME=VALUE`` in code; a list of CPU features is shortened to its count and first one."""
    words = value.split()
    return f"`{name}=`{len(words)} features (`{words[0]}`, …)" if len(words) > 2 else f"`{name}={value}`"


def _provenance(record: dict[str, Any]) -> str:
    parts = [f"Command: `{record['command']}`"]
    if record.get("machine"):
        parts.append(f"machine: {record['machine']}")
    if record.get("measured"):
        parts.append(f"measured {record['measured']}")
    return "; ".join(parts) + "."


def main_job_file(rules: str = "standard") -> str:
    """Where the main job's record of a ruleset lives: ``docs/results/main_job[_RULES].json``."""
    return "docs/results/main_job.json" if rules == "standard" else f"docs/results/main_job_{rules}.json"


def main_job(rules: str = "standard") -> str:
    """The main job's printed table (``docs/results/main_job[_RULES].json``, made by running it)."""
    record = _load(main_job_file(rules))
    evaluation = record["evaluation"]
    text = scores_table(evaluation["scores"], record["num_players"])
    cpu = record.get("cpu_seconds")
    took = f" It took {cpu / 60:.1f} CPU-minutes (user + sys, install not included)." if cpu else ""
    # One sentence per line, wrapped: the paragraph reads the same, and no line runs past 200 characters.
    same = "".join(
        f" The same table was also printed on {earlier['measured']} ({earlier['machine']})."
        for earlier in record.get("same_table_on", [])
    )
    text_of_note = f"{_provenance(record)}{took}{same} {record['note']}"
    note = textwrap.fill(text_of_note, 120, break_long_words=False, break_on_hyphens=False)
    return f"{text}\n\n{note}"


def main_job_ratio() -> str:
    """The original ruleset's main job against the standard one, in CPU time (one sentence)."""
    cpu = {rules: _load(main_job_file(rules)).get("cpu_seconds") for rules in ("standard", "original")}
    if not all(cpu.values()):
        raise SystemExit("main_job.json and main_job_original.json both need cpu_seconds")
    ratio = cpu["original"] / cpu["standard"]
    return (
        f"The original main job took {cpu['original'] / 60:.1f} CPU-minutes, the standard one "
        f"{cpu['standard'] / 60:.1f} (`{main_job_file('original')}`, `{main_job_file()}`): "
        f"{ratio:.2f}× (target: at most 1.5×)."
    )


def portable_math() -> str:
    """The main job under each choice of torch's kernels (``docs/results/portable_math.json``)."""
    record = _load("docs/results/portable_math.json")
    rows = []
    for name, run in record["figures"]["runs"].items():
        e = run["expert"]
        variables = ", ".join(_variable(k, v) for k, v in run["variables"].items()) or "(none set)"
        rows.append(
            [
                name,
                variables,
                rate(e["win_rate"]),
                interval(e["ci_low"], e["ci_high"]),
                f"`{run['weights_sha256'][:12]}`",
                f"{run['cpu_seconds']:.0f}",
            ]
        )
    header = ["kernels", "variables", "`expert` win rate", "95% interval", "weights (sha256)", "CPU s"]
    recorded = _load(main_job_file())["evaluation"]["scores"]["expert"]["win_rate"]
    return (
        f"{table(header, rows, 'llrrlr')}\n\n"
        f"Command: `{record['command']}`; CPU: {record['figures']['cpu']}, "
        f"{record['machine']['cpus']} cores; measured {record['measured']}. "
        f"The README's record (`{main_job_file()}`) shows `expert` {rate(recorded)}."
    )


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


def ladder(path: str = "docs/reference/ladder/result.json") -> str:
    """A ladder's report (by default the first one: the built-in agents, the reference agent and
    the first champion)."""
    from hoity_env.strength.ladder import LadderResult

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


EXPERT_LINEUPS = [
    ("expert_vs_v1", "`expert` vs three `expert-v1`"),
    ("reference_vs_expert", "reference agent (`docs/reference/`) vs three `expert`"),
    ("reference_vs_v1", "reference agent vs three `expert-v1`"),
]


def expert_strength() -> str:
    """The expert against the first expert, and the reference agent against both."""
    from hoity_env.evaluation import EvaluationResult

    rows, commands = [], []
    for folder, label in EXPERT_LINEUPS:
        path = f"docs/results/expert/{folder}"
        result = EvaluationResult.from_json((ROOT / path / "result.json").read_text(encoding="utf-8"))
        first = result.agent_stats[0]
        rows.append(
            [label, rate(first.win_rate), interval(first.ci_low, first.ci_high), f"{first.mean_rounds:.1f}"]
        )
        commands.append(_load(f"{path}/command.json"))
    text = table(["line-up", "win rate of the first agent", "95% interval", "mean rounds"], rows, "lrrr")
    return text + "\n\n" + "\n".join(f"* {_provenance(c)}" for c in commands)


def exploit_small() -> str:
    """Two best responses at a small budget."""
    from hoity_env.strength.results import ExploitResult

    path = "docs/results/exploit_small"
    result = ExploitResult.from_json((ROOT / path / "result.json").read_text(encoding="utf-8"))
    return f"{result.to_markdown()}\n\n{_provenance(_load(f'{path}/command.json'))}"


def exploit_2m() -> str:
    """2M-step best responses to ``expert`` by each learner, with their CPU time."""
    from hoity_env.strength.results import ExploitResult

    parts = []
    for learner in ("fast", "sb3"):
        path = f"docs/results/exploit_2m_{learner}"
        if not (ROOT / path / "result.json").is_file():
            continue
        result = ExploitResult.from_json((ROOT / path / "result.json").read_text(encoding="utf-8"))
        record = _load(f"{path}/command.json")
        entry = result.entries[0]
        parts.append(
            [
                learner,
                f"{entry.timesteps:,}",
                "–" if record["train_cpu_seconds"] is None else f"{record['train_cpu_seconds']:.0f}",
                f"{record['total_cpu_seconds']:.0f}",
                rate(entry.win_rate),
                interval(entry.ci_low, entry.ci_high),
                f"`{record['command']}`",
            ]
        )
    header = ["learner", "steps", "training CPU-s", "command CPU-s", "win rate", "95% interval", "command"]
    text = table(header, parts, "lrrrrrl")
    machine = next(
        (_load(f"docs/results/exploit_2m_{x}/command.json")["machine"] for x in ("fast", "sb3")), ""
    )
    return (
        f"{text}\n\nBest responses against three copies of `expert`, 1,000 games each (duplicate format, "
        f"seed 0). Training CPU-s: the `trained ... CPU-s` line each run logs (`time.process_time` "
        f"around training); command CPU-s: user + sys of the whole command (`/usr/bin/time`), with "
        f"the 1,000 evaluation games and start-up. Machine: {machine}."
    )


def best_response_tuning() -> str:
    """How ``FAST_SETTINGS`` were chosen: 2M-step best responses to ``expert``, one per setting and seed."""
    record = _load("docs/results/tune_best_response.json")

    def row(r: dict[str, Any], load: str, mark: str = "") -> list[str]:
        return [
            r["label"] + mark,
            str(r["seed"]),
            f"{r['train_cpu_seconds']:.1f}",
            f"{r['steps_per_cpu_second']:,}",
            f"{rate(r['win_rate'])} {interval(*r['ci'])}",
            load,
        ]

    rows = [row(r, f"{r['load_average']:.1f}") for r in record["runs"]]
    rows += [row(r, "10-17", " †") for r in record.get("earlier_runs", [])]
    header = ["changes from `LearnerSettings()`", "seed", "training CPU-s", "steps / CPU-s"]
    text = table([*header, "win rate vs 3× `expert`", "load"], rows, "lrrrrr")
    earlier = f" † {record['earlier_runs_note']}." if record.get("earlier_runs") else ""
    return (
        f"{text}\n\n{_provenance(record)} Load: the machine's load average as the run ended "
        f"(CPU seconds rise with it). ({record['note']}; `docs/results/tune_best_response.json`.){earlier}"
    )


FIGURES: dict[str, Callable[[], str]] = {
    "league-ablation": league_figures.league_ablation,
    "champion-v2": league_figures.champion,
    "champion-v1-fast": lambda: league_figures.champion("docs/results/champion_v1_exploit.json"),
    "champion-v3": lambda: league_figures.champion("docs/results/champion_v3.json"),
    "best-response-tuning": best_response_tuning,
    "exploit-2m": exploit_2m,
    "time-to-quality": learning_figures.time_to_quality,
    "time-to-quality-short": learning_figures.time_to_quality_short,
    "expert-strength": expert_strength,
    "exploit-small": exploit_small,
    "main-job": main_job,
    "main-job-original": lambda: main_job("original"),
    "main-job-ratio": main_job_ratio,
    "portable-math": portable_math,
    "reference": reference,
    "champion": champion,
    "ladder": ladder,
    "ladder-v2": lambda: ladder(league_figures.LADDER),
    "ladder-v2-reading": league_figures.ladder_reading,
    "champion-mix": league_figures.champion_mix,
    "best-response-settings": exploit_figures.best_response_settings,
    "zoo-baseline": zoo_baseline,
    "zoo-baseline-original": zoo_baseline_original,
    **perf_figures.FIGURES,
    **learning_figures.FIGURES,
    **run_figures.FIGURES,
    **suite_figures.FIGURES,
    **tables_figures.FIGURES,
    **estimator_figures.FIGURES,
    **meta_figures.FIGURES,
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


MAIN_JOB_NOTE = (
    "Seeded, with torch's portable kernels (`ATEN_CPU_CAPABILITY=default`, `MKL_CBWR=COMPATIBLE`, set "
    "by the recipe), so another x86-64 CPU prints this table too (docs/training.md)."
)


def record_main_job(run_dir: Path, cpu_seconds: float | None) -> Path:
    """``docs/results/main_job[_RULES].json`` from a finished run of the main job (its ``evaluation.json``).

    The command records the run's ruleset and name (the runs folder only says where it was
    written); the model's path is kept relative to that runs folder, so no path of this machine.
    Where the record it replaces holds the same scores, its machine, date and CPU time move to
    ``same_table_on``: the evidence that the table does not depend on the machine.
    """
    import datetime
    import os
    import platform

    args = json.loads((run_dir / "args.json").read_text(encoding="utf-8"))
    rules, name = args.get("rules", "standard"), args.get("name", "ppo")
    command = "python training/train_ppo.py" + (f" --rules {rules}" if rules != "standard" else "")
    command += f" --name {name}" if name != "ppo" else ""
    evaluation = json.loads((run_dir / "evaluation.json").read_text(encoding="utf-8"))
    model = f"runs/{name}/final_model.zip"
    evaluation["meta"]["model"] = model
    for row in evaluation.get("scores", {}).values():  # each row names the agent by its path
        if str(row.get("agent", "")).startswith("ppo:"):
            row["agent"] = f"ppo:{model}"
    record = {
        "command": command,
        "machine": f"{os.cpu_count()} CPUs ({platform.machine()}), Python {platform.python_version()}",
        "measured": datetime.date.today().isoformat(),
        "num_players": args["num_players"],
        "cpu_seconds": cpu_seconds,
        "note": MAIN_JOB_NOTE,
        "evaluation": evaluation,
    }
    path = ROOT / main_job_file(rules)
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old["evaluation"]["scores"] == evaluation["scores"]:
            earlier = {k: old.get(k) for k in ("machine", "measured", "cpu_seconds")}
            record["same_table_on"] = [*old.get("same_table_on", []), earlier]
    return write_atomically(path, json.dumps(record, indent=1) + "\n")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page is stale")
    parser.add_argument(
        "--record-main-job",
        metavar="RUN_DIR",
        help="first write docs/results/main_job[_RULES].json from a finished run of the main job (runs/ppo)",
    )
    parser.add_argument("--cpu-seconds", type=float, help="with --record-main-job: the run's user+sys time")
    args = parser.parse_args(argv)
    if args.record_main_job:
        print(f"wrote {record_main_job(Path(args.record_main_job), args.cpu_seconds).relative_to(ROOT)}")
    stale = stale_pages()
    import serve_rules  # hoity-serve's /rules page, docs/RULES.md rendered: generated here too

    if args.check:
        for page in stale:
            print(f"stale figures: {_shown(page)} (run python docs/_generate/figures.py)", file=sys.stderr)
        rules_stale = serve_rules.main(["--check"]) != 0
        return 1 if stale or rules_stale else 0
    for page in stale:
        write_atomically(page, render(page.read_text(encoding="utf-8")))
        print(f"updated {_shown(page)}")
    if serve_rules.stale():
        serve_rules.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
