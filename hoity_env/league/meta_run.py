"""Population weights from the meta-solver: play a population's members against each other, solve, ship.

:func:`solve_population` turns a population manifest (equal weights) into one weighted by the
meta-solver, optionally grown by PSRO first (:mod:`hoity_env.league.psro`), in a resumable run folder.
Because the payoff table at 3-6 players is an approximation, the shipped mixture is then *checked*
against independent draws, and that measured gap is reported.  See docs/league.md (weighing a population).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.policies.content import content_hash
from hoity_env.agents.policies.population import (
    NAMED_POPULATIONS,
    POPULATION_PREFIX,
    Member,
    any_paths_allowed,
    check_inside,
    named_population,
    read_population,
    resolve_spec,
)
from hoity_env.engine.config import resolve_rules, validate_num_players
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import check_specs
from hoity_env.evaluation.settings import MatchSettings, positive_int
from hoity_env.files import hold_lock, read_json, write_atomically
from hoity_env.league.meta import MetaSolution, SolverSettings, deviation_gap, expected_payoffs, solve
from hoity_env.league.meta_population import shipped_weights, write_population_folder
from hoity_env.league.meta_result import MetaMember, MetaResult, PsroIteration, score_interval
from hoity_env.league.meta_table import (
    CellFile,
    CellResult,
    check_cells,
    payoff_matrix,
    play_cells,
    table_cells,
)
from hoity_env.league.psro import PsroSettings, best_response_member, check_psro

__all__ = ["DEFAULT_THRESHOLD", "MetaSettings", "PsroSettings", "population_manifest", "solve_population"]

logger = logging.getLogger(__name__)

META_FORMAT = "hoity-meta/1"
LOCK_FILE = ".hoity-meta.lock"
DEFAULT_THRESHOLD = 0.01
"""Members below 1% of the largest weight are dropped from the shipped population."""


@dataclasses.dataclass(frozen=True)
class MetaSettings:
    """One meta-solver run (checked when built).

    Attributes:
        population: the manifest (``population.json``) whose members are weighed.
        num_players: the table's player count, 2-6.
        rules: the rules preset.
        games: games per cell of the payoff table (rounded up to whole deals).
        check_games: games per member in the check (``None``: ``games``).
        seed: the table's evaluation seed (the check's is ``seed + 1``) and the solver's.
        threshold: members whose weight is below this fraction of the largest are dropped.
        workers: processes playing cells at once (the results do not depend on it).
        blas_threads: numpy's BLAS threads in the games (:class:`~hoity_env.evaluation.MatchSettings`).
        solver: how hard the meta-solver works.
        psro: PSRO iterations on top of the solution (none by default).
    """

    population: Path
    num_players: int
    rules: str = "standard"
    games: int = 300
    check_games: int | None = None
    seed: int = 0
    threshold: float = DEFAULT_THRESHOLD
    workers: int = 1
    blas_threads: int | None = None
    solver: SolverSettings = dataclasses.field(default_factory=SolverSettings)
    psro: PsroSettings = dataclasses.field(default_factory=PsroSettings)

    def __post_init__(self) -> None:
        set_field = object.__setattr__  # frozen: normalise the checked values in place
        set_field(self, "population", Path(self.population))
        set_field(self, "num_players", validate_num_players(self.num_players))
        if not isinstance(self.rules, str):
            raise ConfigError(f"rules must be a preset name, got {self.rules!r}")
        resolve_rules(self.rules)
        positive_int("games", self.games)
        if self.check_games is not None:
            positive_int("check_games", self.check_games)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be an int >= 0, got {self.seed!r}")
        threshold = self.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 1:
            raise ConfigError(f"threshold must be a number in [0, 1), got {threshold!r}")
        positive_int("workers", self.workers)
        if self.blas_threads is not None:
            positive_int("blas_threads", self.blas_threads)
        if not isinstance(self.solver, SolverSettings):
            raise ConfigError(f"solver must be a SolverSettings, got {self.solver!r}")
        if not isinstance(self.psro, PsroSettings):
            raise ConfigError(f"psro must be a PsroSettings, got {self.psro!r}")

    @property
    def games_checked(self) -> int:
        """Games per member in the check."""
        return self.check_games if self.check_games is not None else self.games

    def record(self) -> dict[str, Any]:
        """What a resumed run must match (``workers`` and ``blas_threads`` change no result; ``psro``
        only when it has iterations)."""
        psro = {"psro": self.psro.record()} if self.psro.iterations else {}
        return {
            "population": str(self.population.resolve()),
            "players": self.num_players,
            "rules": self.rules,
            "games": self.games,
            "check_games": self.games_checked,
            "seed": self.seed,
            "threshold": self.threshold,
            "solver": dataclasses.asdict(self.solver),
            **psro,
        }


def population_manifest(text: str, rules: str = "standard", num_players: int | None = None) -> Path:
    """The manifest a ``--population`` value names: a named population (its manifest for the
    table), a ``population:PATH`` spec, a folder holding ``population.json``, or the file itself."""
    if text in NAMED_POPULATIONS:
        return named_population(text, rules, num_players)
    path = Path(text.removeprefix(POPULATION_PREFIX))
    if path.is_dir():
        path = path / "population.json"
    if not path.is_file():
        raise ConfigError(f"population manifest not found: {path}")
    return path


def _members(settings: MetaSettings) -> tuple[tuple[Member, ...], list[str]]:
    """The manifest's members and their playable specs, checked: inside the manifest's folder (unless
    allowed otherwise), distinct, and each one built for the table.  With PSRO's ``start="population"``
    the one member is the whole population (``population:PATH``), its members checked the same way."""
    path = settings.population.resolve()  # the cells name members by absolute path: a resume from
    members = read_population(path)  # another working folder plays the same cells
    if not any_paths_allowed():
        for i, m in enumerate(members):
            check_inside(m.spec, i, path)
    specs = [resolve_spec(m.spec, path.parent) for m in members]
    whole = settings.psro.start == "population"  # the population is one strategy: one member is enough
    if len(members) < 2 and not whole:
        raise ConfigError(f"population {path}: a meta-solver needs at least 2 members, got {len(members)}")
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        if spec in seen:
            raise ConfigError(
                f"population {path}: members[{seen[spec]}] and members[{i}] are the same agent {spec!r}"
            )
        seen[spec] = i
    for i, spec in enumerate(specs):
        try:
            check_specs([spec] * settings.num_players, settings.num_players, settings.rules)
        except ConfigError as exc:
            raise ConfigError(f"population {path}: members[{i}] {members[i].spec!r}: {exc}") from exc
    if settings.psro.iterations:
        check_psro(settings.psro, settings.seed, settings.num_players, settings.rules, specs[0])
    if whole:
        origin = "the population at its own weights, one strategy (each seat draws its own member per game)"
        return (Member(f"{POPULATION_PREFIX}{settings.population}", 1.0, origin),), [
            f"{POPULATION_PREFIX}{path}"
        ]
    return members, specs


def _run_record(settings: MetaSettings, members: Sequence[Member], specs: Sequence[str]) -> dict[str, Any]:
    hashes = [content_hash(s, rules=settings.rules, num_players=settings.num_players) for s in specs]
    return {
        "format": META_FORMAT,
        **settings.record(),
        "members": [
            {"spec": m.spec, "origin": m.origin, "hash": h} for m, h in zip(members, hashes, strict=True)
        ],
    }


def _check_folder(out: Path, record: dict[str, Any], resume: bool) -> None:
    """Refuse a folder this run must not write to (before anything is written)."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a folder")
    if (out / "solution.json").exists():
        raise ConfigError(f"{out} holds a finished meta-solver run (solution.json): choose another folder")
    meta = out / "meta.json"
    if not resume:
        if meta.exists():
            raise ConfigError(
                f"{out} holds an unfinished meta-solver run: resume it (--resume) or choose another folder"
            )
        if out.is_dir() and any(out.iterdir()):
            raise ConfigError(
                f"{out} is not empty: choose a new or empty folder (results never overwrite files)"
            )
        return
    if not meta.is_file():
        raise ConfigError(f"nothing to resume in {out}: no meta.json")
    before = read_json(meta, f"meta-solver run {meta}")
    if not isinstance(before, dict):
        raise ConfigError(f"{meta}: not a meta-solver run")
    changed = sorted(key for key in set(before) | set(record) if before.get(key) != record.get(key))
    if changed:
        raise ConfigError(
            f"{out} was started with other settings or members ({', '.join(changed)} differ): "
            "resume it with the same flags and files, or choose another folder"
        )


@contextmanager
def _claimed(out: Path, record: dict[str, Any], resume: bool) -> Iterator[None]:
    """The run folder, made and locked for this run (``meta.json`` written when it is new)."""
    out.mkdir(parents=True, exist_ok=True)
    with hold_lock(out / LOCK_FILE, lambda pid: ConfigError(f"{out} is in use by another run (pid {pid})")):
        if not resume:
            write_atomically(out / "meta.json", json.dumps(record, indent=1) + "\n")
        yield


def solve_population(settings: MetaSettings, out: str | Path, *, resume: bool = False) -> MetaResult:
    """Weigh the members of ``settings.population`` by the meta-solver in the run folder ``out``.

    ``out`` holds ``meta.json`` (settings and members' content hashes, which a resume must match),
    ``cells.json`` (every finished cell, rewritten atomically after each), ``psro/``, ``population/``
    (the shipped population: members below ``threshold`` times the largest weight dropped),
    ``solution.json`` (written last: the run is over) and ``result.md``.  **The check** plays every
    member against ``N - 1`` copies of the shipped population on other deals (seed ``seed + 1``);
    its largest gain over the fair share ``1/N`` is the measured gap.

    Bad settings, members that do not play at the table, or a folder that is taken raise
    :class:`ConfigError` before anything is written, and an existing ``out`` is never
    overwritten; ``resume=True`` continues an unfinished run of the same settings in ``out``.  A
    signal that stops a PSRO best response raises :class:`~hoity_env.strength.jobs.Interrupted`
    once it is checkpointed.
    """
    out = Path(out)
    given, given_specs = _members(settings)
    record = _run_record(settings, given, given_specs)
    _check_folder(out, record, resume)
    members, specs = list(given), list(given_specs)
    with _claimed(out, record, resume):
        store = CellFile(out / "cells.json")
        payoffs, solution, shipped = _solved(settings, specs, store)
        iterations: list[PsroIteration] = []
        match = MatchSettings(
            num_players=settings.num_players,
            rules=settings.rules,
            seed=settings.seed,
            workers=settings.workers,
            blas_threads=settings.blas_threads,
            progress=False,
        )
        for t in range(1, settings.psro.iterations + 1):
            member, spec, entry, mixture = best_response_member(
                t, members, specs, shipped, settings.psro, out, match
            )
            members.append(member)
            specs.append(spec)
            before = np.append(shipped, 0.0)
            payoffs, solution, shipped = _solved(settings, specs, store)
            values = expected_payoffs(payoffs, before)
            iterations.append(
                PsroIteration(
                    iteration=t,
                    mixture=str(mixture),
                    member=member.spec,
                    run_dir=entry.run_dir,
                    steps=entry.timesteps,
                    games=entry.games,
                    win_rate=entry.win_rate,
                    ci_low=entry.ci_low,
                    ci_high=entry.ci_high,
                    train_cpu_seconds=entry.train_cpu_seconds,
                    member_gain=float(values[-1] - before @ values),
                    gap=solution.gap,
                    weights=solution.weights,
                    shipped=tuple(float(w) for w in shipped),
                )
            )
        folder = out / "population"
        write_population_folder(folder, members, specs, shipped)
        manifest = folder.resolve() / "population.json"
        n, rules = settings.num_players, settings.rules
        check = check_cells(
            specs, f"{POPULATION_PREFIX}{manifest}", n, rules, settings.games_checked, settings.seed + 1
        )
        checked = play_cells(check, store, workers=settings.workers, blas_threads=settings.blas_threads)
        result = _result(settings, members, payoffs, solution, shipped, checked, manifest, iterations)
        write_atomically(out / "result.md", result.to_markdown() + "\n")
        write_atomically(out / "solution.json", json.dumps(result.to_dict(), indent=1) + "\n")
    return result


def _solved(
    settings: MetaSettings, specs: Sequence[str], store: CellFile
) -> tuple[np.ndarray, MetaSolution, np.ndarray]:
    """The payoff table over ``specs`` (playing the cells ``store`` lacks), its solution and the
    shipped weights."""
    n, k = settings.num_players, len(specs)
    cells = table_cells(specs, n, settings.rules, settings.games, settings.seed)
    results = play_cells(cells, store, workers=settings.workers, blas_threads=settings.blas_threads)
    payoffs = payoff_matrix(results, k, n)
    solution = solve(payoffs, settings.solver, seed=settings.seed)
    shipped = shipped_weights(solution.weights, settings.threshold)
    logger.info(
        "solved: gap %.5f (%s); %d of %d members kept",
        solution.gap,
        solution.method,
        int((shipped > 0).sum()),
        k,
    )
    return payoffs, solution, shipped


def _result(
    settings: MetaSettings,
    members: Sequence[Member],
    payoffs: np.ndarray,
    solution: MetaSolution,
    shipped: np.ndarray,
    checked: dict[str, CellResult],
    manifest: Path,
    iterations: Sequence[PsroIteration],
) -> MetaResult:
    values = expected_payoffs(payoffs, shipped)
    rows = []
    for i, member in enumerate(members):
        cell = checked[f"check:{i}"]
        score = cell.score(0)
        low, high = score_interval(score, cell.games)
        rows.append(
            MetaMember(
                spec=member.spec,
                origin=member.origin,
                weight=solution.weights[i],
                shipped_weight=float(shipped[i]),
                value=float(values[i]),
                check_games=cell.games,
                check_score=score,
                check_low=low,
                check_high=high,
            )
        )
    return MetaResult(
        population=str(settings.population),
        num_players=settings.num_players,
        rules=settings.rules,
        games=settings.games,
        seed=settings.seed,
        threshold=settings.threshold,
        members=tuple(rows),
        payoffs=tuple(tuple(float(x) for x in row) for row in payoffs),
        gap=solution.gap,
        shipped_gap=deviation_gap(payoffs, shipped),
        method=solution.method,
        iterations=solution.iterations,
        manifest=str(manifest),
        psro=tuple(iterations),
    )
