"""Bad input raises a clear ``ValueError`` subclass on the call that sent it (issue items 12-14).

AEC forms: a malformed action fails on the sending agent's own ``step`` and the
game stays playable; ``step``/``last``/``observe`` before ``reset`` say so.
``PolicyAgent.act`` checks its mask like the scripted agents do.  Actions of
NumPy types that are not integers (``timedelta64``) are refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hoity_env
from hoity_env import Game, IllegalActionError
from hoity_env.agents import PolicyAgent, make
from tests.agents.test_policy_agent import save_tiny_model

AEC_FORMS: dict[str, Callable[..., Any]] = {"env": hoity_env.env, "raw_env": hoity_env.raw_env}


def _legal(env: Any, agent: str) -> int:
    return int(np.flatnonzero(env.observe(agent)["action_mask"])[0])


# --------------------------------------------------------------------- item 12: AEC
@pytest.mark.parametrize("form", sorted(AEC_FORMS))
@pytest.mark.parametrize("bad", ["x", 3.0, None, 999, -1, np.timedelta64(1)], ids=repr)
def test_aec_malformed_action_fails_on_its_own_call_and_the_game_goes_on(form: str, bad: Any) -> None:
    env = AEC_FORMS[form](num_players=3)
    env.reset(seed=0)
    env.step(_legal(env, "player_0"))
    assert env.agent_selection == "player_1"
    with pytest.raises(IllegalActionError, match="player_1"):
        env.step(bad)
    assert env.agent_selection == "player_1"  # nothing was recorded
    steps = 0
    for agent in env.agent_iter(max_iter=3000):
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _legal(env, agent))
        steps += 1
    assert steps > 3 and not env.agents  # the game played to its end


@pytest.mark.parametrize("form", sorted(AEC_FORMS))
def test_aec_masked_out_action_under_raise_fails_on_its_own_call(form: str) -> None:
    env = AEC_FORMS[form](num_players=3, illegal_action="raise")
    env.reset(seed=0)
    mask = env.observe("player_0")["action_mask"]
    with pytest.raises(IllegalActionError, match="player_0"):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    env.step(_legal(env, "player_0"))
    assert env.agent_selection == "player_1"


@pytest.mark.parametrize("form", sorted(AEC_FORMS))
@pytest.mark.parametrize("call", ["step", "last", "observe", "state"])
def test_aec_calls_before_reset_say_to_reset(form: str, call: str) -> None:
    env = AEC_FORMS[form](num_players=3)
    args = {"step": (0,), "observe": ("player_0",)}.get(call, ())
    with pytest.raises(IllegalActionError, match="reset"):
        getattr(env, call)(*args)


# ------------------------------------------------------------- item 13: PolicyAgent
@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> PolicyAgent:
    return PolicyAgent(save_tiny_model(tmp_path_factory.mktemp("ckpt") / "tiny.zip"))


def _observation() -> np.ndarray:
    obs, _ = hoity_env.parallel_env(num_players=4).reset(seed=0)
    return np.asarray(obs["player_0"]["observation"])


def test_policy_agent_refuses_an_all_zero_mask_like_the_scripted_agents(agent: PolicyAgent) -> None:
    zeros = np.zeros(agent.num_actions, dtype=np.int8)
    with pytest.raises(ValueError, match="all zero") as scripted:
        make("random", 0).act(_observation(), zeros)
    with pytest.raises(ValueError, match="all zero") as policy:
        agent.act(_observation(), zeros)
    assert str(policy.value) == str(scripted.value)


@pytest.mark.parametrize("length", [10, 57])
def test_policy_agent_refuses_a_mask_of_the_wrong_length(agent: PolicyAgent, length: int) -> None:
    with pytest.raises(ValueError, match=f"masks? of length {agent.num_actions}"):
        agent.act(_observation(), np.ones(length, dtype=np.int8))


def test_policy_agent_refuses_a_mask_that_is_not_one_dimensional(agent: PolicyAgent) -> None:
    with pytest.raises(ValueError, match="mask"):
        agent.act(_observation(), np.ones((1, agent.num_actions), dtype=np.int8))


# -------------------------------------------------------- item 14: timedelta actions
def test_timedelta_actions_are_refused_by_env_and_engine() -> None:
    env = hoity_env.parallel_env(num_players=2)
    env.reset(seed=0)
    before = env.get_state()
    for bad in (np.timedelta64(1), np.array(1, dtype="m8[s]")):
        with pytest.raises(IllegalActionError, match="integer"):
            env.step({"player_0": bad, "player_1": 1})
    assert env.get_state() == before
    game = Game("standard", 2)
    state = game.new_state(0)
    with pytest.raises(IllegalActionError, match="integer"):
        game.step(state, [np.timedelta64(1), 1])


def test_saved_policy_checkpoints_still_play(agent: PolicyAgent) -> None:
    # Guard for the checks above: a good mask still gives a legal action.
    mask = np.zeros(agent.num_actions, dtype=np.int8)
    mask[[0, 1]] = 1
    assert agent.act(_observation(), mask) in (0, 1)
