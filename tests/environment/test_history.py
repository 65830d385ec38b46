"""Memory of the game (issue 36): the history tracker, the learner's inputs and the memory agent.

The tracker is checked against a plain reference (a list of each round's reveals) on real
games of both rulesets, for public information only (every other field of the observation,
the observer's own hand included, can change without changing it), and for its resets.
The learner and a saved memory policy then see the same features on the same games and
make the same decisions, and the agent's one-game and batched paths agree.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

import hoity_env
from hoity_env.agents import HistoryAgent, PolicyAgent, make
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.history import REVEALED, History, history_width, observation_layout
from hoity_env.evaluation import evaluate
from hoity_env.learning import Learner, LearnerSettings
from tests.helpers import RULESETS

MEMORY = 3


def _game(num_players: int, rules: str, seed: int) -> list[tuple[int, np.ndarray]]:
    """``(completed rounds, (n, D) observations)`` at every step of one seeded random game."""
    env = hoity_env.parallel_env(num_players=num_players, rules=rules)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    steps = []
    while env.agents:
        steps.append((env.game_state.round, np.stack([obs[a]["observation"] for a in env.possible_agents])))
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    return steps


def _revealed(layout: dict[str, slice], num_players: int) -> list[slice]:
    """Every seat's last-round field slices, seat by seat (the reference reads them one by one)."""
    names = [f for f in REVEALED if f"player0.{f}" in layout]
    return [layout[f"player{k}.{f}"] for k in range(num_players) for f in names]


@pytest.mark.parametrize("rules", RULESETS)
def test_features_are_every_seats_reveals_in_the_rounds_before_last(rules: str) -> None:
    n = 3
    layout = observation_layout(rules, n)
    assert layout == hoity_env.parallel_env(num_players=n, rules=rules).obs_layout()
    history = History(layout, MEMORY)
    fields = _revealed(layout, n)
    assert history.width == history_width(layout, MEMORY) == MEMORY * sum(s.stop - s.start for s in fields)
    shown: list[np.ndarray] = []  # the reference: per round, the last-round fields its observations show
    for round_now, obs in _game(n, rules, seed=4):
        block = np.stack([np.concatenate([row[s] for s in fields]) for row in obs])
        if round_now == len(shown):
            shown.append(block)
        assert round_now == len(shown) - 1  # one new round at a time, every seat alike
        np.testing.assert_array_equal(block, shown[-1])  # both steps of a round show the same
        expected = np.concatenate(
            [shown[round_now - k] if round_now >= k else np.zeros_like(block) for k in range(1, MEMORY + 1)],
            axis=1,
        )
        np.testing.assert_array_equal(history.observe(np.arange(n), obs), expected)
    assert len(shown) > MEMORY + 2 and np.abs(expected).sum() > 0  # a real game, old rounds held


@pytest.mark.parametrize("rules", RULESETS)
def test_features_hold_public_information_only(rules: str) -> None:
    """Only the round and the seats' last-round fields (public) are read: scrambling every other
    field, the observer's own hand among them, leaves the features as they were."""
    n = 4
    layout = observation_layout(rules, n)
    read = np.zeros(max(s.stop for s in layout.values()), dtype=bool)
    for s in [layout["round"], *_revealed(layout, n)]:
        read[s] = True
    assert read[layout["own.hand"]].sum() == 0
    plain, scrambled = History(layout, MEMORY), History(layout, MEMORY)
    rng = np.random.default_rng(0)
    steps = _game(n, rules, seed=1)
    for _, obs in steps:
        noisy = np.where(read, obs, rng.random(obs.shape, dtype=np.float32))
        np.testing.assert_array_equal(
            plain.observe(np.arange(n), obs), scrambled.observe(np.arange(n), noisy)
        )
    # the converse: a changed reveal does reach the features, once the next round begins
    rows, (_, obs), (_, later) = np.arange(n), steps[10], steps[12]
    marked = obs.copy()
    marked[:, layout["player1.last_role"]] = 1.0 - marked[:, layout["player1.last_role"]]
    first, second = History(layout, 1), History(layout, 1)
    first.observe(rows, obs)
    second.observe(rows, marked)
    assert not np.array_equal(first.observe(rows, later), second.observe(rows, later))


def test_rows_reset_alone_and_labels_grow() -> None:
    layout = observation_layout("standard", 2)
    steps = [obs for _, obs in _game(2, "standard", seed=2)]
    history = History(layout, 2)
    for obs in steps[:12]:  # rows 0-1: one game; rows 7-8 (labels never seen before): the same game
        history.observe(np.array([0, 1, 7, 8]), np.concatenate([obs, obs]))
    before = history.observe(np.array([0, 1, 7, 8]), np.concatenate([steps[11], steps[11]]))
    assert np.abs(before).sum() > 0 and np.array_equal(before[:2], before[2:])
    history.reset(np.array([7, 8]))
    after = history.observe(np.array([0, 1, 7, 8]), np.concatenate([steps[11], steps[11]]))
    np.testing.assert_array_equal(after[:2], before[:2])  # untouched rows keep their history
    assert not after[2:].any()  # a reset row starts empty
    history.reset()
    assert not history.observe(np.array([0, 1]), steps[11]).any()


@pytest.mark.parametrize(
    ("memory", "message"), [(0, "memory must be an int from 1"), (33, "from 1 to 32"), (True, "memory must")]
)
def test_a_bad_memory_is_refused(memory: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        History(observation_layout("standard", 4), memory)  # type: ignore[arg-type]


def test_learner_settings_check_the_memory() -> None:
    for bad in (-1, 33, True, 2.0):
        with pytest.raises(ConfigError, match=re.escape(f"memory must be an int in [0, 32], got {bad!r}")):
            LearnerSettings(memory=bad)
    with pytest.raises(ConfigError, match="snapshot opponents play the observation alone"):
        LearnerSettings(memory=2, opponents=(("self", 1.0), ("snapshot", 1.0)))
    for counts in ((2, 3), 4):  # a history's width depends on the player count
        with pytest.raises(ConfigError, match="one player count, unpadded"):
            LearnerSettings(memory=2, num_players=counts, padded=True)
    assert LearnerSettings.from_dict(LearnerSettings(memory=2).to_dict()).memory == 2


TINY = LearnerSettings(
    num_games=4,
    rollout_steps=96,
    minibatch_size=128,
    hidden=(16, 16),
    total_steps=384,
    opponents=(("random", 1.0),),
    memory=MEMORY,
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Learner, Path]:
    """A tiny memory learner after one rollout and update, and its policy saved (a ``ppo:`` agent)."""
    learner = Learner(TINY)
    learner.iterate()
    return learner, learner.save_policy(tmp_path_factory.mktemp("memory") / "policy.zip")


def test_the_saved_policy_sees_the_learners_features_and_its_probabilities(
    trained: tuple[Learner, Path],
) -> None:
    """Replay a learner's first rollout (games from their start, game ends included) to the saved
    policy played as an agent, one game at a time: the same features and probabilities at every step."""
    learner, path = trained
    agent = make(f"ppo:{path}", num_players=4)
    assert isinstance(agent, HistoryAgent) and agent.memory == MEMORY and agent.obs_dim == learner.env.obs_dim
    fresh = Learner(TINY)
    fresh.policy.load_state_dict(learner.policy.state_dict())
    fresh.collect()
    buf, d = fresh.buffer, fresh.env.obs_dim
    assert buf.dones[:-1].any()  # games end inside the rollout: the rows' histories restart
    for row in range(buf.rows):
        agent.reset()
        for t in range(buf.steps):
            if t and buf.dones[t - 1, row]:
                agent.reset()
            x, mask = buf.obs[t, row].numpy(), buf.masks[t, row].numpy()
            choice = agent.act(x[:d], mask)
            mine = agent.history.observe(np.array([0]), x[None, :d])  # the same round: no new entry
            np.testing.assert_array_equal(mine[0], x[d:])
            theirs = agent.policy.action_probabilities(
                np.concatenate([x[None, :d], mine], axis=1), mask[None]
            )
            with torch.no_grad():
                logp, _ = fresh.policy(buf.obs[t, row][None], buf.masks[t, row][None])
            np.testing.assert_allclose(theirs[0], logp.exp()[0].numpy(), atol=1e-5)
            assert choice == int(theirs[0].argmax())


@pytest.mark.parametrize("rules", RULESETS)
def test_a_reloaded_memory_policy_plays_legal_actions_on_both_paths(rules: str, tmp_path: Path) -> None:
    learner = Learner(TINY.replace(num_players=3, rules=rules, total_steps=1))
    path = learner.save_policy(tmp_path / "policy.zip")
    env = hoity_env.parallel_env(num_players=3, rules=rules, illegal_action="raise")
    agents = [make(f"ppo-sample:{path}", seed=s, num_players=3, rules=rules) for s in range(3)]
    with pytest.raises(ConfigError, match="trained for 3 players, not 4"):
        make(f"ppo:{path}", num_players=4, rules=rules)
    for game in range(2):
        obs, _ = env.reset(seed=game)
        for agent in agents:
            agent.reset(game)
        while env.agents:  # illegal_action="raise": an illegal choice would stop the game
            obs = env.step(
                {
                    a: g.act(obs[a]["observation"], obs[a]["action_mask"])
                    for a, g in zip(env.possible_agents, agents, strict=True)
                }
            )[0]
    result = evaluate(
        [f"ppo-sample:{path}", "random", "random"],
        num_players=3,
        rules=rules,
        games=6,
        engine="batched",
        progress=False,
    )
    assert sum(a.games for a in result.agent_stats) == 18


def test_greedy_memory_agent_decides_alike_on_the_one_game_and_the_batched_path(
    trained: tuple[Learner, Path],
) -> None:
    """``ppo:`` has no randomness, and neither has ``champion-greedy``: the harness's two engines
    then play identical games, which they do only if both track each game's history alike."""
    _, path = trained
    table = [f"ppo:{path}", "champion-greedy", "champion-greedy", "champion-greedy"]
    one, batched = (
        evaluate(table, num_players=4, games=24, seed=5, engine=engine, records=True, progress=False)
        for engine in ("one-game", "batched")
    )
    assert one.records == batched.records
    assert len({r.rounds for r in one.records}) > 1  # real games of several lengths


def test_the_policy_alone_refuses_observations_without_their_history(trained: tuple[Learner, Path]) -> None:
    _, path = trained
    policy = PolicyAgent(path)
    assert policy.memory == MEMORY and policy.input_dim == policy.obs_dim + 4 * MEMORY * 6
    obs, _ = hoity_env.parallel_env().reset(seed=0)
    o = obs["player_0"]
    with pytest.raises(ValueError, match="reads 3 rounds of history"):
        policy.act(o["observation"], o["action_mask"])
    assert 0 <= HistoryAgent(policy).act(o["observation"], o["action_mask"]) < policy.num_actions


def test_a_label_started_again_forgets_its_last_game(trained: tuple[Learner, Path]) -> None:
    """The game hooks: label 5 plays one game, then ``start_games`` starts another under it; its
    features and decisions are a fresh agent's one-game ones (not if the old history lingered)."""
    _, path = trained
    batched, fresh = make(f"ppo:{path}"), make(f"ppo:{path}")
    assert isinstance(batched, HistoryAgent) and isinstance(fresh, HistoryAgent)
    label = np.array([5])
    for seed in (0, 1):
        batched.start_games(label)
        fresh.reset()
        env = hoity_env.parallel_env()
        obs, _ = env.reset(seed=seed)
        while env.agents:
            o = obs["player_0"]
            mine = batched.act_games(label, o["observation"][None], o["action_mask"][None])[0]
            assert mine == fresh.act(o["observation"], o["action_mask"])
            np.testing.assert_array_equal(  # the same features (the same round: no new entry)
                batched.history.observe(label, o["observation"][None]),
                fresh.history.observe(np.array([0]), o["observation"][None]),
            )
            actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[-1]) for a in env.agents}
            obs = env.step({**actions, "player_0": int(mine)})[0]


def test_a_memory_run_resumed_from_its_saved_state_continues_as_if_never_stopped(tmp_path: Path) -> None:
    """The games in progress carry their histories: a run saved after one iteration (through
    ``torch.save``, as run folders save it) and resumed ends with the uninterrupted run's weights."""
    settings = TINY.replace(total_steps=3 * 4 * 96)
    whole = Learner(settings)
    whole.learn()
    half = Learner(settings)
    half.iterate()
    torch.save(half.state_dict(), tmp_path / "state.pt")
    resumed = Learner.from_state_dict(torch.load(tmp_path / "state.pt", weights_only=False))
    resumed.learn()
    for mine, theirs in zip(resumed.policy.parameters(), whole.policy.parameters(), strict=True):
        assert torch.equal(mine, theirs)
