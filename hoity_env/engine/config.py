"""Validated rules configuration (every number of RULES.md is a field) and named presets.

A :class:`RulesConfig` is immutable and checked when built: a bad value raises
:class:`ConfigError` naming the field.  A new ruleset adds its fields with defaults, its
cross-field checks to :data:`RULESET_CHECKS` and its record in :mod:`hoity_env.engine.registry`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hoity_env.engine.errors import ConfigError

RULESET_NAMES = ("standard", "original")
"""Engine implementations (a test keeps them equal to the registry's records)."""
TIE_BREAKS = ("unique", "priority")
EXHIBIT_CHOICES = ("best",)
MIN_PLAYERS = 2
MAX_PLAYERS = 6

LIMITS: dict[str, tuple[int, int]] = {
    "series_copies": (1, 100),
    "series_copies_six": (1, 100),
    "year_base": (1, 100_000),
    "year_step": (1, 1_000),
    "year_multiplier": (1, 100_000),
    "min_exhibition": (1, 600),
    "starting_antiques": (0, 100),
    "starting_money": (1, 1_000),
    "finish": (1, 1_000),
    "min_price": (1, 1_000),
    "thief_penalty": (0, 1_000),
    "detective_reward": (0, 1_000),
    "max_rounds": (1, 10_000),
}
"""Inclusive range of every integer rules field (``series_copies*``: of each series' count): what the
environment supports (the largest rules still build an env in well under half a second; the action
space grows with the money)."""
ORIGINAL_LIMITS: dict[str, tuple[int, int]] = {
    "checks": (1, 1_000),
    "thief_numbers": (1, 1_000),
    "castle_rewards": (0, 100),
    "club_reward": (0, 100),
    "final_bonus": (0, 100),
}
"""Inclusive range of every value inside the original ruleset's tuple fields (O-2, O-8, O-9)."""
CHECKS_PER_SEAT = 4
"""O-2: every player holds four checks."""


@dataclass(frozen=True)
class RulesConfig:
    """All rule numbers of one ruleset; defaults are the ``standard`` ruleset of RULES.md."""

    name: str = "standard"
    """Preset name this configuration came from (informational)."""
    ruleset: str = "standard"
    """Engine implementation that plays these rules."""
    series_copies: tuple[int, ...] = (8, 7, 8, 7, 8, 7)
    """C-2: copies of series 1-6 with 2-5 players (each in [1, 100]; ranges of all fields: :data:`LIMITS`)."""
    series_copies_six: tuple[int, ...] = (9, 8, 9, 8, 9, 8)
    """C-2: copies of series 1-6 with 6 players."""
    year_base: int = 1520
    """C-2: year of card ``k`` is ``year_base + year_step * ((year_multiplier * k) mod N)``."""
    year_step: int = 9
    year_multiplier: int = 23
    min_exhibition: int = 3
    """C-3: fewest cards in an exhibition."""
    exhibit_choice: str = "best"
    """C-3: which exhibition an exhibitor shows (only ``"best"`` exists)."""
    starting_antiques: int = 4
    """S-1: antiques dealt face down to each player."""
    starting_money: int = 50
    """S-1: money each player starts with (also the largest possible bid); in [1, 1000]."""
    finish: int = 30
    """S-1/S-7: track space that ends the game."""
    min_price: int = 1
    """S-4/S-5: price a lone bidder pays; at most ``starting_money``."""
    tie_break: str = "unique"
    """S-5: ``"unique"`` (equal bids void each other) or ``"priority"`` (start-player order)."""
    thief_penalty: int = 2
    """S-6.1: spaces a caught thief's owner moves back."""
    detective_reward: int = 2
    """S-6.1: spaces a detective who caught thieves moves forward."""
    max_rounds: int = 100
    """S-8: rounds after which the game is truncated."""
    checks: tuple[tuple[int, ...], ...] = (
        (5, 10, 15, 20),
        (6, 9, 16, 19),
        (7, 8, 17, 18),
        (4, 11, 14, 21),
        (3, 12, 13, 22),
        (1, 2, 23, 24),
    )
    """O-2 (reconstructed): the four check values of seats 0-5; positive, no value repeated."""
    thief_numbers: tuple[tuple[int, int], ...] = ()
    """O-2 (reconstructed): the two thief numbers of seats 0-5; ``()`` means seat ``i`` holds
    ``i+1`` and ``n+i+1``.  Positive, no number repeated; a higher number is a better thief."""
    castle_rewards: tuple[tuple[int, int], ...] = (
        ((3, 1),) * 5 + ((4, 2),) * 5 + ((5, 3),) * 5 + ((6, 4),) * 5
    )
    """O-9 (reconstructed): (big, small) reward of castles 1 … ``(finish + 1) // 2``; spaces
    ``2c-1, 2c`` form castle ``c``."""
    club_reward: tuple[int, int] = (3, 1)
    """O-9: (big, small) reward read while the leader is still on space 0 (the club room)."""
    final_bonus: tuple[int, int] = (8, 4)
    """O-8: spaces the best and second-best final exhibitions move."""

    def __post_init__(self) -> None:
        _validate(self)

    def replace(self, **changes: Any) -> RulesConfig:
        """Return a copy with ``changes`` applied (validated again)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ConfigError(f"unknown rules field(s): {sorted(unknown)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (tuples become lists)."""
        out = dataclasses.asdict(self)
        for key in _TUPLE_FIELDS:
            out[key] = _as_lists(getattr(self, key))
        return out

    @classmethod
    def from_dict(cls, data: Any) -> RulesConfig:
        """Inverse of :meth:`to_dict`; unknown keys and bad values raise :class:`ConfigError`."""
        if not isinstance(data, dict):
            raise ConfigError(f"rules must be a dict, got {type(data).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ConfigError(f"unknown rules field(s): {sorted(unknown)}")
        kwargs = dict(data)
        for key in _TUPLE_FIELDS:
            if key in kwargs:
                kwargs[key] = _as_tuples(kwargs[key])
        return cls(**kwargs)

    def thieves_of(self, num_players: int) -> tuple[tuple[int, int], ...]:
        """O-2: the two thief numbers of each of ``num_players`` seats, lower number first."""
        if self.thief_numbers:
            return tuple(tuple(sorted(t)) for t in self.thief_numbers[:num_players])  # type: ignore[misc]
        n = num_players
        return tuple((i + 1, n + i + 1) for i in range(n))

    @property
    def max_check(self) -> int:
        """O-2: the largest check value (sizes the original ruleset's check actions)."""
        return max(max(seat) for seat in self.checks)

    @property
    def max_price(self) -> int:
        """Largest amount an event may name: a bid (S-4) or a check (O-5)."""
        return max(self.starting_money, self.max_check)

    def castle_reward(self, position: int) -> tuple[int, int]:
        """O-9: (big, small) reward of the castle on track ``position`` (space 0: the club room)."""
        if position <= 0:
            return self.club_reward
        castle = min((position + 1) // 2, len(self.castle_rewards))
        return self.castle_rewards[castle - 1]


_TUPLE_FIELDS = (
    "series_copies",
    "series_copies_six",
    "checks",
    "thief_numbers",
    "castle_rewards",
    "club_reward",
    "final_bonus",
)
"""Fields that are (nested) tuples: lists in the JSON form."""


def _as_lists(value: Any) -> Any:
    return [_as_lists(v) for v in value] if isinstance(value, tuple) else value


def _as_tuples(value: Any) -> Any:
    return tuple(_as_tuples(v) for v in value) if isinstance(value, list) else value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_int(cfg: RulesConfig, name: str) -> None:
    value = getattr(cfg, name)
    low, high = LIMITS[name]
    if not _is_int(value):
        raise ConfigError(f"rules field {name!r} must be an int, got {value!r}")
    if not low <= value <= high:
        raise ConfigError(f"rules field {name!r} must be in [{low}, {high}], got {value}")


def _validate_copies(cfg: RulesConfig, name: str) -> None:
    copies = getattr(cfg, name)
    low, high = LIMITS[name]
    if not isinstance(copies, tuple) or len(copies) != 6:
        raise ConfigError(f"rules field {name!r} must be a tuple of 6 ints, got {copies!r}")
    if not all(_is_int(c) and low <= c <= high for c in copies):
        raise ConfigError(
            f"rules field {name!r} needs every series to have [{low}, {high}] cards, got {copies!r}"
        )
    if math.gcd(cfg.year_multiplier, sum(copies)) != 1:
        raise ConfigError(
            f"rules field 'year_multiplier' ({cfg.year_multiplier}) must be coprime with the deck "
            f"size {sum(copies)} of {name!r}, or two cards would share a year (C-2)"
        )


def _validate(cfg: RulesConfig) -> None:
    if not isinstance(cfg.name, str) or not cfg.name:
        raise ConfigError(f"rules field 'name' must be a non-empty str, got {cfg.name!r}")
    if not isinstance(cfg.ruleset, str) or cfg.ruleset not in RULESET_NAMES:
        raise ConfigError(f"rules field 'ruleset' must be one of {RULESET_NAMES}, got {cfg.ruleset!r}")
    for name in ("year_base", "year_step", "year_multiplier"):
        _require_int(cfg, name)
    _validate_copies(cfg, "series_copies")
    _validate_copies(cfg, "series_copies_six")
    for name in LIMITS:
        if not name.startswith("series_copies"):
            _require_int(cfg, name)
    smallest_deck = min(sum(cfg.series_copies), sum(cfg.series_copies_six))
    if cfg.min_exhibition > smallest_deck:
        raise ConfigError(
            f"rules field 'min_exhibition' ({cfg.min_exhibition}) exceeds the deck ({smallest_deck} cards): "
            "no exhibition could ever be shown"
        )
    if cfg.starting_antiques * 5 >= sum(cfg.series_copies) or cfg.starting_antiques * 6 >= sum(
        cfg.series_copies_six
    ):
        raise ConfigError(
            f"rules field 'starting_antiques' ({cfg.starting_antiques}) leaves no card for the lot "
            "with the largest player count"
        )
    if cfg.min_price > cfg.starting_money:
        raise ConfigError(
            f"rules field 'min_price' ({cfg.min_price}) exceeds 'starting_money' ({cfg.starting_money}): "
            "a lone bidder could never buy (S-4)"
        )
    if not isinstance(cfg.tie_break, str) or cfg.tie_break not in TIE_BREAKS:
        raise ConfigError(f"rules field 'tie_break' must be one of {TIE_BREAKS}, got {cfg.tie_break!r}")
    if not isinstance(cfg.exhibit_choice, str) or cfg.exhibit_choice not in EXHIBIT_CHOICES:
        raise ConfigError(
            f"rules field 'exhibit_choice' must be one of {EXHIBIT_CHOICES}, got {cfg.exhibit_choice!r}"
        )
    _validate_original(cfg)


def _int_tuple(cfg: RulesConfig, name: str, value: Any, length: int | None) -> tuple[int, ...]:
    """``value`` as a tuple of ints within ``ORIGINAL_LIMITS[name]`` (``length`` of them if given)."""
    low, high = ORIGINAL_LIMITS[name]
    if not isinstance(value, tuple) or (length is not None and len(value) != length):
        size = f"{length} " if length is not None else ""
        raise ConfigError(f"rules field {name!r} needs tuples of {size}ints, got {value!r}")
    if not all(_is_int(v) and low <= v <= high for v in value):
        raise ConfigError(
            f"rules field {name!r} holds {value!r}: every value must be an int in [{low}, {high}]"
        )
    return value


def _validate_original(cfg: RulesConfig) -> None:
    """O-2, O-8, O-9 fields (checked for every ruleset: a configuration is valid or not)."""
    if not isinstance(cfg.checks, tuple) or len(cfg.checks) != MAX_PLAYERS:
        raise ConfigError(
            f"rules field 'checks' must hold one tuple of checks per seat (6), got {cfg.checks!r}"
        )
    values = [v for seat in cfg.checks for v in _int_tuple(cfg, "checks", seat, CHECKS_PER_SEAT)]
    if len(set(values)) != len(values):
        raise ConfigError("rules field 'checks' repeats a value: the highest check must be unique (O-5)")
    # isinstance first: comparing a NumPy array with () would be an array, not a bool.
    if not isinstance(cfg.thief_numbers, tuple) or cfg.thief_numbers:
        if not isinstance(cfg.thief_numbers, tuple) or len(cfg.thief_numbers) != MAX_PLAYERS:
            raise ConfigError(
                f"rules field 'thief_numbers' must be () or one pair per seat (6), got {cfg.thief_numbers!r}"
            )
        numbers = [v for pair in cfg.thief_numbers for v in _int_tuple(cfg, "thief_numbers", pair, 2)]
        if len(set(numbers)) != len(numbers):
            raise ConfigError(
                "rules field 'thief_numbers' repeats a number: steal order needs unique numbers (O-6)"
            )
    if not isinstance(cfg.castle_rewards, tuple) or not cfg.castle_rewards:
        raise ConfigError(
            f"rules field 'castle_rewards' must be a non-empty tuple of pairs, got {cfg.castle_rewards!r}"
        )
    for pair in cfg.castle_rewards:
        _int_tuple(cfg, "castle_rewards", pair, 2)
    _int_tuple(cfg, "club_reward", cfg.club_reward, 2)
    _int_tuple(cfg, "final_bonus", cfg.final_bonus, 2)
    RULESET_CHECKS[cfg.ruleset](cfg)


def _check_castles(cfg: RulesConfig) -> None:
    """O-9: the original track has one castle per two spaces, each with its reward pair."""
    if len(cfg.castle_rewards) != (cfg.finish + 1) // 2:
        raise ConfigError(
            f"rules field 'castle_rewards' must have one pair per castle, (finish + 1) // 2 = "
            f"{(cfg.finish + 1) // 2} for finish {cfg.finish}, got {len(cfg.castle_rewards)} (O-9)"
        )


def _no_checks(cfg: RulesConfig) -> None:
    """A ruleset whose fields need no check beyond every ruleset's."""


RULESET_CHECKS: dict[str, Callable[[RulesConfig], None]] = {
    "standard": _no_checks,
    "original": _check_castles,
}
"""Each ruleset's own cross-field checks of a configuration (beyond every ruleset's), by name."""


STANDARD = RulesConfig()
"""The default ruleset (RULES.md, S-rules)."""

ORIGINAL = RulesConfig(name="original", ruleset="original", finish=40)
"""The published 1990 rules as far as they can be reconstructed (RULES.md, O-rules)."""

PRESETS: dict[str, RulesConfig] = {"standard": STANDARD, "original": ORIGINAL}
"""Named presets accepted wherever rules are given by name."""


def resolve_rules(rules: str | RulesConfig) -> RulesConfig:
    """Turn a preset name or a :class:`RulesConfig` into a :class:`RulesConfig`."""
    if isinstance(rules, RulesConfig):
        return rules
    if isinstance(rules, str):
        if rules not in PRESETS:
            raise ConfigError(f"unknown rules preset {rules!r}; choose one of {sorted(PRESETS)}")
        return PRESETS[rules]
    raise ConfigError(f"rules must be a preset name or a RulesConfig, got {type(rules).__name__}")


def validate_num_players(num_players: Any) -> int:
    """C-1: 2 to 6 players."""
    if not _is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ConfigError(
            f"num_players must be an int in [{MIN_PLAYERS}, {MAX_PLAYERS}], got {num_players!r}"
        )
    return int(num_players)
