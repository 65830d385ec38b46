"""The named agents (``champion``, ``reference``): shipped numpy weights that play like their checkpoints.

* the shipped ``.npz`` files equal a fresh export of the checkpoints in ``docs/reference/``
  (they cannot drift from the models the README measures);
* the numpy forward pass gives the torch policy's logits to 1e-5, and the same greedy and
  (same seed) sampled actions as ``ppo:`` / ``ppo-sample:`` on thousands of real observations;
* they play, and ``hoity-eval`` evaluates them, without importing torch;
* the ``.npz`` format: round trip, other activations, one clear error per malformed file.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import hoity_env
from hoity_env.agents import NAMED_AGENTS, SPEC_FORMS, NumpyPolicyAgent, PolicyAgent, make
from hoity_env.agents.policies.export import export_checkpoint, shipped_path
from hoity_env.agents.policies.mlp import FORMAT, load_policy, save_policy
from hoity_env.agents.policies.named import MODELS, named_policy
from hoity_env.agents.policies.population import NAMED_POPULATIONS, Member, write_population
from hoity_env.agents.policies.registry import RETIRED, registry
from hoity_env.cli.export import main as export_main
from hoity_env.engine.errors import ConfigError, FileFormatError
from tests.agents.test_batched_agents import collect_rows
from tests.docs.test_docs import _machine_paths
from tests.helpers import ROOT

ROWS = 3000


@functools.cache
def rows(rules: str) -> tuple[np.ndarray, np.ndarray]:
    """Real four-player (observation, mask) rows from seeded zoo games under ``rules``."""
    obs, masks = collect_rows(4, ROWS, seed=7, rules=rules)
    return obs, masks.astype(bool)


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def seat_of(model: str) -> tuple[str, str]:
    """A spec that plays the shipped file ``model`` at 4 players by sampling, and its rules: the
    registered name, else (a ``champion-mix`` member with no name of its own) ``npz:`` its file."""
    entry = next((e for e in registry().entries if e.stem == model and e.num_players == 4), None)
    if entry is not None:
        return entry.name, entry.rules
    return f"npz:{shipped_path(model)}", "original" if "original" in model else "standard"


def greedy_of(model: str, rules: str, num_actions: int | None = None) -> NumpyPolicyAgent:
    """The shipped file ``model`` played greedily at 4 players: ``NAME-greedy`` where it has a name."""
    name, _ = seat_of(model)
    if not name.startswith("npz:"):
        agent = make(f"{name}-greedy", num_players=4, rules=rules, num_actions=num_actions)
        assert isinstance(agent, NumpyPolicyAgent)
        return agent
    policy = named_policy(model)
    return NumpyPolicyAgent(
        policy, name=model, deterministic=True, rules=rules, num_players=4, num_actions=num_actions
    )


def test_named_agents_are_the_shipped_models() -> None:
    """The registry names only what a user picks (issue 46).  The lineage's names left it, but not
    its weights: ``champion-v1``/``-v3`` and champion v4's seed 1 are ``champion-mix`` members, so the
    models folder shrank by 583 bytes only (``du -sb hoity_env/agents/models``: 5,314,381 before,
    5,313,798 after; the bounds below were 3 MB and 8 MB)."""
    assert NAMED_AGENTS == (
        "champion",
        "champion-greedy",
        "reference",
        "reference-greedy",
    )
    assert all(name in SPEC_FORMS for name in NAMED_AGENTS)
    total = sum(shipped_path(m).stat().st_size for m in MODELS)
    assert total < 1_500_000, total  # 1,451,432
    folder = shipped_path(next(iter(MODELS))).parent  # populations' own members included
    # Every table's champion-mix is a population, the league ones stored as float16
    # (tests/agents/test_float16_populations.py); the lineage's files left for docs/reference/retired:
    # 11,506,694 bytes (standard/3 joined with a second league: 392 fewer), the wheel 11,972,884 bytes:
    # under the wheel's bound of 12 MB (benchmarks/wheel_size.py).
    assert sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) < 11_550_000


def test_shipped_weights_equal_a_fresh_export(
    model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the metadata names the checkpoint as the repository does
    shipped = named_policy(model)
    name = shipped.metadata["name"]  # the agent's name (a file may be named otherwise)
    fresh = load_policy(export_checkpoint(MODELS[model], tmp_path / "fresh.npz", name=name))
    assert dict(shipped.metadata) == dict(fresh.metadata)
    assert shipped.metadata["source"]["checkpoint"] == MODELS[model]
    recipe = (ROOT / MODELS[model]).with_name("args.json")  # a recipe's; else the fast learner's
    run = recipe if recipe.exists() else recipe.with_name("settings.json")
    assert shipped.metadata["training_args"] == json.loads(run.read_text(encoding="utf-8"))
    for a, b in zip(shipped.weights + shipped.biases, fresh.weights + fresh.biases, strict=True):
        np.testing.assert_array_equal(a, b)
    assert _machine_paths(model, shipped_path(model).read_bytes()) == []


def _torch_logits(agent: PolicyAgent, obs: np.ndarray, dtype: torch.dtype) -> np.ndarray:
    """The checkpoint's logits straight from SB3's modules (a float64 copy with ``torch.float64``)."""
    policy = agent.model.policy
    if dtype == torch.float64:
        policy = copy.deepcopy(policy).double()
    with torch.no_grad():
        x = torch.as_tensor(obs, dtype=dtype)
        if dtype == torch.float64:  # SB3's preprocessing casts to float32: flatten (all it does) directly
            features = policy.pi_features_extractor(x)
        else:
            features = policy.extract_features(x, policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
    out: np.ndarray = logits.numpy().astype(np.float64)
    return out


def test_numpy_forward_pass_is_the_torch_policy(model: str) -> None:
    _, rules = seat_of(model)
    obs, masks = rows(rules)
    greedy_torch = make(f"ppo:{ROOT / MODELS[model]}", num_players=4, rules=rules)
    assert isinstance(greedy_torch, PolicyAgent)
    greedy = greedy_of(model, rules, num_actions=masks.shape[1])
    x = greedy.policy_inputs(obs)  # padded rows for a padded policy (its own differential test)
    mine = named_policy(model).logits(x)
    # float32 against float64: 1e-5 absolute, and float32's rounding on the larger logits (|z| ~ 30)
    np.testing.assert_allclose(mine, _torch_logits(greedy_torch, x, torch.float32), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(mine, _torch_logits(greedy_torch, x, torch.float64), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(greedy.act_batch(obs, masks), greedy_torch.act_batch(obs, masks))
    np.testing.assert_allclose(
        greedy.action_probabilities(obs, masks), greedy_torch.action_probabilities(obs, masks), atol=1e-5
    )


def test_sampling_named_agent_matches_ppo_sample(model: str) -> None:
    name, rules = seat_of(model)
    obs, masks = rows(rules)
    sampled = make(name, seed=11, num_players=4, rules=rules)
    torch_sampled = make(f"ppo-sample:{ROOT / MODELS[model]}", seed=11, num_players=4, rules=rules)
    actions = sampled.act_batch(obs, masks)
    np.testing.assert_array_equal(actions, torch_sampled.act_batch(obs, masks))
    assert masks[np.arange(len(actions)), actions].all()
    assert (actions != greedy_of(model, rules).act_batch(obs, masks)).any()
    sampled.reset(11)  # one uniform per row: row by row gives the batch's actions
    np.testing.assert_array_equal(
        [sampled.act(o, m) for o, m in zip(obs[:200], masks[:200], strict=True)], actions[:200]
    )


def test_named_agents_refuse_another_table() -> None:  # more in test_agent_tables.py
    with pytest.raises(ConfigError, match="reference has no agent for 3 players, standard rules"):
        make("reference", num_players=3)
    with pytest.raises(ConfigError, match="this game has 40 actions, not the 56"):
        make("reference-greedy", num_players=4, num_actions=40)
    with pytest.raises(ConfigError, match=r"unknown agent 'champ'.*champion-greedy"):
        make("champ")


def test_retired_names_say_so_and_name_the_file_that_plays_them(tmp_path: Path) -> None:
    """Issue 46: the lineage left the registry; each retired name (and its ``-greedy`` form) is one
    clear error naming the shipped file that plays its weights, and that spec plays."""
    assert not set(RETIRED) & set(NAMED_AGENTS + NAMED_POPULATIONS)
    for name, (file, _) in RETIRED.items():
        for spec in (name, f"{name}-greedy"):
            with pytest.raises(ConfigError, match=f"named agent '{spec}' was retired") as info:
                make(spec, num_players=4)
            (instead,) = re.findall(r"play as (\S+)", str(info.value))
            assert instead.endswith(file) and Path(instead.split(":", 1)[1]).is_file()
            assert make(instead, seed=0, num_players=4).name.endswith(file)  # it plays
        with pytest.raises(ConfigError, match=f"named agent '{name}' was retired"):
            write_population(tmp_path / "population.json", [Member(name, 1.0)])
        manifest = tmp_path / "population.json"  # as a member of a manifest written by hand
        manifest.write_text(
            json.dumps({"format": "hoity-population/1", "members": [{"spec": name, "weight": 1}]})
        )
        with pytest.raises(FileFormatError, match=f"named agent '{name}' was retired"):
            make(f"population:{manifest}")


_NO_TORCH = """
import sys
import hoity_env
from hoity_env.agents import make
from hoity_env.cli.eval import main
env = hoity_env.parallel_env(num_players=4, illegal_action="raise")
agents = [make(s, seed=i, num_players=4) for i, s in enumerate(
    ["champion", "reference", "champion-greedy", "reference-greedy"])]
obs, _ = env.reset(seed=3)
while env.agents:
    obs = env.step({a: ag.act(obs[a]["observation"], obs[a]["action_mask"])
                    for a, ag in zip(env.possible_agents, agents)})[0]
assert main(["--agents", "champion,random,random,random", "--games", "8"]) == 0
heavy = sorted(m for m in ("torch", "stable_baselines3", "sb3_contrib") if m in sys.modules)
assert not heavy, heavy
"""


def test_named_agents_play_and_evaluate_without_torch() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _NO_TORCH], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert "champion" in out.stdout


def test_named_agent_in_a_batched_evaluation() -> None:
    from hoity_env.evaluation import evaluate

    result = evaluate(["champion", "expert", "random", "random"], games=8, seed=0, progress=False)
    assert result.games >= 8 and not result.truncated
    assert {s.agent for s in result.agent_stats} == {"champion", "expert", "random"}


def test_format_round_trip_with_relu(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    obs_dim = hoity_env.parallel_env(num_players=3).observation_space("player_0")["observation"].shape[0]
    weights = [rng.normal(size=(16, obs_dim)), rng.normal(size=(56, 16))]
    biases = [rng.normal(size=16), rng.normal(size=56)]
    meta = {"format": FORMAT, "obs_dim": obs_dim, "num_actions": 56, "num_players": 3, "rules": "standard"}
    path = save_policy(tmp_path / "p.npz", weights, biases, {**meta, "activation": "relu", "note": [1]})
    policy = load_policy(path)
    assert policy.metadata["note"] == [1] and policy.num_players == 3
    x = rng.random((5, obs_dim)).astype(np.float32)
    w32 = [w.astype(np.float32).astype(np.float64) for w in weights]
    b32 = [b.astype(np.float32).astype(np.float64) for b in biases]
    expected = np.maximum(x @ w32[0].T + b32[0], 0) @ w32[1].T + b32[1]
    np.testing.assert_allclose(policy.logits(x), expected, rtol=1e-12)
    agent = NumpyPolicyAgent(policy, name="mine", deterministic=True, num_players=3)
    masks = np.ones((5, 56), dtype=bool)
    np.testing.assert_array_equal(agent.act_batch(x, masks), expected.argmax(axis=1))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/9"}, "format 'other/9'"),
        ({"activation": "gelu"}, "activation 'gelu'"),
        ({"num_actions": 57}, "action head has 56 outputs"),
        ({"num_players": 5}, "not a 5-player observation"),
        ({"obs_dim": 116}, "layer 0 has shapes"),
    ],
)
def test_malformed_policies_are_refused(tmp_path: Path, change: dict[str, object], message: str) -> None:
    good = named_policy("reference")
    meta = {**good.metadata, **change}
    with pytest.raises(ConfigError, match=message):
        save_policy(tmp_path / "bad.npz", good.weights, good.biases, meta)
    assert not (tmp_path / "bad.npz").exists()


def test_unreadable_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ConfigError, match=r"junk\.npz: is not an \.npz file"):
        load_policy(tmp_path / "junk.npz")
    np.savez(tmp_path / "nometa.npz", w0=np.zeros((2, 2)))
    with pytest.raises(ConfigError, match="no readable metadata"):
        load_policy(tmp_path / "nometa.npz")


def test_export_cli_writes_a_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.agents.test_policy_agent import save_tiny_model

    ckpt = save_tiny_model(tmp_path / "tiny.zip")
    assert export_main([str(ckpt), str(tmp_path / "tiny.npz"), "--name", "tiny"]) == 0
    exported = load_policy(tmp_path / "tiny.npz")
    assert exported.metadata["name"] == "tiny" and exported.metadata["hidden"] == [8]
    assert exported.metadata["source"]["checkpoint"] == "tiny.zip"  # never the machine's absolute path
    obs, _ = collect_rows(4, 300, seed=1)
    torch_agent = PolicyAgent(ckpt)
    np.testing.assert_allclose(
        exported.logits(obs), _torch_logits(torch_agent, obs, torch.float32), atol=1e-5
    )
    assert export_main(["--shipped", str(ckpt)]) == 2


def test_named_agents_in_a_training_pool() -> None:
    # The recipes' --opponents / --zoo pools reach make() through the vec envs' opponent_pool.
    from hoity_env.wrappers.sb3_vec_env import HoityVsBotsSB3VecEnv

    vec = HoityVsBotsSB3VecEnv(num_envs=4, opponent_pool=["champion", "reference-greedy", "expert"])
    vec.seed(0)
    obs = vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = vec.action_masks()
        vec.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, *_ = vec.step_wait()
    assert obs.shape == (4, 117) and np.isfinite(rewards).all()
