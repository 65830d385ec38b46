"""Speed figures of the docs, rendered from the benchmarks' ``--record`` files.

Each benchmark that feeds a page writes ``docs/results/performance/NAME.json``
(``benchmarks/bench_record.py``: the figures, the exact command, the machine with its load
average at the start and end of the run, the package versions and git commit, the run's
wall and CPU time).  The functions here turn those files into the Markdown of the figure
blocks (``docs/_generate/figures.py`` registers them), verdicts against the targets of
docs/design.md §7 included, so no speed figure in the docs is typed by hand.  Tables of
the learners and of training are in ``learning_figures.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hoity_env.evaluation.reports.markdown import table

ROOT = Path(__file__).resolve().parents[2]
RESULTS = "docs/results/performance"


def load(name: str, folder: str = RESULTS) -> dict[str, Any]:
    """The record ``FOLDER/NAME.json`` (default ``docs/results/performance/``)."""
    record: dict[str, Any] = json.loads((ROOT / folder / f"{name}.json").read_text(encoding="utf-8"))
    return record


def figure_table(name: str, key: str = "rows") -> tuple[dict[str, Any], Any]:
    """The record ``NAME.json`` and one table of its figures (``record["figures"][key]``)."""
    record = load(name)
    return record, record["figures"][key]


def machine(record: dict[str, Any]) -> str:
    """The machine of a record, in words (with the load average: the machine is shared)."""
    box = record["machine"]
    if isinstance(box, str):
        return box
    start, end = box["load_average"]
    return (
        f"{box['cpus']} CPUs ({box['arch']}), Python {box['python']}, shared with other jobs "
        f"(load average {start:.1f} at the start, {end:.1f} at the end)"
    )


def provenance(name: str, record: dict[str, Any]) -> str:
    """Where a figure comes from: command, machine, date, versions and the run's own time."""
    versions = record.get("versions", {})
    shown = ", ".join(f"{k} {v}" for k, v in versions.items() if k not in ("git_commit", "hoity_env"))
    commit = f" at commit {versions['git_commit']}" if "git_commit" in versions else ""
    took = ""
    if "wall_seconds" in record:
        took = (
            f" The run took {record['wall_seconds']:,.0f} s of wall time, {record['cpu_seconds']:,.0f} CPU-s."
        )
    return (
        f"Command: `{record['command']}`{commit}; machine: {machine(record)}; measured "
        f"{record['measured']}; {shown} (`{RESULTS}/{name}.json`).{took}"
    )


def n(x: float) -> str:
    """A rate with thousands separators."""
    return f"{x:,.0f}"


def times(x: float) -> str:
    """A ratio: one decimal below 10, none above."""
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"


def span(values: Iterable[float], spec: str = "") -> str:
    """``low–high`` of figures measured over several runs, both ends formatted with ``spec``.

    The sentences give a range where one number would hide how much the runs differ; ends that
    read the same are one number.
    """
    ordered = sorted(values)
    low, high = f"{ordered[0]:{spec}}", f"{ordered[-1]:{spec}}"
    return low if low == high else f"{low}–{high}"


def met(ok: bool) -> str:
    """A target's verdict, in bold."""
    return "**met**" if ok else "**not met**"


def transcribed(name: str, folder: str = RESULTS) -> dict[str, Any]:
    """A transcribed record, checked to say so (``transcribed``: why it is not regenerated)."""
    record = load(name, folder)
    if not record.get("transcribed"):
        raise SystemExit(f"{name}.json: a record without --record provenance must say why in 'transcribed'")
    return record


def transcribed_note(name: str, record: dict[str, Any], folder: str = RESULTS) -> str:
    """Where a transcribed figure comes from, and why it is not regenerated."""
    source = f"`{record['command']}`" if record.get("command") else record["source"]
    return (
        f"Transcribed from the output of {source} ({record['measured']}, {record['machine']}); "
        f"not regenerated for the docs: {record['transcribed']} (`{folder}/{name}.json`)."
    )


def env_speed() -> str:
    """The one-game env beside PettingZoo ``rps_v2`` and OpenSpiel goofspiel."""
    record, rows = figure_table("env")
    ours = rows["hoity_env 4p parallel"]["env_us"]
    labels = {
        "hoity_env 4p parallel": "hoity_env, 4 players, parallel",
        "pettingzoo rps_v2 parallel": "PettingZoo `rps_v2`, parallel",
        "openspiel goofspiel 4p rl_env": "OpenSpiel goofspiel, 4 players, `rl_environment`",
    }
    body = [
        [labels[k], f"{r['env_us']:.1f}", n(1e6 / r["env_us"]), f"{r['env_us'] / ours:.2f}"]
        for k, r in rows.items()
    ]
    text = table(
        ["environment", "CPU µs per agent-step", "agent-steps / CPU-s", "hoity_env is … × faster"], body
    )
    rps = rows["pettingzoo rps_v2 parallel"]["env_us"] / ours
    goof = rows["openspiel goofspiel 4p rl_env"]["env_us"] / ours
    s = record["settings"]
    return (
        f"{text}\n\nMedians of {s['repeats']} runs of {s['steps']:,} `step()` calls, env time only. "
        f"Targets (docs/design.md §7): at least 3× `rps_v2`, {met(rps >= 3)} ({rps:.2f}×); at least "
        f"1.5× goofspiel, {met(goof >= 1.5)} ({goof:.2f}×).\n\n{provenance('env', record)}"
    )


def _batched_rows(rows: dict[str, float], batches: list[int], label: str, key: str) -> list[list[str]]:
    one = rows["hoity parallel_env (one game)"]
    out = []
    for b in batches:
        numpy, numba = (rows.get(key.format(acc=acc, b=b)) for acc in ("numpy", "numba"))
        best = max(x for x in (numpy, numba) if x is not None)
        cells = [n(numpy) if numpy else "", n(numba) if numba else ""]
        out.append([f"{label}, B = {b:,}", *cells, times(best / one)])
    return out


def batched_speed() -> str:
    """The batched engine and env beside the one-game env and the outside anchors."""
    record = load("batched")
    rows, figures = record["figures"]["rows"], record["figures"]
    batches = [int(b) for b in record["settings"]["batches"].split(",")]
    one = rows["hoity parallel_env (one game)"]
    body = [["`parallel_env`, one game", n(one), "", "1.0"]]
    body += _batched_rows(rows, batches, "`BatchedHoityEnv`", "hoity BatchedHoityEnv {acc} B={b:,}")
    body += _batched_rows(
        rows, batches, "`BatchedGame` + `BatchObserver`", "hoity BatchedGame+observer standard {acc} B={b:,}"
    )
    anchors = {
        "gymnasium CartPoleVectorEnv B=1,024": "Gymnasium `CartPoleVectorEnv`, B = 1,024",
        "pgx kuhn_poker (JAX CPU) B=4,096": "PGX Kuhn poker (JAX, CPU), B = 4,096",
        "pgx leduc_holdem (JAX CPU) B=4,096": "PGX Leduc hold'em (JAX, CPU), B = 4,096",
    }
    body += [[label, n(rows[k]), "", times(rows[k] / one)] for k, label in anchors.items() if k in rows]
    header = [
        "environment",
        "numpy: agent-steps / CPU-s",
        "numba: agent-steps / CPU-s",
        "fastest × one-game env",
    ]
    engine = {
        acc: rows.get(f"hoity BatchedGame+observer standard {acc} B=1,024") for acc in ("numpy", "numba")
    }
    verdict = ""
    if engine["numpy"]:
        verdict = (
            f"Target (docs/design.md §7): the engine with observations and masks at B = 1,024, at least "
            f"1M agent-steps per CPU-second on numpy: {met(engine['numpy'] >= 1e6)} "
            f"({engine['numpy'] / 1e6:.2f}M)"
        )
        if engine["numba"]:
            verdict += (
                f"; the 2M stretch with numba: {met(engine['numba'] >= 2e6)} ({engine['numba'] / 1e6:.2f}M)"
            )
        verdict += ". "
    single = [
        f"{rows[f'hoity BatchedHoityEnv {acc} B=1']:,.0f} on {acc}"
        for acc in ("numpy", "numba")
        if f"hoity BatchedHoityEnv {acc} B=1" in rows
    ]
    if single:
        verdict += (
            f"A batch of one makes {' and '.join(single)} agent-steps per CPU-second, beside "
            f"{n(one)} for the one-game env. "
        )
    memory = figures["bytes_per_game"]
    state = " / ".join(f"{memory[k]:,.0f}" for k in ("2", "4", "6"))
    notes = "".join(f" {note}." for note in figures["notes"])
    return (
        f"{table(header, body)}\n\n{verdict}The batched state takes {state} bytes per game for "
        f"2 / 4 / 6 players.{notes}\n\n{provenance('batched', record)}"
    )


def numba_gain() -> str:
    """numba over numpy for ``BatchedHoityEnv``, by batch size (one sentence for the engine page)."""
    record, rows = figure_table("batched")
    batches = [int(b) for b in record["settings"]["batches"].split(",")]
    gains = []
    for b in batches:
        numpy, numba = (rows.get(f"hoity BatchedHoityEnv {acc} B={b:,}") for acc in ("numpy", "numba"))
        if numpy and numba:
            gains.append(f"{numba / numpy:.1f}× at {b:,}")
    return (
        f"Measured with the env (`BatchedHoityEnv`, 4 players, random legal play), numba's "
        f"agent-steps per CPU-second are numpy's times {', '.join(gains)} games "
        f"([Performance](performance.md#the-batched-engine); `{record['command']}`, {record['measured']})."
    )


def ruleset_speed() -> str:
    """The batched original engine beside the standard one (one sentence for the rulesets page)."""
    record, rows = figure_table("batched_rules")
    parts = []
    for acc in ("numba", "numpy"):
        original = rows.get(f"hoity BatchedGame+observer original {acc} B=1,024")
        standard = rows.get(f"hoity BatchedGame+observer standard {acc} B=1,024")
        if original and standard:
            parts.append(f"{original / 1e6:.2f}M on {acc} (standard: {standard / 1e6:.2f}M)")
    return (
        "With observations and masks at B = 1,024 (4 players) the batched original engine makes "
        f"{' and '.join(parts)} agent-steps per CPU-second, both rulesets in the same run. "
        f"{provenance('batched_rules', record)}"
    )


def numba_choice() -> str:
    """numpy against numba, engine alone, both rulesets: the measurement that made the kernels the
    batched engine's one implementation (docs/design.md §7)."""
    record, rows = figure_table("batched_rules")
    body = []
    for rules in ("standard", "original"):
        numpy, numba = (
            rows[f"hoity BatchedGame+observer {rules} {acc} B=1,024"] for acc in ("numpy", "numba")
        )
        body.append([rules, n(numpy), n(numba), f"{numba / numpy:.1f}×"])
    header = ["ruleset", "numpy: agent-steps / CPU-s", "numba: agent-steps / CPU-s", "numba ÷ numpy"]
    return f"{table(header, body, 'lrrr')}\n\n{provenance('batched_rules', record)}"


def compile_time() -> str:
    """The first use of the batched engine on a cold numba cache, and on a warm one."""
    record = load("compile")
    cold, warm = record["figures"]["cold"], record["figures"]["warm"]
    repeats = record["settings"]["repeats"]
    runs = f"medians of {repeats} runs" if repeats > 1 else "one run"
    return (
        f"On a cold cache the first `BatchedHoityEnv` reset and two steps take {cold['standard'][0]:.1f} "
        f"CPU-seconds ({cold['standard'][1]:.1f} s of wall time on the shared machine) for the standard "
        f"rules, and the original rules' own kernels {cold['original'][0]:.1f} CPU-seconds more; "
        f"from the cache, {warm['standard'][0]:.1f} and {warm['original'][0]:.1f} "
        f"({runs}, each in a fresh process; `import hoity_env` itself {cold['import'][0]:.1f}). "
        f"{provenance('compile', record)}"
    )


def harness_speed() -> str:
    """The evaluation harness through both engines, and numpy's BLAS limited to one thread or not."""
    record, rows = figure_table("harness_engines")
    body = [
        [
            ", ".join(r["lineup"]),
            n(r["batched_unlimited"]),
            n(r["batched"]),
            f"{r['batched'] / r['batched_unlimited']:.2f}",
            n(r["one_game"]),
            times(r["batched"] / r["one_game"]),
        ]
        for r in rows
    ]
    zoo = rows[0]
    s = record["settings"]
    header = [
        "line-up",
        "batched, BLAS unlimited",
        "batched, one BLAS thread",
        "one thread × unlimited",
        "one-game games / CPU-s",
        "batched × one-game",
    ]
    champion = next((r for r in rows if r["lineup"] == ["champion"] * 4), None)
    blas = ""
    if champion is not None:
        gain = champion["batched"] / champion["batched_unlimited"]
        blas = (
            f" One BLAS thread (`--blas-threads 1`, the default of the command lines) against numpy's "
            f"default of {record['figures']['default_blas_threads']} on this machine, in the same run: "
            f"{gain:.1f}× the games per CPU-second with four `champion`s (target, issue 34: at least "
            f"2×): {met(gain >= 2)}."
        )
    return (
        f"{table(header, body)}\n\nFour-player games per CPU-second (every thread's CPU time), medians "
        f"of {s['repeats']} runs ({s['games']:,} batched games, {s['one_game_games']:,} one-game games "
        f"each; the one-game engine under one BLAS thread). Target (docs/design.md §7): at least 2,000 "
        f"four-player games per CPU-second with the scripted zoo: {met(zoo['batched'] >= 2000)} "
        f"({n(zoo['batched'])}).{blas}\n\n{provenance('harness_engines', record)}"
    )


def agent_speed() -> str:
    """Decisions per CPU-second of every agent, one by one and in batches."""
    record = load("agents")
    figures = record["figures"]
    batches = figures["batches"]
    body = []
    for spec, (loop, *batched) in figures["rates"].items():
        kind, _, path = spec.partition(":")
        name = f"`{kind}:` (`{path}`, torch on 1 thread)" if path else f"`{spec}`"
        body.append([name, n(loop), *(n(r) for r in batched), f"{batched[-1] / loop:.0f}×"])
    header = ["agent", "`act` loop", *(f"B = {b:,}" for b in batches), f"B = {batches[-1]:,} / loop"]
    s = record["settings"]
    return (
        f"{table(header, body)}\n\nDecisions per CPU-second on {s['rows']:,} real four-player rows, "
        f"medians of {s['repeats']}.\n\n{provenance('agents', record)}"
    )


def agent_costs() -> str:
    """Each scripted style's CPU cost per decision before and after its compiled twin."""
    record = load("agent_costs")
    figures = record["figures"]
    batches, costs = figures["batches"], figures["costs"]
    body = []
    for spec, after in costs["after"].items():
        cells = []
        for (_, checked), (_, checked0) in zip(after, costs["before"][spec], strict=True):
            cells.append(f"{checked0:.2f} → {checked:.2f} ({times(checked0 / checked)}×)")
        body.append([f"`{spec}`", *cells])
    header = ["agent", *(f"B = {b:,}: before → after" for b in batches)]
    s = record["settings"]
    return (
        f"{table(header, body)}\n\nCPU microseconds per decision through the envs' checked entry, "
        f"medians of {s['repeats']} on {s['rows']:,} real rows; *before* is the `hoity_env` of the "
        f"source tree `{costs['before_tree']}`, timed in its own process on the same rows.\n\n"
        f"{provenance('agent_costs', record)}"
    )


def wheel_size() -> str:
    """The wheel's size and the named agents' share of it (one sentence for the agents page)."""
    record = load("wheel_size")
    f = record["figures"]
    models = sum(c for c, _ in f["models"].values())
    policies = sum(1 for name in f["models"] if name.endswith(".npz"))
    return (
        f"The wheel (`{f['wheel']}`) is {f['wheel_bytes'] / 1e6:.2f} MB, of which the named agents' "
        f"{policies} weight files, manifests and registry take {models / 1e6:.2f} MB compressed. "
        f"{provenance('wheel_size', record)}"
    )


def viewer_size() -> str:
    """The replay viewer's size per round (one sentence for the play page)."""
    record, games = figure_table("viewer_size", "games")
    per_round = [g["bytes"] / g["rounds"] / 1000 for g in games]
    pages = [g["bytes"] / 1e6 for g in games]
    rounds = [g["rounds"] for g in games]
    return (
        f"It holds one PNG picture per round, about {sum(per_round) / len(per_round):.0f} KB each: "
        f"{span(per_round, '.0f')} KB per round over {len(games)} games of "
        f"{record['settings']['players']} random agents, which lasted "
        f"{span(rounds)} rounds, pages of {span(pages, '.1f')} MB. "
        f"{provenance('viewer_size', record)}"
    )


def render_speed() -> str:
    """The board picture's CPU cost per frame (one paragraph for the play page)."""
    record, rows = figure_table("render")
    ms = [r["frame_seconds"] * 1e3 for r in rows]
    steps = [r["frame_seconds"] / r["step_seconds"] for r in rows]
    return (
        f"A frame costs {span(ms, '.1f')} ms of CPU ({span(r['players'] for r in rows)} players, "
        f"{' and '.join(sorted({r['rules'] for r in rows}))} rules), {span(steps, '.0f')} env "
        f"steps' worth: recording every step of a game costs a fraction of a second. "
        f"{provenance('render', record)}"
    )


def harness_original() -> str:
    """The harness with the zoo under the original rules, batched against one-game (one sentence)."""
    record, rows = figure_table("harness_original")
    zoo = rows[0]
    return (
        f"The harness plays the zoo under the original rules at {n(zoo['batched'])} four-player games "
        f"per CPU-second against {n(zoo['one_game'])} for the one-game engine, "
        f"{times(zoo['batched'] / zoo['one_game'])}× (target: at least 20×). "
        f"{provenance('harness_original', record)}"
    )


def exploit_workers() -> str:
    """Two best responses one after another and on two worker processes: wall and CPU time."""
    record = load("exploit_workers")
    f, s = record["figures"], record["settings"]
    median = f["median"]
    body = [
        [
            f"`--workers {w}`",
            f"{median[mode]['wall_seconds']:.1f}",
            f"{median[mode]['cpu_seconds']:.1f}",
            span((r[mode]["wall_seconds"] for r in f["rows"]), ".1f"),
        ]
        for mode, w in (("serial", 1), ("parallel", 2))
    ]
    header = ["run", "wall s", "CPU s (all processes)", "wall s, each repeat"]
    same = "identical" if f["identical"] else "**different**"
    return (
        f"{table(header, body)}\n\nMedians of {len(f['rows'])} runs of each, alternating: two "
        f"{s['budget']:,}-step fast best responses to `{s['target']}` (seeds 0 and 1), {s['games']} "
        f"evaluation games each; CPU time is user + system of the command's process and its workers "
        f"(`resource.getrusage`). Parallel / serial: wall {f['wall_ratio']:.2f}, CPU {f['cpu_ratio']:.2f} "
        f"(each worker imports torch and compiles its own kernels). Target (issue 34): at most 0.6 × "
        f"the serial wall time on 2 cores: {met(f['wall_ratio'] <= 0.6)}. Results: {same} (the result "
        f"JSON without timings).\n\n{provenance('exploit_workers', record)}"
    )


FIGURES = {
    "agent-costs": agent_costs,
    "exploit-workers": exploit_workers,
    "harness-original": harness_original,
    "agent-speed": agent_speed,
    "batched-speed": batched_speed,
    "compile-time": compile_time,
    "env-speed": env_speed,
    "harness-speed": harness_speed,
    "numba-choice": numba_choice,
    "numba-gain": numba_gain,
    "render-speed": render_speed,
    "ruleset-speed": ruleset_speed,
    "viewer-size": viewer_size,
    "wheel-size": wheel_size,
}
