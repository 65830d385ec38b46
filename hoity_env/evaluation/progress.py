"""Progress bars for long evaluations, with tqdm, shown only on a terminal.

Why tqdm: a maintained bar that handles terminal widths, rates, ETAs and
redraw throttling, instead of our own.  Why only on a terminal: a bar redraws
its line with carriage returns, which in a log file or a pipe become thousands
of partial lines (41 KB for one 2,000-game evaluation with our old bar); tqdm's
``disable=None`` turns the bar off when the stream is not a TTY.  Callers that
want a trace in logs print their own one-line messages before and after.
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm

__all__ = ["progress_bar"]


def progress_bar(
    total: int, *, enabled: bool = True, desc: str = "", unit: str = "games", stream: TextIO | None = None
) -> tqdm:
    """A tqdm bar over ``total`` items on ``stream`` (stderr), silent unless enabled and a terminal.

    ``stream`` is resolved when the bar is made (not at import), so a redirected
    ``sys.stderr`` is honoured.
    """
    return tqdm(
        total=max(int(total), 0),
        desc=desc or None,
        unit=unit,
        file=stream if stream is not None else sys.stderr,
        disable=None if enabled else True,
        dynamic_ncols=True,
        mininterval=0.2,
    )
