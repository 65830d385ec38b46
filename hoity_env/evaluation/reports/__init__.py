"""What the harness hands back and how it is written: rows, results, their renderers, ``--out``.

* :mod:`~hoity_env.evaluation.reports.rows`: one agent, seat, rating or pair, each a :class:`WinTally`;
* :mod:`~hoity_env.evaluation.reports.results`: the result dataclasses that hold the rows;
* :mod:`~hoity_env.evaluation.reports.serialize`: their exact JSON and CSV forms;
* :mod:`~hoity_env.evaluation.reports.markdown`, :mod:`~hoity_env.evaluation.reports.plots`:
  renderers of plain rows (they never import the results);
* :mod:`~hoity_env.evaluation.reports.output`: the ``--out`` folder, taken at start, written atomically.
"""

from __future__ import annotations

from hoity_env.evaluation.reports.results import EvaluationResult, HeadToHeadResult, TournamentResult
from hoity_env.evaluation.reports.rows import AgentStats, PairStats, Rating, SeatStats, WinTally

__all__ = [
    "AgentStats",
    "EvaluationResult",
    "HeadToHeadResult",
    "PairStats",
    "Rating",
    "SeatStats",
    "TournamentResult",
    "WinTally",
]
