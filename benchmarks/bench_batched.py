"""Speed of the batched engine beside the one-game env and outside anchors, in one run (docs/design.md §7).

Prints one table of agent-steps (decisions) per CPU-second, each the median of
``--repeats`` runs timed with ``time.process_time`` (CPU time, so a shared
machine blurs it less; docs/design.md §7), with ratios to the one-game env and
to the 1M target, all measured in the same process:

* ``parallel_env`` (4 players): random legal play through
  ``hoity_env.parallel_env``, one game, dict observations and masks;
* ``BatchedHoityEnv`` (4 players) at B = 1, 64, 1,024, 4,096: random legal play
  with observations, masks, rewards, infos and same-step autoreset;
* ``BatchedGame`` + its observer (4 players), same B, for each ruleset of ``--rules``
  (``make_observer()``: ``StandardBatchObserver``, ``OriginalBatchObserver``): the engine
  alone with observations and masks, finished games re-dealt with ``reset_games``;
* anchors: Gymnasium's numpy ``CartPoleVectorEnv`` at 1,024 (its built-in
  autoreset), and PGX Kuhn poker and Leduc hold'em under JAX on CPU at 4,096
  (``jit(vmap(step))`` with auto-reset, random legal actions drawn inside the jit)
  when ``pgx`` and ``jax`` import (``pip install -e ".[bench]"``); otherwise a
  note says they were skipped.

Random legal actions are drawn uniformly and timed with the env, as a learner's
sampling would be: the one-game env picks from each mask, the batched rows use
``sample_actions``/``random_actions`` (one draw per seat, the same distribution).
The batched engine has one implementation, the numba kernels (compiled, or loaded
from numba's cache, before any timing starts); its rows say ``numba``, as the records
made when a numpy implementation stood beside it do.  Then the memory per game of the
batched state.  Usage::

    python benchmarks/bench_batched.py [--repeats 3] [--agent-steps 400000]
    python benchmarks/bench_batched.py --engine-only --batches 1024   # both rulesets side by side

``--record PATH.json`` also writes the rows, notes and memory figures with the command and
the machine (``bench_record.py``), for the docs' tables.

Never used in tests: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from bench_record import Recorder, add_record_option
from random_play import random_legal_actions

Bench = Callable[[int, int], tuple[float, int]]
"""(agent-steps wanted, seed) -> (CPU seconds, agent-steps done)."""

PLAYERS = 4
TARGET = 1_000_000
"""Issue 8: at least 1M agent-steps per CPU-second at B = 1,024 (4 players, observations and masks)."""


def bench_parallel_env(agent_steps: int, seed: int) -> tuple[float, int]:
    """The one-game PettingZoo parallel env, random legal play, reset when a game ends."""
    import hoity_env

    env = hoity_env.parallel_env(num_players=PLAYERS)
    rng = np.random.default_rng(seed)
    steps = max(agent_steps // PLAYERS, 1)
    uniforms = rng.random((steps, PLAYERS)).tolist()
    start = time.process_time()
    obs, _ = env.reset(seed=seed)
    for i in range(steps):
        actions = random_legal_actions(obs, uniforms[i])
        obs, _, _, _, _ = env.step(actions)
        if not env.agents:
            obs, _ = env.reset()
    return time.process_time() - start, steps * PLAYERS


def batched_env_bench(batch: int) -> Bench:
    """``BatchedHoityEnv`` with ``batch`` games."""

    def run(agent_steps: int, seed: int) -> tuple[float, int]:
        from hoity_env import BatchedHoityEnv

        env = BatchedHoityEnv(num_envs=batch, num_players=PLAYERS)
        rng = np.random.default_rng(seed)
        steps = max(agent_steps // (batch * PLAYERS), 8)
        start = time.process_time()
        env.reset(seed=seed)
        for _ in range(steps):
            env.step(env.sample_actions(rng))  # uniform legal, from the masks' rows
        return time.process_time() - start, steps * batch * PLAYERS

    return run


def batched_engine_bench(batch: int, rules: str = "standard") -> Bench:
    """``BatchedGame`` + its observer with ``batch`` games of ``rules``, finished ones re-dealt."""

    def run(agent_steps: int, seed: int) -> tuple[float, int]:
        from hoity_env.engine import BatchedGame

        game = BatchedGame(rules, PLAYERS)
        observer = game.make_observer()
        rng = np.random.default_rng(seed)
        steps = max(agent_steps // (batch * PLAYERS), 8)
        next_seed = seed * 10**9 + batch
        start = time.process_time()
        state = game.deal(range(seed * 10**9, seed * 10**9 + batch))
        for _ in range(steps):
            game.action_masks(state)  # the masks, as an env hands them out
            observer.observations(state)
            actions = game.random_actions(state, rng)
            game.step(state, actions, validate=False)
            done = np.flatnonzero(state.done)
            if done.size:
                game.reset_games(state, done, range(next_seed, next_seed + done.size))
                next_seed += done.size
        return time.process_time() - start, steps * batch * PLAYERS

    return run


def bench_cartpole(agent_steps: int, seed: int, batch: int = 1024) -> tuple[float, int]:
    """Gymnasium's numpy ``CartPoleVectorEnv`` (one agent per env; autoreset built in)."""
    from gymnasium.envs.classic_control.cartpole import CartPoleVectorEnv

    env = CartPoleVectorEnv(num_envs=batch)
    rng = np.random.default_rng(seed)
    steps = max(agent_steps // batch, 8)
    start = time.process_time()
    env.reset(seed=seed)
    for _ in range(steps):
        env.step(rng.integers(0, 2, batch))
    return time.process_time() - start, steps * batch


def pgx_bench(name: str, batch: int = 4096) -> Bench:
    """A PGX game under JAX (CPU): ``jit(vmap(step))`` with auto-reset, random legal actions."""

    def run(agent_steps: int, seed: int) -> tuple[float, int]:
        import jax
        import jax.numpy as jnp
        import pgx

        env = pgx.make(name)
        init = jax.jit(jax.vmap(env.init))

        def one(state: pgx.State, key: jax.Array) -> pgx.State:
            k_act, k_step, k_reset = jax.random.split(key, 3)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(k_act, logits)
            state = env.step(state, action, k_step)
            fresh = env.init(k_reset)
            done = state.terminated | state.truncated
            return jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), fresh, state)  # type: ignore[no-any-return]

        step = jax.jit(jax.vmap(one))
        key = jax.random.PRNGKey(seed)
        state = init(jax.random.split(key, batch))
        keys = jax.random.split(key, batch)
        state = jax.block_until_ready(step(state, keys))  # compile outside the timing
        steps = max(agent_steps // batch, 8)
        start = time.process_time()
        for i in range(steps):
            state = step(state, jax.random.split(jax.random.fold_in(key, i), batch))
        jax.block_until_ready(state)
        return time.process_time() - start, steps * batch  # one decision per game per step

    return run


def median_rate(bench: Bench, agent_steps: int, repeats: int) -> float:
    """Median agent-steps per CPU-second over ``repeats`` runs (after one warm-up run)."""
    bench(max(agent_steps // 20, 1), 999)
    rates = []
    for r in range(repeats):
        cpu, done = bench(agent_steps, r)
        rates.append(done / max(cpu, 1e-9))
    return statistics.median(rates)


def _compile_kernels() -> None:
    """Compile the kernels (or load them from numba's cache) before any timing starts, so no row
    pays for the compiler."""
    from hoity_env.engine import BatchedGame

    for rules in ("standard", "original"):
        game = BatchedGame(rules, PLAYERS)
        observer = game.make_observer()
        state = game.deal(range(4))
        for _ in range(2):  # a location step and an action step: every kernel compiled
            masks = game.action_masks(state)
            observer.observations(state)
            game.step(state, game.random_from_masks(masks, np.random.default_rng(0)))
        game.reset_games(state, np.arange(4), range(4))


def _anchors(rows: dict[str, float], notes: list[str], anchor_steps: int, repeats: int) -> None:
    """The outside anchors (fast: longer runs for steadier medians)."""
    rows["gymnasium CartPoleVectorEnv B=1,024"] = median_rate(bench_cartpole, anchor_steps, repeats)
    try:
        import jax  # noqa: F401
        import pgx  # noqa: F401
    except ImportError as exc:
        notes.append(f"PGX anchors skipped: {exc} (pip install -e '.[bench]')")
    else:
        for name in ("kuhn_poker", "leduc_holdem"):
            rows[f"pgx {name} (JAX CPU) B=4,096"] = median_rate(pgx_bench(name), anchor_steps, repeats)


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Measure everything and print the table."""
    parser = argparse.ArgumentParser(description="batched engine speed beside its peers")
    parser.add_argument("--repeats", type=int, default=3, help="runs per row (the median is shown)")
    parser.add_argument("--agent-steps", type=int, default=400_000, help="agent-steps per run of a batch")
    parser.add_argument("--scalar-agent-steps", type=int, default=40_000, help="agent-steps per scalar run")
    parser.add_argument("--batches", default="1,64,1024,4096", help="comma-separated batch sizes")
    parser.add_argument(
        "--rules",
        default="standard,original",
        help="rulesets of the BatchedGame+observer rows (the env rows play standard)",
    )
    parser.add_argument(
        "--engine-only",
        action="store_true",
        help="only the BatchedGame+observer rows (no env rows, no anchors)",
    )
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    batches = [int(b) for b in args.batches.split(",")]
    rows: dict[str, float] = {}
    notes: list[str] = []
    _compile_kernels()
    scalar_name = "hoity parallel_env (one game)"
    rows[scalar_name] = median_rate(bench_parallel_env, args.scalar_agent_steps, args.repeats)
    for b in batches if not args.engine_only else []:
        # Small batches cost more per agent-step: give them fewer steps so a run stays short.
        budget = args.agent_steps if b >= 64 else args.scalar_agent_steps
        rows[f"hoity BatchedHoityEnv numba B={b:,}"] = median_rate(batched_env_bench(b), budget, args.repeats)
    for rules in args.rules.split(","):
        for b in batches:
            budget = args.agent_steps if b >= 64 else args.scalar_agent_steps
            rows[f"hoity BatchedGame+observer {rules} numba B={b:,}"] = median_rate(
                batched_engine_bench(b, rules), budget, args.repeats
            )
    if not args.engine_only:
        _anchors(rows, notes, 10 * args.agent_steps, args.repeats)
    scalar = rows[scalar_name]
    header = f"{'environment (4 players unless named)':56} {'agent-steps/CPU-s':>18}"
    print(f"{header} {'× one-game':>11} {'× 1M target':>12}")
    for name, rate in rows.items():
        print(f"{name:56} {rate:18,.0f} {rate / scalar:11.1f} {rate / TARGET:12.2f}")
    print(f"(medians of {args.repeats} runs, CPU time by time.process_time, all rows measured in this run)")
    for note in notes:
        print(note)
    from hoity_env.engine import BatchedGame

    memory = {}
    for n in (2, 4, 6):
        per_game = memory[n] = BatchedGame("standard", n).deal(range(256)).nbytes_per_game()
        print(f"memory per game, {n} players: {per_game:,.0f} bytes of arrays (budget 4,096)")
    if recorder:
        recorder.write({"rows": rows, "notes": notes, "bytes_per_game": memory}, settings=vars(args))
    return rows


if __name__ == "__main__":
    main()
