"""The fast learner on several player counts at once: one padded policy, one env and seating per count.

* settings: a tuple of counts (sorted, padded implied) survives JSON; bad counts are refused;
* each table's rows in the rollout buffer are the one-game env's observations of its game slot,
  padded (so the env loop of every count is the readable path's);
* a multi-count run is deterministic, resumes to the same weights, reports per-count episodes;
* its saved policy plays every count it was trained on through ``ppo:`` / ``ppo-sample:``,
  refuses another, and exports to numpy weights with the same logits (1e-5).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from hoity_env.agents import AgentInputError, PolicyAgent, make
from hoity_env.agents.policies.export import export_checkpoint
from hoity_env.agents.policies.mlp import PADDED_FORMAT, load_policy
from hoity_env.cli.learn import main
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.padding import padder
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.evaluation import evaluate
from hoity_env.learning import Learner, LearnerSettings, resume, train
from hoity_env.learning.settings import parse_counts
from tests.helpers import ROOT
from tests.learning.stops import train_stopped

TINY = LearnerSettings(
    num_games=3,
    num_players=(3, 2),
    rollout_steps=16,
    minibatch_size=64,
    hidden=(16, 16),
    opponents=(("self", 1.0), ("random", 1.0), ("snapshot", 1.0)),
    snapshot_every=1,
)
ROWS = 3 * (2 + 3)


def _weights(learner: Learner) -> list[torch.Tensor]:
    return [p.detach().clone() for p in learner.policy.parameters()]


def test_settings_take_counts_sorted_padded_and_survive_json() -> None:
    assert TINY.num_players == (2, 3) and TINY.padded and TINY.player_counts == (2, 3)
    assert LearnerSettings.from_dict(json.loads(json.dumps(TINY.to_dict()))) == TINY
    assert LearnerSettings().player_counts == (4,) and not LearnerSettings().padded
    single = LearnerSettings(padded=True)
    assert single.num_players == 4 and LearnerSettings.from_dict(single.to_dict()) == single
    for bad, message in (((), "non-empty"), ((2, 7), "2..6"), ((3, 3), "twice"), ((2.0,), "counts")):
        with pytest.raises(ConfigError, match=message):
            LearnerSettings(num_players=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="padded must be a bool"):
        LearnerSettings(padded=1)  # type: ignore[arg-type]
    assert parse_counts("4") == 4 and parse_counts("2,3,6") == (2, 3, 6)
    with pytest.raises(ConfigError, match="counts like 2,3,4"):
        parse_counts("2,x")


def test_each_tables_rows_are_the_one_game_env_padded() -> None:
    settings = TINY.replace(rollout_steps=100, seed=4, opponents=(("self", 1.0),))
    learner = Learner(settings)
    learner.collect()
    buf = learner.buffer
    assert learner.rows == ROWS and buf.obs.shape[-1] == 176
    ends = 0
    for k, table in enumerate(learner.tables.tables):
        n, start = table.num_players, table.rows.start
        for game in range(settings.num_games):
            env = HoityParallelEnv(num_players=n, reward=settings.reward)
            obs, _ = env.reset(seed=settings.seed + k * settings.num_games + game)
            for t in range(settings.rollout_steps):
                rows = start + game * n + np.arange(n)
                mine = np.stack([obs[f"player_{i}"]["observation"] for i in range(n)])
                np.testing.assert_array_equal(buf.obs[t, rows].numpy(), padder("standard", n).pad(mine))
                masks = np.stack([obs[f"player_{i}"]["action_mask"] for i in range(n)]) == 1
                np.testing.assert_array_equal(buf.masks[t, rows].numpy(), masks)
                actions = {f"player_{i}": int(buf.actions[t, rows[i]]) for i in range(n)}
                obs, rewards, terms, truncs, _ = env.step(actions)
                assert buf.rewards[t, rows].numpy() == pytest.approx(
                    [rewards[a] for a in env.possible_agents]
                )
                if any(terms.values()) or any(truncs.values()):
                    ends += 1
                    assert bool(buf.dones[t, rows[0]])
                    obs, _ = env.reset()
    assert ends >= 2


def test_a_multi_count_run_is_deterministic_and_reports_each_count() -> None:
    runs, stats = [], []
    for _ in range(2):
        learner = Learner(TINY)
        stats = [learner.iterate() for _ in range(6)]
        runs.append(_weights(learner))
    assert all(torch.equal(a, b) for a, b in zip(*runs, strict=True))
    for n in (2, 3):
        assert sum(s[f"episodes_{n}p"] for s in stats) >= 1
    assert all(s["episodes"] == s["episodes_2p"] + s["episodes_3p"] for s in stats)
    assert all(v > 0 for v in learner.cpu.values()), learner.cpu  # every part of the split is counted
    seatings = learner.tables.seatings()
    assert [s.num_players for s in seatings] == [2, 3] and [s.snapshots for s in seatings] == [7, 7]
    with pytest.raises(ConfigError, match=r"plays \(2, 3\) players"):
        learner.seating  # noqa: B018  # one seating per count: not one
    other = Learner(TINY.replace(seed=1))
    other.learn(learner.steps)
    assert not all(torch.equal(a, b) for a, b in zip(runs[0], _weights(other), strict=True))


def test_a_multi_count_run_resumes_to_the_same_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = TINY.replace(total_steps=4 * 16 * ROWS)
    straight = train(settings)
    stopped = train_stopped(settings, tmp_path / "run", monkeypatch)  # Ctrl-C after the second update
    assert stopped.updates == 2 and stopped.steps < straight.steps
    resumed = resume(tmp_path / "run")
    assert (resumed.steps, resumed.updates) == (straight.steps, straight.updates)
    assert all(torch.equal(a, b) for a, b in zip(_weights(resumed), _weights(straight), strict=True))
    line = json.loads((tmp_path / "run" / "progress.jsonl").read_text().splitlines()[-1])
    assert {"episodes_2p", "episode_return_3p"} <= set(line)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Learner, Path]:
    """A short self-play run at 2 and 3 players, in a run folder: the learner and its ``policy.zip``."""
    run = tmp_path_factory.mktemp("padded") / "run"
    learner = train(TINY.replace(opponents=(("self", 1.0),), total_steps=3 * 16 * ROWS), run_dir=run)
    return learner, run / "policy.zip"


def test_a_saved_padded_policy_plays_each_of_its_counts_and_no_other(saved: tuple[Learner, Path]) -> None:
    learner, path = saved
    for n in (2, 3):
        agent = make(f"ppo:{path}", num_players=n, rules="standard", num_actions=56)
        table = learner.tables.tables[n - 2]
        obs = table.obs.reshape(-1, table.env.obs_dim)  # the env's own rows: the agent pads them
        masks = table.masks.reshape(-1, 56).astype(bool)
        with torch.no_grad():
            padded = torch.from_numpy(padder("standard", n).pad(obs))
            ours = learner.policy(padded, torch.from_numpy(masks))[0].exp().numpy()
        assert (
            isinstance(agent, PolicyAgent) and abs(agent.action_probabilities(obs, masks) - ours).max() < 1e-5
        )
        result = evaluate(
            [f"ppo-sample:{path}", *["random"] * (n - 1)], num_players=n, games=4, progress=False
        )
        assert result.games >= 4 and not result.truncated
    with pytest.raises(ConfigError, match=r"trained for 2 or 3 players of the standard rules, not 4 players"):
        make(f"ppo:{path}", num_players=4)
    with pytest.raises(ConfigError, match="not the original rules"):
        make(f"ppo:{path}", num_players=3, rules="original")
    four = HoityParallelEnv(num_players=4).reset(seed=0)[0]["player_0"]
    with pytest.raises(AgentInputError, match=r"plays 2 players .* got observations of length 117"):
        make(f"ppo:{path}", num_players=2).act(four["observation"], four["action_mask"])


def test_a_padded_policy_exports_to_numpy_with_the_same_logits(
    saved: tuple[Learner, Path], tmp_path: Path
) -> None:
    learner, path = saved
    exported = load_policy(export_checkpoint(path, tmp_path / "padded.npz", name="padded"))
    meta = exported.metadata
    assert meta["format"] == PADDED_FORMAT and meta["player_counts"] == [2, 3] and "num_players" not in meta
    assert meta["training_args"]["num_players"] == [2, 3]  # the run folder's settings.json
    rows = learner.obs.copy()
    with torch.no_grad():
        torch_logits = learner.policy.logits(torch.from_numpy(rows)).numpy()
    np.testing.assert_allclose(exported.logits(rows), torch_logits, atol=1e-5, rtol=0)
    from hoity_env.agents import NumpyPolicyAgent

    for n in (2, 3):
        table = learner.tables.tables[n - 2]
        obs, masks = table.obs.reshape(-1, table.env.obs_dim), table.masks.reshape(-1, 56).astype(bool)
        numpy_agent = NumpyPolicyAgent(exported, name="padded", deterministic=True, num_players=n)
        np.testing.assert_array_equal(
            numpy_agent.act_batch(obs, masks), make(f"ppo:{path}", num_players=n).act_batch(obs, masks)
        )
    with pytest.raises(ConfigError, match="not 5 players"):
        NumpyPolicyAgent(exported, name="padded", num_players=5)


def test_cli_trains_several_counts_and_refuses_bad_ones(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "hoity_env.cli.learn", "--players", "2,x", "--out", str(tmp_path / "bad")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 2 and "counts like 2,3,4" in out.stderr and not (tmp_path / "bad").exists()
    args = ["--players", "3,2", "--games", "2", "--steps", "40", "--rollout-steps", "4", "--hidden", "8"]
    assert main([*args, "--minibatch", "32", "--out", str(tmp_path / "run")]) == 0
    saved = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert saved["num_players"] == [2, 3] and saved["padded"] is True
    assert (
        main(["--padded", "--players", "3", *args[2:], "--minibatch", "32", "--out", str(tmp_path / "p")])
        == 0
    )
    assert make(f"ppo:{tmp_path / 'p' / 'policy.zip'}", num_players=3).padded is not None
