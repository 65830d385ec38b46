"""The harness's batched path (docs/design.md §5): identical deals, identical records for
deterministic agents, the same play in distribution for agents that draw random numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation import evaluate
from hoity_env.evaluation.batched_match import game_seed_of
from hoity_env.evaluation.harness import play_tables
from hoity_env.evaluation.match import deal_seed

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny MaskablePPO model for two players (deterministic when played as ``ppo:``)."""
    from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

    env = HoityVsBotsSB3VecEnv(num_envs=2, num_players=2, opponents="random")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [8]}, seed=0
    )
    model.learn(total_timesteps=64)
    path = tmp_path_factory.mktemp("ckpt") / "tiny.zip"
    model.save(str(path))
    return path


def test_deterministic_agents_give_identical_records_on_both_engines(checkpoint: Path) -> None:
    table = [f"ppo:{checkpoint}"] * 2
    kw = {"num_players": 2, "deals": 3, "seed": 4, "progress": False}
    (one,) = play_tables([table], engine="one-game", **kw)  # type: ignore[arg-type]
    (batched,) = play_tables([table], engine="batched", **kw)  # type: ignore[arg-type]
    assert len(one) == 6
    assert [r.to_dict() for r in one] == [r.to_dict() for r in batched]


def test_scripted_agents_play_the_same_game_in_distribution() -> None:
    agents = ["expert", "collector", "thief", "random"]
    one = evaluate(agents, games=240, seed=3, engine="one-game", progress=False)
    batched = evaluate(agents, games=2000, seed=3, engine="batched", progress=False)
    for a, b in zip(one.agent_stats, batched.agent_stats, strict=True):
        assert a.agent == b.agent
        # Fixed seeds make this deterministic; the intervals of 240 and 2,000 games overlap
        # when the batched path plays the same game.
        assert a.ci_low <= b.ci_high and b.ci_low <= a.ci_high, (a, b)
    assert abs(one.agent_stats[1].mean_rank - batched.agent_stats[1].mean_rank) < 0.25


def test_batched_records_keep_deals_rotations_and_seeds() -> None:
    (records,) = play_tables(
        [["random", "thief"]], num_players=2, deals=5, seed=9, engine="batched", progress=False
    )
    assert [(r.deal, r.rotation) for r in records] == [(d, r) for d in range(5) for r in range(2)]
    assert all(r.env_seed == deal_seed(9, r.deal) for r in records)
    for r in records:
        assert r.agents == (("random", "thief") if r.rotation == 0 else ("thief", "random"))
        assert (not r.truncated) == bool(r.winners)
    assert game_seed_of(deal_seed(9, 0)) != game_seed_of(deal_seed(9, 1))


def test_batched_results_do_not_depend_on_workers() -> None:
    kw = {"num_players": 2, "deals": 30, "seed": 1, "progress": False, "engine": "batched"}
    (one,) = play_tables([["random", "collector"]], workers=1, **kw)  # type: ignore[arg-type]
    (two,) = play_tables([["random", "collector"]], workers=2, **kw)  # type: ignore[arg-type]
    assert [r.to_dict() for r in one] == [r.to_dict() for r in two]


def test_auto_engine_is_batched_when_every_agent_decides_in_batches() -> None:
    kw = {"num_players": 3, "deals": 4, "seed": 2, "progress": False}
    (auto,) = play_tables([["expert", "random", "thief"]], engine="auto", **kw)  # type: ignore[arg-type]
    (batched,) = play_tables([["expert", "random", "thief"]], engine="batched", **kw)  # type: ignore[arg-type]
    assert [r.to_dict() for r in auto] == [r.to_dict() for r in batched]


def test_unknown_engine_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="engine"):
        evaluate(["random", "random"], games=2, engine="gpu", progress=False)
