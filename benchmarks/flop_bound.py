"""The matrix-product bound on a torch learner: FLOP per learner step counted from the layer shapes,
and one thread's GFLOP per CPU-second measured on large matrices and on the policy's own shapes.

Why: a learner's steps per CPU-second cannot exceed the rate at which one thread multiplies
its policy's matrices divided by the FLOP each learner step needs, whatever else it saves;
``bench_learner.py`` records both beside the learners' rates in the same run, and
docs/learning.md states the cap and how close each learner gets (issue 34 found the page's
first bound counted wrongly).

Counting (a multiply-add is 2 FLOP), per row, for every ``Linear(in, out)`` of the actor
(observation → hidden → … → actions) and the critic (observation → hidden → … → 1), which
share nothing (SB3's ``MlpPolicy``):

* forward: ``2·in·out`` for the product and ``out`` for the bias, plus one FLOP per hidden unit
  for the activation and ``5·actions`` for the masked log-softmax (small beside the products);
* backward: the weight gradient ``2·in·out`` plus ``out`` for the bias gradient, the input
  gradient ``2·in·out`` for every layer but the first (observations need none), and two FLOP
  per hidden unit for the activation's gradient;
* the optimizer: :data:`ADAM_FLOP` per parameter per minibatch (Adam's moment updates, the bias
  correction, the step, and the gradient-norm clipping), spread over the minibatch's rows.

A learner step of a setting costs one forward pass in the rollout (no gradient) plus, for each
of its ``epochs``, a forward, a backward and the optimizer's share.
"""

from __future__ import annotations

import itertools
import statistics
import time
from typing import Any

import torch

ADAM_FLOP = 16
"""FLOP per parameter and minibatch: Adam's two moment updates (7), bias-corrected step (6),
and clipping's norm and scale (3)."""


def layers(obs_dim: int, num_actions: int, hidden: tuple[int, ...]) -> list[tuple[int, int, bool]]:
    """Every linear layer of the actor and the critic: ``(in, out, first)``."""
    out = []
    for head in (num_actions, 1):
        widths = [obs_dim, *hidden, head]
        out += [(a, b, i == 0) for i, (a, b) in enumerate(itertools.pairwise(widths))]
    return out


def flop_per_row(obs_dim: int, num_actions: int, hidden: tuple[int, ...]) -> dict[str, int]:
    """FLOP per row: ``forward`` and ``backward`` (and their matrix products alone, ``*_products``),
    and the policy's ``parameters`` (module docstring)."""
    shapes = layers(obs_dim, num_actions, hidden)
    units = 2 * sum(hidden)  # hidden units of both networks
    forward_products = sum(2 * a * b for a, b, _ in shapes)
    backward_products = sum(2 * a * b * (1 if first else 2) for a, b, first in shapes)
    biases = sum(b for _, b, _ in shapes)
    return {
        "forward": forward_products + biases + units + 5 * num_actions,
        "backward": backward_products + biases + 2 * units,
        "forward_products": forward_products,
        "backward_products": backward_products,
        "parameters": sum(a * b + b for a, b, _ in shapes),
    }


def flop_per_step(counts: dict[str, float], epochs: int, minibatch: int) -> float:
    """FLOP per learner step: the rollout's forward pass, then ``epochs`` of forward, backward and
    the optimizer's share of a ``minibatch``-row step."""
    per_epoch = counts["forward"] + counts["backward"] + ADAM_FLOP * counts["parameters"] / minibatch
    return counts["forward"] + epochs * per_epoch


def _gflops(products: list[tuple[torch.Tensor, torch.Tensor]], repeats: int) -> float:
    """Median GFLOP per CPU-second of computing every ``a @ b`` in ``products`` once, ``repeats`` times."""
    flop = sum(2 * a.shape[0] * a.shape[1] * b.shape[1] for a, b in products)
    for a, b in products:  # warm-up
        a @ b
    rates = []
    for _ in range(repeats):
        start = time.process_time()
        for a, b in products:
            a @ b
        rates.append(flop / max(time.process_time() - start, 1e-9) / 1e9)
    return statistics.median(rates)


def square_gflops(size: int = 2048, repeats: int = 5) -> float:
    """One thread's float32 GFLOP per CPU-second on ``size``² square products (its best case)."""
    g = torch.Generator().manual_seed(0)
    return _gflops([(torch.randn(size, size, generator=g), torch.randn(size, size, generator=g))], repeats)


def policy_gflops(
    obs_dim: int, num_actions: int, hidden: tuple[int, ...], rows: int, repeats: int = 20
) -> float:
    """GFLOP per CPU-second on the products of one forward and backward pass of a ``rows``-row
    minibatch: ``X·Wᵀ``, the input gradients ``G·W`` (not for the first layers) and ``Gᵀ·X``."""
    g = torch.Generator().manual_seed(0)
    products = []
    for a, b, first in layers(obs_dim, num_actions, hidden):
        x, w, grad = (torch.randn(*shape, generator=g) for shape in ((rows, a), (b, a), (rows, b)))
        products.append((x, w.T.contiguous()))
        products.append((grad.T.contiguous(), x))
        if not first:
            products.append((grad, w))
    return _gflops(products, repeats)


def bound(obs_dim: int, num_actions: int, settings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The bound of each learner setting (``name → {hidden, epochs, minibatch}``), measured now.

    For each: FLOP per row and per learner step, GFLOP per CPU-second on its shapes, and the cap
    (steps per CPU-second if it did nothing but those products); with the square products' rate.
    """
    out: dict[str, Any] = {"square_gflops": square_gflops(), "settings": {}}
    for name, s in settings.items():
        hidden = tuple(s["hidden"])
        counts = flop_per_row(obs_dim, num_actions, hidden)
        step = flop_per_step(counts, s["epochs"], s["minibatch"])
        gflops = policy_gflops(obs_dim, num_actions, hidden, s["minibatch"])
        optimizer = ADAM_FLOP * counts["parameters"] / s["minibatch"]
        cap = gflops * 1e9 / step
        out["settings"][name] = {
            **s,
            **counts,
            "optimizer": optimizer,
            "per_step": step,
            "gflops": gflops,
            "cap": cap,
        }
    return out
