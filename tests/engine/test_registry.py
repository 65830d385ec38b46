"""The ruleset registry: one record per ruleset, and every per-ruleset decision through it.

``hoity_env.engine.registry.RULESETS`` names each ruleset's engine parts; the faces
(:class:`Game`, :class:`BatchedGame`), the observers and the padded layout take them from
the record, and no module outside the registry compares a ruleset's name (docs/design.md,
"Adding a ruleset").
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import hoity_env
from hoity_env.engine import BatchedGame, ConfigError, Game
from hoity_env.engine.config import PRESETS, RULESET_CHECKS, RULESET_NAMES
from hoity_env.engine.registry import BATCHED_RULESETS, RULESETS, ruleset_of
from hoity_env.environment.padding import unpadded_dim
from tests.helpers import RULESETS as RULESET_LIST

PACKAGE_DIR = Path(hoity_env.__file__).resolve().parent
CHECKED_PACKAGES = (
    "engine", "environment", "agents", "wrappers", "integrations", "learning", "evaluation",
    "strength", "league", "serve", "play", "replays", "cli",
)  # fmt: skip
"""The packages held to "no ruleset name compared outside the registry" (every one with code)."""
NAME_COMPARISON = re.compile(
    r"""[=!]=\s*["'](?:standard|original)["']"""  # x == "original"
    r"""|["'](?:standard|original)["']\s*[=!]="""  # "original" == x
    r"""|\bin\s*[(\[{]\s*["'](?:standard|original)["']"""  # x in ("standard", ...)
)


def test_the_registry_lists_every_ruleset_the_configuration_accepts() -> None:
    assert tuple(RULESETS) == RULESET_NAMES == tuple(RULESET_CHECKS) == BATCHED_RULESETS
    assert tuple(RULESETS) == RULESET_LIST
    for name, record in RULESETS.items():
        assert record.name == name
        assert getattr(record.one_game, "name", name) == name


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_the_faces_take_every_part_from_the_record(name: str) -> None:
    record = ruleset_of(PRESETS[name])
    assert ruleset_of(name) is record
    game, batched = Game(name, 3), BatchedGame(name, 3)
    assert game.ruleset is batched.ruleset is record
    assert game.layout.size == record.one_game.layout(game.rules, 3).size == batched.num_actions
    observer, batch_observer = game.make_observer(), batched.make_observer()
    assert type(observer) is type(record.observer(game.rules, 3))
    assert type(batch_observer) is type(record.batch_observer(game.rules, 3))
    assert isinstance(batched.batched_rules, record.batched)  # type: ignore[arg-type]
    state = batched.deal([4])
    assert type(state) is batched.batched_rules.state_class
    assert np.array_equal(batch_observer.observations(state)[0], observer.observations(game.new_state(4)))


@pytest.mark.parametrize("name", RULESET_NAMES)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_the_observation_fields_are_the_observers_layout(name: str, num_players: int) -> None:
    """The record's ``observation_fields`` (what the padded layout is built from) describe the
    observer's vector: the same names in the same places."""
    observer = Game(name, num_players).make_observer()
    g, own, player = RULESETS[name].observation_fields(num_players)
    at, expected = 0, {}
    for prefix, fields in (("", g), ("own.", own)):
        for field, width, _ in fields:
            expected[prefix + field] = slice(at, at + width)
            at += width
    for k in range(num_players):
        for field, width, _ in player:
            expected[f"player{k}.{field}"] = slice(at, at + width)
            at += width
    assert observer.obs_layout() == expected
    assert at == observer.obs_dim == unpadded_dim(name, num_players)


def test_an_unknown_ruleset_is_one_clear_error() -> None:
    with pytest.raises(ConfigError, match="unknown rules preset"):
        ruleset_of("no-such-rules")


def _comparisons(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if NAME_COMPARISON.search(line)]


def test_no_module_outside_the_registry_compares_a_ruleset_name() -> None:
    found = []
    for package in CHECKED_PACKAGES:
        for path in sorted((PACKAGE_DIR / package).rglob("*.py")):
            if path.name == "registry.py" and path.parent.name == "engine":
                continue
            found += [f"{path.relative_to(PACKAGE_DIR)}: {line}" for line in _comparisons(path.read_text())]
    assert found == []


def test_the_name_scan_sees_a_comparison() -> None:
    # Guards the test above.
    assert _comparisons('if rules.ruleset == "original":\n') != []
    assert _comparisons("ok = 'standard' != name\n") != []
    assert _comparisons('if x in ("standard", "original"):\n') != []
    assert _comparisons('RULESETS["original"]\nname = "standard"\n') == []
