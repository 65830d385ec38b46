"""Hand-made positions through the envs: ``reset(options={"position": ...})`` (issue 35).

The rules tests' scenario tables (tests/engine/test_rules_standard.py: the castle and end-of-game
cases; tests/engine/test_rules_original.py: ``SCENARIOS``) are played here from the same positions
through the parallel env and the batched env, and every step must be the engine's own:
the same masks, observation vectors, events, state and rewards; then the table's own
expectations must hold for what the env reports.  Bad positions raise one ``StateError``
and change nothing.
"""

from __future__ import annotations

import copy
from dataclasses import fields
from typing import Any

import numpy as np
import pytest

import hoity_env
from hoity_env.engine import Game, GameState, StateError
from hoity_env.engine.actions import CASTLE, DETECTIVE, THIEF
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.replays.recorder import RecordingEnv
from tests.engine.test_rules_original import SCENARIOS, check_expected
from tests.engine.test_rules_standard import CASTLE_CASES, END_CASES, castle_position
from tests.helpers import make_original, make_state


def through_envs(start: GameState, steps: list[list[int]]) -> dict[str, Any]:
    """Play ``steps`` from ``start`` in the engine, the parallel env and a one-game batched env.

    Asserts at every step that both envs show the engine's masks and observation vectors and
    that the step leaves the engine's state, events and rewards; returns what the parallel env
    reported (its ``env``, and per step its ``events``, ``rewards``, ``terminations``, ``truncations``).
    """
    game = Game(start.rules, start.num_players)
    engine, observer = start.clone(), game.make_observer()
    kw = {"num_players": start.num_players, "rules": start.rules, "illegal_action": "raise"}
    env = hoity_env.parallel_env(**kw)
    batched = BatchedHoityEnv(num_envs=1, **kw)
    position = start.to_dict()
    obs, _ = env.reset(seed=0, options={"position": position})
    b_obs, b_masks, _ = batched.reset(seed=0, options={"position": position})
    assert position == start.to_dict()  # the envs read the position, never change it
    out: dict[str, Any] = {"env": env, "events": [], "rewards": [], "terminations": [], "truncations": []}
    agents = env.possible_agents
    for joint in [*steps, None]:
        final = engine.done
        masks = game.location_masks(engine) if final else game.legal_masks(engine)
        rows = observer.observations(engine)
        for i, agent in enumerate(agents):
            assert np.array_equal(obs[agent]["action_mask"], masks[i]), (agent, joint)
            assert np.array_equal(obs[agent]["observation"], rows[i]), (agent, joint)
        assert np.array_equal(b_masks[0], masks) and np.array_equal(b_obs[0], rows)
        if joint is None or final:
            assert joint is None, "the scenario steps past the end of the game"
            return out
        events = game.step(engine, joint)
        obs, rewards, terms, truncs, _ = env.step(dict(zip(agents, joint, strict=True)))
        b_obs, b_masks, b_rewards, b_term, b_trunc, b_infos = batched.step(np.asarray([joint]))
        assert env.last_events == [e.to_dict() for e in events]
        assert env.game_state.to_dict() == engine.to_dict()
        assert np.array_equal(b_rewards[0], np.float32([rewards[a] for a in agents]))  # float32 there
        assert (bool(b_term[0]), bool(b_trunc[0])) == (terms[agents[0]], truncs[agents[0]])
        if engine.done:  # the batched env dealt the slot's next game: the finished one is in infos
            b_obs, b_masks = b_infos["final_observation"], b_infos["final_action_mask"]
        else:
            assert batched.batched.to_states(batched.game_state)[0].comparable() == engine.comparable()
        out["events"].append(env.last_events)
        out["rewards"].append(rewards)
        out["terminations"].append(terms)
        out["truncations"].append(truncs)
    raise AssertionError("unreachable")


def _events(played: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for step in played["events"] for e in step if e["kind"] == kind]


@pytest.mark.parametrize("case", CASTLE_CASES, ids=[c["id"] for c in CASTLE_CASES])
def test_castle_cases_through_the_envs(case: dict[str, Any]) -> None:  # S-6
    start, steps = castle_position(
        case["hands"], case["roles"], case["positions"], case.get("start_player", 0)
    )
    played = through_envs(start, steps)
    state = played["env"].game_state
    assert state.positions == case["expect_positions"]
    thefts = [(t["player"], t["victim"], t["card"]) for t in _events(played, "theft")]
    assert thefts == case["thefts"]
    scorers = [s["player"] for s in _events(played, "score")]
    assert scorers == ([] if case["scorer"] is None else [case["scorer"]])


@pytest.mark.parametrize("case", END_CASES, ids=[c["id"] for c in END_CASES])
def test_end_cases_through_the_envs(case: dict[str, Any]) -> None:  # S-7
    start, steps = castle_position(case["hands"], case["roles"], case["positions"])
    played = through_envs(start, steps)
    env, last_rewards = played["env"], played["rewards"][-1]
    if case["winners"] is None:
        assert env.agents == env.possible_agents and not any(played["terminations"][-1].values())
        assert set(last_rewards.values()) == {0.0}
        return
    assert env.agents == [] and all(played["terminations"][-1].values())
    assert env.game_state.winners == case["winners"]
    assert [e["winners"] for e in _events(played, "game_end")] == [case["winners"]]
    # win_loss: the winners share +1, the losers share -1 (docs/environment.md)
    winners = [f"player_{w}" for w in case["winners"]]
    assert sum(last_rewards[a] for a in winners) == pytest.approx(1.0)
    assert sum(r for a, r in last_rewards.items() if a not in winners) == pytest.approx(-1.0)


@pytest.mark.parametrize("case", SCENARIOS, ids=[c["id"] for c in SCENARIOS])
def test_original_scenarios_through_the_envs(case: dict[str, Any]) -> None:  # O-6 … O-8
    played = through_envs(make_original(**case["position"]), case["steps"])
    check_expected(played["env"].game_state, case["expect"])


def _study(rules: str = "standard") -> dict[str, Any]:
    """Seat 0 holds four cards of one series, more than a deal gives and with no history."""
    if rules == "standard":
        return make_state(hands=[[0, 2, 4, 6], [], [], []]).to_dict()
    return make_original(hands=[[0, 2, 4, 6], [], [], []]).to_dict()


@pytest.mark.parametrize("rules", ["standard", "original"])
def test_set_state_refuses_a_hand_made_position_that_reset_plays(rules: str) -> None:
    """The issue's report: ``set_state`` says the hands hold bought cards after 0 rounds."""
    env = hoity_env.parallel_env(rules=rules)
    env.reset(seed=1)
    position = _study(rules)
    snapshot = env.get_state()
    snapshot["engine"] = position
    with pytest.raises(StateError):
        env.set_state(snapshot)
    env.reset(options={"position": position})
    assert env.game_state.to_dict() == position and env.game_seed is None


@pytest.mark.parametrize("rules", ["standard", "original"])
def test_a_position_plays_to_the_end_and_the_next_game_is_dealt_from_the_seed(rules: str) -> None:
    env = hoity_env.parallel_env(rules=rules, illegal_action="raise")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=7, options={"position": _study(rules)})
    steps = 0
    while env.agents:
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
        steps += 1
    assert steps > 2 and env.game_state.done
    # The position drew nothing from the generator: the next game is reset(seed=7)'s first deal.
    obs, _ = env.reset()
    fresh = hoity_env.parallel_env(rules=rules)
    first, _ = fresh.reset(seed=7)
    assert env.game_seed == fresh.game_seed
    assert all(np.array_equal(obs[a]["observation"], first[a]["observation"]) for a in obs)


def test_batched_env_takes_one_position_per_game_then_deals_from_each_slots_seed() -> None:
    """Slot k plays what ``parallel_env().reset(seed=s + k, options=...)`` and plain resets play."""
    positions = [castle_position(c["hands"], c["roles"], c["positions"])[0].to_dict() for c in END_CASES[:3]]
    batched = BatchedHoityEnv(num_envs=3)
    batched.reset(seed=20, options={"position": positions})
    envs = [hoity_env.parallel_env() for _ in positions]
    for k, (env, position) in enumerate(zip(envs, positions, strict=True)):
        env.reset(seed=20 + k, options={"position": position})
    rng, ended = np.random.default_rng(3), set()
    for _ in range(12):  # positions a round from the end: their slots deal on
        actions = batched.sample_actions(rng)
        b_obs, b_masks, b_rewards, b_term, _, _ = batched.step(actions)
        for k, env in enumerate(envs):
            obs, rewards, *_ = env.step({f"player_{i}": int(a) for i, a in enumerate(actions[k])})
            assert np.array_equal(b_rewards[k], np.float32(list(rewards.values())))
            assert bool(b_term[k]) == (not env.agents)
            if not env.agents:  # the batched env deals the next game in the same step
                obs, _ = env.reset()
            assert np.array_equal(b_obs[k], np.stack([o["observation"] for o in obs.values()]))
            assert np.array_equal(b_masks[k], np.stack([o["action_mask"] for o in obs.values()]))
            ended.update([k] if b_term[k] else [])
    assert ended  # so games dealt after a position were compared too


def test_a_position_counts_its_rounds_as_played() -> None:
    """``max_cycles`` and the round limit count the position's rounds, as after ``set_state``."""
    ten_rounds = {"tallies": [[0, 10, 0, 0, 10, 0]] * 4, "last_actions": [DETECTIVE] * 4}
    position = make_state(round=10, last_locations=[CASTLE] * 4, **ten_rounds).to_dict()
    env = hoity_env.parallel_env(max_cycles=21)
    env.reset(options={"position": position})
    _, _, _, truncations, _ = env.step(dict.fromkeys(env.agents, CASTLE))
    assert all(truncations.values()) and env.agents == []  # 2·10 + 1 = 21 steps
    with pytest.raises(StateError, match="max_cycles=20"):
        hoity_env.parallel_env(max_cycles=20).reset(options={"position": position})
    batched = BatchedHoityEnv(num_envs=2, max_cycles=21)
    batched.reset(options={"position": position})
    assert batched.step(np.full((2, 4), CASTLE))[4].all()


def test_snapshots_of_a_position_game_restore_and_continue() -> None:
    env = hoity_env.parallel_env()
    env.reset(seed=2, options={"position": _study()})
    env.step(dict.fromkeys(env.agents, CASTLE))
    snapshot = env.get_state()
    assert snapshot["env"]["hand_made"] is True
    copy_ = hoity_env.parallel_env()
    copy_.set_state(copy.deepcopy(snapshot))
    actions = {"player_0": THIEF, "player_1": DETECTIVE, "player_2": THIEF, "player_3": DETECTIVE}
    assert copy_.step(actions)[1] == env.step(actions)[1]
    assert copy_.get_state() == env.get_state()
    del snapshot["env"]["hand_made"]  # without the flag its history is checked, and it has none
    with pytest.raises(StateError, match="state field"):
        hoity_env.parallel_env().set_state(snapshot)
    played = hoity_env.parallel_env()
    played.reset(seed=2)
    assert "hand_made" not in played.get_state()["env"]  # other snapshots are as before


def test_a_position_game_is_not_recorded() -> None:
    env = RecordingEnv(num_players=4)
    env.reset(seed=0)
    assert env.replay.seed == env.game_seed
    env.reset(options={"position": _study()})
    with pytest.raises(ValueError, match="started from a position"):
        env.replay  # noqa: B018


def _bad_positions() -> list[tuple[str, Any, str]]:
    good = _study()
    cases: list[tuple[str, Any, str]] = [("not a dict", "position.json", "state dict")]
    two_places = copy.deepcopy(good)
    two_places["hands"][1] = [0]
    cases.append(("a card in two places", two_places, "card 0 is in two places"))
    rich = copy.deepcopy(good)
    rich["money"][2] = 51
    cases.append(("money above the start", rich, "'money' holds 51"))
    over, steps = castle_position(**{k: END_CASES[0][k] for k in ("hands", "roles", "positions")})
    for joint in steps:
        Game().step(over, joint)
    assert over.terminated
    cases.append(("a finished game", over.to_dict(), "the game is over"))
    cases.append(("another player count", make_state(3).to_dict(), "state is for 3 players"))
    cases.append(("another ruleset", _study("original"), "other rules"))
    unknown = {**good, "note": "x"}
    cases.append(("an unknown field", unknown, "unknown field"))
    return cases


BAD = _bad_positions()


@pytest.mark.parametrize(("what", "position", "match"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_position_raises_one_error_and_changes_nothing(what: str, position: Any, match: str) -> None:
    env = hoity_env.parallel_env()
    obs, _ = env.reset(seed=5)
    env.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
    before = env.get_state()
    with pytest.raises(StateError, match=match):
        env.reset(seed=9, options={"position": position})
    assert env.get_state() == before  # the generator was not reseeded either
    batched = BatchedHoityEnv(num_envs=2)
    batched.reset(seed=5)
    state, rngs = batched.game_state.copy(), [r.bit_generator.state for r in batched._rngs]
    with pytest.raises(StateError, match=match):
        batched.reset(seed=9, options={"position": position})
    with pytest.raises(StateError, match=match):
        batched.reset(seed=9, options={"position": [_study(), position]})
    after = batched.game_state
    assert all(np.array_equal(getattr(after, f.name), getattr(state, f.name)) for f in fields(state)[:-7])
    assert [r.bit_generator.state for r in batched._rngs] == rngs


def test_bad_options_and_position_lists() -> None:
    env = hoity_env.parallel_env()
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options=["position"])  # type: ignore[arg-type]
    env.reset(seed=0, options={"options": 1})  # other keys are left alone (PettingZoo's api_test)
    with pytest.raises(StateError, match="a list of 1 positions for 2 games"):
        BatchedHoityEnv(num_envs=2).reset(options={"position": [_study()]})
