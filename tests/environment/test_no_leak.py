"""RULES C-5 / docs/design.md §2: an observation holds public information and the player's own
private information, and nothing else.

Method: take a real mid-game state (seeded random play through the env), move hidden
cards around (a card in another player's hand that is not publicly known, swapped
with a draw-pile card or with a hidden card of a third player; every card stays in
exactly one place), load the result into a fresh env with ``set_state`` and compare.
Every player whose own hand did not change must see a bit-identical observation and
mask, in location and action steps, also after a further location step (the
encoder's patch path).  The converse checks keep the test honest: a player's own
hidden card does change its observation (only in its ``own.*`` slices), and the
global ``state()`` changes too (it holds the hidden hands).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import hoity_env
from hoity_env import HoityParallelEnv
from tests.helpers import RULESETS

Obs = dict[str, np.ndarray]
SEEDS = range(8)


by_rules = pytest.mark.parametrize("rules", RULESETS)


def make(num_players: int, rules: str) -> HoityParallelEnv:
    # Every output form at once: the mask in both places and the events in infos may not leak either.
    return hoity_env.parallel_env(num_players=num_players, rules=rules, action_mask="both", info_events=True)


def face_down(engine: dict[str, Any]) -> list[int]:
    """The face-down cards' list inside ``engine`` (edits change it): the standard draw pile, or the
    original ruleset's first non-empty pile (RULES O-1)."""
    if "piles" not in engine:
        return engine["draw_pile"]  # type: ignore[no-any-return]
    piles = engine["piles"]
    return piles[0] if piles[0] or not piles[1] else piles[1]  # type: ignore[no-any-return]


def trajectory(num_players: int, seed: int, rules: str) -> list[tuple[dict[str, Any], dict[str, Obs]]]:
    """``(get_state(), outputs)`` after reset and after every step of one seeded random game (not the end)."""
    env = make(num_players, rules)
    rng = np.random.default_rng(seed + 1000)
    obs, _ = env.reset(seed=seed)
    points = []
    while env.agents:
        points.append((json.loads(json.dumps(env.get_state())), obs))
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs = env.step(actions)[0]
    return points


def checkpoints(length: int, rng: np.random.Generator) -> list[int]:
    """Step indices to examine: the deal, both phases early, and random later ones of each parity."""
    picks = {0, 1, 2, 3}
    for parity in (0, 1):
        candidates = [t for t in range(4, length) if t % 2 == parity]
        if candidates:
            picks.update(int(t) for t in rng.choice(candidates, size=min(2, len(candidates)), replace=False))
    return sorted(t for t in picks if t < length)


def sampled_points(
    num_players: int, rules: str, salt: int
) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Obs], np.random.Generator]]:
    """``(full state, its engine part, step observations, rng)`` at the checkpoints of each seed's trajectory.

    The rng (seeded ``seed + salt``) picks the checkpoints, then drives the test's own choices.
    """
    for seed in SEEDS:
        points = trajectory(num_players, seed, rules)
        rng = np.random.default_rng(seed + salt)
        for t in checkpoints(len(points), rng):
            full, step_obs = points[t]
            yield full, full["engine"], step_obs, rng


def hidden_cards(engine: dict[str, Any], player: int) -> list[int]:
    public = set(engine["public"][player])
    return [c for c in engine["hands"][player] if c not in public]


def swap_cards(
    engine: dict[str, Any], first: tuple[str, int, int], second: tuple[str, int, int]
) -> dict[str, Any]:
    """A copy of ``engine`` with two cards exchanged in place.

    A place is ``("hand", player, card)`` or ``("draw", -1, card)``; list positions are kept.
    """
    new = copy.deepcopy(engine)

    def slot(place: tuple[str, int, int]) -> tuple[list[int], int]:
        kind, player, card = place
        cards = face_down(new) if kind == "draw" else new["hands"][player]
        return cards, cards.index(card)

    (list_a, i), (list_b, j) = slot(first), slot(second)
    list_a[i], list_b[j] = list_b[j], list_a[i]
    return new


def pick_other_series(cards: list[int], series: list[int], than: int, rng: np.random.Generator) -> int | None:
    """A random card of ``cards`` whose series differs from card ``than``'s (None if there is none)."""
    options = [c for c in cards if series[c] != series[than]]
    return options[int(rng.integers(len(options)))] if options else None


def load(num_players: int, full: dict[str, Any], engine: dict[str, Any]) -> HoityParallelEnv:
    env = make(num_players, engine["rules"]["name"])
    env.set_state({**full, "engine": engine})
    return env


def views(env: HoityParallelEnv) -> dict[str, Obs]:
    return {a: env.observe(a) for a in env.possible_agents}


def assert_bit_identical(a: Obs, b: Obs, where: str) -> None:
    for key in ("observation", "action_mask"):
        assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, f"{where} {key}"
        assert a[key].tobytes() == b[key].tobytes(), f"{where}: {key} differs: hidden information leaks"


def changed_names(env: HoityParallelEnv, a: np.ndarray, b: np.ndarray) -> set[str]:
    return {name for name, sl in env.obs_layout().items() if not np.array_equal(a[sl], b[sl])}


def location_step(env: HoityParallelEnv, seed: int) -> dict[str, Any]:
    """Step a location step with seeded legal choices (the same for every twin); return the outputs."""
    rng = np.random.default_rng(seed)
    obs = views(env)
    actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
    out = env.step(actions)
    return {"obs": out[0], "infos": out[4], "rewards": out[1]}


class Tally:
    """Counts the comparisons actually made, so the test cannot pass vacuously."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1


def check_swap(
    num_players: int,
    full: dict[str, Any],
    base: HoityParallelEnv,
    base_views: dict[str, Obs],
    swapped_engine: dict[str, Any],
    affected: set[int],
    series_changed: bool,
    tally: Tally,
    kind: str,
) -> None:
    """Players outside ``affected`` see nothing change; the global state does change."""
    env = load(num_players, full, swapped_engine)
    new_views = views(env)
    phase = full["engine"]["phase"]
    for p in range(num_players):
        agent = f"player_{p}"
        if p in affected:
            continue
        assert_bit_identical(base_views[agent], new_views[agent], f"{kind} ({phase}), observer {agent}")
        tally.add(f"{kind}/{phase}")
    if series_changed:
        assert not np.array_equal(base.state(), env.state()), "state() must hold the hidden hands"
        for p in affected:  # the owner of a changed hand sees its own change
            agent = f"player_{p}"
            diff = changed_names(env, base_views[agent]["observation"], new_views[agent]["observation"])
            assert "own.hand" in diff and all(name.startswith("own.") for name in diff), diff
        tally.add(f"state/{kind}")
    if phase == "location":
        # One more step with the same public choices: still nothing visible changes.
        twin = load(num_players, full, full["engine"])
        seed = len(face_down(full["engine"])) + 17
        before = location_step(twin, seed)
        after = location_step(env, seed)
        for p in range(num_players):
            agent = f"player_{p}"
            if p in affected:
                continue
            assert_bit_identical(before["obs"][agent], after["obs"][agent], f"{kind} after a location step")
            assert before["infos"][agent]["events"] == after["infos"][agent]["events"]
            assert np.array_equal(before["infos"][agent]["action_mask"], after["infos"][agent]["action_mask"])
            tally.add(f"{kind}/next action step")


@by_rules
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_other_players_hidden_cards_do_not_leak(rules: str, num_players: int) -> None:
    tally = Tally()
    for full, engine, step_obs, rng in sampled_points(num_players, rules, 0):
        base = load(num_players, full, engine)
        base_views = views(base)
        for agent in base.possible_agents:  # observe() after set_state == what step() returned
            assert_bit_identical(step_obs[agent], base_views[agent], f"reloaded view of {agent}")
        series = base.game.deck.series
        for q in range(num_players):
            hidden_q = hidden_cards(engine, q)
            if not hidden_q:
                continue
            card = hidden_q[int(rng.integers(len(hidden_q)))]
            # (a) with a card from the draw pile
            other = pick_other_series(face_down(engine), series, card, rng)
            if other is None and face_down(engine):
                other = face_down(engine)[-1]
            if other is not None:
                swapped = swap_cards(engine, ("hand", q, card), ("draw", -1, other))
                new_series = series[other] != series[card]
                check_swap(num_players, full, base, base_views, swapped, {q}, new_series, tally, "draw swap")
            # (b) with a hidden card of a third player
            for r in range(num_players):
                hidden_r = hidden_cards(engine, r)
                if r == q or not hidden_r:
                    continue
                other = pick_other_series(hidden_r, series, card, rng)
                if other is None:
                    other = hidden_r[0]
                swapped = swap_cards(engine, ("hand", q, card), ("hand", r, other))
                new_series = series[other] != series[card]
                check_swap(
                    num_players, full, base, base_views, swapped, {q, r}, new_series, tally, "hand swap"
                )
                break
    counts = tally.counts
    assert counts.get("draw swap/location", 0) >= 20, counts
    assert counts.get("draw swap/action", 0) >= 20, counts
    assert counts.get("draw swap/next action step", 0) >= 20, counts
    assert counts.get("state/draw swap", 0) >= 20, counts
    if num_players >= 3:  # with two players a hand swap leaves no uninvolved observer
        assert counts.get("hand swap/location", 0) >= 10, counts
        assert counts.get("hand swap/action", 0) >= 10, counts
    assert counts.get("state/hand swap", 0) >= 10, counts


@by_rules
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_own_hidden_card_changes_own_observation_only(rules: str, num_players: int) -> None:
    """The converse: the encoder does see the hand it may see (so the leak test can fail)."""
    checked = 0
    for full, engine, _, rng in sampled_points(num_players, rules, 1):
        base = load(num_players, full, engine)
        base_views = views(base)
        series = base.game.deck.series
        for p in range(num_players):
            hidden = hidden_cards(engine, p)
            if not hidden:
                continue
            card = hidden[0]
            other = pick_other_series(face_down(engine), series, card, rng)
            if other is None:
                continue
            env = load(num_players, full, swap_cards(engine, ("hand", p, card), ("draw", -1, other)))
            new_views = views(env)
            agent = f"player_{p}"
            own = base_views[agent]["observation"]
            diff = changed_names(env, own, new_views[agent]["observation"])
            assert "own.hand" in diff, f"{agent}'s own hidden card is missing from its observation"
            assert all(name.startswith("own.") for name in diff), diff
            for o in range(num_players):
                if o != p:
                    assert_bit_identical(base_views[f"player_{o}"], new_views[f"player_{o}"], "bystander")
            assert not np.array_equal(base.state(), env.state())
            checked += 1
    assert checked >= 30


def test_swap_keeps_every_card_in_exactly_one_place() -> None:
    """The test's own surgery is valid: the env accepts it and every card is still somewhere once."""
    full, _ = trajectory(4, 3, "standard")[6]
    engine = full["engine"]
    q = next(p for p in range(4) if hidden_cards(engine, p))
    swapped = swap_cards(
        engine, ("hand", q, hidden_cards(engine, q)[0]), ("draw", -1, engine["draw_pile"][-1])
    )
    places = [*swapped["draw_pile"], *(c for h in swapped["hands"] for c in h)]
    if swapped["lot"] >= 0:
        places.append(swapped["lot"])
    assert sorted(places) == list(range(45))
    assert swapped["hands"] != engine["hands"] and swapped["draw_pile"] != engine["draw_pile"]
    load(4, full, swapped)  # validated by set_state without error


@by_rules
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_draw_pile_order_does_not_leak(rules: str, num_players: int) -> None:
    """The face-down pile is hidden from everybody: reordering it changes no observation."""
    checked = 0
    for full, engine, _, rng in sampled_points(num_players, rules, 2):
        if len(face_down(engine)) < 2:
            continue
        base = load(num_players, full, engine)
        shuffled = copy.deepcopy(engine)
        pile = face_down(shuffled)
        pile[0], pile[-1] = pile[-1], pile[0]  # the next lot changes for sure
        middle = pile[1:-1]
        rng.shuffle(middle)
        pile[1:-1] = middle
        env = load(num_players, full, shuffled)
        for agent, view in views(base).items():
            assert_bit_identical(view, env.observe(agent), f"draw pile reordered, {agent}")
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_original_public_facts_reach_every_observer(num_players: int) -> None:  # C-5, O-2, O-7
    """Original ruleset: checks in hand, thief numbers and the jail are public, so moving a check
    or jailing a thief changes every player's observation (in the owner's ``playerK`` block)."""
    checked = 0
    for seed in SEEDS[:4]:
        points = trajectory(num_players, seed, "original")
        for t in (0, 3, len(points) // 3):
            full, _ = points[t]
            engine = full["engine"]
            base = load(num_players, full, engine)
            giver = next((p for p in range(num_players) if engine["checks"][p]), None)
            if giver is None:
                continue
            taker = (giver + 1) % num_players
            moved = copy.deepcopy(engine)
            value = moved["checks"][giver].pop()
            moved["checks"][taker] = sorted([*moved["checks"][taker], value])
            moved["money"] = [sum(c) for c in moved["checks"]]
            env = load(num_players, full, moved)
            for p in range(num_players):
                agent = f"player_{p}"
                diff = changed_names(
                    env, base.observe(agent)["observation"], env.observe(agent)["observation"]
                )
                k_giver, k_taker = (giver - p) % num_players, (taker - p) % num_players
                assert f"player{k_giver}.checks" in diff and f"player{k_taker}.checks" in diff, diff
                assert not any(name.startswith("own.") for name in diff)
            free = [t for pair in base.game_state.thieves for t in pair if t not in engine["jail"]]  # type: ignore[attr-defined]
            if len(engine["jail"]) < num_players and free:
                jailed = copy.deepcopy(engine)
                jailed["jail"] = [free[0], *jailed["jail"]]
                env = load(num_players, full, jailed)
                owner = base.game_state.thief_owner[free[0]]  # type: ignore[attr-defined]
                for p in range(num_players):
                    agent = f"player_{p}"
                    diff = changed_names(
                        env, base.observe(agent)["observation"], env.observe(agent)["observation"]
                    )
                    assert f"player{(owner - p) % num_players}.thief_cells" in diff, diff
            checked += 1
    assert checked >= 10
