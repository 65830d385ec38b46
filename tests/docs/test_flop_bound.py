"""The FLOP count of the learner's bound (benchmarks/flop_bound.py, docs/learning.md's speed section).

The matrix products counted from the layer shapes must be those torch itself counts
(``torch.utils.flop_counter``) for a forward and a backward pass of the learner's policy,
so the page's cap rests on the network that actually trains.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from flop_bound import ADAM_FLOP, flop_per_row, flop_per_step  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from hoity_env.learning.policy import MaskedPolicy  # noqa: E402


@pytest.mark.parametrize("hidden", [(128, 128), (64, 64), (32, 48, 16)])
def test_products_are_what_torch_counts(hidden: tuple[int, ...]) -> None:
    obs_dim, actions, rows = 117, 56, 64
    policy = MaskedPolicy(obs_dim, actions, hidden, "relu", torch.Generator().manual_seed(0))
    obs, mask = torch.randn(rows, obs_dim), torch.ones(rows, actions, dtype=torch.bool)
    with FlopCounterMode(display=False) as forward:
        logp, values = policy(obs, mask)
    loss = logp.sum() + values.sum()
    with FlopCounterMode(display=False) as backward:
        loss.backward()
    counts = flop_per_row(obs_dim, actions, hidden)
    assert counts["forward_products"] * rows == forward.get_total_flops()
    assert counts["backward_products"] * rows == backward.get_total_flops()
    assert counts["parameters"] == sum(p.numel() for p in policy.parameters())


def test_a_learner_step_is_the_rollout_pass_and_each_epoch() -> None:
    counts = flop_per_row(117, 56, (128, 128))
    one = flop_per_step(counts, 1, 512)
    four = flop_per_step(counts, 4, 512)
    epoch = counts["forward"] + counts["backward"] + ADAM_FLOP * counts["parameters"] / 512
    assert one == pytest.approx(counts["forward"] + epoch)
    assert four - one == pytest.approx(3 * epoch)
    assert flop_per_step(counts, 1, 8192) < one  # the optimizer's share shrinks with the minibatch
