"""A one-line progress bar on stderr, so the harness needs no tqdm.

It redraws at most ten times a second (a bar that prints per game would cost
more than the games), writes nothing at all when disabled, and ends its line
when closed so the table printed afterwards starts on a fresh one.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """``[#####.....] 120/2000 games  53.1 games/s  eta 35s`` on one redrawn line."""

    def __init__(
        self,
        total: int,
        *,
        enabled: bool = True,
        label: str = "games",
        stream: TextIO | None = None,
        width: int = 30,
        min_interval: float = 0.1,
    ) -> None:
        self.total = max(int(total), 0)
        self.enabled = enabled
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.min_interval = min_interval
        self.done = 0
        self._start = time.perf_counter()
        self._last_draw = -float("inf")
        self._drawn = -1
        self._closed = False

    def update(self, count: int = 1) -> None:
        """Count ``count`` more finished items; redraw if enough time has passed."""
        self.done += count
        now = time.perf_counter()
        if now - self._last_draw >= self.min_interval or self.done >= self.total:
            self._draw(now)

    def line(self, now: float | None = None) -> str:
        """The bar's text (without the carriage return)."""
        now = time.perf_counter() if now is None else now
        frac = self.done / self.total if self.total else 1.0
        filled = min(self.width, int(frac * self.width))
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta_text = f"eta {eta:.0f}s" if eta != float("inf") else "eta ?"
        bar = "#" * filled + "." * (self.width - filled)
        return f"[{bar}] {self.done}/{self.total} {self.label}  {rate:.1f} {self.label}/s  {eta_text}"

    def _draw(self, now: float) -> None:
        self._last_draw = now
        self._drawn = self.done
        if self.enabled:
            self.stream.write("\r" + self.line(now))
            self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self.enabled:
            if self._drawn != self.done:
                self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
