"""The learning curve on disk: ``curve.csv`` (win rates with 95% intervals) and its plot.

SB3's logger records the same win rates in ``progress.csv`` and TensorBoard; this
file keeps what they do not, the interval and game count of each point, in the
duplicate-format evaluation's own terms, for ``learning_curve.png``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from hoity_env.files import write_atomic

HEADER = ("timesteps", "opponent", "win_rate", "ci_low", "ci_high", "games")


def append_curve(csv_path: Path, timesteps: int, scores: dict[str, Any]) -> None:
    """Add one point (a row per opponent) to ``curve.csv``.

    The whole file is rewritten atomically: a kill mid-write never leaves half a row.
    """
    out = io.StringIO()
    if csv_path.exists():
        out.write(csv_path.read_text())
    else:
        out.write(",".join(HEADER) + "\n")
    writer = csv.writer(out, lineterminator="\n")
    for name, s in scores.items():
        writer.writerow([timesteps, name, s.win_rate, s.ci_low, s.ci_high, s.games])
    write_atomic(csv_path, lambda fh: fh.write(out.getvalue()))


def plot_curve(csv_path: Path, png_path: Path, num_players: int) -> None:
    """Win rate against each opponent over training, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float, float, float]]] = {}
    with csv_path.open() as fh:
        for row in csv.DictReader(fh):
            series.setdefault(row["opponent"], []).append(
                (int(row["timesteps"]), float(row["win_rate"]), float(row["ci_low"]), float(row["ci_high"]))
            )
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, points in series.items():
        points.sort()
        xs = [p[0] for p in points]
        ax.plot(xs, [p[1] for p in points], marker="o", label=f"vs {num_players - 1}× {name}")
        ax.fill_between(xs, [p[2] for p in points], [p[3] for p in points], alpha=0.15)
    ax.axhline(1.0 / num_players, linestyle="--", color="grey", label="even")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    fig.tight_layout()
    write_atomic(png_path, lambda fh: fig.savefig(fh, format="png", dpi=100), binary=True)
    plt.close(fig)
