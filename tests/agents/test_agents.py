"""The agent zoo (docs/design.md §3): legal moves only, seeded, observation-only, ``make`` specs."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest

import hoity_env
from hoity_env.agents import AGENT_NAMES, Agent, AgentInputError, BatchObservationView, ObservationView, make
from hoity_env.agents.bots import styles_kernels, styles_original
from hoity_env.agents.bots.styles_original import OriginalView
from tests.helpers import RULESETS
from tests.oracles import original_rows

Trace = list[tuple[np.ndarray, np.ndarray]]


def play(specs: list[str], seed: int, rules: str = "standard") -> tuple[hoity_env.HoityParallelEnv, Trace]:
    """Play one game with ``make(spec)`` agents; assert every action is legal; return the observations."""
    env = hoity_env.parallel_env(num_players=len(specs), illegal_action="raise", rules=rules)
    agents = [make(s, seed=seed * 31 + i, num_players=len(specs), rules=rules) for i, s in enumerate(specs)]
    obs, _ = env.reset(seed=seed)
    trace: Trace = []
    while env.agents:
        actions = {}
        for i, name in enumerate(env.possible_agents):
            o, m = obs[name]["observation"], obs[name]["action_mask"]
            a = agents[i].act(o, m)
            assert isinstance(a, int) and m[a] == 1, (specs[i], a)
            actions[name] = a
            trace.append((o, m))
        obs, *_ = env.step(actions)
    return env, trace


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_every_agent_plays_only_legal_actions(rules: str, num_players: int) -> None:
    names = list(AGENT_NAMES)
    for seed in range(4):
        specs = [names[(seed + i) % len(names)] for i in range(num_players)]
        env, _ = play(specs, seed, rules)  # illegal_action="raise": an illegal move fails the game
        assert env.game_state.done


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("name", AGENT_NAMES)
def test_every_agent_is_legal_on_observations_from_other_games(name: str, rules: str) -> None:
    _, trace = play(["random", "collector", "thief", "detective"], seed=11, rules=rules)
    agent = make(name, seed=0, rules=rules)
    for o, m in trace:
        a = agent.act(o, m)
        assert m[a] == 1


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("name", AGENT_NAMES)
def test_same_seed_same_choices_other_seed_other_choices(name: str, rules: str) -> None:
    _, trace = play(["random", "collector", "thief", "expert"], seed=5, rules=rules)
    a, b, c = (make(name, seed=s, rules=rules) for s in (7, 7, 8))
    first = [a.act(o, m) for o, m in trace]
    assert first == [b.act(o, m) for o, m in trace]
    assert first != [c.act(o, m) for o, m in trace]
    a.reset(seed=7)
    assert first == [a.act(o, m) for o, m in trace]


def test_global_random_state_does_not_influence_agents() -> None:
    _, trace = play(["expert", "collector", "thief", "detective"], seed=2)
    runs = []
    for noise in (0, 1):
        np.random.seed(noise)  # the global generator must not matter
        agent = make("expert", seed=3)
        runs.append([agent.act(o, m) for o, m in trace])
    assert runs[0] == runs[1]


def _hidden_swap(env: hoity_env.HoityParallelEnv, observer: int) -> dict[str, object] | None:
    """The env state with one hidden card of another player swapped with a draw-pile card."""
    state = copy.deepcopy(env.get_state())
    engine = state["engine"]
    for p, hand in enumerate(engine["hands"]):
        if p == observer:
            continue
        hidden = [c for c in hand if c not in engine["public"][p]]
        if hidden and engine["draw_pile"]:
            c, d = hidden[0], engine["draw_pile"][0]
            hand[hand.index(c)] = d
            engine["draw_pile"][0] = c
            return state
    return None


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_choices_depend_on_the_observation_only(name: str) -> None:
    # Changing a rival's hidden cards changes neither the observation nor the choice.
    env = hoity_env.parallel_env(num_players=4)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(20):
        state = _hidden_swap(env, observer=0)
        if state is not None:
            twin = hoity_env.parallel_env(num_players=4)
            twin.set_state(state)
            o1, o2 = env.observe("player_0"), twin.observe("player_0")
            assert np.array_equal(o1["observation"], o2["observation"])
            a1 = make(name, seed=9).act(o1["observation"], o1["action_mask"])
            a2 = make(name, seed=9).act(o2["observation"], o2["action_mask"])
            assert a1 == a2
            checked += 1
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, *_ = env.step(actions)
        if not env.agents:
            break
    assert checked >= 5


def test_agents_satisfy_the_protocol() -> None:
    for name in AGENT_NAMES:
        agent = make(name, seed=0)
        assert isinstance(agent, Agent)
        assert agent.name == name


def test_observation_view_reads_the_layout() -> None:
    env = hoity_env.parallel_env(num_players=3)
    obs, _ = env.reset(seed=1)
    view = ObservationView(obs["player_1"]["observation"], 3)
    state = env.game_state
    assert view.n == 3 and not view.action_step
    assert view.lot_series == state.deck.series[state.lot]
    copies = np.asarray(state.deck.copies)
    assert np.array_equal(np.rint(view.hand * copies).astype(int), state.counts[1])
    assert np.allclose(view.money, 1.0)
    with pytest.raises(
        AgentInputError, match=r"plays 3 players, standard rules .*got observations of length 50"
    ):
        ObservationView(np.zeros(50, dtype=np.float32), 3)
    with pytest.raises(AgentInputError, match="plays 4 players"):  # told, not worked out from the length
        ObservationView(obs["player_1"]["observation"])


@pytest.mark.parametrize(
    ("counts", "expected"),
    [([0, 2, 1, 1, 0, 0], 4), ([0, 0, 0, 0, 3, 0], 3), ([2, 0, 1, 0, 0, 0], 0), ([1, 1, 0, 1, 1, 1], 3)],
)
def test_best_run_follows_c3(counts: list[int], expected: int) -> None:  # C-3
    # The kernels' (standard), the original batch rules' and the oracle's counts of a run.
    c = np.asarray(counts)
    assert styles_kernels.best_run(c) == styles_original.best_run(c) == original_rows.best_run(c) == expected


def test_lot_gain_counts_the_growth_of_the_best_run() -> None:
    env = hoity_env.parallel_env(num_players=4)
    obs, _ = env.reset(seed=0)
    view = BatchObservationView(np.stack([o["observation"] for o in obs.values()]), 4)
    counts = np.rint(view.hand * styles_kernels.copies_of(4)).astype(np.int64)
    for i in range(len(view)):
        more = counts[i].copy()
        more[view.lot_series[i]] += 1
        gain = styles_kernels.lot_gain(counts[i].copy(), int(view.lot_series[i]))
        assert gain == styles_kernels.best_run(more) - styles_kernels.best_run(counts[i])
    assert styles_kernels.lot_gain(counts[0].copy(), -1) == 0  # no lot on display


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nobody", "unknown agent 'nobody'"),
        ("", "non-empty"),
        ("ppo:does/not/exist.zip", "not found"),
    ],
)
def test_make_rejects_bad_specs_clearly(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make(spec)


def test_make_rejects_a_corrupt_checkpoint(tmp_path: Path) -> None:
    bad = tmp_path / "model.zip"
    bad.write_bytes(b"this is not a zip archive")
    with pytest.raises(ValueError, match=r"not a MaskablePPO \.zip"):
        make(f"ppo:{bad}")


def test_original_view_reads_the_public_checks_and_thieves() -> None:  # O-2, O-7
    env = hoity_env.parallel_env(num_players=4, rules="original")
    obs, _ = env.reset(seed=3)
    view = OriginalView(np.stack([obs[f"player_{i}"]["observation"] for i in range(4)]), 4)
    state = env.game_state
    assert view.n == 4 and not view.action_step.any()
    # Row i sees seat (i + k) % 4 as player k: everybody's highest check, both thieves free.
    for i in range(4):
        tops = [max(state.checks[(i + k) % 4]) / 24 for k in range(4)]  # type: ignore[attr-defined]
        assert np.allclose(view.best_checks[i], tops)
    assert (view.free_thieves == 2).all()
    lots = [state.deck.series[c] for c in state.lots]  # type: ignore[attr-defined]
    assert view.lot_series[0].tolist() == lots


def test_expert_bids_the_cheapest_winning_check() -> None:  # O-5: the highest check wins
    from hoity_env.engine.actions import check_action

    env = hoity_env.parallel_env(num_players=4, rules="original")
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step({"player_0": 0, "player_1": 0, "player_2": 1, "player_3": 1})
    o, m = obs["player_0"]["observation"], obs["player_0"]["action_mask"]
    # Seat 0 holds 5, 10, 15, 20; seat 1 (also at the auction) holds up to 19: 20 is the only winner.
    choices = {make("expert", seed=s, rules="original").act(o, m) for s in range(20)}
    assert choices and choices <= {check_action(20, 0), check_action(20, 1)}


def test_make_is_a_one_way_table() -> None:
    # No module under agents/ imports the module that lists it (make, or the face that re-exports
    # it): a population gets its members built, the RLlib agent is named by import path.
    from hoity_env.agents.specs import NAMES, PREFIXES
    from tests.test_architecture import GRAPH

    importers = {
        module
        for module, imports in GRAPH.items()
        if module.startswith("hoity_env.agents") and imports & {"hoity_env.agents", "hoity_env.agents.specs"}
    }
    assert importers == {"hoity_env.agents"}
    assert set(AGENT_NAMES) <= set(NAMES)
    assert set(PREFIXES) == {"ppo:", "ppo-sample:", "npz:", "rllib:", "population:"}


def test_every_style_has_a_rule_for_every_ruleset_of_the_engine() -> None:
    # The styles' per-ruleset rules are keyed by the engine's ruleset names (no name compared).
    from hoity_env.agents.bots import SCRIPTED
    from hoity_env.agents.bots.styles import ScriptedAgent
    from hoity_env.engine.config import RULESET_NAMES

    styles = [cls for cls in SCRIPTED.values() if issubclass(cls, ScriptedAgent)]
    assert len(styles) == len(SCRIPTED) - 1  # all but random, which reads the mask only
    for cls in styles:
        assert set(cls.RULES) == set(RULESET_NAMES), cls.name


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("name", AGENT_NAMES)
def test_agents_pickle_and_play_on(name: str, rules: str) -> None:
    # Worker processes and saved learner states carry agents: a copy plays on as the original.
    _, trace = play(["random", "collector", "thief"], seed=3, rules=rules)
    agent = make(name, seed=4, num_players=3, rules=rules)
    twin = pickle.loads(pickle.dumps(agent))
    assert [agent.act(o, m) for o, m in trace] == [twin.act(o, m) for o, m in trace]
