"""RLlib league mode: the gate and the mapping alone, bots as modules, and a 2-iteration league.

The run (``training/rllib_ppo.py --mode league``, tiny: 2 iterations of 200 env
steps, a gate after each with threshold 0 so both pass) checks that a snapshot is
frozen (its weights never change while ``main``'s do), that it plays, and that the
league's files are agent specs.  Run by ``training/rllib_check.sh``.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest
import ray
import torch
from ray.rllib.core.columns import Columns

from hoity_env import ConfigError
from hoity_env.agents import make
from hoity_env.integrations.rllib.env import MAIN, HoityRLlibEnv, RLlibAgent
from hoity_env.integrations.rllib.league import LeagueMapping, ScriptedBotModule, WinRateGate

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "training" / "rllib_ppo.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rllib_ppo_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the gate on its own -------------------------------------------------------------------------


def test_gate_is_due_every_k_iterations() -> None:
    gate = WinRateGate(every=3, threshold=0.5)
    assert [i for i in range(1, 10) if gate.due(i)] == [3, 6, 9]
    assert not gate.due(0)


def test_gate_passes_when_the_mean_win_rate_reaches_the_threshold() -> None:
    gate = WinRateGate(every=1, threshold=0.375)
    assert gate.passes(1, {"expert": 0.25, "random": 0.5})  # mean 0.375: reached
    assert not gate.passes(2, {"expert": 0.0, "random": 0.5, "thief": 0.5})  # mean 1/3
    assert gate.passes(3, {"random": 1.0})
    assert [(i, ok) for i, _, ok in gate.history] == [(1, True), (2, False), (3, True)]
    assert gate.history[1][1] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"every": 0, "threshold": 0.5}, "period must be an int >= 1"),
        ({"every": True, "threshold": 0.5}, "period must be an int >= 1"),
        ({"every": 1, "threshold": 1.5}, r"threshold is a win rate in \[0, 1\]"),
    ],
)
def test_bad_gates_raise(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        WinRateGate(**kwargs)


def test_gate_refuses_empty_or_impossible_scores() -> None:
    gate = WinRateGate(every=1, threshold=0.5)
    with pytest.raises(ConfigError, match="at least one league member"):
        gate.passes(1, {})
    with pytest.raises(ConfigError, match=r"win rates must lie in \[0, 1\]"):
        gate.passes(1, {"random": 1.2})
    assert gate.history == []


# --- the mapping function ------------------------------------------------------------------------


def test_mapping_puts_main_in_exactly_one_seat_and_draws_the_rest_from_the_league() -> None:
    opponents = ("bot_expert", "bot_random", "main_v1")
    mapping = LeagueMapping(4, opponents)
    seats, drawn = Counter(), Counter()
    for k in range(400):
        episode = SimpleNamespace(id_=f"{k:032x}")
        modules = [mapping(f"player_{s}", episode) for s in range(4)]
        assert modules == [mapping(f"player_{s}", episode) for s in range(4)]  # stable per episode
        assert modules.count(MAIN) == 1
        seats[modules.index(MAIN)] += 1
        drawn.update(m for m in modules if m != MAIN)
    assert set(drawn) == set(opponents) and set(seats) == {0, 1, 2, 3}
    assert min(seats.values()) > 60 and min(drawn.values()) > 300  # no seat or member starved


def test_bad_mappings_raise() -> None:
    with pytest.raises(ConfigError, match="at least one opponent"):
        LeagueMapping(4, ())
    with pytest.raises(ConfigError, match="cannot be its own opponent"):
        LeagueMapping(4, ("bot_random", MAIN))
    mapping = LeagueMapping(3, ("bot_random",))
    with pytest.raises(ConfigError, match="not a seat of a 3-player game"):
        mapping("player_3", SimpleNamespace(id_="x"))
    with pytest.raises(ConfigError, match="like 'player_0'"):
        mapping("agent-1", SimpleNamespace(id_="x"))


# --- scripted bots as modules ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["expert", "random", "thief"])
def test_bot_module_plays_exactly_as_the_bot(name: str) -> None:
    env = HoityRLlibEnv({"num_players": 4})
    module = ScriptedBotModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"agent": name, "seed": 7},
    )
    bot = make(name, seed=7)
    obs, _ = env.reset(seed=2)
    vectors = np.stack([o["observation"] for o in obs.values()])
    masks = np.stack([o["action_mask"] for o in obs.values()])
    batch = {Columns.OBS: {"observation": torch.as_tensor(vectors), "action_mask": torch.as_tensor(masks)}}
    for forward in (module.forward_inference, module.forward_exploration):
        actions = forward(batch)[Columns.ACTIONS]
        assert list(actions) == list(bot.act_batch(vectors, masks.astype(bool)))
        assert masks[np.arange(len(actions)), actions].all()
    with pytest.raises(NotImplementedError, match="frozen"):
        module.forward_train(batch)


def test_unknown_bot_module_is_a_config_error() -> None:
    env = HoityRLlibEnv({"num_players": 4})
    with pytest.raises(ConfigError, match="unknown scripted bot 'grandmaster'"):
        ScriptedBotModule(
            observation_space=env.observation_spaces["player_0"],
            action_space=env.action_spaces["player_0"],
            model_config={"agent": "grandmaster"},
        )


# --- a tiny league run ---------------------------------------------------------------------------


def _weights(state: dict[str, Any]) -> dict[str, np.ndarray]:
    return {k: np.array(v, copy=True) for k, v in state.items()}


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.fixture
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False)
    yield
    ray.shutdown()


def _runner_copies(algo: Any, module_id: str) -> list[dict[str, np.ndarray]]:
    """``module_id``'s weights in every env runner that samples (the remote ones, or the local one)."""
    remote = algo.env_runner_group.num_remote_env_runners() > 0
    states = algo.env_runner_group.foreach_env_runner(
        lambda runner: runner.module[module_id].get_state(), local_env_runner=not remote
    )
    return [_weights(s) for s in states]


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("runners", [0, 1])
def test_two_iteration_league_freezes_snapshots(tmp_path: Path, runners: int) -> None:
    script = _script()
    tiny = ["--batch", "200", "--env-runners", str(runners), "--bots", "random,expert"]
    args = script.parse_args(
        ["--mode", "league", *tiny, "--gate-every", "1", "--gate-threshold", "0", "--gate-games", "4"]
    )
    algo = script.build_config(args).build_algo()
    league = script.League(algo, args, tmp_path / "league")
    try:
        algo.train()
        league.after_iteration(1)
        assert league.opponents == ["bot_random", "bot_expert", "main_v1"]
        frozen = _weights(script.learner_state(algo, "main_v1"))
        main_then = _weights(script.learner_state(algo, MAIN))
        assert _same(frozen, main_then)  # the copy is main as it was scored
        (runner_copy,) = _runner_copies(algo, "main_v1")
        assert _same(runner_copy, frozen)  # the env runner plays the copy, not a fresh module
        result = algo.train()
        assert not _same(_weights(script.learner_state(algo, MAIN)), main_then)  # main learned
        assert _same(_weights(script.learner_state(algo, "main_v1")), frozen)  # the copy did not
        assert _same(_runner_copies(algo, "main_v1")[0], frozen)
        sampled = result["env_runners"]["num_module_steps_sampled"]
        assert sampled.get("main_v1", 0) > 0 and sampled[MAIN] > 0  # the snapshot played
        learned = {m for m, stats in result["learners"].items() if "policy_loss" in stats}
        assert learned == {MAIN}  # the only module with a loss: bots and snapshots are not trained
        league.after_iteration(2)
    finally:
        algo.stop()
    saved = json.loads((tmp_path / "league" / "league.json").read_text())
    assert saved["members"] == ["random", "expert", *(f"rllib:{tmp_path}/league/main_v{n}" for n in (1, 2))]
    assert [g["joined"] for g in saved["gates"]] == ["main_v1", "main_v2"]
    assert (
        set(saved["gates"][1]["win_rates"])
        == set(saved["gates"][1]["truncated"])
        == set(saved["members"][:3])
    )
    agent = make(saved["members"][2], num_players=4, num_actions=56)
    assert isinstance(agent, RLlibAgent)  # a snapshot on disk is an agent spec
    on_disk = agent.module.get_state()
    assert all(np.array_equal(np.asarray(on_disk[k]), frozen[k]) for k in frozen if k in on_disk)
    assert not (tmp_path / "league" / ".candidate").exists()


def test_league_script_runs_with_zero_env_runners_and_joins_an_address(tmp_path: Path) -> None:
    """``--mode league --env-runners 0`` as a user runs it, joining a running Ray instance."""
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False)
    try:
        args = ["--mode", "league", "--iterations", "2", "--batch", "200", "--env-runners", "0"]
        args += ["--gate-every", "2", "--gate-games", "4", "--bots", "random,collector"]
        args += ["--league-dir", str(tmp_path / "league"), "--save", str(tmp_path / "run")]
        args += ["--address", "auto"]  # finds the instance this test started
        out = subprocess.run(
            [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
        )
    finally:
        ray.shutdown()
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Connecting to existing Ray cluster" in out.stderr  # it joined, it did not start its own
    assert "rllib PPO (league): 400 env steps with 0 env runners" in out.stdout
    assert "gate after iteration 2: main's win rate" in out.stdout
    agent = make(f"rllib:{tmp_path / 'run'}", num_players=4, num_actions=56)  # the checkpoint's `main`
    assert isinstance(agent, RLlibAgent)


def test_league_script_rejects_bad_league_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    script = _script()
    for bad, message in (
        (["--bots", "grandmaster"], "unknown scripted bot 'grandmaster'"),
        (["--bots", ","], "at least one scripted bot"),
        (["--gate-every", "0"], "period must be an int >= 1"),
        (["--gate-threshold", "2"], "threshold is a win rate"),
        (["--gate-games", "0"], "--gate-games must be >= 1"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            script.parse_args(["--mode", "league", *bad])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
