"""The results of the harness: dataclasses with JSON, CSV, Markdown and PNG forms.

A result holds plain rows (:mod:`~hoity_env.evaluation.reports.rows`) and hands them to the renderers,
which never import the results back; JSON and CSV round-trip exactly
(:mod:`~hoity_env.evaluation.reports.serialize`).  Timings are deliberately not part of a result: the
same seed must give the same result on any machine and with any number of workers.
See docs/evaluation.md.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.reports.markdown import agent_table, matrix_table, ratings_table, seat_table
from hoity_env.evaluation.reports.plots import plot_matrix, plot_win_rates
from hoity_env.evaluation.reports.rows import AgentStats, PairStats, Rating, SeatStats
from hoity_env.evaluation.reports.serialize import TableResult

__all__ = ["EvaluationResult", "HeadToHeadResult", "PairLookup", "TournamentResult"]


@dataclasses.dataclass(frozen=True)
class EvaluationResult(TableResult):
    """Games between ``agents`` (one spec per entry, in entry order) with duplicate seat rotation.

    ``records`` holds every game only when asked (``records=True``, ``hoity-eval --save-records``);
    by default it is empty and the tables were summed as the games streamed in.
    """

    ROWS = "agent_stats"
    ROW = AgentStats

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

    def to_markdown(self) -> str:
        """The per-agent and per-seat tables, with a line saying what was played."""
        k = self.num_players
        head = (
            f"**{self.games} games** ({self.deals} deals × {k} seat rotations), {k} players, "
            f"rules `{self.rules}`, seed {self.seed}; truncated games: {self.truncated}. "
            "Wins count games won outright or shared; 95% Wilson intervals."
        )
        agents, seats = agent_table(self.agent_stats), seat_table(self.seat_stats)
        return f"{head}\n\n{agents}\n\nBy seat (all agents):\n\n{seats}\n"

    def plot_png(self, path: str | Path) -> None:
        """Bar chart of win rates with 95% intervals and a dashed line at ``1/num_players``."""
        title = f"{self.games} games, {self.num_players} players, seed {self.seed}"
        plot_win_rates(path, self.agent_stats, 1.0 / self.num_players, title)


class PairLookup:
    """A result with a head-to-head matrix: its cells by agent and opponent."""

    pairs: tuple[PairStats, ...]

    def pair(self, agent: str, opponent: str) -> PairStats:
        """The stats of ``agent`` (one seat) against copies of ``opponent``."""
        for p in self.pairs:
            if p.agent == agent and p.opponent == opponent:
                return p
        raise KeyError(f"no pair ({agent!r}, {opponent!r}) in this {type(self).__name__}")


class _Tables:
    """A result made of several tables' evaluations."""

    tables: tuple[EvaluationResult, ...]

    @property
    def games(self) -> int:
        """Games played over all tables."""
        return sum(t.games for t in self.tables)


@dataclasses.dataclass(frozen=True)
class TournamentResult(_Tables, TableResult):
    """Round robin over ``pool``: one :class:`EvaluationResult` per table, ratings over all games."""

    ROWS = "ratings"
    ROW = Rating

    pool: tuple[str, ...]
    num_players: int
    rules: str
    seed: int
    rating_model: str
    ratings: tuple[Rating, ...]
    tables: tuple[EvaluationResult, ...]

    def to_markdown(self) -> str:
        """Ratings sorted best first, with their intervals and pooled win rates."""
        tables = f"{len(self.tables)} table" + ("s" if len(self.tables) != 1 else "")
        head = (
            f"**Round robin**: {tables}, {self.games} games, {self.num_players} players, "
            f"rules `{self.rules}`, seed {self.seed}. Ratings: {self.rating_model}."
        )
        return f"{head}\n\n{ratings_table(self.ratings)}\n"

    def plot_png(self, path: str | Path) -> None:
        """Pooled win rates with 95% intervals, dashed line at ``1/num_players``."""
        title = f"round robin, {self.games} games, {self.num_players} players, seed {self.seed}"
        plot_win_rates(path, self.ratings, 1.0 / self.num_players, title)


@dataclasses.dataclass(frozen=True)
class HeadToHeadResult(_Tables, PairLookup, TableResult):
    """For each ordered pair (A, B) of ``pool``: A against ``num_players - 1`` copies of B."""

    ROWS = "pairs"
    ROW = PairStats

    pool: tuple[str, ...]
    num_players: int
    rules: str
    seed: int
    pairs: tuple[PairStats, ...]
    tables: tuple[EvaluationResult, ...]

    def to_markdown(self) -> str:
        """The win-rate matrix (row agent against copies of the column agent)."""
        k = self.num_players
        games = {p.games for p in self.pairs}
        per_pair = f"{games.pop()} games per pair" if len(games) == 1 else "games per pair vary"
        head = (
            f"**Head to head**: row agent against {k - 1} copies of the column agent, {per_pair}, "
            f"rules `{self.rules}`, seed {self.seed}. Even is {1 / k:.3f}; 95% Wilson intervals."
        )
        return f"{head}\n\n{matrix_table(self.pool, self.pairs)}\n"

    def plot_png(self, path: str | Path) -> None:
        """Heat map of the matrix, each cell with its rate and 95% interval."""
        plot_matrix(path, self.pool, self.pairs, self.num_players, self.seed)
