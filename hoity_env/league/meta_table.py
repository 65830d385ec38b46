"""The empirical payoff table of a population: its members played against each other, cell by cell.

The full ``N``-player meta-game has too many opponent profiles to play, so a :class:`Cell` is member
``i`` in one seat against ``N - 1`` copies of member ``j``, and the solver reads ``u(i | σ)`` as
``Σ_j σ_j A[i, j]``: exact at 2 players and at every pure table, first-order in between, hence the
check against independent draws (:func:`check_cells`).  Cells share one seed (common random numbers)
and are written as they finish, so a resume replays only the rest.  See docs/league.md.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.policies.population import PATH_PREFIXES, POPULATION_PREFIX
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.chunks import worker_initializer
from hoity_env.evaluation.harness import evaluate
from hoity_env.evaluation.settings import MatchSettings
from hoity_env.evaluation.workers import run_in_order
from hoity_env.files import read_json, write_atomically

__all__ = [
    "CELLS_FORMAT",
    "Cell",
    "CellFile",
    "CellResult",
    "check_cells",
    "payoff_matrix",
    "play_cell",
    "play_cells",
    "short_name",
    "table_cells",
]

logger = logging.getLogger(__name__)

CELLS_FORMAT = "hoity-meta-cells/1"
"""The ``format`` tag of the cell file."""


@dataclasses.dataclass(frozen=True)
class Cell:
    """One table to play: ``agents[0]`` in one seat, ``agents[1]`` in the other ``N - 1``.

    ``key`` names it in the cell file (``"i,j"`` for members ``i`` and ``j``, ``"check:i"``
    for member ``i`` against the population); ``seed`` is its evaluation seed.
    """

    key: str
    agents: tuple[str, str]
    num_players: int
    rules: str
    games: int
    seed: int

    @property
    def seats(self) -> list[str]:
        """The agent specs by seat entry, as :func:`~hoity_env.evaluation.evaluate` takes them."""
        return [self.agents[0], *[self.agents[1]] * (self.num_players - 1)]


@dataclasses.dataclass(frozen=True)
class CellResult:
    """What a cell's games gave, per entry (``[0]``: the single seat, ``[1]``: the copies).

    ``seat_games`` counts one per seat held in each game, ``shares`` sums the win shares
    (``1/w`` per win shared by ``w``), ``truncated`` counts the games nobody won.
    """

    agents: tuple[str, str]
    num_players: int
    games: int
    truncated: int
    seat_games: tuple[int, int]
    wins: tuple[int, int]
    shares: tuple[float, float]

    def score(self, entry: int) -> float:
        """The entry's mean score per seat-game; ``1/N`` is fair.

        A score is 1 for a win, ``1/w`` of a win shared by ``w``, ``1/N`` each in a truncated game:
        every game hands out exactly 1, so the meta-game is constant-sum."""
        return self.shares[entry] / self.seat_games[entry] + self.truncated / (self.num_players * self.games)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (the cell file's)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> CellResult:
        """Inverse of :meth:`to_dict`; anything malformed is a :class:`ConfigError` naming ``where``."""
        try:
            result = cls(
                agents=(str(data["agents"][0]), str(data["agents"][1])),
                num_players=int(data["num_players"]),
                games=int(data["games"]),
                truncated=int(data["truncated"]),
                seat_games=(int(data["seat_games"][0]), int(data["seat_games"][1])),
                wins=(int(data["wins"][0]), int(data["wins"][1])),
                shares=(float(data["shares"][0]), float(data["shares"][1])),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ConfigError(f"{where}: not a cell result ({exc!r})") from None
        expected = (result.games, (result.num_players - 1) * result.games)
        if result.games < 1 or result.seat_games != expected or not 0 <= result.truncated <= result.games:
            raise ConfigError(f"{where}: inconsistent counts {data!r}")
        return result


def table_cells(specs: Sequence[str], num_players: int, rules: str, games: int, seed: int) -> list[Cell]:
    """The payoff table's cells over members ``specs``: unordered pairs at 2 players, else ordered ones."""
    k = len(specs)
    pairs = [(i, j) for i in range(k) for j in range(k) if i != j and (num_players > 2 or i < j)]
    return [Cell(f"{i},{j}", (specs[i], specs[j]), num_players, rules, games, seed) for i, j in pairs]


def check_cells(
    specs: Sequence[str], population: str, num_players: int, rules: str, games: int, seed: int
) -> list[Cell]:
    """One cell per member: the member against ``N - 1`` copies of ``population`` (each its own draw)."""
    return [
        Cell(f"check:{i}", (spec, population), num_players, rules, games, seed)
        for i, spec in enumerate(specs)
    ]


def payoff_matrix(results: dict[str, CellResult], k: int, num_players: int) -> np.ndarray:
    """``A[i, j]``: member ``i``'s score against ``N - 1`` copies of member ``j`` (``1/N`` on the diagonal).

    At 2 players cell ``"i,j"`` gives both ``A[i, j]`` and ``A[j, i]`` (they sum to 1).
    """
    table = np.full((k, k), 1.0 / num_players)
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            if num_players == 2 and i > j:
                table[i, j] = results[f"{j},{i}"].score(1)
            else:
                table[i, j] = results[f"{i},{j}"].score(0)
    return table


def play_cell(cell: Cell, blas_threads: int | None = None) -> CellResult:
    """Play one cell (in this process: its games on one core)."""
    settings = MatchSettings(
        num_players=cell.num_players,
        games=cell.games,
        seed=cell.seed,
        rules=cell.rules,
        progress=False,
        blas_threads=blas_threads,
    )
    result = evaluate(cell.seats, settings)
    rows = {row.agent: row for row in result.agent_stats}
    single, copies = rows[cell.agents[0]], rows[cell.agents[1]]
    return CellResult(
        agents=cell.agents,
        num_players=cell.num_players,
        games=result.games,
        truncated=result.truncated,
        seat_games=(single.games, copies.games),
        wins=(single.wins, copies.wins),
        shares=(single.win_share * single.games, copies.win_share * copies.games),
    )


class CellFile:
    """The finished cells of a run, kept in one JSON file rewritten atomically after every cell.

    ``{"format": "hoity-meta-cells/1", "cells": {key: CellResult.to_dict(), ...}}``.  A cell
    whose agents differ from the cell now asked for is an error (the run's settings changed).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.results: dict[str, CellResult] = {}
        if path.exists():
            self.results = self._read()

    def _read(self) -> dict[str, CellResult]:
        data = read_json(self.path, f"cell file {self.path}")
        if (
            not isinstance(data, dict)
            or data.get("format") != CELLS_FORMAT
            or not isinstance(data.get("cells"), dict)
        ):
            raise ConfigError(f"{self.path}: not a cell file (format {CELLS_FORMAT!r} with cells)")
        return {
            str(key): CellResult.from_dict(row, f"{self.path}: cell {key}")
            for key, row in data["cells"].items()
        }

    def add(self, key: str, result: CellResult) -> None:
        """Keep a finished cell and write the file (atomically)."""
        self.results[key] = result
        cells = {k: self.results[k].to_dict() for k in sorted(self.results, key=_cell_order)}
        text = json.dumps({"format": CELLS_FORMAT, "cells": cells}, indent=1)
        write_atomically(self.path, text + "\n")

    def missing(self, cells: Iterable[Cell]) -> list[Cell]:
        """The cells not finished yet (a finished one with other agents is refused)."""
        out = []
        for cell in cells:
            done = self.results.get(cell.key)
            if done is None:
                out.append(cell)
            elif done.agents != cell.agents or done.games < cell.games:
                raise ConfigError(
                    f"{self.path}: cell {cell.key} was played with {list(done.agents)}, {done.games} games, "
                    f"not {list(cell.agents)}, {cell.games}: the run's settings changed"
                )
        return out


def short_name(spec: str) -> str:
    """A spec with its file named by the file's name alone (``npz:members/m.npz`` -> ``npz:m.npz``)."""
    prefix = next((p for p in (*PATH_PREFIXES, POPULATION_PREFIX) if spec.startswith(p)), None)
    return spec if prefix is None else prefix + Path(spec[len(prefix) :]).name


def _cell_order(key: str) -> tuple[int, ...]:
    """Table cells first, by member indices, then the check's."""
    check = key.startswith("check:")
    numbers = key.removeprefix("check:").split(",")
    return (int(check), *(int(n) for n in numbers))


def _play_task(task: tuple[Cell, int | None]) -> tuple[CellResult, float]:
    """A worker's task: one cell and the seconds it took."""
    start = time.perf_counter()
    result = play_cell(*task)
    return result, time.perf_counter() - start


def play_cells(
    cells: Sequence[Cell],
    store: CellFile,
    *,
    workers: int = 1,
    blas_threads: int | None = None,
) -> dict[str, CellResult]:
    """Play the cells ``store`` has not finished, writing each to it as it finishes; every cell's result.

    ``workers`` processes play one cell each at a time (results are the same for any number);
    the cells come back in order, so a cell is written once those before it are.
    """
    todo = store.missing(cells)
    logger.info("%d of %d cells to play (%d finished before)", len(todo), len(cells), len(cells) - len(todo))
    tasks = [(cell, blas_threads) for cell in todo]
    if workers > 1 and len(todo) > 1:
        settings = MatchSettings(blas_threads=blas_threads)
        init = worker_initializer(settings)
        played: Iterable[tuple[CellResult, float]] = run_in_order(
            _play_task,
            tasks,
            workers=min(workers, len(todo)),
            initializer=init,
            label=("meta worker", "playing"),
        )
    else:
        played = map(_play_task, tasks)
    for number, (cell, (result, seconds)) in enumerate(zip(todo, played, strict=True), start=1):
        store.add(cell.key, result)
        logger.info(
            "cell %d/%d %s: %s scores %.3f against %s (%d games, %.1f s)",
            number,
            len(todo),
            cell.key,
            short_name(cell.agents[0]),
            result.score(0),
            short_name(cell.agents[1]),
            result.games,
            seconds,
        )
    return {cell.key: store.results[cell.key] for cell in cells}
