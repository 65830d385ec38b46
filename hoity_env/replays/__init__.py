"""Replays: record a game as versioned JSON lines, re-simulate and check it, view it (docs/replays.md).

* :class:`RecordingEnv`: the parallel env that records what it plays;
* :func:`read_replay` / :meth:`Replay.save`: the file (header, one line per step, end);
  :func:`open_replay` streams it, checking one line at a time;
* :func:`resimulate` / :func:`rounds` / :func:`iter_rounds`: replay from the seed and actions with the rules
  engine, checking every event;
* :func:`write_html`: the self-contained HTML viewer.
"""

from __future__ import annotations

from hoity_env.replays.format import (
    FORMAT,
    VERSION,
    Replay,
    ReplayError,
    ReplayMismatch,
    StepRecord,
    open_replay,
    read_replay,
)
from hoity_env.replays.html import replay_html, write_html
from hoity_env.replays.recorder import RecordingEnv
from hoity_env.replays.simulate import RoundView, iter_rounds, resimulate, rounds

__all__ = [
    "FORMAT",
    "VERSION",
    "RecordingEnv",
    "Replay",
    "ReplayError",
    "ReplayMismatch",
    "RoundView",
    "StepRecord",
    "iter_rounds",
    "open_replay",
    "read_replay",
    "replay_html",
    "resimulate",
    "rounds",
    "write_html",
]
