"""PSRO on the meta-solver: a best response to the solved mixture joins the population, which is solved again.

The meta-solver's mixture is an equilibrium of the *restricted* game whose only strategies are the
members; a strategy outside it can beat the mixture by far.  PSRO (Lanctot et al. 2017, OpenSpiel's
``psro_v2``) grows that game one best response at a time.  Every step is a function of the files
already written, so a run stopped anywhere continues to the same result.  Why the defaults:
see docs/league.md (PSRO).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.policies.population import POPULATION_PREFIX, Member
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.settings import MatchSettings, positive_int
from hoity_env.league.meta_population import write_population_folder
from hoity_env.learning.bounds import MAX_SEED
from hoity_env.strength.jobs import Job, run_jobs
from hoity_env.strength.response import PRESETS, BestResponse, check_targets
from hoity_env.strength.results import ExploitEntry
from hoity_env.strength.training import check_training

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_GAMES",
    "DEFAULT_PRESET",
    "FOLDER",
    "SEED_STEP",
    "STARTS",
    "PsroSettings",
    "best_response_member",
    "check_psro",
    "response_seed",
]

logger = logging.getLogger(__name__)

FOLDER = "psro"
"""The run folder's subfolder holding the iterations' mixtures, best responses and members."""
SEED_STEP = 1000
"""Iteration ``t``'s best response has the seed ``seed + SEED_STEP * t`` (as a league's exploiters)."""
DEFAULT_BUDGET = 1_000_000
DEFAULT_PRESET = "fast"
DEFAULT_GAMES = 1000
STARTS = ("solution", "population")
"""What the meta-game starts from: the population's members, each a strategy weighed by the solver
(``solution``, the default), or the population at its own weights as one strategy (``population``)."""
MAX_ITERATIONS = 1000
"""More iterations than any run needs: each trains a best response and plays ``2 k`` cells."""


@dataclasses.dataclass(frozen=True)
class PsroSettings:
    """The PSRO iterations of a meta-solver run (checked when built; driven by :func:`best_response_member`).

    Attributes:
        iterations: best responses to train, one after another (0: none, the plain meta-solver).
        budget: each best response's learner steps (rounded up to whole rollouts).
        preset: the fast learner's settings to start from, a key of
            :data:`~hoity_env.strength.response.PRESETS` (default ``fast``).
        games: games of each best response's score against its mixture.
        ppo: overrides of the preset's settings (the fast learner's fields).
        start: one of :data:`STARTS`: ``solution`` grows the meta-game of the population's members,
            ``population`` the one whose first strategy is the population at its own weights
            (played as one agent, each seat drawing its own member per game; it ships as its
            members at their shares), so only the best responses' additions are weighed.
    """

    iterations: int = 0
    budget: int = DEFAULT_BUDGET
    preset: str = DEFAULT_PRESET
    games: int = DEFAULT_GAMES
    ppo: dict[str, Any] | None = None
    start: str = "solution"

    def __post_init__(self) -> None:
        value = self.iterations
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ITERATIONS:
            raise ConfigError(f"psro iterations must be an int in [0, {MAX_ITERATIONS}], got {value!r}")
        if not isinstance(self.preset, str) or self.preset not in PRESETS:
            raise ConfigError(f"psro preset must be one of {tuple(PRESETS)}, got {self.preset!r}")
        positive_int("psro games", self.games)
        if self.start not in STARTS:
            raise ConfigError(f"psro start must be one of {STARTS}, got {self.start!r}")
        if self.start != "solution" and not self.iterations:
            raise ConfigError(f"psro start {self.start!r} needs iterations > 0")
        if self.ppo is not None and not isinstance(self.ppo, dict):
            raise ConfigError(f"psro ppo must be a dict of learner settings, got {self.ppo!r}")
        self.response(Path())  # the budget and the learner settings, checked now

    def response(self, runs_dir: Path) -> BestResponse:
        """How each best response is trained (no learning curve: its score is its final one)."""
        return BestResponse(
            budget=self.budget,
            curve_points=0,
            runs_dir=runs_dir,
            ppo=dict(self.ppo) if self.ppo else None,
            learner="fast",
            preset=self.preset,
        )

    def record(self) -> dict[str, Any]:
        """What a resumed run must match."""
        response = self.response(Path())
        return {
            "iterations": self.iterations,
            "budget": self.budget,
            "games": self.games,
            "start": self.start,
            "settings": response.settings,
        }


def response_seed(seed: int, iteration: int) -> int:
    """The seed of iteration ``iteration``'s best response (its training and its score)."""
    return seed + SEED_STEP * iteration


def check_psro(settings: PsroSettings, seed: int, num_players: int, rules: str, target: str) -> None:
    """A :class:`ConfigError` now for what the iterations would refuse later: the train extra, rules
    the batched engine does not play, a best response's seed past the learner's bound.  ``target``
    is any agent that plays at the table (a member: the mixtures are not written yet)."""
    last = response_seed(seed, settings.iterations)
    if last > MAX_SEED:
        raise ConfigError(
            f"seed {seed} with {settings.iterations} PSRO iterations gives best-response seeds up to "
            f"{last:,}, past the learner's {MAX_SEED:,}"
        )
    match = MatchSettings(num_players=num_players, rules=rules, games=settings.games, seed=last)
    check_targets([target], match)
    check_training(target, match, settings.response(Path()))


def best_response_member(
    iteration: int,
    members: Sequence[Member],
    specs: Sequence[str],
    weights: np.ndarray,
    settings: PsroSettings,
    out: Path,
    match: MatchSettings,
) -> tuple[Member, str, ExploitEntry, Path]:
    """Iteration ``iteration``'s new member: a best response to the mixture ``weights`` over ``members``.

    The mixture is written as it would ship (``OUT/psro/iteration_<t>/mixture/``), the fast learner's
    best response trains against ``N - 1`` copies of it in its own resumable run folder (seed
    :func:`response_seed`), and its policy is exported to ``OUT/psro/response_<t>.npz``, an ``npz:``
    member that samples as the league's members do.  The caller then plays only the new cells.

    ``specs`` are the members resolved, ``match`` the table and the games (its seed is the run's;
    each best response gets its own from it).  Returns the member (its spec relative to ``out``),
    its resolved spec, the best response's score against the mixture, and the mixture's manifest.
    A signal stops the training with a checkpoint and raises
    :class:`~hoity_env.strength.jobs.Interrupted`.
    """
    from hoity_env.agents.policies.export import export_checkpoint

    folder = out / FOLDER / f"iteration_{iteration}"
    mixture = write_population_folder(folder / "mixture", members, specs, weights)
    manifest = (folder / "mixture" / "population.json").resolve()
    logger.info(
        "PSRO iteration %d: a best response to %d member(s) of the mixture (%s)",
        iteration,
        len(mixture),
        ", ".join(f"{m.spec} {m.weight:.3f}" for m in mixture),
    )
    games = match.replace(games=settings.games, seed=response_seed(match.seed, iteration), progress=False)
    job = Job(f"{POPULATION_PREFIX}{manifest}", games, settings.response(folder), folder / "response")
    (entry,) = run_jobs([job], reuse=True, workers=1)
    path = out / FOLDER / f"response_{iteration}.npz"
    if not path.is_file():  # written atomically: one that exists is whole, from this finished run
        run = Path(entry.run_dir)
        name = f"psro-response-{iteration}"
        export_checkpoint(run / "final_model.zip", path, name=name, rules=match.rules_name, inside=run)
    member = Member(
        f"npz:{FOLDER}/{path.name}",
        1.0,
        f"PSRO iteration {iteration}: best response to the mixture ({entry.timesteps:,} learner steps, "
        f"{settings.preset} preset)",
    )
    logger.info(
        "PSRO iteration %d: the best response wins %.3f [%.3f, %.3f] against the mixture; it joins as %s",
        iteration,
        entry.win_rate,
        entry.ci_low,
        entry.ci_high,
        member.spec,
    )
    return member, f"npz:{path.resolve()}", entry, manifest
