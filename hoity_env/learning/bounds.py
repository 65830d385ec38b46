"""The bounds the fast learner's and the league's settings are checked against, and why.

Each bound is one where a larger value is known to break a run (a crash, a buffer that
cannot exist, weights that turn NaN) rather than a matter of taste: such values used to be
accepted and fail hours later, or write a diverged policy (issue 37).  The checkers raise
:class:`~hoity_env.engine.errors.ConfigError` naming the field, its range and the value.
"""

from __future__ import annotations

import math

from hoity_env.engine.errors import ConfigError

MAX_STEPS = 2**53
"""Learner steps are logged as floats (``progress.jsonl``): past 2**53 they stop being exact."""
MAX_SEED = 2**32 - 1
"""Saving a policy seeds SB3's model with the run's seed, and SB3 seeds numpy's legacy generator,
which takes at most 2**32 - 1 (a league checks the seeds it derives, ``seed + 1000 k``, too)."""
MAX_THREADS = 1024
"""torch's thread pool crashes the process (SIGSEGV) far above this (32,768 in torch 2.13)."""
MAX_ROWS = 2**22
"""The rollout buffer holds ``num_games × num_players × rollout_steps`` rows (64× the default):
at 1.4 KB a row (six players, original rules) this is already 6 GB."""
MAX_WIDTH, MAX_LAYERS = 4096, 8
"""The largest network: a typo such as ``--hidden 100000000x100000000`` asks for 10^16 weights."""
MAX_EPOCHS = 100
"""PPO reuses a rollout a few times (1–10 epochs); far more only overfits it, for hours."""
MAX_LEARNING_RATE = 1.0
"""Adam moves each weight by about the rate per step: above 1 every step is a jump."""
MAX_COEF = 1e6
"""The loss terms are O(1) and float32 keeps about 7 digits: a larger coefficient drowns the
other terms, and a huge one (1e39) overflows the loss to inf and the weights to NaN."""
MAX_WEIGHT = 1e6
"""Pool weights are relative; capped so that their sum stays finite (``1e308, 1e308`` did not)."""


def is_int(value: object) -> bool:
    """An int, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite int or float, not a bool."""
    return (is_int(value) or isinstance(value, float)) and math.isfinite(value)  # type: ignore[arg-type]


def int_in(settings: object, name: str, least: int, most: int) -> None:
    """A :class:`ConfigError` unless field ``name`` is an int in ``[least, most]``."""
    value = getattr(settings, name)
    if not is_int(value) or not least <= value <= most:
        raise ConfigError(f"{name} must be an int in [{least}, {most:,}], got {value!r}")


def real_in(settings: object, name: str, low: float, high: float, *, low_open: bool = False) -> None:
    """A :class:`ConfigError` unless field ``name`` is a finite number in ``[low, high]`` (``(low,
    high]`` with ``low_open``)."""
    value = getattr(settings, name)
    if not is_number(value) or not (low < value if low_open else low <= value) or value > high:
        bracket = "(" if low_open else "["
        raise ConfigError(f"{name} must be a number in {bracket}{low:g}, {high:g}], got {value!r}")


__all__ = [
    "MAX_COEF",
    "MAX_EPOCHS",
    "MAX_LAYERS",
    "MAX_LEARNING_RATE",
    "MAX_ROWS",
    "MAX_SEED",
    "MAX_STEPS",
    "MAX_THREADS",
    "MAX_WEIGHT",
    "MAX_WIDTH",
    "int_in",
    "is_int",
    "is_number",
    "real_in",
]
