"""A league's settings, its members and their PFSP weights (the run is :mod:`hoity_env.league.run`).

The main agent trains on the fast learner against a weighted pool; the league grows that pool with
snapshots of the main agent and exploiters (best responses to it, AlphaStar's *main exploiters*), and
PFSP weighs the members so that those the main agent beats are drawn less, but never not at all.
Every member is recorded in the run folder's ``league.json`` (:class:`Member`).  See docs/league.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoity_env.engine.errors import ConfigError
from hoity_env.files import read_json
from hoity_env.learning.bounds import MAX_SEED, MAX_STEPS, MAX_WEIGHT, int_in, is_number
from hoity_env.learning.settings import (
    SELF,
    SNAPSHOT,
    LearnerSettings,
    refuse_unknown_fields,
)

PFSP = ("none", "hard")
MAX_GAMES = 1_000_000
"""Games per scoring: a million per member is already hours of CPU; more is a typo."""
LEAGUE_RECORD_BYTES = 64 << 20
"""The largest league record read: it grows with the run's events (64 MiB is decades of them)."""
EXPLOITER_SEED_STEP = 1000
"""Exploiter ``k`` plays and trains on seed ``main.seed + 1000 k`` (:mod:`hoity_env.league.run`)."""


@dataclass(frozen=True)
class LeagueSettings:
    """The league's settings; checked when built.

    Every ``snapshot_every`` learner steps the main agent's policy joins the pool (``ppo-sample:``);
    every ``exploiter_every`` steps a best response trained for ``exploiter_budget`` steps against
    the main agent as it is then joins it.  After each of those, and every ``pfsp_every`` steps,
    the main agent plays ``pfsp_games`` games against copies of every member, and member ``i`` is
    drawn with weight ``base_i × f(x_i)`` (:func:`pfsp_factor`, ``x_i`` its win rate against it).
    ``self`` and ``snapshot`` entries of the starting pool keep their base weight.
    """

    main: LearnerSettings
    """The main agent's learner; its ``opponents`` are the starting pool."""
    snapshot_every: int = 0
    snapshot_weight: float = 1.0
    exploiter_every: int = 0
    exploiter_weight: float = 2.0
    exploiter_budget: int = 1_000_000
    exploiter_games: int = 200
    """Games scoring each exploiter against the main agent (its win rate is recorded: the
    main agent's exploitability at that point, an estimate from below)."""
    exploiter_settings: dict[str, Any] = field(default_factory=dict)
    """Overrides of the fast best responder's settings (``FAST_SETTINGS``)."""
    pfsp: str = "hard"
    pfsp_power: float = 2.0
    pfsp_floor: float = 0.05
    pfsp_every: int = 0
    pfsp_games: int = 100
    max_members: int = 16
    """Members added beyond this retire the oldest added one (weight 0, then freed), so a
    long run's memory stays bounded."""
    cpu_budget: float = 0.0
    """CPU-seconds (``time.process_time``, summed over resumes; exploiters and scoring
    included) after which the run ends at the next iteration; 0: only ``main.total_steps``."""

    def __post_init__(self) -> None:
        if not isinstance(self.main, LearnerSettings):
            raise ConfigError(f"main must be LearnerSettings, got {type(self.main).__name__}")
        if isinstance(self.main.num_players, tuple):
            raise ConfigError(
                f"a league trains at one player count, got {self.main.num_players}: train several "
                "counts with hoity-learn --players, or one league per count"
            )
        for name in ("snapshot_every", "exploiter_every", "pfsp_every"):
            int_in(self, name, 0, MAX_STEPS)
        for name in ("exploiter_budget", "exploiter_games", "pfsp_games", "max_members"):
            int_in(self, name, 1, MAX_STEPS)
        if not is_number(self.cpu_budget) or self.cpu_budget < 0:
            raise ConfigError(f"cpu_budget must be a number >= 0 (CPU-seconds), got {self.cpu_budget!r}")
        for name in ("snapshot_weight", "exploiter_weight", "pfsp_power"):
            value = getattr(self, name)
            if not is_number(value) or value <= 0:
                raise ConfigError(f"{name} must be a number > 0, got {value!r}")
        if not is_number(self.pfsp_floor) or not 0 < self.pfsp_floor <= 1:
            raise ConfigError(f"pfsp_floor must be a number in (0, 1], got {self.pfsp_floor!r}")
        if self.pfsp not in PFSP:
            raise ConfigError(f"pfsp must be one of {PFSP}, got {self.pfsp!r}")
        if not isinstance(self.exploiter_settings, dict):
            raise ConfigError(f"exploiter_settings must be a dict, got {self.exploiter_settings!r}")
        for name in ("exploiter_games", "pfsp_games"):
            int_in(self, name, 1, MAX_GAMES)
        for name in ("snapshot_weight", "exploiter_weight"):
            if getattr(self, name) > MAX_WEIGHT:
                raise ConfigError(f"{name} must be at most {MAX_WEIGHT:g}, got {getattr(self, name)!r}")
        self._check_exploiters()

    def _check_exploiters(self) -> None:
        """Every exploiter's settings and seed, checked now rather than when the first one is due
        (the main agent's training would be lost)."""
        from hoity_env.strength.response import fast_learner_settings, learner_settings

        try:
            chosen = learner_settings(dict(self.exploiter_settings), "fast")
            main = self.main
            fast_learner_settings(
                chosen, main.rules, main.player_counts[0], main.seed, self.exploiter_budget, "random"
            )
        except ConfigError as exc:
            raise ConfigError(f"exploiter_settings: {exc}") from None
        if self.exploiter_every:
            last = self.main.seed + EXPLOITER_SEED_STEP * (self.main.total_steps // self.exploiter_every + 2)
            if last > MAX_SEED:
                raise ConfigError(
                    f"the exploiters' seeds (seed + {EXPLOITER_SEED_STEP} k, up to {last:,}) must stay "
                    f"at most {MAX_SEED:,}: lower the seed, or raise exploiter_every"
                )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form; :meth:`from_dict` reverses it."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["main"] = self.main.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LeagueSettings:
        """Settings from :meth:`to_dict`'s form; unknown keys raise :class:`ConfigError`."""
        if not isinstance(data, dict) or not isinstance(data.get("main"), dict):
            raise ConfigError("league settings must be a JSON object with a 'main' object")
        refuse_unknown_fields(cls, data, "league settings")
        try:
            return cls(**{**data, "main": LearnerSettings.from_dict(data["main"])})
        except (TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"league settings: {exc}") from None


@dataclass
class Member:
    """One entry of the main agent's pool, as ``league.json`` records it."""

    spec: str
    origin: str
    kind: str
    """``start`` (the starting pool), ``snapshot`` or ``exploiter``."""
    added_at: int
    base_weight: float
    weight: float
    win_rates: list[tuple[int, float]] = field(default_factory=list)
    """``(learner steps, the main agent's win rate against this member)`` at each PFSP scoring."""
    retired_at: int | None = None
    exploiter_win_rate: float | None = None
    """For an exploiter: its win rate against the main agent it was trained on."""

    @property
    def scored(self) -> bool:
        """Whether PFSP weighs this member (``self`` / ``snapshot`` entries keep their base weight)."""
        return self.spec not in (SELF, SNAPSHOT) and self.retired_at is None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Member:
        values = dict(data)
        values["win_rates"] = [(int(s), float(w)) for s, w in values.get("win_rates", [])]
        return cls(**values)


MEMBER_KINDS = ("start", "snapshot", "exploiter")
"""What a member is (:attr:`Member.kind`)."""
RECORD_KEYS = ("steps", "cpu", "members", "due", "events", "exploiters")
"""The keys of a league record (``league.json``, ``checkpoints/league_<steps>.json``)."""


def read_league_record(path: Path, steps: int) -> dict[str, Any]:
    """The league record ``checkpoints/league_<steps>.json`` (its one reader) for the learner state
    at ``steps``; a damaged one (truncated, edited, nested too deeply) is a :class:`ConfigError`
    naming it, which the run folder answers by falling back to the checkpoint before."""
    try:
        return check_record(read_json(path, max_bytes=LEAGUE_RECORD_BYTES), steps)
    except ConfigError as exc:
        raise ConfigError(exc.args[0] if str(path) in str(exc) else f"{path}: {exc}") from None


def check_record(data: Any, steps: int) -> dict[str, Any]:
    """A league record read back for the learner state at ``steps``: a :class:`ConfigError` unless
    it has every key, its members read back and its steps are ``steps`` (a truncated or edited
    file)."""
    if not isinstance(data, dict) or sorted(data) != sorted(RECORD_KEYS):
        raise ConfigError(f"not a league record (keys {', '.join(RECORD_KEYS)})")
    try:
        members = [Member.from_dict(m) for m in data["members"]]
        due = {str(k): int(v) for k, v in dict(data["due"]).items()}
        cpu, exploiters = float(data["cpu"]), int(data["exploiters"])
        events = list(data["events"])
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ConfigError(f"not a league record ({exc})") from None
    for m in members:
        texts = (m.spec, m.origin, m.kind)
        weights = (m.base_weight, m.weight)
        if not all(isinstance(t, str) for t in texts) or m.kind not in MEMBER_KINDS:
            raise ConfigError(f"not a league record (a member {m.spec!r} of kind {m.kind!r})")
        if not all(is_number(w) and w >= 0 for w in weights):
            raise ConfigError(f"not a league record (member {m.spec!r} weighs {m.weight!r})")
    if data["steps"] != steps or not members or not is_number(cpu) or exploiters < 0:
        raise ConfigError(f"the league record does not match the learner state at {steps} steps")
    return {**data, "members": [m.to_dict() for m in members], "due": due, "events": events}


def read_league_settings(path: Path) -> LeagueSettings:
    """The :class:`LeagueSettings` of a ``league_settings.json``; a damaged one is an error naming it."""
    try:
        return LeagueSettings.from_dict(read_json(path))
    except ConfigError as exc:
        if str(path) in str(exc):
            raise
        raise ConfigError(f"{path} does not hold valid league settings (edited?): {exc}") from None


def pfsp_factor(win_rate: float, settings: LeagueSettings) -> float:
    """PFSP's ``f(x)``: how much a member the main agent wins ``win_rate`` against is drawn.

    ``pfsp="hard"``: ``max((1 - x)^p, floor)`` (``pfsp_power``, ``pfsp_floor``); ``"none"``: 1."""
    if settings.pfsp == "none":
        return 1.0
    factor: float = (1.0 - win_rate) ** settings.pfsp_power
    return max(factor, settings.pfsp_floor)


def starting_members(settings: LeagueSettings) -> list[Member]:
    """The members of the starting pool (``settings.main.opponents``)."""
    return [
        Member(spec, "starting pool", "start", 0, float(weight), float(weight))
        for spec, weight in settings.main.opponents
    ]


__all__ = [
    "PFSP",
    "LeagueSettings",
    "Member",
    "check_record",
    "pfsp_factor",
    "read_league_record",
    "read_league_settings",
    "starting_members",
]
