"""Restoring a saved state: only reachable states get in, and a rejected one changes nothing.

``GameState.from_dict`` enforces the invariants listed in ``hoity_env.engine.state_io``;
``HoityParallelEnv.set_state`` validates everything before it installs anything.
The fuzz test at the end mutates valid snapshots 1,500 times: every
accepted mutation must satisfy the invariants and play to a zero-sum end, every
rejected one must raise ``StateError`` and leave the env bit-identical.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hoity_env
from hoity_env import Game, GameState, HoityParallelEnv, RulesConfig, StateError

Snapshot = dict[str, Any]


def _env_in_play(seed: int = 3, steps: int = 9, **kwargs: Any) -> HoityParallelEnv:
    env = hoity_env.parallel_env(num_players=4, **kwargs)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    assert env.agents
    return env


def _finished_snapshot(seed: int = 5) -> Snapshot:
    env = hoity_env.parallel_env(num_players=4)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while env.agents:
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    snap = env.get_state()
    assert snap["engine"]["terminated"]
    return snap


def _assert_rejected_unchanged(env: HoityParallelEnv, bad: Any, match: str = "") -> None:
    before = env.get_state()
    obs_before = {a: env.observe(a) for a in env.possible_agents}
    with pytest.raises(StateError, match=match):
        env.set_state(bad)
    assert env.get_state() == before
    for agent, ob in obs_before.items():
        now = env.observe(agent)
        assert np.array_equal(now["observation"], ob["observation"])
        assert np.array_equal(now["action_mask"], ob["action_mask"])
    env.state()  # still usable


# ------------------------------------------------------- item 9: validate, then install
def test_set_state_with_an_impossible_last_action_is_a_state_error_and_installs_nothing() -> None:
    env = _env_in_play()
    bad = _env_in_play(seed=4, steps=4).get_state()
    bad["engine"]["last_actions"][0] = 57  # beyond the 56 actions of the standard game
    _assert_rejected_unchanged(env, bad, "last_actions")
    obs = {a: env.observe(a) for a in env.agents}
    env.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})


# ------------------------------------------------------- item 10: reachable states only
def _engine(**changes: Any) -> Callable[[Snapshot], None]:
    def mutate(snap: Snapshot) -> None:
        snap["engine"].update(changes)

    return mutate


def _tally(p: int, i: int, value: int) -> Callable[[Snapshot], None]:
    def mutate(snap: Snapshot) -> None:
        snap["engine"]["tallies"][p][i] = value

    return mutate


def _event(**fields: Any) -> Callable[[Snapshot], None]:
    def mutate(snap: Snapshot) -> None:
        snap["env"]["events"] = [fields]

    return mutate


def _at(path: tuple[Any, ...], value: Any) -> Callable[[Snapshot], None]:
    def mutate(snap: Snapshot) -> None:
        node: Any = snap
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


def _overspent(snap: Snapshot) -> None:
    """A player who spent one more than all its bids (the issue's money[2] = 10 with no visit)."""
    engine = snap["engine"]
    p = min(range(4), key=lambda k: engine["tallies"][k][5])
    engine["money"][p] = engine["rules"]["starting_money"] - engine["tallies"][p][5] - 1


def _float_rng(snap: Snapshot) -> None:
    inner = snap["engine"]["rng"]["state"]
    inner["state"] = float(inner["state"])


def _even_inc(snap: Snapshot) -> None:
    snap["engine"]["rng"]["state"]["inc"] -= 1


def _float_env_rng(snap: Snapshot) -> None:
    inner = snap["env"]["np_random"]["state"]
    inner["state"] = float(inner["state"])


IN_PLAY_BREAKS: dict[str, tuple[Callable[[Snapshot], None], str]] = {
    "tally of a billion": (_tally(0, 0, 10**9), "tallies"),
    "visits disagree with rounds": (_tally(1, 1, 0), "tallies"),
    "roles disagree with castle visits": (_tally(2, 3, 5), "tallies"),
    "bid total above the money": (_tally(0, 5, 10**6), "tallies"),
    "position of a billion in play": (_engine(positions=[10**9, 0, 0, 0]), "positions"),
    "position at the finish in play": (_engine(positions=[30, 0, 0, 0]), "terminated"),
    "round at max_rounds untruncated": (_engine(round=100), "round|tallies|truncated"),
    "truncated early": (_engine(truncated=True), "truncated"),
    "version True": (_at(("engine", "version"), True), "version"),
    "version 1.0": (_at(("engine", "version"), 1.0), "version"),
    "env version True": (_at(("version",), True), "version"),
    "event of unknown kind": (_event(kind="party", round=0), "kind"),
    "event with a card out of range": (_event(kind="new_lot", round=0, card=999), "card"),
    "event missing a field": (_event(kind="purchase", round=0, player=0, card=1), "fields"),
    "event with a str seat": (_event(kind="score", round=0, player="0", cards=[1, 2, 3]), "player"),
    "event actions not dicts": (_event(kind="actions", round=0, actions=[1, 2, 3, 4]), "actions"),
    "event from the future": (_event(kind="auction_closed", round=99), "round"),
    "cycles off the round count": (_at(("env", "cycles"), 1), "cycles"),
    "warned_illegal not a bool": (_at(("env", "warned_illegal"), "yes"), "warned_illegal"),
    # issue 21, item 7: money the engine could not have reached
    "money spent beyond the bids": (_overspent, "spent .* but bid only"),
    "money above the start": (_at(("engine", "money", 0), 51), "money"),
    # wrong error types, and one unknown-key policy everywhere
    "rng state an np.int64": (_at(("engine", "rng", "state"), np.int64(1)), "rng"),
    "rng state a float": (_float_rng, "rng"),
    "rng inc even": (_even_inc, "rng"),
    "env rng state a float": (_float_env_rng, "np_random"),
    "thief_numbers an empty array": (
        _at(("engine", "rules", "thief_numbers"), np.array([])),
        "thief_numbers",
    ),
    "unknown top-level key": (_at(("extra",), 1), "unknown field"),
    "unknown engine key": (_at(("engine", "extra"), 1), "unknown field"),
    "unknown env key": (_at(("env", "extra"), 1), "unknown field"),
    "unknown rng key": (_at(("engine", "rng", "extra"), 1), "rng"),
    "unknown env rng key": (_at(("env", "np_random", "extra"), 1), "np_random"),
}


@pytest.mark.parametrize("case", sorted(IN_PLAY_BREAKS))
def test_set_state_rejects_unreachable_states_in_play(case: str) -> None:
    mutate, match = IN_PLAY_BREAKS[case]
    snap = _env_in_play(seed=8, steps=10).get_state()
    mutate(snap)
    _assert_rejected_unchanged(_env_in_play(), snap, match)


def _winners(value: list[int]) -> Callable[[Snapshot], None]:
    return _at(("engine", "winners"), value)


FINISHED_BREAKS: dict[str, tuple[Callable[[Snapshot], None], str]] = {
    "winners repeated": (_winners([0, 0]), "winners"),
    "winners off the finish": (_winners([0, 1, 2, 3]), "winners"),
    "a position beyond any move": (_at(("engine", "positions", 0), 10**9), "positions"),
}


@pytest.mark.parametrize("case", sorted(FINISHED_BREAKS))
def test_set_state_rejects_impossible_outcomes(case: str) -> None:
    mutate, match = FINISHED_BREAKS[case]
    snap = _finished_snapshot()
    if case == "winners off the finish":  # make sure the listed seats really are not all first
        assert snap["engine"]["winners"] != [0, 1, 2, 3]
    mutate(snap)
    _assert_rejected_unchanged(_env_in_play(), snap, match)


def test_money_spent_with_no_lot_sold_is_refused() -> None:
    d = Game("standard", 4).new_state(0).to_dict()
    d["money"][1] = 49  # nobody has bid, nothing was sold
    with pytest.raises(StateError, match="money"):
        GameState.from_dict(d)
    GameState.from_dict(d, hand_made=True)  # a position set up by hand skips the history checks


def test_a_hand_with_more_bought_cards_than_rounds_is_refused() -> None:
    d = Game("standard", 4).new_state(0).to_dict()
    d["hands"][0].append(d["lot"])  # a card bought in round 0, before any round was played
    d["lot"] = d["draw_pile"].pop()
    with pytest.raises(StateError, match="at most one lot a round"):
        GameState.from_dict(d)


def test_reachable_money_holds_in_played_games() -> None:
    """Guard for the money checks: every state of real games (both rulesets) passes them."""
    for rules in ("standard", "original"):
        for seed in range(3):
            env = hoity_env.parallel_env(num_players=4, rules=rules)
            obs, _ = env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            while env.agents:
                obs = env.step(
                    {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
                )[0]
                GameState.from_dict(env.get_state()["engine"])


def test_original_register_beyond_the_sales_is_refused() -> None:
    env = hoity_env.parallel_env(num_players=4, rules="original")
    env.reset(seed=0)
    d = env.get_state()["engine"]
    d["register"].append(d["checks"][0].pop())  # a check paid before any lot was sold
    d["money"][0] = sum(d["checks"][0])
    with pytest.raises(StateError, match="register"):
        GameState.from_dict(d)


@pytest.mark.parametrize("value", ["x", None, [1], 1.5, True])
def test_original_tallies_holding_a_non_int_are_a_state_error_and_install_nothing(value: object) -> None:
    """Issue 37: a str in ``tallies[p][0]`` (original rules) was a ``TypeError`` from the check total."""
    env = hoity_env.parallel_env(num_players=4, rules="original")
    env.reset(seed=0)
    before = env.get_state()
    bad = copy.deepcopy(before)
    bad["engine"]["tallies"][0][0] = value
    with pytest.raises(StateError, match=r"tallies\[0\]"):
        env.set_state(bad)
    assert env.get_state() == before


def test_from_dict_rejects_bool_and_float_versions() -> None:
    d = Game().new_state(0).to_dict()
    for bad in (True, 1.0):
        with pytest.raises(StateError, match="version"):
            GameState.from_dict({**d, "version": bad})


def test_a_finished_snapshot_restores_and_its_rewards_were_zero_sum() -> None:
    snap = _finished_snapshot()
    env = hoity_env.parallel_env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    env.set_state(snap)
    assert env.agents == [] and env.get_state() == snap
    assert isinstance(env.render(), str)


# ------------------------------------------------------- item 14: name the differing field
def test_rules_mismatch_names_the_differing_fields() -> None:
    d = Game("standard", 4).new_state(0).to_dict()
    with pytest.raises(StateError) as info:
        Game(RulesConfig(finish=31, thief_penalty=3), 4).state_from_dict(d)
    message = str(info.value)
    assert "finish 30 (game: 31)" in message and "thief_penalty 2 (game: 3)" in message
    assert "standard', not" not in message


# ------------------------------------------------------------------ the fuzz test
_VALUES: tuple[Any, ...] = (-1, 0, 1, 2, 3, 29, 30, 57, 100, 10**9, True, False, None, "x", 1.0, [], {})


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every dict value and list element (containers included: they can be replaced too)."""
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _leaves(v, (*path, i))
    return out


def _mutate(snap: Snapshot, rng: np.random.Generator) -> Snapshot:
    """One random edit: replace a value, nudge an int, delete a key, or swap two list items."""
    out = copy.deepcopy(snap)
    paths = _leaves(out)
    path = paths[int(rng.integers(len(paths)))]
    parent: Any = out
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    value = parent[key]
    kind = int(rng.integers(4))
    if kind == 0:
        parent[key] = _VALUES[int(rng.integers(len(_VALUES)))]
    elif kind == 1 and isinstance(value, int) and not isinstance(value, bool):
        parent[key] = value + int(rng.choice([-2, -1, 1, 2]))
    elif kind == 2 and isinstance(parent, dict):
        del parent[key]
    elif isinstance(parent, list) and len(parent) > 1:
        j = int(rng.integers(len(parent)))
        parent[key], parent[j] = parent[j], parent[key]
    else:
        parent[key] = _VALUES[int(rng.integers(len(_VALUES)))]
    return out


def _check_and_play_out(env: HoityParallelEnv, rng: np.random.Generator) -> None:
    """The restored state satisfies the env contract and plays to a zero-sum end."""
    space = env.observation_space("player_0")
    state_space = env.state_space
    assert state_space.contains(env.state())
    obs = {a: env.observe(a) for a in env.agents}
    env.render()
    total = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(500):
        if not env.agents:
            break
        for o in obs.values():
            row = o["observation"]
            assert row.min() >= 0.0 and row.max() <= 1.0 and o["action_mask"].any()
        legal = {a: np.flatnonzero(o["action_mask"]) for a, o in obs.items()}
        obs, rewards, _, _, _ = env.step({a: int(m[rng.integers(m.size)]) for a, m in legal.items()})
        for a, r in rewards.items():
            total[a] += r
    env.render()
    assert all(space.contains(o) for o in obs.values())
    assert not env.agents, "the restored game did not end"
    assert abs(sum(total.values())) < 1e-9


def test_fuzzed_snapshots_are_either_playable_or_rejected_without_change() -> None:
    rng = np.random.default_rng(2024)
    sources = [_env_in_play(seed=s, steps=k).get_state() for s, k in ((1, 0), (2, 1), (3, 8), (4, 25))]
    sources.append(_finished_snapshot(6))
    target = _env_in_play(seed=9, steps=5, render_mode="ansi")
    before = target.get_state()
    accepted = rejected = 0
    for case in range(1500):
        snap = _mutate(sources[case % len(sources)], rng)
        try:
            target.set_state(snap)
        except StateError:
            rejected += 1
            assert target.get_state() == before, f"case {case}: a rejected set_state changed the env"
            continue
        accepted += 1
        assert target.get_state()["engine"] == GameState.from_dict(snap["engine"]).to_dict()
        _check_and_play_out(target, rng)
        target.set_state(before)
    # Both outcomes must actually occur, or the loop tests nothing.
    assert accepted > 100 and rejected > 500, (accepted, rejected)
