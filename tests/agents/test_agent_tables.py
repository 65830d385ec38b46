"""Named agents by table: the registry, its resolution, and every registered agent playing its tables.

Parametrized over ``hoity_env/agents/models/registry.json``, so a table added there is
covered here without a new line: each named agent (and its ``-greedy`` form) is built by
``make`` for the table, then plays only legal actions in the one-game env and on the batched
engine (both with ``illegal_action="raise"``).  A table without an agent gets one error that
names the tables the agent plays and no internal file path.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from hoity_env.agents import NAMED_AGENTS, NAMED_POPULATIONS, make
from hoity_env.agents.batch import act_batch, start_games
from hoity_env.agents.policies.named import GREEDY_SUFFIX
from hoity_env.agents.policies.registry import REGISTRY_FORMAT, Entry, Registry, registry, resolve, table_of
from hoity_env.engine.config import ORIGINAL, STANDARD
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.environment.parallel import HoityParallelEnv
from tests.helpers import ROOT, npz_members

ENTRIES = registry().entries
SPECS = [
    (e, e.name + suffix) for e in ENTRIES for suffix in (("", GREEDY_SUFFIX) if e.kind == "model" else ("",))
]


def _id(case: tuple[Entry, str]) -> str:
    entry, spec = case
    return f"{spec}@{entry.rules}/{entry.num_players}"


@pytest.mark.parametrize("case", SPECS, ids=[_id(c) for c in SPECS])
def test_every_registered_agent_plays_legal_moves_at_its_table(case: tuple[Entry, str]) -> None:
    entry, spec = case
    n, rules = entry.num_players, entry.rules
    env = HoityParallelEnv(num_players=n, rules=rules, illegal_action="raise", max_cycles=60)
    size = env.codec.size
    agents = [make(spec, seed=k, num_players=n, rules=rules, num_actions=size) for k in range(n)]
    obs, _ = env.reset(seed=1)
    for agent in agents:
        agent.reset(3)
    while env.agents:  # every seat the agent: a refused action raises IllegalActionError
        obs = env.step(
            {
                a: ag.act(obs[a]["observation"], obs[a]["action_mask"])
                for a, ag in zip(env.possible_agents, agents, strict=True)
            }
        )[0]

    batched = BatchedHoityEnv(num_envs=8, num_players=n, rules=rules, illegal_action="raise")
    agent = make(spec, seed=5, num_players=n, rules=rules, num_actions=size)
    rows = np.arange(8 * n)
    start_games(agent, rows)
    obs_b, masks, _ = batched.reset(seed=2)
    for _ in range(40):
        actions = act_batch(
            agent, obs_b.reshape(8 * n, -1), masks.reshape(8 * n, -1), checked=True, games=rows
        )
        assert masks.reshape(8 * n, -1)[rows, actions].all()
        obs_b, masks, _, terminated, truncated, _ = batched.step(actions.reshape(8, n))
        ended = np.flatnonzero(terminated | truncated)
        start_games(agent, (ended[:, None] * n + np.arange(n)).ravel())


TEN_TABLES = [(rules, n) for rules in ("original", "standard") for n in range(2, 7)]


@pytest.mark.parametrize("name", ["champion", "champion-mix"])
def test_the_champions_play_at_all_ten_tables(name: str) -> None:
    """Issue 36: every table has a champion and a population (each plays its table, above)."""
    assert registry().tables(name) == TEN_TABLES


def test_the_registry_lists_every_shipped_file_and_nothing_else() -> None:
    reg = registry()
    models = ROOT / "hoity_env" / "agents" / "models"
    folders = {p.name for p in models.iterdir() if p.is_dir() and p.name != "__pycache__"}
    shipped = {p.name for p in models.iterdir() if p.is_file()} - {"registry.json"}
    shipped |= {f"{folder}/population.json" for folder in folders}
    assert set(reg.sources) == shipped
    played = {e.file for e in reg.entries}
    members = {  # a champion-mix member with no name of its own (the retired lineage's weights)
        m for file in played if file.endswith(".json") and "/" not in file for m in npz_members(models / file)
    }
    assert played | members == shipped  # no file left unplayed
    for folder in folders:  # a population with members of its own: exactly its npz: members beside it
        files = {p.name for p in (models / folder).iterdir()} - {"population.json"}
        assert npz_members(models / folder / "population.json") == files
    assert {e.name for e in reg.entries if e.kind == "model"} == {
        s for s in NAMED_AGENTS if not s.endswith(GREEDY_SUFFIX)
    }
    assert reg.names("population") == NAMED_POPULATIONS
    for file, source in reg.sources.items():  # a model's source is a checkpoint of the repository
        assert source is None or (ROOT / source).is_file(), file


def test_a_table_without_an_agent_gets_one_error_naming_the_tables_it_has() -> None:
    plays = "reference plays at: 4 players, standard rules"
    for kwargs in (
        {"num_players": 3},
        {"num_players": 4, "rules": "original"},
        {"num_players": 2, "rules": ORIGINAL},
    ):
        with pytest.raises(ConfigError, match=plays) as info:
            make("reference", **kwargs)  # type: ignore[arg-type]
        assert ".npz" not in str(info.value)
    with pytest.raises(
        ConfigError, match="reference has no agent for 5 players, standard rules; reference plays at"
    ):
        make("reference-greedy", num_players=5)
    ten = "champion plays at: " + "; ".join(
        f"{n} players, {rules} rules" for rules in ("original", "standard") for n in range(2, 7)
    )
    richer = STANDARD.replace(starting_money=60)
    with pytest.raises(
        ConfigError, match=r"plays only preset rules, and these are changed \(starting_money differs"
    ) as info:
        make("champion-greedy", num_players=4, rules=richer, num_actions=61)
    assert ten in str(info.value) and ".npz" not in str(info.value)
    with pytest.raises(ConfigError, match=r"this game has 61 actions.*champion plays at: 2 players") as info:
        make("champion", num_players=4, num_actions=61)  # the rules changed, and not passed
    assert ten in str(info.value) and ".npz" not in str(info.value)
    with pytest.raises(ConfigError, match="unknown agent 'champ'"):
        make("champ")


def test_tables_of_rules_objects_and_defaults() -> None:
    assert table_of(None, None) == ("standard", 4)
    assert table_of(ORIGINAL, 3) == ("original", 3)
    assert table_of(STANDARD.replace(name="my label"), 5) == ("standard", 5)  # the preset, relabelled
    assert table_of(ORIGINAL.replace(max_rounds=50), 4) == (None, 4)
    assert resolve("champion", STANDARD, 4).file == "champion.npz"
    assert make("champion-mix", num_players=4, rules=STANDARD).name == "champion-mix"


def test_the_harness_refuses_a_table_without_an_agent_before_playing() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "hoity_env.cli.eval",
            "--players",
            "3",
            "--agents",
            "reference,random,random",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        "hoity-eval: error: reference has no agent for 3 players, standard rules; "
        "reference plays at: 4 players, standard rules"
    ]


def _registry(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "format": REGISTRY_FORMAT,
        "files": {"a.npz": "docs/reference/final_model.zip", "m.json": None},
        "agents": {"a": {"standard/4": "a.npz"}, "m": {"original/2": "m.json"}},
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/1"}, "not a 'hoity-agents/1' registry"),
        ({"files": []}, "'files' object"),
        ({"files": {"a.zip": "x"}}, "not a .npz or .json"),
        ({"files": {"a.npz": None}}, "a .npz needs its source"),
        ({"agents": {"a": {"standard/7": "a.npz"}}}, "table 'standard/7' is not RULES/PLAYERS"),
        ({"agents": {"a": {"house/4": "a.npz"}}}, "table 'house/4'"),
        ({"agents": {"a": {"standard/4": "b.npz"}}}, "names 'b.npz', not in 'files'"),
        (
            {"agents": {"a": {"standard/4": "a.npz", "standard/3": "m.json"}}},
            "mixes policies and populations",
        ),
        ({"agents": {"a": {}}}, "non-empty object of tables"),
    ],
)
def test_a_malformed_registry_is_refused(change: dict[str, object], message: str) -> None:
    good = Registry(json.loads(json.dumps(_registry())))
    assert good.names("model") == ("a",) and good.tables("m") == [("original", 2)]
    with pytest.raises(ConfigError, match=message):
        Registry(_registry(**change))
