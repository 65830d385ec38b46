"""The fast learner's parts: masked categorical, magnet KL, GAE, settings, seating, env loop.

The env loop is checked step by step against the readable path: what the learner
records for a game slot (observations, masks, rewards, ends) equals what the
one-game ``HoityParallelEnv`` returns for the same seed and the recorded actions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from hoity_env.engine.errors import ConfigError
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.learning import Learner, LearnerSettings
from hoity_env.learning.gae import gae
from hoity_env.learning.loss import kl_to_magnet, ppo_loss, uniform_log_probs
from hoity_env.learning.policy import masked_entropy, masked_log_probs, masked_probs, sample
from hoity_env.learning.seats import LEARNER
from hoity_env.learning.settings import parse_pool

TINY = LearnerSettings(num_games=4, rollout_steps=16, minibatch_size=64, hidden=(16, 16), total_steps=256)


# ------------------------------------------------------------------ masked categorical
def test_masked_entropy_ignores_illegal_actions() -> None:
    mask = torch.tensor([[True, True, False, False], [False, False, True, False]])
    for illegal_logit in (0.0, 5.0, -3.0):
        logits = torch.tensor([[1.0, 1.0, illegal_logit, illegal_logit]] * 2)
        logp = masked_log_probs(logits, mask)
        entropy = masked_entropy(logp, mask)
        assert entropy[0].item() == pytest.approx(math.log(2))  # two equal legal actions
        assert entropy[1].item() == 0.0  # one legal action: nothing to spread over
        assert torch.isfinite(entropy).all()
        assert logp.exp()[~mask].max().item() == 0.0  # illegal actions have probability 0


def test_sampling_never_picks_an_illegal_action_and_follows_the_probabilities() -> None:
    gen = torch.Generator().manual_seed(0)
    mask = torch.tensor([[False, True, False, True]]).repeat(20000, 1)
    logits = torch.tensor([[9.0, 0.0, 9.0, math.log(3.0)]]).repeat(20000, 1)
    actions = sample(masked_probs(masked_log_probs(logits, mask), mask), gen)
    assert set(actions.tolist()) == {1, 3}
    assert (actions == 3).float().mean().item() == pytest.approx(0.75, abs=0.02)


# ------------------------------------------------------------------ magnet KL
def test_kl_to_magnet_is_zero_when_the_policy_is_the_magnet() -> None:
    mask = torch.tensor([[True, True, True, False], [True, False, True, True]])
    logits = torch.tensor([[0.3, -1.0, 2.0, 7.0], [1.0, 4.0, 0.0, -2.0]])
    logp = masked_log_probs(logits, mask)
    assert kl_to_magnet(logp, logp, mask).abs().max().item() < 1e-6
    uniform = masked_log_probs(torch.zeros_like(logits), mask)
    assert kl_to_magnet(uniform, uniform_log_probs(mask), mask).abs().max().item() < 1e-6
    assert (kl_to_magnet(logp, uniform_log_probs(mask), mask) > 0.01).all()


def test_kl_gradient_moves_the_policy_toward_the_magnet() -> None:
    mask = torch.tensor([[True, True, True, False]])
    magnet = masked_log_probs(torch.tensor([[2.0, 0.0, -1.0, 0.0]]), mask)
    logits = torch.tensor([[-1.0, 1.0, 0.5, 3.0]], requires_grad=True)
    before = kl_to_magnet(masked_log_probs(logits, mask), magnet, mask).item()
    kl = kl_to_magnet(masked_log_probs(logits, mask), magnet, mask).sum()
    kl.backward()  # type: ignore[no-untyped-call]
    assert logits.grad is not None
    # Descending the gradient raises the logit the magnet prefers and lowers the others'.
    assert logits.grad[0, 0] < 0 and logits.grad[0, 1] > 0
    assert logits.grad[0, 3].item() == 0.0  # an illegal action's logit gets no gradient
    with torch.no_grad():
        stepped = logits - 0.5 * logits.grad
    after = kl_to_magnet(masked_log_probs(stepped, mask), magnet, mask).item()
    assert after < before


def test_ppo_loss_counts_the_magnet_term_with_its_coefficient() -> None:
    mask = torch.tensor([[True, True, False]] * 3)
    logp = masked_log_probs(torch.tensor([[1.0, 0.0, 0.0]] * 3), mask)
    args = (torch.zeros(3), mask, torch.tensor([0, 1, 0]), logp[:, 0].detach(), torch.ones(3), torch.zeros(3))
    plain = ppo_loss(logp, *args, clip=0.2, vf_coef=0.5, ent_coef=0.0)
    pulled = ppo_loss(
        logp, *args, clip=0.2, vf_coef=0.5, ent_coef=0.0, magnet_logp=uniform_log_probs(mask), magnet_coef=2.0
    )
    assert pulled.kl_magnet.item() > 0
    assert pulled.total.item() == pytest.approx(plain.total.item() + 2.0 * pulled.kl_magnet.item())


def test_the_magnet_anneals_linearly_to_its_final_coefficient() -> None:
    from hoity_env.learning.magnet import Magnet

    settings = TINY.replace(magnet="uniform", magnet_coef=0.2, magnet_final_coef=0.05, total_steps=1000)
    magnet = Magnet(settings, Learner(TINY).policy)
    assert [magnet.anneal(s) for s in (0, 500, 1000, 5000)] == pytest.approx([0.2, 0.125, 0.05, 0.05])
    constant = Magnet(settings.replace(magnet_final_coef=None), Learner(TINY).policy)
    assert [constant.anneal(s) for s in (0, 1000)] == [0.2, 0.2]


def test_an_annealed_run_logs_the_coefficient_each_update_and_resumes_to_the_same_weights() -> None:
    settings = TINY.replace(magnet="uniform", magnet_coef=0.5, magnet_final_coef=0.0, total_steps=512)
    learner = Learner(settings)
    coefs = []
    learner.learn(on_iteration=lambda current, stats: coefs.append(stats["magnet_coef"]) and None)
    # Each update's coefficient is the anneal at the steps collected so far (256 per iteration).
    assert coefs == pytest.approx([0.5 * (1 - 256 * k / 512) for k in range(1, len(coefs) + 1)])
    half = Learner(settings)
    half.learn(256)
    resumed = Learner.from_state_dict(half.state_dict())
    resumed.learn()
    for mine, theirs in zip(resumed.policy.parameters(), learner.policy.parameters(), strict=True):
        assert torch.equal(mine, theirs)


# ------------------------------------------------------------------ GAE
def test_gae_matches_a_hand_computed_case() -> None:
    # One row, three steps; the game ends at step 1, so step 2 starts a new game.
    rewards = torch.tensor([[0.0], [1.0], [0.5]])
    values = torch.tensor([[0.2], [0.4], [0.1]])
    dones = torch.tensor([[False], [True], [False]])
    last = torch.tensor([0.3])
    g, lam = 0.9, 0.8
    d2 = 0.5 + g * 0.3 - 0.1  # bootstraps from the value after the rollout
    a2 = d2
    d1 = 1.0 - 0.4  # the game ended: no bootstrap, no carry from step 2
    a1 = d1
    d0 = 0.0 + g * 0.4 - 0.2
    a0 = d0 + g * lam * a1
    adv, ret = gae(rewards, values, dones, last, g, lam)
    assert adv[:, 0].tolist() == pytest.approx([a0, a1, a2])
    assert ret[:, 0].tolist() == pytest.approx([a0 + 0.2, a1 + 0.4, a2 + 0.1])


# ------------------------------------------------------------------ settings
def test_settings_name_the_bad_field() -> None:
    bad = [
        ("num_games", 0),
        ("gamma", 1.5),
        ("hidden", ()),
        ("magnet", "x"),
        ("clip", -1.0),
        ("lr_schedule", "cosine"),
    ]
    for field, value in bad:
        with pytest.raises(ConfigError, match=field):
            LearnerSettings(**{field: value})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="magnet_coef"):
        LearnerSettings(magnet="uniform")
    with pytest.raises(ConfigError, match="magnet_final_coef"):
        LearnerSettings(magnet="uniform", magnet_coef=0.1, magnet_final_coef=-1.0)
    with pytest.raises(ConfigError, match="magnet_final_coef"):
        LearnerSettings(magnet_final_coef=0.1)
    with pytest.raises(ConfigError, match="weight"):
        LearnerSettings(opponents=(("expert", 0.0),))


def test_settings_round_trip_and_pool_parsing() -> None:
    s = LearnerSettings(opponents=parse_pool("self@2,snapshot,ppo:runs/a b.zip@0.5"), hidden=(8, 4))
    assert s.opponents == (("self", 2.0), ("snapshot", 1.0), ("ppo:runs/a b.zip", 0.5))
    assert LearnerSettings.from_dict(s.to_dict()) == s
    with pytest.raises(ConfigError, match="unknown learner settings: bogus"):
        LearnerSettings.from_dict({"bogus": 1})
    with pytest.raises(ConfigError, match="bad weight"):
        parse_pool("expert@heavy")


@pytest.mark.parametrize("value", ["auto", "numba"])
def test_saved_settings_naming_the_compiled_engine_still_load(value: str) -> None:
    """Runs saved while the batched engine had two implementations hold ``accelerator``; the
    values that name the kernels every run now uses load as the same settings."""
    assert LearnerSettings.from_dict({**TINY.to_dict(), "accelerator": value}) == TINY


@pytest.mark.parametrize("value", ["numpy", "gpu", None])
def test_saved_settings_asking_for_the_removed_numpy_engine_are_refused(value: object) -> None:
    with pytest.raises(ConfigError, match="numpy path was removed"):
        LearnerSettings.from_dict({**TINY.to_dict(), "accelerator": value})


def test_linear_schedule_anneals_the_rate_to_zero_over_the_budget_and_survives_json() -> None:
    settings = TINY.replace(lr_schedule="linear", total_steps=4 * 4 * 16 * 4)  # 4 updates of 256 steps
    assert LearnerSettings.from_dict(settings.to_dict()) == settings
    learner, rates = Learner(settings), []
    while learner.steps < settings.total_steps:
        learner.iterate()
        rates.append(learner.optimizer.param_groups[0]["lr"])
    assert rates == pytest.approx([settings.learning_rate * f for f in (1.0, 0.75, 0.5, 0.25)])
    constant = Learner(TINY)
    constant.iterate()
    assert constant.optimizer.param_groups[0]["lr"] == TINY.learning_rate


# ------------------------------------------------------------------ seating
def test_pool_seats_one_learner_per_non_self_game_and_learns_only_from_it() -> None:
    settings = TINY.replace(num_games=32, opponents=(("self", 1.0), ("random", 1.0), ("snapshot", 1.0)))
    learner = Learner(settings)
    learner.collect()
    learners_per_game = (learner.seating.assignment == LEARNER).sum(axis=1)
    assert set(learners_per_game.tolist()) <= {1, 4} and {1, 4} <= set(learners_per_game.tolist())
    recorded = learner.buffer.learner.view(settings.rollout_steps, settings.num_games, 4).sum(-1)
    assert set(torch.unique(recorded).tolist()) <= {1, 4}
    assert learner.steps == int(learner.buffer.learner.sum())  # only learner seats count


# ------------------------------------------------------------------ the env loop vs the readable path
@pytest.mark.parametrize("pool", [(("self", 1.0),), (("random", 1.0), ("self", 1.0), ("snapshot", 1.0))])
def test_learner_env_loop_matches_the_parallel_env_step_by_step(pool: tuple[tuple[str, float], ...]) -> None:
    settings = TINY.replace(num_games=3, rollout_steps=120, seed=11, opponents=pool)
    learner = Learner(settings)
    learner.collect()
    buf, n = learner.buffer, 4
    ends = 0
    for game in range(settings.num_games):
        env = HoityParallelEnv(reward=settings.reward)
        obs, _ = env.reset(seed=settings.seed + game)
        for t in range(settings.rollout_steps):
            for seat in range(n):
                row = game * n + seat
                mine = obs[f"player_{seat}"]
                np.testing.assert_array_equal(buf.obs[t, row].numpy(), mine["observation"])
                np.testing.assert_array_equal(buf.masks[t, row].numpy(), mine["action_mask"] == 1)
            actions = {f"player_{i}": int(buf.actions[t, game * n + i]) for i in range(n)}
            assert all(buf.masks[t, game * n + i, a] for i, a in enumerate(actions.values()))
            obs, rewards, terms, truncs, _ = env.step(actions)
            for seat in range(n):
                assert buf.rewards[t, game * n + seat].item() == pytest.approx(rewards[f"player_{seat}"])
            done = any(terms.values()) or any(truncs.values())
            assert bool(buf.dones[t, game * n]) == done
            if done:
                ends += 1
                obs, _ = env.reset()
    assert ends >= 2  # the rollout crossed game boundaries (autoreset checked too)


# ------------------------------------------------------------------ determinism
def _weights(learner: Learner) -> list[torch.Tensor]:
    return [p.detach().clone() for p in learner.policy.parameters()]


def test_same_settings_and_seed_give_the_same_run() -> None:
    settings = TINY.replace(opponents=(("self", 1.0), ("random", 1.0), ("snapshot", 1.0)), snapshot_every=1)
    runs = []
    for _ in range(2):
        learner = Learner(settings)
        learner.learn(3 * 4 * 4 * 16)
        runs.append(_weights(learner))
    assert all(torch.equal(a, b) for a, b in zip(*runs, strict=True))
    other = Learner(settings.replace(seed=1))
    other.learn(3 * 4 * 4 * 16)
    assert not all(torch.equal(a, b) for a, b in zip(runs[0], _weights(other), strict=True))


def test_the_foreach_optimizer_gives_the_same_weights_as_the_loop_over_tensors() -> None:
    """Issue 34: Adam's foreach step (one kernel for every weight) is a speed-up, not a change."""
    settings = TINY.replace(opponents=(("self", 1.0), ("random", 1.0)))
    runs = []
    for foreach in (True, False):
        learner = Learner(settings)
        assert learner.optimizer.param_groups[0]["foreach"] is True
        learner.optimizer.param_groups[0]["foreach"] = foreach
        learner.learn(3 * 4 * 4 * 16)
        runs.append(_weights(learner))
    assert all(torch.equal(a, b) for a, b in zip(*runs, strict=True))
    resumed = Learner.from_state_dict(Learner(settings).state_dict())
    assert resumed.optimizer.param_groups[0]["foreach"] is True


def test_snapshots_added_by_the_caller_only_and_weights_set_between_episodes() -> None:
    with pytest.raises(ConfigError, match="snapshot_every=0"):
        TINY.replace(opponents=(("snapshot", 1.0),), snapshot_every=0)
    settings = TINY.replace(opponents=(("random", 1.0), ("snapshot", 5.0)), snapshot_every=0)
    learner = Learner(settings)
    seating = learner.seating
    assert seating.snapshots == 0 and (seating.assignment != LEARNER).sum() > 0
    learner.learn(256)  # no snapshot is taken by the updates, none is drawn: only random plays
    assert seating.snapshots == 0 and set(np.unique(seating.assignment)) <= {LEARNER, 0}
    seating.add_snapshot(learner.policy)  # what a gate does on admission
    seating.set_weights([0.0, 1.0])
    seating.place(np.arange(settings.num_games))
    assert set(np.unique(seating.assignment)) == {LEARNER, 1}  # the snapshot, the only weight
    for bad in ([1.0], [-1.0, 2.0], [0.0, 0.0]):
        with pytest.raises(ConfigError, match="weights must"):
            seating.set_weights(bad)
