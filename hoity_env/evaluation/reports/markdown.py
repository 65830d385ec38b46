"""Markdown tables of result rows (what ``hoity-eval`` prints and writes to ``result.md``).

The renderers take plain rows (:mod:`hoity_env.evaluation.reports.rows`), never the
results that hold them, so the results can call them without an import circle;
the numbers' formatting (three decimals for rates, two for means) lives here, in
one place, and the tables read the same on a terminal and in a README.
"""

from __future__ import annotations

from collections.abc import Sequence

from hoity_env.evaluation.reports.rows import AgentStats, PairStats, Rating, SeatStats, WinTally

__all__ = [
    "agent_table",
    "interval",
    "matrix_table",
    "rate",
    "ratings_table",
    "seat_table",
    "table",
]


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A GitHub Markdown table; ``align`` holds one of ``l``/``r`` per column (default: left, then right)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else ":---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def rate(x: float) -> str:
    """A win rate with three decimals."""
    return f"{x:.3f}"


def interval(low: float, high: float) -> str:
    """A 95% interval as ``[low, high]``."""
    return f"[{low:.3f}, {high:.3f}]"


def _results(row: WinTally) -> list[str]:
    """The games, wins, win rate and 95% interval cells every table has."""
    return [str(row.games), str(row.wins), rate(row.win_rate), interval(row.ci_low, row.ci_high)]


def agent_table(rows: Sequence[AgentStats]) -> str:
    """One line per agent: seats, games, wins, win rate and interval, share, means."""
    header = ["agent", "seats", "games", "wins", "win rate", "95% CI", "win share", "mean rank"]
    header += ["mean pos", "rounds"]
    cells = [
        [
            f"`{s.agent}`",
            str(s.entries),
            *_results(s),
            rate(s.win_share),
            f"{s.mean_rank:.2f}",
            f"{s.mean_position:.2f}",
            f"{s.mean_rounds:.2f}",
        ]
        for s in rows
    ]
    return table(header, cells)


def seat_table(rows: Sequence[SeatStats]) -> str:
    """One line per seat, whoever sat there (the seat-fairness check)."""
    cells = [
        [
            f"player_{s.seat}",
            *_results(s),
            f"{s.mean_rank:.2f}",
        ]
        for s in rows
    ]
    return table(["seat", "games", "wins", "win rate", "95% CI", "mean rank"], cells)


def ratings_table(rows: Sequence[Rating]) -> str:
    """Ratings, best first, with their 95% intervals and each agent's pooled results."""
    ordered = sorted(rows, key=lambda r: (-r.rating, r.agent))
    cells = [
        [
            f"`{r.agent}`",
            f"{r.rating:.0f}",
            f"[{r.rating_low:.0f}, {r.rating_high:.0f}]",
            *_results(r),
            f"{r.mean_rank:.2f}",
        ]
        for r in ordered
    ]
    header = ["agent", "rating", "95% interval", "games", "wins", "win rate", "95% CI", "mean rank"]
    return table(header, cells)


def matrix_table(pool: Sequence[str], pairs: Sequence[PairStats]) -> str:
    """The row agent's win rate (and interval) against copies of the column agent."""
    by = {(p.agent, p.opponent): p for p in pairs}
    rows = []
    for a in pool:
        cells = [f"`{a}`"]
        for b in pool:
            p = by.get((a, b))
            cells.append(
                "—" if a == b or p is None else f"{rate(p.win_rate)} {interval(p.ci_low, p.ci_high)}"
            )
        rows.append(cells)
    return table(["agent \\ vs", *(f"`{b}`" for b in pool)], rows)
