"""How a match is played: one frozen, validated settings object passed from the CLI to the workers.

Every way of playing games (evaluate, tournament, head to head, exploitability, the ladder) needs the
same choices, so they travel together as one :class:`MatchSettings`, checked once when built and passed
down unchanged; :func:`match_settings` lets the public functions take its fields as keywords too.
See docs/evaluation.md.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from hoity_env.engine.config import RulesConfig, resolve_rules, validate_num_players
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.match import check_seed
from hoity_env.evaluation.ray_backend import BACKENDS

__all__ = [
    "ENGINES",
    "MatchSettings",
    "Rules",
    "match_settings",
    "positive_int",
    "refuse_unknown",
    "settings_from",
]

Rules = str | RulesConfig
ENGINES = ("auto", "batched", "one-game")
"""``auto``: the batched engine when every agent decides in batches; ``batched``; ``one-game``."""

S = TypeVar("S")


def positive_int(name: str, value: Any) -> int:
    """``value`` as an int >= 1, or a :class:`ConfigError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be an int >= 1, got {value!r}")
    return value


@dataclasses.dataclass(frozen=True)
class MatchSettings:
    """How the games of one evaluation are played (checked when built: a ``ConfigError`` per bad value).

    Attributes:
        num_players: seats at every table, 2-6.
        games: games per table, rounded up to whole deals of ``num_players`` games.
        seed: the evaluation seed (an int >= 0); every game's seeds derive from it.
        rules: a rules preset name or a :class:`~hoity_env.engine.config.RulesConfig`.
        workers: local worker processes (backend ``local``; 1 with ``ray``).
        engine: ``auto``, ``batched`` or ``one-game`` (:data:`ENGINES`).
        backend: ``local`` or ``ray``.
        address: the Ray cluster (backend ``ray`` only; ``None``: a local Ray instance).
        progress: a tqdm bar on stderr, shown only on a terminal.
        records: keep every game's :class:`~hoity_env.evaluation.match.GameRecord` in the
            result; off by default, so memory does not grow with ``games``.
        blas_threads: numpy's BLAS threads while the games are played (the MLP policies'
            matrix products; :mod:`hoity_env.threads`): an int limits this process for the
            call and every worker process; ``None`` (the default) leaves this process as the
            caller has it and gives each worker one (the command lines pass ``--blas-threads``).
    """

    num_players: int = 4
    games: int = 1000
    seed: int = 0
    rules: Rules = "standard"
    workers: int = 1
    engine: str = "auto"
    backend: str = "local"
    address: str | None = None
    progress: bool = True
    records: bool = False
    blas_threads: int | None = None

    def __post_init__(self) -> None:
        set_field = object.__setattr__  # frozen: normalise the checked values in place
        set_field(self, "num_players", validate_num_players(self.num_players))
        set_field(self, "games", positive_int("games", self.games))
        set_field(self, "seed", check_seed(self.seed))
        resolve_rules(self.rules)
        set_field(self, "workers", positive_int("workers", self.workers))
        if self.engine not in ENGINES:
            raise ConfigError(f"engine must be one of {ENGINES}, got {self.engine!r}")
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.backend == "local" and self.address is not None:
            raise ConfigError("an address is for backend 'ray' (--backend ray --address ADDRESS)")
        if self.backend == "ray" and self.workers != 1:
            raise ConfigError("workers is for backend 'local'; with backend 'ray' the cluster's CPUs set it")
        if self.blas_threads is not None:
            set_field(self, "blas_threads", positive_int("blas_threads", self.blas_threads))
        for name in ("progress", "records"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")

    @property
    def deals(self) -> int:
        """Whole deals needed for at least ``games`` games (each deal is ``num_players`` games)."""
        return -(-self.games // self.num_players)

    @property
    def rules_name(self) -> str:
        """The preset name recorded in results."""
        return self.rules if isinstance(self.rules, str) else self.rules.name

    def replace(self, **changes: Any) -> MatchSettings:
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)


def settings_from(cls: type[S], given: S | None, options: dict[str, Any], **defaults: Any) -> S:
    """A ``cls`` settings object: ``given`` (or ``cls(**defaults)``) with the fields in ``options``.

    The fields of ``cls`` found in ``options`` are taken out of it, so a function
    with two settings objects can call this once for each and then refuse what is
    left (:func:`refuse_unknown`).
    """
    if given is not None and not isinstance(given, cls):
        raise ConfigError(f"settings must be a {cls.__name__}, got {type(given).__name__}: {given!r}")
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    chosen = {name: options.pop(name) for name in list(options) if name in names}
    if given is None:
        return cls(**{**defaults, **chosen})
    return dataclasses.replace(given, **chosen) if chosen else given  # type: ignore[type-var]


def refuse_unknown(options: dict[str, Any], where: str) -> None:
    """A :class:`ConfigError` naming any keyword left in ``options`` (a typo must not pass silently)."""
    if options:
        known = ", ".join(f.name for f in dataclasses.fields(MatchSettings))
        raise ConfigError(f"{where}() got unknown settings {sorted(options)}; match settings are: {known}")


def match_settings(
    settings: MatchSettings | None, options: dict[str, Any], where: str, **defaults: Any
) -> MatchSettings:
    """The convenience layer of the public functions: ``settings`` and keyword ``options`` as one object.

    ``defaults`` are the function's own defaults for fields not given (the tournament
    plays 200 games per table where :func:`~hoity_env.evaluation.evaluate` plays
    1000); they apply only when no ``settings`` object is passed.  Keywords given with a
    ``settings`` object override its fields.
    """
    chosen = settings_from(MatchSettings, settings, options, **defaults)
    refuse_unknown(options, where)
    return chosen
