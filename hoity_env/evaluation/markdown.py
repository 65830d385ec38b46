"""Markdown tables for the results (what ``hoity-eval`` prints and writes to ``result.md``).

Kept apart from the dataclasses so that the numbers' formatting (three decimals
for rates, two for means) lives in one place and the tables read the same on a
terminal and in a README.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hoity_env.evaluation.report import EvaluationResult, HeadToHeadResult, TournamentResult

__all__ = ["evaluation_markdown", "head_to_head_markdown", "table", "tournament_markdown"]


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


def evaluation_markdown(result: EvaluationResult) -> str:
    """Per-agent table, then the per-seat fairness table."""
    k = result.num_players
    head = (
        f"**{result.games} games** ({result.deals} deals × {k} seat rotations), {k} players, "
        f"rules `{result.rules}`, seed {result.seed}; truncated games: {result.truncated}. "
        "Wins count games won outright or shared; 95% Wilson intervals."
    )
    agents = table(
        [
            "agent",
            "seats",
            "games",
            "wins",
            "win rate",
            "95% CI",
            "win share",
            "mean rank",
            "mean pos",
            "rounds",
        ],
        [
            [
                f"`{s.agent}`",
                str(s.entries),
                str(s.games),
                str(s.wins),
                rate(s.win_rate),
                interval(s.ci_low, s.ci_high),
                rate(s.win_share),
                f"{s.mean_rank:.2f}",
                f"{s.mean_position:.2f}",
                f"{s.mean_rounds:.2f}",
            ]
            for s in result.agent_stats
        ],
    )
    seats = table(
        ["seat", "games", "wins", "win rate", "95% CI", "mean rank"],
        [
            [
                f"player_{s.seat}",
                str(s.games),
                str(s.wins),
                rate(s.win_rate),
                interval(s.ci_low, s.ci_high),
                f"{s.mean_rank:.2f}",
            ]
            for s in result.seat_stats
        ],
    )
    return f"{head}\n\n{agents}\n\nBy seat (all agents):\n\n{seats}\n"


def tournament_markdown(result: TournamentResult) -> str:
    """Ratings, best first, with their 95% intervals and the pooled results of every agent."""
    tables = f"{len(result.tables)} table" + ("s" if len(result.tables) != 1 else "")
    head = (
        f"**Round robin**: {tables}, {result.games} games, {result.num_players} players, "
        f"rules `{result.rules}`, seed {result.seed}. Ratings: {result.rating_model}."
    )
    rows = sorted(result.ratings, key=lambda r: (-r.rating, r.agent))
    body = table(
        ["agent", "rating", "95% interval", "games", "wins", "win rate", "95% CI", "mean rank"],
        [
            [
                f"`{r.agent}`",
                f"{r.rating:.0f}",
                f"[{r.rating_low:.0f}, {r.rating_high:.0f}]",
                str(r.games),
                str(r.wins),
                rate(r.win_rate),
                interval(r.ci_low, r.ci_high),
                f"{r.mean_rank:.2f}",
            ]
            for r in rows
        ],
    )
    return f"{head}\n\n{body}\n"


def head_to_head_markdown(result: HeadToHeadResult) -> str:
    """Matrix: the row agent's win rate (and interval) against copies of the column agent."""
    k = result.num_players
    games = {p.games for p in result.pairs}
    per_pair = f"{games.pop()} games per pair" if len(games) == 1 else "games per pair vary"
    head = (
        f"**Head to head**: row agent against {k - 1} copies of the column agent, {per_pair}, "
        f"rules `{result.rules}`, seed {result.seed}. Even is {1 / k:.3f}; 95% Wilson intervals."
    )
    rows = []
    for a in result.pool:
        cells = [f"`{a}`"]
        for b in result.pool:
            if a == b:
                cells.append("—")
                continue
            p = result.pair(a, b)
            cells.append(f"{rate(p.win_rate)} {interval(p.ci_low, p.ci_high)}")
        rows.append(cells)
    body = table(["agent \\ vs", *(f"`{b}`" for b in result.pool)], rows)
    return f"{head}\n\n{body}\n"
