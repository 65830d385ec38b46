"""The fast learner end to end: run folders, resume, signals, checkpoints as agents, learning, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from hoity_env.agents import PolicyAgent, make
from hoity_env.cli.learn import build_parser, main
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation import evaluate
from hoity_env.learning import Learner, LearnerSettings, best_response, load_policy, resume, train
from hoity_env.learning.runs.state import load_learner, state_bytes
from tests.learning.stops import train_stopped

TINY = LearnerSettings(
    num_games=4,
    rollout_steps=16,
    minibatch_size=64,
    hidden=(16, 16),
    opponents=(("self", 1.0), ("random", 1.0), ("snapshot", 1.0)),
    snapshot_every=1,
    magnet="ema",
    magnet_coef=0.1,
    lr_schedule="linear",  # a resumed run keeps its schedule: the weights below would differ
)
ITERATION = 4 * 4 * 16  # at most this many learner steps per iteration


def _same_weights(a: Learner, b: Learner) -> bool:
    pairs = zip(a.policy.state_dict().values(), b.policy.state_dict().values(), strict=True)
    return all(torch.equal(x, y) for x, y in pairs)


def test_stopped_and_resumed_run_equals_the_uninterrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = TINY.replace(total_steps=4 * ITERATION)
    straight = train(settings)

    # Interrupt the second run with SIGINT after its second update, as Ctrl-C would.
    stopped = train_stopped(settings, tmp_path / "run", monkeypatch)
    assert stopped.updates == 2 and stopped.steps < settings.total_steps
    assert len(list((tmp_path / "run" / "checkpoints").glob("state_*.pt"))) == 1

    resumed = resume(tmp_path / "run")
    assert resumed.steps == straight.steps and resumed.updates == straight.updates
    assert _same_weights(resumed, straight)
    lines = (tmp_path / "run" / "progress.jsonl").read_text().splitlines()
    assert len(lines) == straight.updates and json.loads(lines[-1])["steps"] == straight.steps
    saved = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert LearnerSettings.from_dict(saved) == settings


def test_every_kind_of_seat_resumes_to_the_uninterrupted_run(tmp_path: Path) -> None:
    """The resume state is plain data: each seat's agent is built again from its spec and given back
    what it carried (its generators, a population's member in each game, a memory policy's
    histories of the games in progress), the snapshots their weights; resumed through a file read
    with ``weights_only=True``, the run ends weight for weight as the uninterrupted one."""
    memory = Learner(TINY.replace(memory=2, opponents=(("random", 1.0),)))
    memory.save_policy(tmp_path / "memory.zip")  # a ppo-sample: agent that tracks every game's history
    pool = (("expert", 1.0), ("champion-mix", 1.0), (f"ppo-sample:{tmp_path / 'memory.zip'}", 1.0))
    settings = TINY.replace(opponents=(*pool, ("snapshot", 1.0)), total_steps=12 * 64)
    straight = train(settings)
    half = Learner(settings)
    half.learn(6 * 64)
    (tmp_path / "state.pt").write_bytes(state_bytes(half))
    resumed = load_learner(tmp_path / "state.pt")
    assert resumed.steps == half.steps and (resumed.obs == half.obs).all()
    resumed.learn()
    assert resumed.steps == straight.steps and _same_weights(resumed, straight)


def test_a_new_run_never_writes_into_an_old_run_folder(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not empty"):
        train(TINY.replace(total_steps=1), run_dir=tmp_path / "old")
    with pytest.raises(ConfigError, match="not a run folder"):
        resume(tmp_path / "old")
    assert sorted(p.name for p in (tmp_path / "old").iterdir()) == ["notes.txt"]


def test_saved_policy_is_a_ppo_agent_that_plays_in_evaluate(tmp_path: Path) -> None:
    learner = Learner(TINY.replace(total_steps=ITERATION))
    learner.learn()
    path = learner.save_policy(tmp_path / "fast.zip")
    agent = PolicyAgent(path, num_players=4, num_actions=learner.env.num_actions)  # what ppo:PATH makes
    assert isinstance(make(f"ppo:{path}"), PolicyAgent)
    obs = learner.obs.reshape(-1, learner.env.obs_dim)
    masks = learner.masks.reshape(-1, learner.env.num_actions).astype(bool)
    with torch.no_grad():
        ours = learner.policy(torch.from_numpy(obs.copy()), torch.from_numpy(masks))[0].exp().numpy()
    assert abs(agent.action_probabilities(obs, masks) - ours).max() < 1e-5  # the same policy
    back = load_policy(path)
    assert all(torch.equal(x, y) for x, y in zip(back.parameters(), learner.policy.parameters(), strict=True))
    result = evaluate([f"ppo:{path}", f"ppo-sample:{path}", "random", "random"], games=8, progress=False)
    assert result.games == 8 and sum(s.games for s in result.agent_stats) == 32


def test_a_short_best_response_to_random_beats_the_untrained_policy(tmp_path: Path) -> None:
    settings = LearnerSettings(
        num_games=64, rollout_steps=32, minibatch_size=2048, hidden=(64, 64), learning_rate=1e-3
    )
    Learner(settings).save_policy(tmp_path / "untrained.zip")
    trained = best_response("random", steps=60_000, settings=settings)
    trained.save_policy(tmp_path / "trained.zip")
    rates = {}
    for name in ("untrained", "trained"):
        table = [f"ppo-sample:{tmp_path / name}.zip", "random", "random", "random"]
        rates[name] = evaluate(table, games=200, seed=3, progress=False).agent_stats[0]
    # Seen: untrained 0.29 [0.23, 0.35], trained 0.49 [0.42, 0.56] (seed 0, 3 CPU-s of training).
    assert rates["trained"].ci_low > rates["untrained"].win_rate
    assert rates["trained"].ci_low > 0.25


def test_cli_trains_a_best_response_into_a_fresh_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "br"
    args = [
        "--against",
        "random",
        "--steps",
        "128",
        "--games",
        "4",
        "--rollout-steps",
        "8",
        "--hidden",
        "8x8",
    ]
    assert main([*args, "--out", str(out), "--eval-games", "4"]) == 0
    assert main([*args, "--out", str(out)]) == 0  # a taken name: the second run goes to br_2
    text = capsys.readouterr().out
    assert "fast learner: 128 learner steps" in text
    # --eval-games scores the policy as it is played, by sampling, and recommends that spec (issue 37)
    assert f"| `ppo-sample:{out / 'policy.zip'}` | 1 |" in text and f"`ppo:{out}" not in text
    assert f"play it by sampling: ppo-sample:{out / 'policy.zip'}" in text
    assert (out / "policy.zip").is_file() and (tmp_path / "br_2" / "policy.zip").is_file()
    assert main(["--resume", str(out)]) == 0  # already at its total: nothing more, still a clean exit
    assert main(["--pool", "self@0", "--out", str(tmp_path / "bad")]) == 2
    assert "weight" in capsys.readouterr().err


def test_every_cli_flag_has_a_help_text() -> None:
    bare = [a.option_strings for a in build_parser()._actions if a.help is None or len(a.help.split()) < 2]
    assert bare == []
