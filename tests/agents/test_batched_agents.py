"""Batched agents (docs/design.md §3): one implementation of every rule, for a batch and for one seat.

* bot equivalence: on real observations from seeded 2–6 player games, a batch's
  decisions equal the row-by-row decisions given the same random draws, and a
  one-game agent acting row by row equals its seeded twin acting on the batch;
* legal actions on real and on random masks; seeding; input checks, the table an
  agent is told included (another table's observations are refused, never misread);
* the sampling helper keeps the styles' probabilities;
* ``PolicyAgent.act_batch`` equals its per-row decisions.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import hoity_env
from hoity_env.agents import (
    AGENT_NAMES,
    AgentInputError,
    BatchAgent,
    BatchObservationView,
    ObservationView,
    PolicyAgent,
    SeededAgent,
    make,
)
from hoity_env.agents.base import BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.agents.batch import act_batch, sample_index
from hoity_env.engine.errors import ConfigError
from tests.agents.test_policy_agent import save_tiny_model

PLAYER_COUNTS = (2, 3, 4, 5, 6)
ROWS_PER_COUNT = 320  # ≥ 1,600 real rows over all player counts
SCRIPTED_NAMES = [n for n in AGENT_NAMES if n != "random"]
Rows = dict[int, tuple[np.ndarray, np.ndarray]]


def collect_rows(
    num_players: int, rows: int, seed: int, rules: str = "standard"
) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` (observation, mask) pairs of every seat from seeded games played by the zoo."""
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    env = hoity_env.parallel_env(num_players=num_players, rules=rules)
    game = 0
    while len(obs_rows) < rows:
        specs = [AGENT_NAMES[(game + i) % len(AGENT_NAMES)] for i in range(num_players)]
        agents = [
            make(s, seed=seed + 100 * game + i, num_players=num_players, rules=rules)
            for i, s in enumerate(specs)
        ]
        obs, _ = env.reset(seed=seed + game)
        while env.agents and len(obs_rows) < rows:
            actions = {}
            for agent, name in zip(agents, env.possible_agents, strict=True):
                o, m = obs[name]["observation"], obs[name]["action_mask"]
                obs_rows.append(o)
                mask_rows.append(m)
                actions[name] = agent.act(o, m)
            obs, *_ = env.step(actions)
        game += 1
    return np.stack(obs_rows[:rows]), np.stack(mask_rows[:rows])


@pytest.fixture(scope="module")
def real_rows() -> Rows:
    return {n: collect_rows(n, ROWS_PER_COUNT, seed=10 * n) for n in PLAYER_COUNTS}


def test_real_rows_cover_every_step(real_rows: Rows) -> None:
    # Guards the equivalence tests below: they see location steps, bids and castle roles.
    total = 0
    for n, (obs, masks) in real_rows.items():
        view = BatchObservationView(obs, n)
        bidding = view.action_step & masks[:, BID0:].any(axis=1)
        assert (~view.action_step).sum() > 50 and bidding.sum() > 10
        assert (view.action_step & ~bidding).sum() > 50
        total += len(view)
    assert total >= 1000


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_batch_decisions_equal_row_decisions_given_the_same_draws(name: str, real_rows: Rows) -> None:
    for n, (obs, masks) in real_rows.items():
        agent = make(name, seed=0, num_players=n)
        assert isinstance(agent, SeededAgent)  # decide(): the pure rule behind act and act_batch
        draws = np.random.default_rng(n).random((len(obs), agent.DRAWS))
        bools = masks.astype(bool)
        batch = agent.decide(obs, bools, draws)
        assert batch.dtype == np.int64 and batch.shape == (len(obs),)
        rows = [
            int(agent.decide(obs[i : i + 1], bools[i : i + 1], draws[i : i + 1])[0]) for i in range(len(obs))
        ]
        assert batch.tolist() == rows, f"{name}, {n} players"


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_one_game_agent_is_its_batched_twin_at_batch_size_one(name: str, real_rows: Rows) -> None:
    # act() draws (1, K) per call, act_batch (B, K) once: the same stream, so the same choices.
    for n, (obs, masks) in real_rows.items():
        one, batched = make(name, seed=n, num_players=n), make(name, seed=n, num_players=n)
        singles = [one.act(o, m) for o, m in zip(obs, masks, strict=True)]
        assert all(isinstance(a, int) for a in singles)
        assert singles == batched.act_batch(obs, masks).tolist(), f"{name}, {n} players"


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_checked_batches_skip_only_the_checks(name: str, real_rows: Rows) -> None:
    """``act_batch(..., checked=True)`` (the envs' own batches) decides exactly as ``act_batch``."""
    for n, (obs, masks) in real_rows.items():
        plain, fast = make(name, seed=n, num_players=n), make(name, seed=n, num_players=n)
        expected = plain.act_batch(obs, masks)
        assert act_batch(fast, obs, masks.astype(np.int8), checked=True).tolist() == expected.tolist()


def test_checked_batches_fall_back_for_agents_without_a_fast_path(real_rows: Rows) -> None:
    """A user's agent with only ``act`` still plays through ``act_batch(..., checked=True)``."""
    obs, masks = real_rows[4]

    class Lowest:
        name = "lowest"

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            return int(np.flatnonzero(action_mask)[0])

        def reset(self, seed: int | None = None) -> None:
            pass

    out = act_batch(Lowest(), obs, masks, checked=True)
    assert out.tolist() == masks.argmax(axis=1).tolist()


def test_shuffled_batch_gives_each_row_its_own_decision(real_rows: Rows) -> None:
    # A shuffled batch (games, seats and steps interleaved) gives each row its own decision.
    obs, masks = real_rows[4]
    order = np.random.default_rng(1).permutation(len(obs))
    for name in AGENT_NAMES:
        agent = make(name)
        draws = np.random.default_rng(2).random((len(obs), agent.DRAWS))
        straight = agent.decide(obs, masks.astype(bool), draws)
        shuffled = agent.decide(obs[order], masks[order].astype(bool), draws[order])
        assert np.array_equal(straight[order], shuffled), name


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_batched_actions_are_legal_on_real_masks(name: str, real_rows: Rows) -> None:
    for n, (obs, masks) in real_rows.items():
        actions = make(name, seed=1, num_players=n).act_batch(obs, masks)
        assert masks[np.arange(len(obs)), actions].all()


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_batched_actions_are_legal_on_random_masks(name: str, real_rows: Rows) -> None:
    # Masks that do not fit the observation's step (a bid-only mask in a location step …)
    # still get a legal action: a style's choice falls back to the lowest legal index.
    rng = np.random.default_rng(7)
    for n, (obs, masks) in real_rows.items():
        density = rng.random((len(obs), 1))
        random_masks = (rng.random(masks.shape) < density).astype(np.int8)
        random_masks[np.arange(len(obs)), rng.integers(masks.shape[1], size=len(obs))] = 1
        actions = make(name, seed=2, num_players=n).act_batch(obs, random_masks)
        assert random_masks[np.arange(len(obs)), actions].all()


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_batches_are_seeded_and_ignore_the_global_generator(name: str, real_rows: Rows) -> None:
    obs, masks = real_rows[5]
    np.random.seed(0)
    a = make(name, seed=7, num_players=5).act_batch(obs, masks)
    np.random.seed(1)
    b = make(name, seed=7, num_players=5).act_batch(obs, masks)
    assert np.array_equal(a, b)
    other = make(name, seed=8, num_players=5)
    assert not np.array_equal(a, other.act_batch(obs, masks))
    other.reset(seed=7)
    assert np.array_equal(a, other.act_batch(obs, masks))


def test_every_made_agent_acts_in_batches() -> None:
    for name in AGENT_NAMES:
        agent = make(name, seed=0)
        assert isinstance(agent, BatchAgent)
        empty = agent.act_batch(np.zeros((0, 117), np.float32), np.zeros((0, 56), np.int8))
        assert empty.shape == (0,) and empty.dtype == np.int64


def _obs_and_masks(rows: int = 4) -> tuple[np.ndarray, np.ndarray]:
    env = hoity_env.parallel_env(num_players=4)
    obs, _ = env.reset(seed=0)
    o = np.stack([x["observation"] for x in obs.values()])[:rows]
    m = np.stack([x["action_mask"] for x in obs.values()])[:rows]
    return o, m


def _bad_inputs() -> list[tuple[str, object, object, str]]:
    o, m = _obs_and_masks()
    zero_row = m.copy()
    zero_row[3] = 0
    nan_row = o.copy()
    nan_row[2, 5] = np.nan
    two = m.copy()
    two[1, 0] = 2
    negative = m.copy()
    negative[2, 3] = -1
    return [
        ("one row", o[0], m[0], r"2-D observations \(B, D\)"),
        ("rows differ", o, m[:3], "4 observation rows but 3 mask rows"),
        ("int obs", o.astype(np.int64), m, "observations must be floats"),
        ("float mask", o, m.astype(np.float32), "masks must be int8 or bool"),
        ("mask value 2", o, two, "mask row 1 holds values other than 0 and 1"),
        ("mask value -1", o, negative, "mask row 2 holds values other than 0 and 1"),
        ("no actions", o, m[:, :0], "all zero"),
        ("nan row", nan_row, m, "observation row 2 is not finite"),
        ("zero mask row", o, zero_row, "action mask row 3 is all zero"),
    ]


@pytest.mark.parametrize("name", AGENT_NAMES)
@pytest.mark.parametrize(
    ("case", "obs", "masks", "message"), _bad_inputs(), ids=[c[0] for c in _bad_inputs()]
)
def test_malformed_batches_raise_clear_errors(
    name: str, case: str, obs: object, masks: object, message: str
) -> None:
    agent = make(name, seed=0)
    with pytest.raises(AgentInputError, match=message):
        agent.act_batch(obs, masks)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", SCRIPTED_NAMES)
def test_scripted_agents_refuse_foreign_layouts(name: str) -> None:
    o, m = _obs_and_masks()
    with pytest.raises(AgentInputError, match="standard action layout"):
        make(name).act_batch(o, m[:, :BID0])


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_agents_refuse_observations_of_another_table(name: str, real_rows: Rows) -> None:
    # Told 4 players of the standard rules (also the default), an agent refuses the rows of
    # another count or ruleset with one error naming its table, never reading them as theirs.
    told = re.escape("plays 4 players, standard rules (observations of length 117)")
    agent = make(name, seed=0, num_players=4, rules="standard")
    o, m = _obs_and_masks()
    with pytest.raises(AgentInputError, match=rf"{told}, got observations of length 50"):
        agent.act_batch(o[:, :50], m)
    obs, masks = real_rows[3]
    with pytest.raises(AgentInputError, match=rf"{told}, got observations of length 93"):
        agent.act_batch(obs, masks)
    with pytest.raises(AgentInputError, match=told):
        act_batch(agent, obs, masks, checked=True)  # the envs' own batches are checked too
    original, _ = collect_rows(4, 1, seed=0, rules="original")
    with pytest.raises(AgentInputError, match=told):
        agent.act(original[0], m[0])
    assert make(name).table == agent.table  # the package's defaults


def test_the_table_is_checked_when_the_agent_is_made() -> None:
    with pytest.raises(ConfigError, match="num_players must be an int in"):
        make("expert", num_players=7)
    with pytest.raises(ConfigError, match="unknown rules preset 'house'"):
        make("random", rules="house")


@pytest.fixture(scope="module")
def original_rows() -> Rows:
    return {n: collect_rows(n, 160, seed=7 * n, rules="original") for n in (2, 4, 6)}


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_original_rules_batch_equals_rows_and_one_game_act(name: str, original_rows: Rows) -> None:
    # The original ruleset's decision rules (hoity_env.agents.bots.styles_original) keep the same contract.
    for n, (obs, masks) in original_rows.items():
        agent = make(name, seed=0, num_players=n, rules="original")
        assert isinstance(agent, SeededAgent)
        draws = np.random.default_rng(n).random((len(obs), agent.DRAWS))
        bools = masks.astype(bool)
        batch = agent.decide(obs, bools, draws)
        assert bools[np.arange(len(obs)), batch].all(), f"{name}: illegal action, {n} players"
        rows = [
            int(agent.decide(obs[i : i + 1], bools[i : i + 1], draws[i : i + 1])[0]) for i in range(len(obs))
        ]
        assert batch.tolist() == rows
        one, batched = (make(name, seed=n, num_players=n, rules="original") for _ in range(2))
        assert [one.act(o, m) for o, m in zip(obs, masks, strict=True)] == batched.act_batch(
            obs, masks
        ).tolist()


def test_one_game_act_keeps_its_checks() -> None:
    o, m = _obs_and_masks()
    agent = make("expert")
    with pytest.raises(AgentInputError, match="act takes one 1-D observation"):
        agent.act(o, m)
    with pytest.raises(AgentInputError, match="all zero"):
        agent.act(o[0], np.zeros_like(m[0]))
    assert isinstance(AgentInputError("x"), ValueError)


def test_batch_view_rows_are_the_one_game_views(real_rows: Rows) -> None:
    obs, _ = real_rows[6]
    batch = BatchObservationView(obs, 6)
    for i in range(0, len(obs), 37):
        one = ObservationView(obs[i], 6)
        assert one.action_step == batch.action_step[i] and one.lot_series == batch.lot_series[i]
        assert np.array_equal(one.locations, batch.locations[i])
        assert np.array_equal(one.rates(), batch.rates()[i])
        assert np.array_equal(one.player(2, "known"), batch.players("known")[i, 2])


def test_sample_index_keeps_the_weights() -> None:
    u = np.random.default_rng(0).random(40_000)
    weights = np.tile([0.75, 0.0, 0.12, 0.13], (u.size, 1))
    share = np.bincount(sample_index(weights, u), minlength=4) / u.size
    assert np.allclose(share, [0.75, 0.0, 0.12, 0.13], atol=0.01)
    assert sample_index(np.zeros((2, 3)), np.array([0.2, 0.9])).tolist() == [0, 0]


def test_thief_role_mix_keeps_its_probabilities(real_rows: Rows) -> None:
    obs, masks = real_rows[4]
    view = BatchObservationView(obs, 4)
    castle = np.flatnonzero(view.action_step & masks[:, EXHIBIT].astype(bool))
    assert castle.size
    rows = np.resize(castle, 20_000)
    actions = make("thief", seed=3).act_batch(obs[rows], masks[rows])
    share = {a: float(np.mean(actions == a)) for a in (THIEF, DETECTIVE, EXHIBIT)}
    assert share == pytest.approx({THIEF: 0.75, DETECTIVE: 0.12, EXHIBIT: 0.13}, abs=0.015)


def test_thief_location_mix_keeps_its_probabilities(real_rows: Rows) -> None:
    obs, masks = real_rows[4]
    view = BatchObservationView(obs, 4)
    open_rows = np.flatnonzero(~view.action_step & masks[:, 0].astype(bool) & (view.money[:, 0] > 0))
    rows = np.resize(open_rows, 20_000)
    actions = make("thief", seed=4).act_batch(obs[rows], masks[rows])
    assert np.mean(actions == CASTLE) == pytest.approx(0.75, abs=0.015)


# --- PolicyAgent ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_model(tmp_path_factory.mktemp("ckpt") / "tiny.zip", learn=True)


@pytest.mark.parametrize("deterministic", [True, False])
def test_policy_batch_equals_per_row_decisions(
    checkpoint: Path, real_rows: Rows, deterministic: bool
) -> None:
    obs, masks = real_rows[4]
    one = PolicyAgent(checkpoint, deterministic=deterministic, seed=5)
    batched = PolicyAgent(checkpoint, deterministic=deterministic, seed=5)
    singles = [one.act(o, m) for o, m in zip(obs, masks, strict=True)]
    actions = batched.act_batch(obs, masks)
    assert actions.dtype == np.int64 and singles == actions.tolist()
    assert masks[np.arange(len(obs)), actions].all()
    probs = batched.action_probabilities(obs, masks.astype(bool))
    row_probs = np.concatenate(
        [batched.action_probabilities(obs[i : i + 1], masks[i : i + 1].astype(bool)) for i in range(8)]
    )
    assert np.allclose(probs[:8], row_probs, atol=1e-6) and np.allclose(probs.sum(axis=1), 1.0)
    if deterministic:
        expected, _ = batched.model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
        assert actions.tolist() == np.asarray(expected).tolist()


def test_policy_checks_batches_like_the_scripted_agents(checkpoint: Path) -> None:
    o, m = _obs_and_masks()
    agent = PolicyAgent(checkpoint)
    with pytest.raises(AgentInputError, match="action mask row 3 is all zero"):
        m2 = m.copy()
        m2[3] = 0
        agent.act_batch(o, m2)
    with pytest.raises(AgentInputError, match="all zero"):
        agent.act(o[0], np.zeros_like(m[0]))
    with pytest.raises(AgentInputError, match="action masks of length 56, got 55"):
        agent.act(o[0], m[0, :55])
    with pytest.raises(AgentInputError, match="observations of length 117, got 116"):
        agent.act_batch(o[:, :116], m)
