"""The ladder: every agent against copies of every other, two ratings, and approximate exploitability.

:func:`ladder` measures a list of agents three ways, all at one seed:

* **Head to head**: each agent in one seat against ``num_players - 1`` copies of each
  other agent (:func:`~hoity_env.evaluation.tournament.head_to_head`, duplicate format).
* **Ratings** over those same games: our order-free Plackett-Luce fit
  (:mod:`hoity_env.evaluation.ratings`) and an **OpenSkill** rating (the
  ``openskill`` package's Plackett-Luce model, Weng-Lin updates).  OpenSkill is an
  online rating, so it depends on the order of the games: the ladder feeds them in
  an order shuffled by the seed (the harness plays pair by pair, and long runs of one
  match-up would pull the rating toward the last ones).  An
  agent holding several seats of a game enters it once, with its mean rank, in both.
* **Approximate exploitability** at one fixed budget: a best response (the fast
  learner's, or MaskablePPO's) trained against copies of each agent (:mod:`hoity_env.strength.exploit`), its
  win rate an estimate from below at that budget.

Best responses are the expensive part (minutes each), so the ladder **resumes**: a
finished best response in ``runs_dir`` whose ``exploit.json`` names the same agent,
budget, seed, players, rules and games is read back instead of trained again.  An
interrupted ladder re-run with the same arguments continues where it stopped, and a
ladder with one more agent trains only that agent's best response.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.ratings import mean_ranks
from hoity_env.evaluation.reports.markdown import interval, rate, table
from hoity_env.evaluation.reports.plots import plot_matrix
from hoity_env.evaluation.reports.results import PairLookup
from hoity_env.evaluation.reports.rows import PairStats
from hoity_env.evaluation.reports.serialize import TableResult
from hoity_env.evaluation.settings import MatchSettings, refuse_unknown, settings_from
from hoity_env.evaluation.tournament import head_to_head, rate_games
from hoity_env.files import fresh_folder
from hoity_env.strength.exploit import EXPLOIT_GAMES, exploitability_of
from hoity_env.strength.response import BestResponse, caveat, check_targets, run_folder_name
from hoity_env.strength.results import ExploitEntry, ExploitResult, trained_by

__all__ = ["LADDER_GAMES", "LadderResult", "LadderRow", "find_exploit", "ladder", "openskill_ratings"]

logger = logging.getLogger(__name__)

LADDER_GAMES = 400
"""Head-to-head games per ordered pair when ``games`` is not given."""

_OPENSKILL_HINT = (
    "the ladder's OpenSkill rating needs the openskill package, part of the train extra: "
    "pip install openskill"
)


@dataclasses.dataclass(frozen=True)
class LadderRow:
    """One agent's line of the ladder."""

    agent: str
    mean_win_rate: float
    """Mean over the other agents of this agent's win rate against copies of each."""
    rating: float
    rating_low: float
    rating_high: float
    openskill_mu: float
    openskill_sigma: float
    exploit_win_rate: float
    exploit_low: float
    exploit_high: float
    exploit_run_dir: str


@dataclasses.dataclass(frozen=True)
class LadderResult(PairLookup, TableResult):
    """The ladder of :func:`ladder` (JSON round trip; the games themselves are not kept)."""

    ROWS = "rows"
    ROW = LadderRow

    agents: tuple[str, ...]
    num_players: int
    rules: str
    seed: int
    games_per_pair: int
    """Games per ordered pair of the head-to-head matrix (after rounding to whole deals)."""
    budget: int
    fair_share: float
    rows: tuple[LadderRow, ...]
    pairs: tuple[PairStats, ...]
    exploit: tuple[ExploitEntry, ...]
    learner: str = "sb3"
    """Who trained the best responses: ``fast`` or ``sb3`` (ladders from before the fast learner: sb3)."""

    @property
    def games(self) -> int:
        """Head-to-head games over all pairs (the best responses' games are in :attr:`exploit`)."""
        return sum(p.games for p in self.pairs)

    def to_markdown(self) -> str:
        """The ladder (best Plackett-Luce rating first), then the head-to-head matrix."""
        n = self.num_players
        ordered = sorted(self.rows, key=lambda r: -r.rating)
        ladder_rows = [
            [
                f"`{r.agent}`",
                rate(r.mean_win_rate),
                f"{r.rating:+.0f} [{r.rating_low:+.0f}, {r.rating_high:+.0f}]",
                f"{r.openskill_mu:.1f} ± {r.openskill_sigma:.1f}",
                f"{rate(r.exploit_win_rate)} {interval(r.exploit_low, r.exploit_high)}",
            ]
            for r in ordered
        ]
        names = [r.agent for r in ordered]
        matrix_rows = [
            [f"`{a}`", *("—" if a == b else rate(self.pair(a, b).win_rate) for b in names)] for a in names
        ]
        return "\n".join(
            [
                f"**Ladder**: {n} players, rules {self.rules}, seed {self.seed}; head to head "
                f"{self.games_per_pair} games per ordered pair (one agent against {n - 1} copies of "
                f"the other, duplicate format). Fair share {self.fair_share:.3f}.",
                "",
                table(
                    [
                        "agent",
                        "mean h2h win rate",
                        "Plackett-Luce rating [95%]",
                        "OpenSkill μ ± σ",
                        f"exploitability @ {self.budget:,} steps [95%]",
                    ],
                    ladder_rows,
                    "lrrrr",
                ),
                "",
                f"Exploitability is the win rate of {trained_by(self.learner)} against {n - 1} copies of "
                f"the agent. {caveat(self.budget)}",
                "",
                f"**Head to head**: row agent's win rate against {n - 1} copies of the column agent.",
                "",
                table(["agent", *(f"`{b}`" for b in names)], matrix_rows, "l" + "r" * len(names)),
                "",
            ]
        )

    def plot_png(self, path: str | Path) -> None:
        """Heat map of the head-to-head matrix."""
        plot_matrix(path, self.agents, self.pairs, self.num_players, self.seed)


def _openskill_model() -> Any:
    """OpenSkill's Plackett-Luce model; a :class:`ConfigError` naming the extra without the package."""
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:  # pragma: no cover - in the train extra, which the ladder needs anyway
        raise ConfigError(_OPENSKILL_HINT) from exc
    return PlackettLuce()


def openskill_ratings(pool: Sequence[str], records: Sequence[GameRecord]) -> dict[str, tuple[float, float]]:
    """``{agent: (mu, sigma)}``: OpenSkill Plackett-Luce ratings from ``records`` in their order.

    Each game is one rating update among the distinct agents at its table, each with its
    mean rank over the seats it held (:func:`~hoity_env.evaluation.ratings.mean_ranks`, as
    the Plackett-Luce fit enters a game).
    """
    model = _openskill_model()
    ratings = {agent: model.rating(name=agent) for agent in pool}
    for record in records:
        rank = mean_ranks(record, pool)
        if len(rank) < 2:
            continue
        names = list(rank)
        teams = model.rate([[ratings[a]] for a in names], ranks=[rank[a] for a in names])
        for a, team in zip(names, teams, strict=True):
            ratings[a] = team[0]
    return {a: (float(r.mu), float(r.sigma)) for a, r in ratings.items()}


def find_exploit(
    runs_dir: Path,
    target: str,
    *,
    budget: int,
    num_players: int,
    rules: str,
    games: int,
    seed: int,
    settings: dict[str, Any],
) -> ExploitEntry | None:
    """A finished best response of ``target`` with exactly these settings in ``runs_dir``, if any.

    A run folder matches when its ``exploit.json`` names ``target`` with the same budget,
    players, rules, seed and evaluation games, and its ``settings.json`` holds the same
    learner settings; anything unreadable is skipped (and trained again elsewhere).
    """
    base = runs_dir / run_folder_name(target)
    for folder in [base, *sorted(runs_dir.glob(f"{base.name}_*"))]:
        try:
            found = ExploitResult.from_json((folder / "exploit.json").read_text(encoding="utf-8"))
            learner = json.loads((folder / "settings.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if learner != settings:
            continue
        same = (found.budget, found.num_players, found.rules, found.seed) == (
            budget,
            num_players,
            rules,
            seed,
        )
        for entry in found.entries:
            if same and entry.target == target and entry.games == games:
                return dataclasses.replace(entry, run_dir=str(folder))  # where it is now, if moved
    return None


def ladder(
    agents: Sequence[str],
    settings: MatchSettings | None = None,
    response: BestResponse | None = None,
    *,
    exploit_games: int = EXPLOIT_GAMES,
    **options: Any,
) -> LadderResult:
    """Head to head, ratings and exploitability of ``agents`` (see the module docstring).

    Args:
        agents: distinct agent specs (at least 2).
        settings: the head-to-head games (``games`` per ordered pair, default 400).
        response: each best response's training (one ``budget`` for all; ``runs_dir``,
            default ``runs/ladder``: finished ones with the same settings are reused).
        exploit_games: games of each best response's final evaluation.
        options: the fields of ``settings`` and ``response`` as keywords, e.g.
            ``ladder(agents, budget=200_000, games=100)``.

    Bad arguments raise :class:`ConfigError` before anything is played or trained.
    """
    match = settings_from(MatchSettings, settings, options, games=LADDER_GAMES)
    training = settings_from(BestResponse, response, options, runs_dir=Path("runs/ladder"))
    refuse_unknown(options, "ladder")
    members = list(agents)
    if len(members) < 2 or len(set(members)) != len(members):
        raise ConfigError(f"a ladder needs at least 2 distinct agents, got {members}")
    on_exploit = match.replace(games=exploit_games)
    check_targets(members, on_exploit)
    _openskill_model()  # a missing openskill fails here, before any best response is trained
    entries = []
    for spec in members:
        found = find_exploit(
            training.runs_dir,
            spec,
            budget=training.budget,
            num_players=match.num_players,
            rules=match.rules_name,
            games=on_exploit.deals * match.num_players,
            seed=match.seed,
            settings=training.settings,
        )
        if found is not None:
            logger.info("[ladder] %s: best response found in %s", spec, found.run_dir)
            entries.append(found)
            continue
        folder = fresh_folder(training.runs_dir / run_folder_name(spec))
        entries.append(exploitability_of(spec, on_exploit, training, folder))
    matrix = head_to_head(members, match.replace(records=True))
    records = [r for t in matrix.tables for r in t.records]
    fitted = rate_games(members, records)
    # The harness plays pair by pair; an online rating fed long runs of one match-up drifts
    # toward the last runs, so OpenSkill sees the games in an order shuffled by the seed.
    order = np.random.default_rng(match.seed).permutation(len(records))
    skill = openskill_ratings(members, [records[i] for i in order])
    rows = []
    for spec, entry in zip(members, entries, strict=True):
        others = [matrix.pair(spec, b).win_rate for b in members if b != spec]
        mu, sigma = skill[spec]
        rows.append(
            LadderRow(
                agent=spec,
                mean_win_rate=sum(others) / len(others),
                rating=fitted[spec].rating,
                rating_low=fitted[spec].low,
                rating_high=fitted[spec].high,
                openskill_mu=mu,
                openskill_sigma=sigma,
                exploit_win_rate=entry.win_rate,
                exploit_low=entry.ci_low,
                exploit_high=entry.ci_high,
                exploit_run_dir=entry.run_dir,
            )
        )
    return LadderResult(
        agents=tuple(members),
        num_players=match.num_players,
        rules=match.rules_name,
        seed=match.seed,
        games_per_pair=matrix.pairs[0].games,
        budget=training.budget,
        fair_share=1.0 / match.num_players,
        rows=tuple(rows),
        pairs=matrix.pairs,
        exploit=tuple(entries),
        learner=training.learner,
    )
