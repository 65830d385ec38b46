"""The results of approximate exploitability: curve points, one entry per target, the table.

Frozen dataclasses with exact JSON and CSV forms, as the harness's results
(:mod:`hoity_env.evaluation.reports.serialize`); the rows are win tallies
(:class:`~hoity_env.evaluation.reports.rows.WinTally`) like the harness's, with their
key columns (``LEAD``) written first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TypeVar

from hoity_env.evaluation.reports.plots import plot_curves
from hoity_env.evaluation.reports.rows import WinTally
from hoity_env.evaluation.reports.serialize import TableResult
from hoity_env.strength.response import BestResponse, caveat
from hoity_env.strength.start import CURRICULUM_OPPONENT

__all__ = ["CurvePoint", "ExploitEntry", "ExploitResult", "SweepEntry", "SweepResult", "trained_by"]


def trained_by(learner: str, settings: str = "", memory: int = 0, start: str = "fresh") -> str:
    """ "a MaskablePPO best response" or "a best response by the fast learner", with its settings'
    name, memory and start when known, for the reports."""
    who = "a MaskablePPO best response" if learner == "sb3" else "a best response by the fast learner"
    parts = (
        [f"settings `{settings}`", f"memory of {memory} rounds" if memory else "no memory"]
        if settings
        else []
    )
    if start == "warm":
        parts.append("started from the target's own weights")
    elif start.startswith("curriculum"):
        fraction = start.removeprefix("curriculum").strip()
        parts.append(f"against `{CURRICULUM_OPPONENT}` for the first {fraction} of its budget")
    return f"{who} ({', '.join(parts)})" if parts else who


def estimator_label(learner: str, settings: str, memory: int, start: str = "fresh") -> str:
    """``fast/strong``, ``fast/strong, memory 4``, ``fast/strong, warm``, ``sb3``: one estimator in a
    report's lines."""
    text = f"{learner}/{settings}" if settings and settings != "train_ppo" else learner
    text = f"{text}, memory {memory}" if memory else text
    return text if start == "fresh" else f"{text}, {start}"


R = TypeVar("R", "ExploitEntry", "SweepEntry")


def _of_target(rows: Sequence[R], target: str) -> R:
    """The first row of ``target`` (``KeyError`` if none)."""
    for row in rows:
        if row.target == target:
            return row
    raise KeyError(target)


@dataclasses.dataclass(frozen=True)
class CurvePoint(WinTally):
    """The learner at ``timesteps`` against copies of the target (curve seed)."""

    LEAD = ("timesteps",)

    timesteps: int


@dataclasses.dataclass(frozen=True)
class ExploitEntry(WinTally):
    """One target's best response: the final evaluation, its curve and where its files are."""

    LEAD = ("target", "timesteps")

    target: str
    timesteps: int
    mean_rank: float
    train_seconds: float
    """Wall seconds from the start of training to its end (the curve's evaluations included;
    summed over the sessions of a resumed best response)."""
    run_dir: str
    curve: tuple[CurvePoint, ...]
    train_cpu_seconds: float = 0.0
    """CPU seconds of training (the process that trained it, curve evaluations excluded; 0.0 in
    results written before it was recorded)."""
    eval_seconds: float = 0.0
    """Wall seconds of the final evaluation's games (0.0 in results written before it was recorded)."""
    target_hash: str = ""
    """What the target played, ``sha256:...`` of its files
    (:func:`hoity_env.agents.policies.content.content_hash`; ``""`` for a scripted agent, and in
    results written before it was recorded): a ladder reuses this best response only for a target
    with the same hash."""


@dataclasses.dataclass(frozen=True)
class ExploitResult(TableResult):
    """Best-response win rates against one or more targets at one budget (JSON round trip)."""

    ROWS = "entries"
    ROW = ExploitEntry
    SKIP = ("curve",)
    """The curve is in the JSON and each run folder's ``curve.csv``."""

    num_players: int
    rules: str
    budget: int
    seed: int
    fair_share: float
    entries: tuple[ExploitEntry, ...]
    learner: str = "sb3"
    """Who trained the best responses: ``fast`` or ``sb3`` (results from before the fast learner: sb3)."""
    settings: str = ""
    """The learner's settings by name (:attr:`BestResponse.settings_name`; "" in older results)."""
    memory: int = 0
    """Rounds of public history the best responses read (0: none, as in older results)."""
    start: str = "fresh"
    """How they started (:attr:`BestResponse.start_label`: ``fresh``, ``warm``, ``curriculum 0.25``;
    ``fresh`` in results written before there were others)."""

    @property
    def games(self) -> int:
        """Evaluation games played, all targets together."""
        return sum(e.games for e in self.entries)

    @property
    def trained(self) -> int:
        """Learner steps each best response trained (the budget rounded up to whole rollouts)."""
        return max((e.timesteps for e in self.entries), default=self.budget)

    def entry(self, target: str) -> ExploitEntry:
        """The entry of ``target`` (``KeyError`` if it was not measured)."""
        return _of_target(self.entries, target)

    def to_markdown(self) -> str:
        """The table, the caveat with the budget, and each learning curve."""
        n = self.num_players
        lines = [
            f"**Approximate exploitability**: "
            f"{trained_by(self.learner, self.settings, self.memory, self.start)} "
            f"trained for {self.trained:,} "
            f"learner steps against {n - 1} copies of each target, then scored against them in "
            f"duplicate format ({n} players, rules `{self.rules}`, seed {self.seed}). "
            f"Fair share {self.fair_share:.3f}; 95% Wilson intervals. {caveat(self.budget, self.trained)}",
            "",
            "| target | steps trained | games | best-response win rate | 95% CI | fair share | run folder |",
            "| :--- | ---: | ---: | ---: | ---: | ---: | :--- |",
        ]
        for e in self.entries:
            lines.append(
                f"| `{e.target}` | {e.timesteps:,} | {e.games} | {e.win_rate:.3f} | "
                f"[{e.ci_low:.3f}, {e.ci_high:.3f}] | {self.fair_share:.3f} | `{e.run_dir}` |"
            )
        for e in self.entries:
            if not e.curve:
                continue
            lines += [
                "",
                f"Learning curve against `{e.target}` (seed {self.seed + 1}):",
                "",
                "| steps | games | win rate | 95% CI |",
                "| ---: | ---: | ---: | ---: |",
            ]
            lines += [
                f"| {p.timesteps:,} | {p.games} | {p.win_rate:.3f} | [{p.ci_low:.3f}, {p.ci_high:.3f}] |"
                for p in e.curve
            ]
        return "\n".join(lines) + "\n"

    def plot_png(self, path: str | Path | IO[bytes]) -> None:
        """Each target's learning curve with its interval band, and the fair share."""
        curves = [(f"vs {self.num_players - 1}× {e.target}", e.curve) for e in self.entries]
        title = f"estimate from below at {self.trained:,} steps"
        plot_curves(path, curves, self.fair_share, title)


@dataclasses.dataclass(frozen=True)
class SweepEntry(WinTally):
    """One best response of a sweep: a target, a learner, a seed and a budget, scored."""

    LEAD = ("target", "learner", "settings", "memory", "seed", "budget", "timesteps")

    target: str
    learner: str
    seed: int
    budget: int
    timesteps: int
    """Learner steps trained (the budget rounded up to whole rollouts): the plot's x axis."""
    train_cpu_seconds: float
    """CPU seconds of training (the process that trained it, curve evaluations excluded)."""
    run_dir: str
    settings: str = ""
    """The learner's settings by name (:attr:`BestResponse.settings_name`; "" in older results)."""
    memory: int = 0
    """Rounds of public history the best response read (0: none, as in older results)."""
    train_seconds: float = 0.0
    """Wall seconds of training, as :attr:`ExploitEntry.train_seconds` (0.0 in results written before
    it was recorded)."""
    eval_seconds: float = 0.0
    """Wall seconds of the final evaluation (0.0 in results written before it was recorded)."""
    target_hash: str = ""
    """The target's content hash, as :attr:`ExploitEntry.target_hash`."""
    start: str = "fresh"
    """How it started, as :attr:`ExploitResult.start` (``fresh`` in results written before)."""

    @property
    def estimator(self) -> str:
        """Who trained it, in a few words (:func:`estimator_label`)."""
        return estimator_label(self.learner, self.settings, self.memory, self.start)

    @classmethod
    def of(cls, e: ExploitEntry, response: BestResponse, seed: int) -> SweepEntry:
        """One best response's :class:`ExploitEntry` as a sweep row: its estimator (``response``'s
        learner, settings, memory and start), seed and budget."""
        return cls(
            target=e.target,
            **response.estimator(),
            seed=seed,
            budget=response.budget,
            timesteps=e.timesteps,
            **e.win_fields(),
            train_cpu_seconds=e.train_cpu_seconds,
            run_dir=e.run_dir,
            train_seconds=e.train_seconds,
            eval_seconds=e.eval_seconds,
            target_hash=e.target_hash,
        )


@dataclasses.dataclass(frozen=True)
class SweepResult(TableResult):
    """Best responses at several budgets, seeds and estimators; per target their maximum (JSON round trip).

    An estimator is who trained a best response: its learner, settings, memory and start.  Each
    estimate is from below, and so is their maximum, a target's exploitability as reported:
    the best of several best responses is still only what those budgets and estimators found.
    """

    ROWS = "entries"
    ROW = SweepEntry

    num_players: int
    rules: str
    fair_share: float
    budgets: tuple[int, ...]
    seeds: tuple[int, ...]
    learners: tuple[str, ...]
    entries: tuple[SweepEntry, ...]
    maxima: tuple[SweepEntry, ...] = ()
    """Per target (in :attr:`targets` order) its estimate with the highest win rate; filled in
    from the entries when not given, refused when given and not theirs."""

    def __post_init__(self) -> None:
        best = tuple(
            max((e for e in self.entries if e.target == t), key=lambda e: e.win_rate) for t in self.targets
        )
        if self.maxima and self.maxima != best:
            raise ValueError("SweepResult.maxima are not the entries' maxima")
        object.__setattr__(self, "maxima", best)

    @property
    def games(self) -> int:
        """Evaluation games played, all best responses together."""
        return sum(e.games for e in self.entries)

    @property
    def targets(self) -> tuple[str, ...]:
        """The targets, in the order measured."""
        return tuple(dict.fromkeys(e.target for e in self.entries))

    @property
    def estimators(self) -> tuple[str, ...]:
        """The estimators (:attr:`SweepEntry.estimator`), in the order measured."""
        return tuple(dict.fromkeys(e.estimator for e in self.entries))

    def maximum(self, target: str) -> SweepEntry:
        """The estimate of ``target`` with the highest best-response win rate (``KeyError`` if none)."""
        return _of_target(self.maxima, target)

    def caveat(self) -> str:
        """What the maximum is and is not."""
        top = max(self.budgets)
        return (
            f"Each estimate is from below at its budget, and so is the maximum: the best of these "
            f"best responses (budgets up to {top:,} learner steps, estimators "
            f"{'; '.join(self.estimators)}, seeds {', '.join(map(str, self.seeds))}); a longer budget, "
            "another seed or a better estimator can only find more."
        )

    def to_markdown(self) -> str:
        """Per target the maximum, then every estimate, and the caveat."""
        n = self.num_players
        lines = [
            f"**Approximate exploitability at several budgets, seeds and estimators**: best responses "
            f"trained against "
            f"{n - 1} copies of each target, then scored against them in duplicate format ({n} players, "
            f"rules `{self.rules}`, evaluation seed = the learner's seed). Fair share "
            f"{self.fair_share:.3f}; 95% Wilson intervals. {self.caveat()}",
            "",
            "| target | maximum win rate | 95% CI | given by: learner | settings | memory | start | seed "
            "| budget | fair share |",
            "| :--- | ---: | ---: | :--- | :--- | ---: | :--- | ---: | ---: | ---: |",
        ]
        for t in self.targets:
            m = self.maximum(t)
            lines.append(
                f"| `{t}` | {m.win_rate:.3f} | [{m.ci_low:.3f}, {m.ci_high:.3f}] | {m.learner} | "
                f"{m.settings or '–'} | {m.memory} | {m.start} | {m.seed} | {m.budget:,} | "
                f"{self.fair_share:.3f} |"
            )
        lines += [
            "",
            "| target | learner | settings | memory | start | seed | budget | steps trained | games "
            "| win rate | 95% CI | training CPU-s | run folder |",
            "| :--- | :--- | :--- | ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- |",
        ]
        lines += [
            f"| `{e.target}` | {e.learner} | {e.settings or '–'} | {e.memory} | {e.start} | {e.seed} | "
            f"{e.budget:,} | {e.timesteps:,} | {e.games} | {e.win_rate:.3f} | "
            f"[{e.ci_low:.3f}, {e.ci_high:.3f}] | {e.train_cpu_seconds:,.0f} | `{e.run_dir}` |"
            for e in self.entries
        ]
        return "\n".join(lines) + "\n"

    def plot_png(self, path: str | Path | IO[bytes]) -> None:
        """Win rate against best-response budget: a line per target, estimator and seed, the fair share."""
        curves = []
        for t in self.targets:
            for who in self.estimators:
                for seed in self.seeds:
                    rows = [e for e in self.entries if (e.target, e.estimator, e.seed) == (t, who, seed)]
                    label = f"vs {self.num_players - 1}× {t}, {who}, seed {seed}"
                    if rows:
                        curves.append((label, sorted(rows, key=lambda e: e.timesteps)))
        plot_curves(
            path, curves, self.fair_share, "best-response win rate against budget (estimates from below)"
        )
