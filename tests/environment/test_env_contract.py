"""The environment contract of docs/design.md §2, bullet by bullet (beyond PettingZoo's own checkers).

Spaces, observation layout, outputs of whole games, the end of a game, reward
modes, illegal-action modes, malformed input, constructor validation,
save/restore round trips, fresh output buffers, infos and rendering.
"""

from __future__ import annotations

import contextlib
import copy
import json
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

import hoity_env
from hoity_env import ConfigError, HoityParallelEnv, IllegalActionError, RulesConfig, StateError
from tests.helpers import RULESETS, assert_same

AGENTS4 = [f"player_{i}" for i in range(4)]
Obs = dict[str, dict[str, np.ndarray]]
StepOut = tuple[Obs, dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]

AUCTION, CASTLE, EXHIBIT, THIEF, DETECTIVE, BID0 = 0, 1, 2, 3, 4, 5


# ------------------------------------------------------------------ helpers
def make(num_players: int = 4, **kwargs: Any) -> HoityParallelEnv:
    return hoity_env.parallel_env(num_players=num_players, **kwargs)


def masked_choice(obs: Obs, rng: np.random.Generator) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}


def lowest_legal(obs: Obs) -> dict[str, int]:
    return {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}


def first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def play(env: HoityParallelEnv, seed: int, steps: int, action_seed: int = 0) -> Obs:
    """Reset with ``seed`` and play ``steps`` masked random steps; the game must still run."""
    rng = np.random.default_rng(action_seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        obs = env.step(masked_choice(obs, rng))[0]
        assert env.agents, "the game ended earlier than the test needs"
    return obs


def run_to_end(env: HoityParallelEnv, obs: Obs, rng: np.random.Generator) -> list[StepOut]:
    outs = []
    for _ in range(300):
        out = env.step(masked_choice(obs, rng))
        outs.append(out)
        obs = out[0]
        if not env.agents:
            return outs
    raise AssertionError("the game did not end")


def revealed_index(env: HoityParallelEnv, events: list[dict[str, Any]], seat: int) -> int:
    """The flat action index of a seat's choice as an action step's ``actions`` event reveals it."""
    first = events[0]
    assert first["kind"] == "actions"
    act = first["actions"][seat]
    codec = env.codec
    if env.rules.ruleset == "original":  # RULES O-4
        if act["location"] == "auction":
            return codec.auction_thief() if "role" in act else codec.check(act["bid"], act["lot"])
        if act["role"] == "thief":
            return codec.role(["thief_low", "thief_high"][env.game_state.thieves[seat].index(act["thief"])])  # type: ignore[attr-defined]
        return codec.role(act["role"])
    if act["location"] == "auction":
        return BID0 + int(act["bid"])
    return EXHIBIT + ["exhibit", "thief", "detective"].index(act["role"])


def played_index(env: HoityParallelEnv, seat: int) -> int:
    """The flat action index ``seat`` played in the step just taken (read from ``get_state()``)."""
    engine = env.get_state()["engine"]
    if engine["phase"] == "action":  # the step just taken was a location step
        return int(engine["locations"][seat])
    return int(engine["last_actions"][seat])


# ------------------------------------------------------------------ spaces
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_spaces_shape_dtype_and_identity(num_players: int) -> None:
    env = make(num_players)
    agents = [f"player_{i}" for i in range(num_players)]
    assert env.possible_agents == agents
    assert env.agents == []  # nobody plays before reset
    act = env.action_space("player_0")
    osp = env.observation_space("player_0")
    assert isinstance(act, spaces.Discrete)
    assert act.n == 56 and act.start == 0  # locations 2 + roles 3 + bids 0..50
    assert isinstance(osp, spaces.Dict)
    assert set(osp.spaces) == {"observation", "action_mask"}
    box, mask = osp["observation"], osp["action_mask"]
    assert isinstance(box, spaces.Box) and isinstance(mask, spaces.Box)
    assert box.dtype == np.float32 and len(box.shape) == 1
    assert np.all(box.low == 0.0) and np.all(box.high == 1.0)
    assert mask.dtype == np.int8 and mask.shape == (act.n,)
    assert np.all(mask.low == 0) and np.all(mask.high == 1)
    for agent in agents:
        assert env.action_space(agent) is act  # the same object, every call, for every agent
        assert env.observation_space(agent) is osp
        assert env.action_spaces[agent] is act
        assert env.observation_spaces[agent] is osp
    env.reset(seed=0)
    assert env.action_space("player_0") is act and env.observation_space("player_0") is osp
    assert isinstance(env.state_space, spaces.Box) and env.state_space.dtype == np.float32


def test_action_index_groups_and_codec() -> None:
    env = make(4)
    codec = env.codec
    assert isinstance(codec, hoity_env.ActionCodec)
    assert codec.location("auction") == AUCTION and codec.location("castle") == CASTLE
    assert codec.location(hoity_env.Location.CASTLE) == CASTLE
    assert [codec.role(r) for r in ("exhibit", "thief", "detective")] == [EXHIBIT, THIEF, DETECTIVE]
    assert codec.role(hoity_env.Role.DETECTIVE) == DETECTIVE
    assert codec.bid(0) == BID0 and codec.bid(50) == 55 == env.action_space("player_0").n - 1
    assert codec.decode(0) == ("location", "auction")
    assert codec.decode(3) == ("castle_role", "thief")
    assert codec.decode(BID0 + 17) == ("bid", 17)
    for bad in (-1, 56):
        with pytest.raises(IllegalActionError):
            codec.decode(bad)
    with pytest.raises(IllegalActionError):
        codec.bid(51)


# ------------------------------------------------------------ obs layout
REQUIRED_LAYOUT = {
    "standard": ("phase", "round", "lot_series", "deck", "own.hand", "own.best_size"),
    # RULES O-1, O-9: both lots and piles, the leader's castle reward.
    "original": ("phase", "round", "lot_series", "piles", "leader_reward", "own.hand", "own.best_size"),
}
REQUIRED_PLAYER_FIELDS = {
    "standard": ("position", "money", "hand_size", "known", "location", "last_location", "last_role"),
    # RULES O-2, O-7: everybody's checks, thief numbers and jail cells are public.
    "original": (
        "position",
        "checks",
        "thief_numbers",
        "thief_cells",
        "hand_size",
        "known",
        "location",
        "last_location",
        "last_role",
    ),
}


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_obs_layout_covers_vector_exactly_once(rules: str, num_players: int) -> None:
    env = make(num_players, rules=rules)
    layout = env.obs_layout()
    dim = env.observation_space("player_0")["observation"].shape[0]
    cover = np.zeros(dim, dtype=int)
    for name, sl in layout.items():
        assert isinstance(name, str) and isinstance(sl, slice)
        assert sl.step in (None, 1), name
        assert 0 <= sl.start < sl.stop <= dim, f"{name}: {sl}"
        cover[sl] += 1
    assert np.all(cover == 1), (
        f"uncovered {np.flatnonzero(cover == 0)}, overlapping {np.flatnonzero(cover > 1)}"
    )
    for name in REQUIRED_LAYOUT[rules]:
        assert name in layout
    for k in range(num_players):
        for field in REQUIRED_PLAYER_FIELDS[rules]:
            assert f"player{k}.{field}" in layout
        assert any(name.startswith(f"player{k}.rate_") for name in layout)  # past locations/roles
    assert not any(name.startswith(f"player{num_players}.") for name in layout)


@pytest.mark.parametrize(("num_players", "steps"), [(3, 14), (4, 15), (6, 20), (2, 9)])
def test_observation_is_seat_relative_and_holds_public_and_own_info(num_players: int, steps: int) -> None:
    env = make(num_players)
    obs = play(env, seed=5, steps=steps, action_seed=1)
    eng = env.get_state()["engine"]
    layout = env.obs_layout()
    rules, deck = env.rules, env.game.deck
    series = np.asarray(deck.series)
    copies = np.asarray(deck.copies, dtype=float)
    in_action_step = eng["phase"] == "action"

    def per_series(cards: list[int]) -> np.ndarray:
        return np.bincount(series[cards], minlength=6).astype(float) if cards else np.zeros(6)

    for i in range(num_players):
        vec = obs[f"player_{i}"]["observation"]
        assert np.allclose(vec[layout["phase"]], [0.0, 1.0] if in_action_step else [1.0, 0.0])
        assert np.allclose(vec[layout["deck"]], len(eng["draw_pile"]) / deck.size, atol=1e-6)
        assert np.allclose(vec[layout["own.hand"]] * copies, per_series(eng["hands"][i]), atol=1e-5)
        for k in range(num_players):
            seat = (i + k) % num_players
            block = {f: vec[layout[f"player{k}.{f}"]] for f in ("position", "money", "hand_size", "known")}
            pos = min(eng["positions"][seat], rules.finish) / rules.finish
            assert block["position"][0] == pytest.approx(pos, abs=1e-6)
            assert block["money"][0] == pytest.approx(eng["money"][seat] / rules.starting_money, abs=1e-6)
            assert block["hand_size"][0] == pytest.approx(len(eng["hands"][seat]) / deck.size, abs=1e-6)
            assert np.allclose(block["known"] * copies, per_series(eng["public"][seat]), atol=1e-5)
            loc = vec[layout[f"player{k}.location"]]
            if in_action_step:
                expected = np.zeros(2)
                expected[eng["locations"][seat]] = 1.0
                assert np.array_equal(loc, expected)
            else:
                assert not loc.any()


# ------------------------------------------------------------ whole games
@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 1])
def test_whole_games_outputs_obey_the_contract(rules: str, num_players: int, seed: int) -> None:
    env = make(num_players, rules=rules, action_mask="both", info_events=True)
    agents = list(env.possible_agents)
    osp = env.observation_space("player_0")
    rng = np.random.default_rng(seed + 10)
    obs, infos = env.reset(seed=seed)
    phase = 0  # the location step
    step_out: StepOut | None = None
    steps = 0
    while True:
        assert set(obs) == set(infos) == set(agents)
        assert env.state_space.contains(env.state())
        for a in agents:
            o, info = obs[a], infos[a]
            assert set(o) == {"observation", "action_mask"}
            assert o["observation"].dtype == np.float32 and o["action_mask"].dtype == np.int8
            assert osp.contains(o), f"step {steps}: observation of {a} outside the space"
            assert {"action_mask", "phase", "events"} <= set(info)
            assert info["action_mask"].dtype == np.int8
            assert np.array_equal(info["action_mask"], o["action_mask"])
            assert o["action_mask"].any(), f"step {steps}: all-zero mask for {a}"
            json.dumps(info["events"])  # JSON-safe
            assert info["events"] == infos["player_0"]["events"]  # public, the same for everybody
        if not env.agents:
            break
        assert env.agents == agents  # nobody leaves before the end
        assert infos["player_0"]["phase"] == phase
        actions = masked_choice(obs, rng)
        step_out = env.step(actions)
        obs, rewards, terms, truncs, infos = step_out
        steps += 1
        assert set(rewards) == set(terms) == set(truncs) == set(agents)
        for a in agents:
            assert type(rewards[a]) is float
            assert type(terms[a]) is bool and type(truncs[a]) is bool
        assert len(set(terms.values())) == 1 and len(set(truncs.values())) == 1, "a mix of done flags"
        assert not (terms["player_0"] and truncs["player_0"])
        events = infos["player_0"]["events"]
        for name in ("last_locations", "last_actions", "locations"):
            json.dumps(env.get_state()["engine"][name])
        for seat, a in enumerate(agents):
            assert played_index(env, seat) == actions[a]
        if phase == 0:  # the location reveal, if reported, is the first event
            assert not events or (
                events[0]["kind"] == "locations" and len(events[0]["locations"]) == num_players
            )
        else:  # after each action step: the round's public events, starting with the reveal
            assert events[0]["kind"] == "actions" and len(events[0]["actions"]) == num_players
            for seat, a in enumerate(agents):
                assert revealed_index(env, events, seat) == actions[a]
        done = terms["player_0"] or truncs["player_0"]
        assert done == (not env.agents)
        if not done:
            assert rewards == dict.fromkeys(agents, 0.0)  # win_loss is sparse
            phase = 1 - phase
        assert steps < 2 * 100 + 2
    assert step_out is not None
    _, rewards, terms, truncs, infos = step_out
    assert all(terms.values()), "random games with these seeds are decided, not truncated"
    assert any(e["kind"] == "game_end" for e in infos["player_0"]["events"])
    # The final observation carries a location-step mask: Castle always, Auction only if a lot is shown.
    engine = env.get_state()["engine"]
    lot_open = max(engine.get("lots", [engine["lot"]])) >= 0
    for a in agents:
        mask = obs[a]["action_mask"]
        assert mask[CASTLE] == 1 and mask[AUCTION] <= int(lot_open) and not mask[EXHIBIT:].any()
        if rules == "standard":
            assert mask[AUCTION] == int(lot_open)


def test_final_step_then_empty_step_and_errors() -> None:
    env = make(4)
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=3)
    outs = run_to_end(env, obs, rng)
    final = outs[-1]
    for part in final:
        assert set(part) == set(AGENTS4)
    assert env.agents == []
    snapshot = env.get_state()
    empty = env.step({})
    assert empty == ({}, {}, {}, {}, {})
    assert all(type(d) is dict for d in empty)
    for actions in (dict.fromkeys(AGENTS4, 1), {"player_0": 1}, {"player_9": 1}):
        with pytest.raises(IllegalActionError, match=r"over|ended|reset"):
            env.step(actions)
    with pytest.raises(ValueError):
        env.step(dict.fromkeys(AGENTS4, 1))
    assert env.step({}) == ({}, {}, {}, {}, {})
    assert env.get_state() == snapshot
    # A new game starts normally.
    obs, infos = env.reset()
    assert env.agents == AGENTS4 and infos["player_0"]["phase"] == 0


def test_step_before_reset_raises() -> None:
    env = make(4)
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(dict.fromkeys(AGENTS4, 1))
    with pytest.raises(ValueError):
        env.step({})
    with pytest.raises(IllegalActionError, match="reset"):
        env.state()
    with pytest.raises(IllegalActionError, match="reset"):
        env.get_state()


@pytest.mark.parametrize("max_cycles", [1, 5, 6])
def test_max_cycles_truncates_everyone_at_once(max_cycles: int) -> None:
    env = make(4, max_cycles=max_cycles, action_mask="both")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    for step in range(1, max_cycles + 1):
        obs, rewards, terms, truncs, infos = env.step(masked_choice(obs, rng))
        if step < max_cycles:
            assert env.agents == AGENTS4
            assert not any(truncs.values()) and not any(terms.values())
    assert env.agents == []
    assert truncs == dict.fromkeys(AGENTS4, True)
    assert terms == dict.fromkeys(AGENTS4, False)
    assert rewards == dict.fromkeys(AGENTS4, 0.0)  # win_loss: a truncated game has no winner
    for a in AGENTS4:  # a location-step mask, never all zero, even when cut in a location step
        assert obs[a]["action_mask"][CASTLE] == 1 and not obs[a]["action_mask"][EXHIBIT:].any()
        assert np.array_equal(infos[a]["action_mask"], obs[a]["action_mask"])
    assert env.step({}) == ({}, {}, {}, {}, {})
    with pytest.raises(IllegalActionError):
        env.step(dict.fromkeys(AGENTS4, 1))


def test_max_cycles_is_a_plain_writable_attribute() -> None:
    env = make(3)
    assert env.max_cycles is None
    env.max_cycles = 4
    obs, _ = env.reset(seed=1)
    for _ in range(4):
        out = env.step(lowest_legal(obs))
        obs = out[0]
    assert env.agents == [] and all(out[3].values())
    env.max_cycles = 0
    with pytest.raises(ConfigError, match="max_cycles"):
        env.reset()


# ------------------------------------------------------------------ rewards
def winners_of(env: HoityParallelEnv) -> list[int]:
    ends = [e for e in env.last_events if e["kind"] == "game_end"]
    assert len(ends) == 1
    return list(ends[0]["winners"])


@pytest.mark.parametrize("num_players", [2, 3, 4, 6])
def test_win_loss_is_zero_sum_winners_share_plus_one(num_players: int) -> None:
    decided = 0
    for seed in range(4):
        env = make(num_players, reward="win_loss")
        obs, _ = env.reset(seed=seed)
        _, rewards, terms, _, _infos = run_to_end(env, obs, np.random.default_rng(seed))[-1]
        assert all(terms.values())
        decided += 1
        winners = winners_of(env)
        k = len(winners)
        assert 1 <= k < num_players
        positions = env.get_state()["engine"]["positions"]
        assert all(positions[w] == max(positions) for w in winners)
        for p in range(num_players):
            expected = 1.0 / k if p in winners else -1.0 / (num_players - k)
            assert rewards[f"player_{p}"] == pytest.approx(expected)
        assert sum(rewards.values()) == pytest.approx(0.0, abs=1e-12)
        assert sum(r for r in rewards.values() if r > 0) == pytest.approx(1.0)
    assert decided == 4


def expected_rank_rewards(keys: list[Any]) -> list[float]:
    """Ranks mapped linearly to [+1, -1]; tied players share the mean of their ranks' values."""
    n = len(keys)
    out = []
    for key in keys:
        better = sum(other > key for other in keys)
        tied = sum(other == key for other in keys)
        out.append(float(np.mean([1.0 - 2.0 * r / (n - 1) for r in range(better, better + tied)])))
    return out


def check_rank_rewards(env: HoityParallelEnv, rewards: dict[str, float]) -> None:
    n = env.num_players
    values = [rewards[f"player_{p}"] for p in range(n)]
    assert sum(values) == pytest.approx(0.0, abs=1e-9)
    assert all(-1.0 - 1e-12 <= v <= 1.0 + 1e-12 for v in values)
    positions = env.get_state()["engine"]["positions"]
    for p in range(n):
        for q in range(n):
            if positions[p] > positions[q]:
                assert values[p] > values[q], f"player_{p} is ahead of player_{q} but ranks lower"
    keys = env.game.rank_keys(env.game_state)
    assert [k[0] for k in keys] == positions  # track position is the first key (S-7)
    assert values == pytest.approx(expected_rank_rewards(keys))


@pytest.mark.parametrize("num_players", [2, 4, 5])
def test_rank_rewards_on_decided_games(num_players: int) -> None:
    for seed in range(3):
        env = make(num_players, reward="rank")
        obs, _ = env.reset(seed=seed)
        outs = run_to_end(env, obs, np.random.default_rng(seed))
        for _, rewards, *_ in outs[:-1]:
            assert set(rewards.values()) == {0.0}
        _, rewards, terms, _, _infos = outs[-1]
        assert all(terms.values())
        check_rank_rewards(env, rewards)
        best = max(rewards.values())
        assert {p for p in range(num_players) if rewards[f"player_{p}"] == best} == set(winners_of(env))


@pytest.mark.parametrize("max_cycles", [6, 21, 40])
@pytest.mark.parametrize("num_players", [3, 4])
def test_rank_rewards_on_truncated_games(num_players: int, max_cycles: int) -> None:
    env = make(num_players, reward="rank", max_cycles=max_cycles)
    obs, _ = env.reset(seed=2)
    _, rewards, terms, truncs, _ = run_to_end(env, obs, np.random.default_rng(2))[-1]
    assert all(truncs.values()) and not any(terms.values())
    check_rank_rewards(env, rewards)
    if max_cycles == 40:  # after 20 rounds somebody is ahead: not everyone 0
        assert any(r != 0.0 for r in rewards.values())


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_progress_sums_to_zero_and_shapes_win_loss(num_players: int) -> None:
    prog = make(num_players, reward="progress")
    base = make(num_players, reward="win_loss")
    rng = np.random.default_rng(4)
    obs, _ = prog.reset(seed=4)
    base.reset(seed=4)
    finish = prog.rules.finish
    nonzero = 0
    while prog.agents:
        before = prog.get_state()["engine"]["positions"]
        was_location = prog.get_state()["engine"]["phase"] == "location"
        actions = masked_choice(obs, rng)
        obs, r_prog, _, _, _ = prog.step(actions)
        _, r_base, _, _, _ = base.step(actions)
        after = prog.get_state()["engine"]["positions"]
        assert sum(r_prog.values()) == pytest.approx(0.0, abs=1e-9)
        gains = [a - b for a, b in zip(after, before, strict=True)]
        for p in range(num_players):
            others = [g for q, g in enumerate(gains) if q != p]
            shaping = 0.0 if was_location else (gains[p] - sum(others) / len(others)) / finish
            agent = f"player_{p}"
            assert type(r_prog[agent]) is float
            assert r_prog[agent] == pytest.approx(r_base[agent] + shaping, abs=1e-9)
        nonzero += any(v != 0.0 for v in r_prog.values()) and bool(prog.agents)
    assert base.agents == []
    assert nonzero > 0, "progress shaping never rewarded anything before the end"


# ----------------------------------------------------------- illegal actions
def test_fallback_plays_lowest_legal_flags_and_warns_once() -> None:
    env = make(4)
    twin = make(4)
    obs, _ = env.reset(seed=0)
    twin.reset(seed=0)
    assert np.flatnonzero(obs["player_0"]["action_mask"]).tolist() == [AUCTION, CASTLE]
    actions = {"player_0": EXHIBIT, "player_1": CASTLE, "player_2": CASTLE, "player_3": CASTLE}
    with pytest.warns(UserWarning, match="masked-out") as record:
        out = env.step(actions)
    assert len([w for w in record if "masked-out" in str(w.message)]) == 1
    assert "player_0" in str(record[0].message)
    obs, rewards, _, _, infos = out
    assert infos["player_0"]["illegal_action"] is True
    assert all(infos[a]["illegal_action"] is False for a in AGENTS4[1:])
    assert played_index(env, 0) == AUCTION  # the lowest legal index
    assert rewards == dict.fromkeys(AGENTS4, 0.0)  # fallback does not penalize
    twin_out = twin.step({**actions, "player_0": AUCTION})
    assert_same(out[:4], twin_out[:4], "fallback vs explicit lowest legal action")
    # Action step: player_0 is alone at the Auction House (one legal bid); castle players pick
    # in-range but illegal bids.  Everyone falls back to the lowest legal index, without a warning.
    assert np.flatnonzero(obs["player_0"]["action_mask"]).tolist() == [BID0 + 1]
    bad = {"player_0": AUCTION, "player_1": BID0 + 3, "player_2": CASTLE, "player_3": 55}
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        obs2, _, _, _, infos2 = env.step(bad)
    assert not [w for w in again if "masked-out" in str(w.message)], "the fallback warning repeated"
    assert all(infos2[a]["illegal_action"] is True for a in AGENTS4)
    for seat, a in enumerate(AGENTS4):
        assert played_index(env, seat) == lowest_legal(obs)[a]
        assert revealed_index(env, env.last_events, seat) == lowest_legal(obs)[a]
    # Still once per env: a new game in the same env does not warn again ...
    obs3, _ = env.reset(seed=1)
    with warnings.catch_warnings(record=True) as later:
        warnings.simplefilter("always")
        env.step(dict.fromkeys(AGENTS4, DETECTIVE))
    assert not [w for w in later if "masked-out" in str(w.message)]
    # ... while another env warns on its own first illegal action.
    other = make(4)
    other.reset(seed=0)
    with pytest.warns(UserWarning, match="masked-out"):
        other.step(dict.fromkeys(AGENTS4, BID0))
    del obs2, obs3


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_fallback_plays_lowest_legal_index_in_random_states(num_players: int) -> None:
    for steps in (6, 7, 12, 13):
        env = make(num_players)
        obs = play(env, seed=steps, steps=steps, action_seed=steps)
        bad = {a: first_illegal(o["action_mask"]) for a, o in obs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, _, _, _, infos = env.step(bad)
        for seat, a in enumerate(env.possible_agents):
            assert infos[a]["illegal_action"] is True
            assert played_index(env, seat) == lowest_legal(obs)[a]


@pytest.mark.filterwarnings("ignore:.*masked-out.*:UserWarning")
@pytest.mark.parametrize("penalty", [None, -0.25])
def test_penalize_adds_illegal_penalty(penalty: float | None) -> None:
    kwargs: dict[str, Any] = {"illegal_action": "penalize"}
    if penalty is not None:
        kwargs["illegal_penalty"] = penalty
    expected = -1.0 if penalty is None else penalty
    env = make(4, **kwargs)
    _obs, _ = env.reset(seed=0)
    _, rewards, _, _, infos = env.step({**dict.fromkeys(AGENTS4, CASTLE), "player_2": EXHIBIT})
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": expected, "player_3": 0.0}
    assert type(rewards["player_2"]) is float
    assert infos["player_2"]["illegal_action"] is True and infos["player_0"]["illegal_action"] is False
    assert played_index(env, 2) == AUCTION  # played the lowest legal index
    # On the step that ends the game the penalty adds to the final reward.
    env2 = make(2, max_cycles=2, **kwargs)
    env2.reset(seed=0)
    env2.step(dict.fromkeys(["player_0", "player_1"], CASTLE))
    _, rewards, _, truncs, _ = env2.step({"player_0": AUCTION, "player_1": DETECTIVE})
    assert all(truncs.values())
    assert rewards == {"player_0": expected, "player_1": 0.0}


def test_penalize_warns_too() -> None:
    env = make(3, illegal_action="penalize")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="masked-out"):
        env.step({"player_0": 9, "player_1": CASTLE, "player_2": CASTLE})


@pytest.mark.filterwarnings("error")
def test_raise_mode_raises_naming_agent_action_phase_and_legal_actions() -> None:
    env = make(4, illegal_action="raise")
    twin = make(4, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    twin.reset(seed=0)
    before = env.get_state()
    with pytest.raises(IllegalActionError) as info:
        env.step({**dict.fromkeys(AGENTS4, CASTLE), "player_1": THIEF})
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "player_1" in msg and str(THIEF) in msg and "location" in msg and "[0, 1]" in msg
    assert env.get_state() == before
    # Action step, at the Castle: legal are Thief/Detective (and Exhibit with an exhibition).
    step = {**dict.fromkeys(AGENTS4, CASTLE)}
    obs = env.step(step)[0]
    twin.step(step)
    legal = np.flatnonzero(obs["player_3"]["action_mask"]).tolist()
    before = env.get_state()
    with pytest.raises(IllegalActionError) as info:
        env.step({**dict.fromkeys(AGENTS4, DETECTIVE), "player_3": BID0 + 7})
    msg = str(info.value)
    assert "player_3" in msg and str(BID0 + 7) in msg and "action" in msg and str(legal) in msg
    assert env.get_state() == before
    # The rejected step changed nothing: the game continues exactly like an untouched twin.
    assert_same(env.step(dict.fromkeys(AGENTS4, DETECTIVE)), twin.step(dict.fromkeys(AGENTS4, DETECTIVE)))


# ----------------------------------------------------------- malformed input
MALFORMED: dict[str, Callable[[dict[str, int]], Any]] = {
    "unknown agent added": lambda acts: {**acts, "player_9": 1},
    "unknown agent instead": lambda acts: {**{k: v for k, v in acts.items() if k != "player_0"}, "bob": 1},
    "missing agent": lambda acts: {k: v for k, v in acts.items() if k != "player_0"},
    "empty dict mid-game": lambda acts: {},
    "list": lambda acts: list(acts.values()),
    "tuple": lambda acts: tuple(acts.values()),
    "None": lambda acts: None,
    "int": lambda acts: 1,
    "float action": lambda acts: {**acts, "player_0": 1.0},
    "bool action": lambda acts: {**acts, "player_0": True},
    "numpy bool action": lambda acts: {**acts, "player_0": np.bool_(True)},
    "str action": lambda acts: {**acts, "player_0": "1"},
    "None action": lambda acts: {**acts, "player_0": None},
    "negative action": lambda acts: {**acts, "player_0": -1},
    "index-N action": lambda acts: {**acts, "player_0": 56},
    "huge action": lambda acts: {**acts, "player_0": 10**12},
    "float array action": lambda acts: {**acts, "player_0": np.array(1.0)},
    "two-element array action": lambda acts: {**acts, "player_0": np.array([1, 1])},
    "float64 scalar action": lambda acts: {**acts, "player_0": np.float64(1)},
}


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("mode", ["fallback", "raise"])
@pytest.mark.parametrize("steps", [0, 3])
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_input_raises_and_changes_nothing(case: str, steps: int, mode: str) -> None:
    env = make(4, illegal_action=mode)
    twin = make(4, illegal_action=mode)
    obs = play(env, seed=6, steps=steps, action_seed=2)
    play(twin, seed=6, steps=steps, action_seed=2)
    legal = lowest_legal(obs)
    before = env.get_state()
    with pytest.raises(IllegalActionError) as info:
        env.step(MALFORMED[case](legal))
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    if case.endswith("action"):
        assert "player_0" in msg, msg
    elif case.startswith("unknown"):
        assert "player_9" in msg or "bob" in msg, msg
    elif case.startswith(("missing", "empty")):
        assert "player_0" in msg, msg
    else:
        assert "dict" in msg.lower() or "mapping" in msg.lower(), msg
    assert env.get_state() == before
    assert_same(env.step(legal), twin.step(legal), "the step after a rejected one")


@pytest.mark.parametrize("steps", [0, 3])
def test_numpy_integer_actions_are_accepted(steps: int) -> None:
    plain = make(4)
    obs = play(plain, seed=8, steps=steps, action_seed=3)
    legal = lowest_legal(obs)
    expected = plain.step(legal)
    converters: list[Callable[[int], Any]] = [
        np.int64,
        np.int32,
        np.uint8,
        np.array,
        lambda v: np.array(v, np.int16),
    ]
    for convert in converters:
        env = make(4)
        play(env, seed=8, steps=steps, action_seed=3)
        converted = {a: convert(v) for a, v in legal.items()}
        assert all(not isinstance(v, int) for v in converted.values())
        assert_same(env.step(converted), expected, f"{convert}")


# --------------------------------------------------------- constructor args
BAD_KWARGS: list[tuple[str, Any]] = [
    ("num_players", 1),
    ("num_players", 7),
    ("num_players", "4"),
    ("num_players", 4.0),
    ("num_players", True),
    ("rules", "nope"),
    ("rules", 3),
    ("reward", "x"),
    ("reward", None),
    ("illegal_action", "x"),
    ("render_mode", "rgb"),
    ("render_mode", "ANSI"),
    ("max_cycles", 0),
    ("max_cycles", -3),
    ("max_cycles", 2.5),
    ("max_cycles", True),
    ("max_cycles", "10"),
    ("illegal_penalty", "x"),
]


@pytest.mark.parametrize(("name", "value"), BAD_KWARGS, ids=[f"{n}={v!r}" for n, v in BAD_KWARGS])
def test_bad_constructor_arguments_raise_config_error(name: str, value: Any) -> None:
    with pytest.raises(ConfigError) as info:
        hoity_env.parallel_env(**{name: value})
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    assert name in msg, msg
    if not isinstance(value, int) or isinstance(value, bool) or name == "num_players":
        assert repr(value) in msg or str(value) in msg, msg
    for factory in (hoity_env.env, hoity_env.raw_env):
        with pytest.raises(ConfigError):
            factory(**{name: value})


def test_defaults_and_good_arguments() -> None:
    env = hoity_env.parallel_env()
    assert env.num_players == 4 and env.possible_agents == AGENTS4
    assert env.reward_mode == "win_loss" and env.illegal_action == "fallback"
    assert env.max_cycles is None and env.render_mode is None and env.rules.name == "standard"
    for kwargs in (
        {"reward": "rank"},
        {"reward": "progress"},
        {"illegal_action": "penalize"},
        {"illegal_action": "raise"},
        {"render_mode": "ansi"},
        {"render_mode": "human"},
        {"max_cycles": 1},
        {"rules": "standard"},
    ):
        assert isinstance(hoity_env.parallel_env(**kwargs), HoityParallelEnv)


def test_rules_object_is_accepted() -> None:
    rules = RulesConfig(name="short", finish=6)
    env = make(3, rules=rules)
    assert env.rules is rules
    obs, _ = env.reset(seed=0)
    outs = run_to_end(env, obs, np.random.default_rng(0))
    assert all(outs[-1][2].values())  # decided
    assert max(env.get_state()["engine"]["positions"]) >= 6


def test_unknown_rules_preset_names_the_available_ones() -> None:
    # An unknown preset is refused with a message that lists what exists, instead of failing deeper.
    with pytest.raises(ConfigError, match="'original', 'standard'"):
        make(4, rules="classic")
    assert make(4, rules="original").rules.ruleset == "original"


# ---------------------------------------------------------------- round trips
def continue_both(env: HoityParallelEnv, other: HoityParallelEnv, obs: Obs, seed: int) -> int:
    """Step both envs with the same actions until the end, asserting identical outputs."""
    rng = np.random.default_rng(seed)
    steps = 0
    while env.agents:
        actions = masked_choice(obs, rng)
        out, out2 = env.step(actions), other.step(actions)
        assert_same(out, out2, f"step {steps} after the copy")
        obs = out[0]
        steps += 1
    assert other.agents == []
    assert_same(env.reset(), other.reset(), "next unseeded reset")  # the env's generator came along
    return steps


def clone_json(env: HoityParallelEnv) -> HoityParallelEnv:
    data = json.loads(json.dumps(env.get_state()))
    fresh = make(env.num_players, rules=env.rules)  # never reset
    fresh.set_state(data)
    return fresh


CLONERS: dict[str, Callable[[HoityParallelEnv], HoityParallelEnv]] = {
    "json get_state/set_state": clone_json,
    "deepcopy": copy.deepcopy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
}


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("steps", [0, 7, 10])
@pytest.mark.parametrize("num_players", [2, 5])
@pytest.mark.parametrize("how", sorted(CLONERS))
def test_round_trip_mid_game_continues_identically(
    how: str, num_players: int, steps: int, rules: str
) -> None:
    env = make(num_players, rules=rules)
    obs = play(env, seed=21, steps=steps, action_seed=21)
    clone = CLONERS[how](env)
    assert clone is not env
    assert clone.get_state() == env.get_state()
    assert clone.agents == env.agents
    assert np.array_equal(clone.state(), env.state())
    for a in env.possible_agents:
        assert_same(clone.observe(a), env.observe(a), a)
    assert continue_both(env, clone, obs, seed=steps) > 0


@pytest.mark.parametrize("how", sorted(CLONERS))
def test_copy_is_independent_of_original(how: str) -> None:
    env = make(4)
    obs = play(env, seed=2, steps=4)
    clone = CLONERS[how](env)
    snapshot = clone.get_state()
    env.step(masked_choice(obs, np.random.default_rng(0)))
    assert clone.get_state() == snapshot


@pytest.mark.parametrize("rules", RULESETS)
def test_round_trip_of_a_finished_game(rules: str) -> None:
    env = make(3, rules=rules)
    obs, _ = env.reset(seed=1)
    run_to_end(env, obs, np.random.default_rng(1))
    clone = clone_json(env)
    assert clone.agents == []
    assert clone.step({}) == ({}, {}, {}, {}, {})
    with pytest.raises(IllegalActionError):
        clone.step(dict.fromkeys(clone.possible_agents, 1))
    assert_same(clone.reset(), env.reset())


def test_get_state_is_json_safe_and_fresh() -> None:
    env = make(4)
    play(env, seed=3, steps=5)
    state = env.get_state()
    assert json.loads(json.dumps(state)) == state
    kept = copy.deepcopy(state)
    state["engine"]["money"][0] = 12345
    state["engine"]["hands"][0].clear()
    state["env"]["events"].clear()
    state["env"]["agents"].clear()
    assert env.get_state() == kept, "get_state handed out internal lists"


Corruptor = Callable[[dict[str, Any]], Any]


def _set(path: tuple[Any, ...], value: Any) -> Corruptor:
    def corrupt(d: dict[str, Any]) -> Any:
        node = d
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return d

    return corrupt


def _del(*path: str) -> Corruptor:
    def corrupt(d: dict[str, Any]) -> Any:
        node = d
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        return d

    return corrupt


def _card_twice(d: dict[str, Any]) -> Any:
    hands = d["engine"]["hands"]
    hands[0][0] = hands[1][0]
    return d


def _public_not_in_hand(d: dict[str, Any]) -> Any:
    d["engine"]["public"][0] = [d["engine"]["hands"][1][0]]
    return d


def _three_player_state(d: dict[str, Any]) -> Any:
    other = make(3)
    other.reset(seed=0)
    return other.get_state()


CORRUPT: dict[str, Corruptor] = {
    "not a dict": lambda d: [d],
    "None": lambda d: None,
    "wrong version": _set(("version",), 99),
    "missing env": _del("env"),
    "env not a dict": _set(("env",), []),
    "missing engine": _del("engine"),
    "engine not a dict": _set(("engine",), "state"),
    "card in two places": _card_twice,
    "card id out of range": _set(("engine", "lot"), 999),
    "negative money": _set(("engine", "money", 0), -1),
    "money above start": _set(("engine", "money", 1), 10_000),
    "bad phase": _set(("engine", "phase"), "lunch"),
    "missing draw pile": _del("engine", "draw_pile"),
    "public card not in hand": _public_not_in_hand,
    "bad rng": _set(("engine", "rng"), {"bit_generator": "MT19937"}),
    "other player count": _three_player_state,
    "agents partial": _set(("env", "agents"), ["player_0"]),
    "agents empty mid-game": _set(("env", "agents"), []),
    "negative cycles": _set(("env", "cycles"), -1),
    "cycles str": _set(("env", "cycles"), "3"),
    "events not a list": _set(("env", "events"), "none"),
    "events of non-dicts": _set(("env", "events"), [1, 2]),
    "env rng missing": _del("env", "np_random"),
    "env rng garbage": _set(("env", "np_random"), {"bit_generator": "PCG64", "state": "x"}),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_set_state_rejects_corrupt_dicts_and_changes_nothing(case: str) -> None:
    source = make(4)
    play(source, seed=30, steps=6)
    target, twin = make(4), make(4)
    obs = play(target, seed=31, steps=3, action_seed=5)
    play(twin, seed=31, steps=3, action_seed=5)
    before = target.get_state()
    bad = CORRUPT[case](copy.deepcopy(source.get_state()))
    with pytest.raises(StateError) as info:
        target.set_state(bad)
    assert isinstance(info.value, ValueError) and str(info.value)
    assert target.get_state() == before
    assert target.agents == AGENTS4
    actions = lowest_legal(obs)
    assert_same(target.step(actions), twin.step(actions), "step after a rejected set_state")


# --------------------------------------------------------------- fresh outputs
def arrays_of(obs: Obs, infos: dict[str, dict[str, Any]]) -> list[np.ndarray]:
    out = []
    for a in obs:
        out += [obs[a]["observation"], obs[a]["action_mask"], infos[a]["action_mask"]]
    return out


def assert_no_shared_memory(arrays: list[np.ndarray]) -> None:
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            assert not np.shares_memory(arrays[i], arrays[j]), f"arrays {i} and {j} share memory"


def vandalize(obs: Obs, infos: dict[str, dict[str, Any]]) -> None:
    """Do to the outputs what a careless user might do."""
    for a in obs:
        obs[a]["observation"][:] = 0.5
        obs[a]["action_mask"][:] = 1
        infos[a]["action_mask"][:] = 0
        infos[a]["events"].clear()
        infos[a]["phase"] = 99
        infos[a]["extra"] = True
    obs.clear()


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", [2, 4])
def test_outputs_are_fresh_and_mutating_them_changes_nothing(rules: str, num_players: int) -> None:
    env = make(num_players, rules=rules, action_mask="both", info_events=True)
    twin = make(num_players, rules=rules, action_mask="both", info_events=True)
    rng = np.random.default_rng(12)
    obs, infos = env.reset(seed=12)
    tobs, _tinfos = twin.reset(seed=12)
    previous = arrays_of(obs, infos)
    assert_no_shared_memory([*previous, env.state()])
    actions = masked_choice(tobs, rng)
    vandalize(obs, infos)
    while twin.agents:
        out = env.step(actions)
        tout = twin.step(actions)
        assert_same(out, tout, "after vandalizing the previous outputs")
        assert env.get_state() == twin.get_state()
        current = arrays_of(out[0], out[4])
        assert_no_shared_memory([*current, env.state()])
        for old in previous:
            for new in current:
                assert not np.shares_memory(old, new), "an array handed out earlier was reused"
        previous = current
        if twin.agents:
            actions = masked_choice(tout[0], rng)
        vandalize(out[0], out[4])
        out[1].clear()
        out[2].clear()
    st = env.state()
    st[:] = 0.75
    assert np.array_equal(env.state(), twin.state())


def test_step_dicts_are_fresh_objects() -> None:
    env = make(3, info_events=True)
    obs, _infos = env.reset(seed=0)
    out = env.step(lowest_legal(obs))
    out2 = env.step(lowest_legal(out[0]))
    for d1, d2 in zip(out, out2, strict=True):
        assert d1 is not d2
    for a in env.possible_agents:
        assert out[0][a] is not out2[0][a] and out[4][a] is not out2[4][a]
        assert out[4][a]["events"] is not out2[4][a]["events"]
    assert out[4]["player_0"] is not out[4]["player_1"]
    assert out[4]["player_0"]["events"] is not out[4]["player_1"]["events"]


def to_json(value: Any) -> Any:
    """The JSON form (whatever containers the env uses for events: dicts/lists or read-only ones)."""
    return json.loads(json.dumps(value))


EVENT_VANDALISM: list[Callable[[list[Any]], Any]] = [
    lambda ev: ev[0].__setitem__("kind", "vandalized"),
    lambda ev: ev[0].__setitem__("extra", 1),
    lambda ev: ev[0]["locations"].append("nowhere") if "locations" in ev[0] else ev[0]["actions"].append(0),
    lambda ev: ev[0]["actions"][0].__setitem__("bid", 99) if "actions" in ev[0] else None,
    lambda ev: ev[-1].clear(),
    lambda ev: ev.append({"kind": "fake", "round": 0}),
    lambda ev: ev.clear(),
]


def test_events_handed_out_cannot_change_other_agents_or_the_env() -> None:
    """No shared buffers: infos events are per-agent copies or read-only; editing them changes nothing."""
    env = make(3, render_mode="ansi", info_events=True)
    twin = make(3, render_mode="ansi", info_events=True)
    obs, _ = env.reset(seed=0)
    twin.reset(seed=0)
    for _ in range(4):  # two location steps and two action steps
        actions = lowest_legal(obs)
        obs, _, _, _, infos = env.step(actions)
        _, _, _, _, tinfos = twin.step(actions)
        assert to_json(infos["player_0"]["events"]) == to_json(tinfos["player_0"]["events"])
        for vandalize_events in EVENT_VANDALISM:
            with contextlib.suppress(TypeError, AttributeError):
                vandalize_events(infos["player_0"]["events"])
        for a in ("player_1", "player_2"):
            assert to_json(infos[a]["events"]) == to_json(tinfos[a]["events"])
        assert env.last_events == twin.last_events
        assert env.get_state() == twin.get_state()
        assert env.render() == twin.render()


def test_rejected_step_with_an_illegal_and_a_malformed_action_changes_nothing() -> None:
    """A malformed action anywhere rejects the whole step before the illegal-action policy acts."""
    env, twin = make(3), make(3)
    env.reset(seed=0)
    twin.reset(seed=0)
    before = env.get_state()
    with warnings.catch_warnings(record=True) as record, pytest.raises(IllegalActionError, match="player_1"):
        warnings.simplefilter("always")
        env.step({"player_0": EXHIBIT, "player_1": "1", "player_2": CASTLE})
    assert env.get_state() == before
    assert not [w for w in record if "masked-out" in str(w.message)], "a rejected step warned"
    # The first real illegal action still warns (the once-per-env warning was not used up).
    bad = {"player_0": EXHIBIT, "player_1": CASTLE, "player_2": CASTLE}
    with pytest.warns(UserWarning, match="masked-out"):
        out = env.step(bad)
    with pytest.warns(UserWarning, match="masked-out"):
        tout = twin.step(bad)
    assert_same(out, tout)


# --------------------------------------------------------------------- infos
def test_infos_carry_mask_phase_and_public_events() -> None:
    """The full infos (``action_mask="both"``, ``info_events=True``).

    The defaults: tests/environment/test_env_outputs.py."""
    env = make(4, action_mask="both", info_events=True)
    obs, infos = env.reset(seed=2)
    for a in AGENTS4:
        assert infos[a]["phase"] == 0  # the location step
        assert infos[a]["events"] == []
        assert infos[a]["illegal_action"] is False
    actions = {"player_0": AUCTION, "player_1": AUCTION, "player_2": CASTLE, "player_3": CASTLE}
    obs, _, _, _, infos = env.step(actions)
    for a in AGENTS4:
        assert infos[a]["phase"] == 1  # the action step
        assert to_json(infos[a]["events"]) in (  # the location reveal may be reported already
            [],
            [{"kind": "locations", "round": 0, "locations": ["auction", "auction", "castle", "castle"]}],
        )
    acts = {"player_0": BID0 + 5, "player_1": BID0 + 3, "player_2": DETECTIVE, "player_3": DETECTIVE}
    obs, _, _, _, infos = env.step(acts)
    events = to_json(infos["player_0"]["events"])  # JSON-safe
    assert events[0] == {
        "kind": "actions",
        "round": 0,
        "actions": [
            {"location": "auction", "bid": 5},
            {"location": "auction", "bid": 3},
            {"location": "castle", "role": "detective"},
            {"location": "castle", "role": "detective"},
        ],
    }
    purchases = [e for e in events if e["kind"] == "purchase"]
    assert len(purchases) == 1 and purchases[0]["player"] == 0 and purchases[0]["price"] == 5
    assert env.get_state()["engine"]["money"][0] == 45
    for a in AGENTS4:
        assert infos[a]["phase"] == 0
        assert to_json(infos[a]["events"]) == events
        assert np.array_equal(infos[a]["action_mask"], obs[a]["action_mask"])


# --------------------------------------------------------------------- render
@pytest.mark.parametrize("num_players", [2, 6])
def test_render_ansi_returns_text_naming_players(num_players: int) -> None:
    env = make(num_players, render_mode="ansi")
    obs = play(env, seed=0, steps=0)
    for _ in range(3):
        text = env.render()
        assert isinstance(text, str) and text
        for p in range(num_players):
            assert f"player_{p}" in text
        obs = env.step(lowest_legal(obs))[0]
    assert "locations" in env.render() or "actions" in env.render()


def test_render_human_prints_and_returns_none(capsys: pytest.CaptureFixture[str]) -> None:
    env = make(3, render_mode="human")
    obs, _ = env.reset(seed=0)
    capsys.readouterr()
    assert env.render() is None
    printed = capsys.readouterr().out
    assert all(f"player_{p}" in printed for p in range(3))
    env.step(lowest_legal(obs))
    assert "player_0" in capsys.readouterr().out  # human mode draws every step
    ansi = make(3, render_mode="ansi")
    ansi.reset(seed=0)
    assert ansi.render() in printed


# ------------------------------------------------------------ original ruleset
def test_original_action_groups_and_codec() -> None:  # RULES O-4
    env = make(4, rules="original")
    codec = env.codec
    assert env.action_space("player_0").n == 7 + 2 * 24  # locations, 4 castle cards, auction thief, checks
    assert [g[0] for g in env.game.layout.groups] == ["location", "castle", "auction_thief", "check"]
    assert [codec.role(r) for r in ("exhibit", "thief_low", "thief_high", "detective")] == [2, 3, 4, 5]
    assert codec.auction_thief() == 6 and codec.check(1, 0) == 7 and codec.check(24, 1) == 54
    assert codec.decode(codec.check(15, 1)) == ("check", (15, 1))
    assert codec.describe(codec.check(15, 1)) == "check 15 on lot 1"
    assert codec.describe(6) == "thief at the auction" and codec.describe(4) == "thief_high"
    for bad in ((0, 0), (25, 0), (3, 2)):
        with pytest.raises(IllegalActionError):
            codec.check(*bad)
    with pytest.raises(IllegalActionError, match="thief_low"):
        codec.role("thief")


def test_rulesets_have_observations_of_different_lengths() -> None:
    """Agents tell the rulesets apart by the observation's length alone (hoity_env.agents.view)."""
    lengths = {
        rules: {
            make(n, rules=rules).observation_space("player_0")["observation"].shape[0] for n in range(2, 7)
        }
        for rules in RULESETS
    }
    assert len(lengths["standard"]) == len(lengths["original"]) == 5
    assert not lengths["standard"] & lengths["original"]
