"""The stronger ``expert`` (docs/design.md §3): its role game, its mixes, its strength and its limits.

* the role game's payoffs (:mod:`hoity_env.agents.bots.role_game`, many rows at once in lanes)
  equal a brute-force sum over every joint action and every "who beats whom" outcome (players
  independent), for 3 players, in whichever lane a game is loaded;
* regret matching against a trusted model best-responds to it: detective against
  a habitual thief, thief against a lone habitual exhibitor;
* measured strength: it beats every other scripted agent head to head (against three of it,
  well above the fair share);
* it refuses action layouts other than the standard ruleset's.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hoity_env.agents import AGENT_NAMES, AgentInputError, ExpertAgent, ExpertV1Agent, make
from hoity_env.agents.bots import role_game
from hoity_env.agents.bots.expert import NUM_ACTIONS
from hoity_env.agents.bots.role_game import CARD_VALUE
from hoity_env.evaluation import evaluate

EXHIBIT, THIEF, DETECTIVE, AWAY = range(4)


def _gains(profile: tuple[int, ...], beat: np.ndarray, worth: np.ndarray) -> np.ndarray:
    """Each player's gain for one joint action and one outcome of the exhibition comparisons."""
    n = len(profile)
    gains = np.zeros(n)
    for j in range(n):
        others = [k for k in range(n) if k != j]
        thief = any(profile[k] == THIEF for k in others)
        detective = any(profile[k] == DETECTIVE for k in others)
        if profile[j] == EXHIBIT:
            best = not any(profile[k] == EXHIBIT and beat[k, j] for k in others)
            robbed = thief and not detective
            gains[j] = best * (-CARD_VALUE if robbed else worth[j, 0])
        elif profile[j] == THIEF:
            shown = any(profile[k] == EXHIBIT for k in others)
            gains[j] = worth[j, 1] if detective else CARD_VALUE * shown
        elif profile[j] == DETECTIVE:
            gains[j] = worth[j, 2] * thief
    return gains


def test_role_game_values_equal_brute_force() -> None:  # S-6
    n = 3
    rng = np.random.default_rng(4)
    raw = rng.random((1, n, 4))
    raw /= raw.sum(axis=2, keepdims=True)
    sigma = raw[..., :3]  # the rest of each row is the chance of being away
    worth = np.stack([rng.integers(3, 9, n), -rng.random(n) * 3, rng.random(n) * 3], axis=1)[None].astype(
        float
    )
    beats = rng.random((1, n, n)) * (1 - np.eye(n))
    weights = rng.random((1, n, n)) * (1 - np.eye(n))
    v = role_game.lanes(n)
    lane = 5  # any lane: each lane is its own game
    v.played[:, :, lane], v.worth[:, :, lane] = sigma[0], worth[0]
    v.beats[:, :, lane], v.weights[:, :, lane] = beats[0], weights[0]
    role_game.role_game_values(v, n, lane + 1, n, 4)
    got = v.values[:, :, lane]
    probs = raw[0]
    pairs = [(k, j) for k in range(n) for j in range(n) if k != j]
    want = np.zeros((n, 4))
    for i, a in itertools.product(range(n), range(4)):
        for profile in itertools.product(range(4), repeat=n):
            if profile[i] != a:
                continue
            p = np.prod([probs[k, profile[k]] for k in range(n) if k != i])
            for bits in itertools.product((0, 1), repeat=len(pairs)):
                beat = np.zeros((n, n), dtype=bool)
                q = p
                for (k, j), b in zip(pairs, bits, strict=True):
                    beat[k, j] = b
                    q *= beats[0, k, j] if b else 1 - beats[0, k, j]
                g = _gains(profile, beat, worth[0])
                want[i, a] += q * (g[i] - sum(weights[0, i, j] * g[j] for j in range(n) if j != i))
    np.testing.assert_allclose(got, want, atol=1e-12)


def _solve(model_row: list[float], rival_size: float, rival_can: bool = True) -> np.ndarray:
    """Our mix at a two-player castle against one rival with a trusted model."""
    n = 2
    model = np.asarray([[[1 / 3] * 3, model_row]], dtype=float)
    trust = np.asarray([[0.0, 0.95]])
    present = np.ones((1, n))
    legal = np.ones((1, n, 3), dtype=bool)
    legal[0, 1, 0] = rival_can
    worth = np.asarray([[[4.0, -2.0, 2.0], [rival_size, -2.0, 2.0]]])
    beats = np.asarray([[[0.0, 0.5], [0.5, 0.0]]])
    weights = np.asarray([[[0.0, 0.5], [0.5, 0.0]]])
    mix = legal / legal.sum(axis=2, keepdims=True)  # everyone starts uniform over its roles
    v = role_game.lanes(n)
    role_game.load(0, n, trust[0], model[0], legal[0], mix[0], present[0], worth[0], beats[0], weights[0], v)
    role_game.solve(v, n, 1, 50, False)
    average: np.ndarray = v.average[0, :, 0]
    assert np.isclose(average.sum(), 1.0)
    return average


def test_regret_matching_punishes_a_habitual_thief() -> None:
    mix = _solve([0.0, 1.0, 0.0], 4.0)
    assert mix[2] > 0.6, mix  # detective


def test_regret_matching_robs_a_habitual_exhibitor() -> None:
    mix = _solve([1.0, 0.0, 0.0], 9.0)
    assert mix[1] > 0.6, mix  # thief: a detective-free castle and a big exhibition to spoil


def test_both_experts_are_registered() -> None:
    assert {"expert", "expert-v1"} <= set(AGENT_NAMES)
    assert isinstance(make("expert"), ExpertAgent) and make("expert").name == "expert"
    assert isinstance(make("expert-v1"), ExpertV1Agent) and make("expert-v1").name == "expert-v1"


@pytest.mark.parametrize("other", [name for name in AGENT_NAMES if name != "expert"])
def test_expert_beats_every_other_scripted_agent(other: str) -> None:
    result = evaluate(["expert", other, other, other], games=400, seed=3, progress=False)
    stats = next(s for s in result.agent_stats if s.agent == "expert")
    assert stats.ci_low > 0.40, stats  # fair share 0.25; 0.702 against expert-v1 over 2,000 games


def test_expert_refuses_other_action_layouts() -> None:
    rng = np.random.default_rng(0)
    obs = rng.random((2, 117)).astype(np.float32)
    masks = np.ones((2, NUM_ACTIONS + 1), dtype=np.int8)
    with pytest.raises(AgentInputError, match="standard action layout"):
        make("expert").act_batch(obs, masks)
