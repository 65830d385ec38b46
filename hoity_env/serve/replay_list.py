"""The ``/replays`` page: the saved games as a table of date, players, rules, winner and length.

Each row is read with the replay reader's own streaming check (:func:`open_replay`:
the header, every line's fields, the ``end`` line), not re-simulated: that is the
viewer's job when a row is opened.  A file that does not read is still listed, as
"unreadable", so it can be found and removed; its error names no path of ours.
Every cell is a link to the game's viewer, so a click anywhere on a row opens it.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hoity_env.replays.format import ReplayError, open_replay

__all__ = ["ReplayRow", "replays_page", "summarize"]

COLUMNS = ("date (UTC)", "players", "rules", "winner", "length")


@dataclass(frozen=True)
class ReplayRow:
    """One saved game as the table shows it (every field already text)."""

    name: str
    date: str
    players: str
    rules: str
    winner: str
    length: str

    def cells(self) -> tuple[str, ...]:
        """The row's cells, in :data:`COLUMNS` order."""
        return (self.date, self.players, self.rules, self.winner, self.length)


NO_WINNER = {
    "quit": "none: the game was left",
    "truncated": "none: the round limit",
    "max_cycles": "none: stopped",
}
"""What the winner column says of a game that ended without one, by its end reason."""


def _winner(end: dict[str, Any] | None, agents: Sequence[str]) -> str:
    if end is None:
        return "unfinished (no end line)"
    named = ", ".join(f"player_{p} ({agents[p]})" for p in end["winners"])
    return named or NO_WINNER.get(end["reason"], "none")


def summarize(path: Path) -> ReplayRow:
    """The table row of the replay file at ``path`` (read line by line, checked, not re-simulated)."""
    date = time.strftime("%Y-%m-%d %H:%M", time.gmtime(path.stat().st_mtime))
    try:
        replay, steps = open_replay(path)
        count = sum(1 for _ in steps)
    except (ReplayError, OSError, UnicodeDecodeError):
        return ReplayRow(path.name, date, "?", "?", "unreadable: not a complete replay", "?")
    rounds = f"{replay.end['rounds']} rounds, " if replay.end is not None else ""
    return ReplayRow(
        name=path.name,
        date=date,
        players=", ".join(replay.agents),
        rules=replay.rules.ruleset,
        winner=_winner(replay.end, replay.agents),
        length=f"{rounds}{count} steps",
    )


def replays_page(rows: Sequence[ReplayRow], ladder: bool) -> str:
    """The table of saved games, newest first; every cell links the game's viewer (text escaped)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    body = "\n".join(
        "<tr>"
        + "".join(
            f'<td><a href="/replays/{quote(row.name)}">{html.escape(cell)}</a></td>' for cell in row.cells()
        )
        + "</tr>"
        for row in rows
    )
    table = (
        f'<table id="replays"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        if rows
        else '<p id="replays">no saved games yet</p>'
    )
    extra = ' | <a href="/ladder">ladder report</a>' if ladder else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Hoity Toity: replays</title>'
        '<link rel="stylesheet" href="/static/play.css"></head><body><h1>Saved games</h1>'
        f'<p><a href="/">play</a> | <a href="/rules">the rules</a>{extra}</p>'
        "<p>Click a game to watch it: every seat's choices, round by round.</p>"
        f"{table}</body></html>\n"
    )
