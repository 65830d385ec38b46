"""The population agent (issue 25, item 3): ``population:PATH``, one member drawn per game.

The draw is per game and seeded, its frequencies follow the weights, the batched
harness draws the same member for each game as the one-game path (the
differential rule: identical records with deterministic members), every bad
manifest is one ``ConfigError`` naming its field, and a population plays in the
fast learner's opponent pool and the SB3 vs-bots env.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hoity_env.agents import SPEC_FORMS, make
from hoity_env.agents.policies.population import (
    NAMED_POPULATIONS,
    PATHS_VARIABLE,
    POPULATION_FORMAT,
    Member,
    PopulationAgent,
    member_specs,
    named_population,
    read_population,
    write_population,
)
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.evaluation import evaluate
from hoity_env.evaluation.harness import play_tables
from hoity_env.evaluation.match import agent_seeds, play_game
from tests.helpers import ROOT

GREEDY = [Member("champion-greedy", 1.0, "shipped"), Member("reference-greedy", 1.0, "shipped")]


def _population(
    folder: Path, members: list[Member] | list[dict[str, Any]], name: str = "population.json"
) -> str:
    return f"population:{write_population(folder / name, members)}"


def _make(spec: str, seed: int | None = None, **kw: Any) -> PopulationAgent:
    agent = make(spec, seed=seed, **kw)
    assert isinstance(agent, PopulationAgent)
    return agent


def test_the_draw_is_per_game_and_seeded(tmp_path: Path) -> None:
    spec = _population(tmp_path, [Member("random", 1.0), Member("expert", 2.0), Member("thief", 1.0)])
    a, b = _make(spec, seed=1), _make(spec, seed=1)

    def draws(agent: PopulationAgent, seeds: list[int | None]) -> list[int]:
        out = []
        for s in seeds:
            agent.reset(s)
            out.append(agent.current)
        return out

    streamed = draws(a, [None] * 40)
    assert streamed == draws(b, [None] * 40)  # same seed, same draws
    assert streamed != draws(_make(spec, seed=2), [None] * 40)  # another seed, other draws
    assert len(set(streamed)) == 3  # a draw per game, not one for the agent's life
    seeded = draws(a, list(range(40)))
    assert seeded == draws(b, list(range(40))) and len(set(seeded)) == 3
    # start_games with per-game seeds draws what reset does for each seed
    a.start_games(np.arange(40), list(range(40)))
    assert a.members_of(np.arange(40)).tolist() == seeded


def test_the_drawn_member_plays_the_whole_game(tmp_path: Path) -> None:
    population = _make(_population(tmp_path, GREEDY), num_players=4)
    env = HoityParallelEnv(num_players=4)
    played = set()
    for seed in range(3):
        others = [make("expert"), make("thief"), make("collector")]
        record = play_game(env, [population, *others], env_seed=seed, seeds=[seed, 1, 2, 3])
        member = make(population.member.spec)
        others = [make("expert"), make("thief"), make("collector")]
        alone = play_game(env, [member, *others], env_seed=seed, seeds=[None, 1, 2, 3], names=record.agents)
        assert record == alone
        played.add(population.current)
    assert played == {0, 1}


def test_mixture_frequencies_match_the_weights(tmp_path: Path) -> None:
    weights = np.array([0.6, 0.3, 0.1])
    spec = _population(
        tmp_path, [Member(s, float(w)) for s, w in zip(["random", "thief", "expert"], weights, strict=True)]
    )
    agent = _make(spec, seed=5)
    n = 3000
    counts = np.zeros(3)
    for _ in range(n):
        agent.reset()
        counts[agent.current] += 1
    agent.start_games(np.arange(n))
    counts_hook = np.bincount(agent.members_of(np.arange(n)), minlength=3)

    def chi2(observed: np.ndarray, p: np.ndarray) -> float:
        expected = n * p
        return float(((observed - expected) ** 2 / expected).sum())

    critical = 18.42  # chi-square, 2 degrees of freedom, upper 1e-4 quantile
    assert chi2(counts, weights) < critical and chi2(counts_hook, weights) < critical
    # the check can fail: the same counts are far off uniform weights
    assert chi2(counts, np.full(3, 1 / 3)) > critical and chi2(counts_hook, np.full(3, 1 / 3)) > critical


def test_batched_harness_draws_the_one_game_members(tmp_path: Path) -> None:
    spec = _population(tmp_path, GREEDY)
    table = [spec, "champion-greedy", spec, "reference-greedy"]
    kw: dict[str, Any] = {"num_players": 4, "deals": 2, "seed": 3, "progress": False}
    (one,) = play_tables([table], engine="one-game", **kw)
    (batched,) = play_tables([table], engine="batched", **kw)
    assert len(one) == 8
    assert [r.to_dict() for r in one] == [r.to_dict() for r in batched]
    # the population's games were not all played by one member (a per-batch draw would be)
    members = {
        int(np.random.default_rng(agent_seeds(3, d, r, 4)[(entry + r) % 4]).random() >= 0.5)
        for d in range(2)
        for r in range(4)
        for entry in (0, 2)
    }
    assert members == {0, 1}


def _manifest(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return f"population:{path}"


def _members(*members: dict[str, Any]) -> dict[str, Any]:
    return {"format": POPULATION_FORMAT, "members": list(members)}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"format": "hoity-population/9", "members": [{"spec": "random", "weight": 1}]}, "format"),
        ({"members": [{"spec": "random", "weight": 1}]}, "format"),
        (_members(), "members"),
        ({"format": POPULATION_FORMAT}, "members"),
        ("{not json", "is not JSON"),
        (_members({"spec": "random", "weight": 0}), "members[0].weight"),
        (_members({"spec": "random", "weight": 1}, {"spec": "thief", "weight": -0.5}), "members[1].weight"),
        (_members({"spec": "random", "weight": "1"}), "members[0].weight"),
        (_members({"spec": "grandmaster", "weight": 1}), "members[0].spec"),
        (_members({"spec": "population:other.json", "weight": 1}), "members[0].spec"),
        (_members({"spec": "random"}), "members[0].weight"),
        (_members({"spec": "random", "weight": 1, "colour": "red"}), "members[0]"),
        (_members({"spec": "ppo:missing.zip", "weight": 1}), "members[0].spec"),
    ],
)
def test_a_bad_manifest_is_one_config_error_naming_the_field(tmp_path: Path, data: Any, field: str) -> None:
    spec = _manifest(tmp_path, data)
    with pytest.raises(ConfigError, match=r"population .*bad\.json") as info:
        make(spec)
    assert field in str(info.value)


def test_missing_manifest_and_bad_writes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"population .*none\.json: not found"):
        make(f"population:{tmp_path / 'none.json'}")
    with pytest.raises(ConfigError, match="names no manifest"):
        make("population:")
    with pytest.raises(ConfigError, match=r"members\[0\]\.spec .*population"):
        write_population(tmp_path / "p.json", [Member("population:x.json", 1.0)])
    with pytest.raises(ConfigError, match="non-empty"):
        write_population(tmp_path / "p.json", [])
    assert not (tmp_path / "p.json").exists()


def test_the_written_manifest_reads_back(tmp_path: Path) -> None:
    path = write_population(tmp_path / "p.json", GREEDY)
    data = json.loads(path.read_text())
    assert data == {
        "format": POPULATION_FORMAT,
        "members": [
            {"spec": "champion-greedy", "weight": 1.0, "origin": "shipped"},
            {"spec": "reference-greedy", "weight": 1.0, "origin": "shipped"},
        ],
    }
    agent = _make(f"population:{path}")
    assert agent.members == tuple(GREEDY) and agent.weights.tolist() == [0.5, 0.5]


def test_a_population_is_an_opponent_of_the_fast_learner_and_a_member_of_another_folder(
    tmp_path: Path,
) -> None:
    pytest.importorskip("torch")
    from hoity_env.learning import Learner, LearnerSettings

    spec = _population(tmp_path, [Member("random", 1.0), Member("expert", 1.0)])
    learner = Learner(
        LearnerSettings(
            num_games=8, rollout_steps=64, minibatch_size=256, total_steps=512, opponents=((spec, 1.0),)
        )
    )
    learner.learn()
    assert learner.steps >= 512
    (population,) = learner.seating.actors
    assert isinstance(population, PopulationAgent)
    opponent_rows = np.flatnonzero(learner.seating.assignment.reshape(-1) >= 0)
    assert set(population.members_of(opponent_rows).tolist()) == {0, 1}

    # a saved policy as a member, its path relative to the manifest's folder
    (tmp_path / "league" / "members").mkdir(parents=True)
    learner.save_policy(tmp_path / "league" / "members" / "main.zip")
    league = _population(
        tmp_path / "league", [Member("ppo-sample:members/main.zip", 0.5, "main agent"), Member("random", 0.5)]
    )
    result = evaluate([league, "random", "random", "random"], games=8, seed=0, progress=False)
    assert result.games == 8 and result.agent_stats[0].agent == league


def test_a_population_plays_in_the_batched_vs_bots_env(tmp_path: Path) -> None:
    from hoity_env.wrappers.batched_vs_bots import BatchedVsBots

    spec = _population(tmp_path, [Member("random", 1.0), Member("thief", 1.0)])
    env = BatchedVsBots(num_envs=4, opponents=spec, learner_seat=0)
    _, masks, _ = env.reset(seed=0)
    for _ in range(20):
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        _, masks, *_ = env.step(actions)
    drawn = set()
    for seat, agent in enumerate(env.agents, start=1):  # seat s of game g is labelled g * 4 + s
        assert isinstance(agent, PopulationAgent)
        drawn |= set(agent.members_of(np.arange(4) * 4 + seat).tolist())
    assert drawn == {0, 1}


def test_hoity_serve_seats_a_population(tmp_path: Path) -> None:
    from hoity_env.serve import ServeSettings
    from tests.serve_client import ok, request, serving

    spec = _population(tmp_path, [Member("random", 1.0), Member("detective", 1.0)])
    with serving(ServeSettings(agents=(spec,), replays=tmp_path / "replays")) as server:
        body = {"players": 2, "rules": "standard", "seat": 0, "opponents": [spec], "seed": 2}
        status, view = request(server, "POST", "/api/games", body)
        assert status == 201, view
        assert view["agents"] == ["human", spec]
        while not view["done"]:
            action = {"action": view["choices"][0]["action"]}
            view = ok(server, "POST", f"/api/games/{view['id']}/action", action)
        assert view["replay"].endswith(".jsonl")


MEASURED = ROOT / "docs/reference/population/population.json"
"""The manifest the ladder measured (docs/league.md); ``RETIRED_MIX`` is its numpy twin."""
RETIRED_MIX = ROOT / "docs/reference/retired/champion-mix-standard-4-v1.json"
"""``champion-mix`` at 4 standard players until a league population replaced it (issue 45)."""
EXPORTS = {
    "../champion/final_model.zip": "npz:champion-v1.npz",
    "../champion-v3/final_model.zip": "npz:champion-v3.npz",
}
"""Each measured checkpoint → its numpy export beside the retired manifest (registry.json recorded
the same pairs while they shipped)."""


def _named_spec(spec: str) -> str:
    """A member spec of the measured manifest as the retired twin names it."""
    return EXPORTS.get(spec.removeprefix("ppo-sample:"), spec)


def test_the_retired_mix_is_the_measured_population_of_numpy_members(tmp_path: Path) -> None:
    """The numpy twin has the members and weights the ladder measured; champion-mix is no member."""
    assert NAMED_POPULATIONS == ("champion-mix",) and "champion-mix" in SPEC_FORMS
    twin = read_population(RETIRED_MIX)
    measured = read_population(MEASURED)
    assert [(m.spec, m.weight) for m in twin] == [(_named_spec(m.spec), m.weight) for m in measured]
    with pytest.raises(ConfigError, match="unknown named population"):
        named_population("champion-max")
    with pytest.raises(ConfigError, match="cannot contain a population"):
        write_population(tmp_path / "population.json", [Member("champion-mix", 1.0)])
    assert not (tmp_path / "population.json").exists()


def test_the_retired_mix_plays_as_the_measured_manifest_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seed, same games: the numpy twin plays the measured manifest's games (its members make
    their checkpoints' choices, tests/agents/test_named_agents.py).  The measured manifest names
    ``../champion-v3``, outside its folder: it plays only when that is allowed."""
    with pytest.raises(ConfigError, match="outside the manifest's folder"):
        make(f"population:{MEASURED}")
    monkeypatch.setenv(PATHS_VARIABLE, "any")
    agent = _make(f"population:{RETIRED_MIX}", seed=1)
    assert len(agent.agents) == 3
    table = ["random"] * 3
    twin = evaluate([f"population:{RETIRED_MIX}", *table], games=8, seed=5)
    direct = evaluate([f"population:{MEASURED}", *table], games=8, seed=5)
    assert [r.ranks for r in twin.records] == [r.ranks for r in direct.records]


# ------------------------------------------------------------ issue 37 item 13: hostile manifests
def test_huge_weights_are_normalised_without_overflow(tmp_path: Path) -> None:
    """``1e308, 1e308`` sum to inf: dividing by the sum gave every member probability 0, and the
    last member played every game.  Scaled by the largest first, each plays half."""
    spec = _population(tmp_path, [Member("random", 1e308), Member("thief", 1e308)])
    agent = _make(spec, seed=0)
    assert agent.weights.tolist() == [0.5, 0.5]
    agent.start_games(np.arange(1000))
    counts = np.bincount(agent.members_of(np.arange(1000)), minlength=2)
    assert 400 < counts[0] < 600 and counts.sum() == 1000
    tiny = _population(tmp_path, [Member("random", 1e308), Member("thief", 5e-324)], "tiny.json")
    with pytest.raises(ConfigError, match="never be drawn"):
        make(tiny)


def test_a_deeply_nested_manifest_is_one_config_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"format": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ConfigError, match="nested too deeply"):
        make(f"population:{path}")


def _saved_policy(path: Path) -> Path:
    """A tiny fast-learner policy saved at ``path`` (a real ``ppo:`` checkpoint)."""
    pytest.importorskip("torch")
    from hoity_env.learning import Learner, LearnerSettings

    learner = Learner(LearnerSettings(num_games=2, rollout_steps=4, minibatch_size=8, total_steps=8))
    path.parent.mkdir(parents=True, exist_ok=True)
    return learner.save_policy(path)


@pytest.mark.parametrize("where", ["../outside.zip", "{absolute}", "link/policy.zip"])
def test_members_outside_the_manifests_folder_are_refused_unless_allowed(
    tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A manifest names checkpoints, which are pickles: a path out of its folder is refused
    before anything is loaded, unless the user allows it (the variable, or ``any_paths``)."""
    outside = _saved_policy(tmp_path / "outside.zip")
    folder = tmp_path / "league"
    folder.mkdir()
    (folder / "link").symlink_to(tmp_path)  # inside by name, outside once followed
    (tmp_path / "policy.zip").symlink_to(outside)
    path = where.replace("{absolute}", str(outside))
    spec = _population(folder, [Member(f"ppo-sample:{path}", 1.0), Member("random", 1.0)])
    refused = rf"members\[0\]\.spec .*outside the manifest's folder.*{PATHS_VARIABLE}=any"
    with pytest.raises(ConfigError, match=refused):
        make(spec, num_players=4)
    monkeypatch.setenv(PATHS_VARIABLE, "any")
    assert len(_make(spec, num_players=4).agents) == 2
    monkeypatch.setenv(PATHS_VARIABLE, "inside")
    with pytest.raises(ConfigError, match="outside the manifest's folder"):
        make(spec, num_players=4)
    manifest = Path(spec.split(":", 1)[1])
    assert len(member_specs(manifest, read_population(manifest), any_paths=True)) == 2
    monkeypatch.setenv(PATHS_VARIABLE, "yes")
    with pytest.raises(ConfigError, match=f"{PATHS_VARIABLE} must be 'inside'"):
        make(spec, num_players=4)


def test_members_inside_the_folder_still_load(tmp_path: Path) -> None:
    _saved_policy(tmp_path / "members" / "a.zip")
    spec = _population(tmp_path, [Member("ppo-sample:members/../members/a.zip", 1.0), Member("random", 1.0)])
    assert len(_make(spec, num_players=4).agents) == 2
