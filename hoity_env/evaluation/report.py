"""Result dataclasses of the harness, and their JSON, CSV, Markdown and PNG forms.

Every result is a frozen dataclass of plain values (ints, floats, strings,
tuples, nested results), so ``to_json``/``from_json`` round-trip exactly:
floats are written with ``repr`` precision by :mod:`json` and read back bit for
bit, and ``from_json(r.to_json()) == r``.  The CSV form is the per-agent table
only (one row per agent, rating or pair), also exact.  Timings are deliberately
not part of a result: the same seed must give the same result on any machine
and with any number of workers.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from hoity_env.evaluation.match import GameRecord

__all__ = [
    "AgentStats",
    "EvaluationResult",
    "HeadToHeadResult",
    "PairStats",
    "Rating",
    "SeatStats",
    "TournamentResult",
]

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class AgentStats:
    """One agent's totals; ``games`` counts seat-games (one per seat held in each game).

    ``wins`` counts games won outright *or shared* (a tie for first is a win for
    each tied player), which keeps them counts for the Wilson interval;
    ``win_share`` is the mean of the shares (1/number of winners), whose sum over
    all agents equals the number of decided games.
    """

    agent: str
    entries: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    win_share: float
    mean_rank: float
    mean_position: float
    mean_rounds: float


@dataclasses.dataclass(frozen=True)
class SeatStats:
    """Results by seat over all agents: with duplicate rotation, a fairness check of the seats."""

    seat: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float


@dataclasses.dataclass(frozen=True)
class Rating:
    """A Plackett-Luce rating (Elo-like points, pool mean 0) and its 95% interval, with pooled results.

    ``ci_low``/``ci_high`` belong to the win rate (Wilson), ``rating_low``/``rating_high``
    to the rating (see :mod:`hoity_env.evaluation.ratings`).
    """

    agent: str
    rating: float
    rating_low: float
    rating_high: float
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float


@dataclasses.dataclass(frozen=True)
class PairStats:
    """Head to head: ``agent`` in one seat against ``num_players - 1`` copies of ``opponent``."""

    agent: str
    opponent: str
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float


class _Serializable:
    """JSON round trip shared by the result classes (exact, via their type hints)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain dicts, lists and scalars (tuples become lists)."""
        return dataclasses.asdict(self)  # type: ignore[call-overload, no-any-return]

    def to_json(self) -> str:
        """JSON text, one game record or table row per line; ``from_json`` gives back an equal object."""
        return _pretty(self.to_dict(), 0)

    @classmethod
    def from_json(cls: type[T], text: str) -> T:
        """Parse :meth:`to_json` output (raises ``ValueError`` on malformed input)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON result: {exc}") from exc
        result: T = _build(cls, data, cls.__name__)
        return result

    def save_json(self, path: str | Path) -> None:
        """Write :meth:`to_json` to ``path``."""
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")


@dataclasses.dataclass(frozen=True)
class EvaluationResult(_Serializable):
    """Games between ``agents`` (one spec per entry, in entry order) with duplicate seat rotation."""

    agents: tuple[str, ...]
    num_players: int
    rules: str
    seed: int
    deals: int
    games: int
    truncated: int
    agent_stats: tuple[AgentStats, ...]
    seat_stats: tuple[SeatStats, ...]
    records: tuple[GameRecord, ...]

    def to_csv(self) -> str:
        """The per-agent table as CSV."""
        return rows_to_csv(self.agent_stats, AgentStats)

    @staticmethod
    def from_csv(text: str) -> tuple[AgentStats, ...]:
        """Parse :meth:`to_csv` output back into the per-agent table."""
        return rows_from_csv(text, AgentStats)

    def to_markdown(self) -> str:
        """The per-agent and per-seat tables, with a line saying what was played."""
        from hoity_env.evaluation.markdown import evaluation_markdown

        return evaluation_markdown(self)

    def plot_png(self, path: str | Path) -> None:
        """Bar chart of win rates with 95% intervals and a dashed line at ``1/num_players``."""
        from hoity_env.evaluation.plots import plot_win_rates

        s = self.agent_stats
        title = f"{self.games} games, {self.num_players} players, seed {self.seed}"
        plot_win_rates(path, s, 1.0 / self.num_players, title)


@dataclasses.dataclass(frozen=True)
class TournamentResult(_Serializable):
    """Round robin over ``pool``: one :class:`EvaluationResult` per table, ratings over all games."""

    pool: tuple[str, ...]
    num_players: int
    rules: str
    seed: int
    rating_model: str
    ratings: tuple[Rating, ...]
    tables: tuple[EvaluationResult, ...]

    @property
    def games(self) -> int:
        """Games played over all tables."""
        return sum(t.games for t in self.tables)

    def to_csv(self) -> str:
        """The ratings table (pool order) as CSV."""
        return rows_to_csv(self.ratings, Rating)

    @staticmethod
    def from_csv(text: str) -> tuple[Rating, ...]:
        """Parse :meth:`to_csv` output back into the ratings table."""
        return rows_from_csv(text, Rating)

    def to_markdown(self) -> str:
        """Ratings sorted best first, with their intervals and pooled win rates."""
        from hoity_env.evaluation.markdown import tournament_markdown

        return tournament_markdown(self)

    def plot_png(self, path: str | Path) -> None:
        """Pooled win rates with 95% intervals, dashed line at ``1/num_players``."""
        from hoity_env.evaluation.plots import plot_win_rates

        title = f"round robin, {self.games} games, {self.num_players} players, seed {self.seed}"
        plot_win_rates(path, self.ratings, 1.0 / self.num_players, title)


@dataclasses.dataclass(frozen=True)
class HeadToHeadResult(_Serializable):
    """For each ordered pair (A, B) of ``pool``: A against ``num_players - 1`` copies of B."""

    pool: tuple[str, ...]
    num_players: int
    rules: str
    seed: int
    pairs: tuple[PairStats, ...]
    tables: tuple[EvaluationResult, ...]

    @property
    def games(self) -> int:
        """Games played over all pairs."""
        return sum(t.games for t in self.tables)

    def pair(self, agent: str, opponent: str) -> PairStats:
        """The stats of ``agent`` against copies of ``opponent``."""
        for p in self.pairs:
            if p.agent == agent and p.opponent == opponent:
                return p
        raise KeyError(f"no pair ({agent!r}, {opponent!r}) in this head-to-head result")

    def to_csv(self) -> str:
        """One row per ordered pair."""
        return rows_to_csv(self.pairs, PairStats)

    @staticmethod
    def from_csv(text: str) -> tuple[PairStats, ...]:
        """Parse :meth:`to_csv` output back into the pair rows."""
        return rows_from_csv(text, PairStats)

    def to_markdown(self) -> str:
        """The win-rate matrix (row agent against copies of the column agent)."""
        from hoity_env.evaluation.markdown import head_to_head_markdown

        return head_to_head_markdown(self)

    def plot_png(self, path: str | Path) -> None:
        """Heat map of the matrix, each cell with its rate and 95% interval."""
        from hoity_env.evaluation.plots import plot_matrix

        plot_matrix(path, self)


def _flat(value: Any) -> bool:
    """A scalar, a list of scalars, or a dict of those: short enough for one line."""
    if isinstance(value, dict):
        return all(_flat(v) and not isinstance(v, dict) for v in value.values())
    if isinstance(value, (list, tuple)):  # asdict keeps tuples
        return all(not isinstance(v, (dict, list, tuple)) for v in value)
    return True


def _pretty(value: Any, level: int) -> str:
    """Indented JSON that keeps flat values (a game record, a table row) on one line each."""
    if _flat(value):
        return json.dumps(value, separators=(", ", ": "))
    pad, inner = " " * level, " " * (level + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_pretty(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + _pretty(v, level + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"


# ----------------------------------------------------------------- CSV rows
def rows_to_csv(rows: Sequence[Any], cls: type[Any], skip: Sequence[str] = ()) -> str:
    """CSV with a header of ``cls``'s field names (less ``skip``); floats keep full ``repr`` precision."""
    names = [f.name for f in dataclasses.fields(cls) if f.name not in skip]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow([repr(v) if isinstance(v, float) else v for v in (getattr(row, n) for n in names)])
    return out.getvalue()


def rows_from_csv(text: str, cls: type[T]) -> tuple[T, ...]:
    """Inverse of :func:`rows_to_csv` (raises ``ValueError`` on a wrong header or value)."""
    reader = csv.DictReader(io.StringIO(text))
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    if reader.fieldnames != names:
        raise ValueError(f"CSV header {reader.fieldnames} does not match {cls.__name__} fields {names}")
    hints = typing.get_type_hints(cls)
    rows = []
    for i, raw in enumerate(reader):
        values = {n: _parse_cell(hints[n], raw[n], f"row {i + 1} column {n!r}") for n in names}
        rows.append(cls(**values))
    return tuple(rows)


def _parse_cell(tp: Any, cell: str | None, where: str) -> Any:
    if cell is None:
        raise ValueError(f"CSV {where} is missing")
    try:
        if tp is bool:
            if cell not in ("True", "False"):
                raise ValueError(cell)
            return cell == "True"
        if tp in (int, float):
            return tp(cell)
    except ValueError as exc:
        raise ValueError(f"CSV {where}: bad value {cell!r}") from exc
    return cell


# ------------------------------------------------------- typed JSON loading
def _build(tp: Any, data: Any, where: str) -> Any:
    """Rebuild a value of type ``tp`` from its JSON form, checking types on the way."""
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object for {tp.__name__}, got {type(data).__name__}")
        hints = typing.get_type_hints(tp)
        fields = [f.name for f in dataclasses.fields(tp)]
        if set(data) != set(fields):
            raise ValueError(f"{where}: fields {sorted(data)} do not match {tp.__name__} {sorted(fields)}")
        return tp(**{n: _build(hints[n], data[n], f"{where}.{n}") for n in fields})
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(data, list):
            raise ValueError(f"{where}: expected a list, got {type(data).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise ValueError(f"{where}: expected {len(args)} items, got {len(data)}")
        return tuple(_build(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in typing.get_args(tp):
            return None
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _build(inner[0], data, where)
    if tp is float and isinstance(data, (int, float)) and not isinstance(data, bool):
        return float(data)
    if tp in (int, str, bool) and type(data) is tp:
        return data
    raise ValueError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {data!r}")
