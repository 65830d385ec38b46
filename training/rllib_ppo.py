"""PPO on RLlib's new API stack: one shared masked policy, or ``main`` in a league (extra ``rllib``).

    # ray[rllib] 2.60 pins gymnasium 1.2.2: give it a virtual environment of its own.
    python3 -m venv .venv-rllib && .venv-rllib/bin/pip install torch==2.13.0 \\
        && .venv-rllib/bin/pip install -e ".[rllib]"
    .venv-rllib/bin/python training/rllib_ppo.py --iterations 2 --env-runners 0
    .venv-rllib/bin/python training/rllib_ppo.py --mode league --iterations 20 --gate-every 2
    .venv-rllib/bin/python training/rllib_ppo.py --address auto --env-runners 8   # on a cluster

Modes:

* ``shared`` (default): one module, ``shared``, plays every seat (parameter sharing).
* ``league``: ``main`` plays one seat of each episode; the others are drawn from the
  league: our scripted bots (``--bots``) and frozen snapshots of ``main``.  Every
  ``--gate-every`` iterations our evaluation harness scores ``main`` (greedy,
  duplicate format, ``--gate-games`` games) against each league member filling
  every other seat; when the mean win rate reaches ``--gate-threshold``, a frozen
  copy of ``main`` joins the league (RLlib ``add_module``, never trained: only
  ``main`` is in ``policies_to_train``) and is saved as ``LEAGUE_DIR/main_vN``, a
  ``rllib:PATH`` agent spec like any other.  ``LEAGUE_DIR/league.json`` lists the
  league and every gate's scores.  How and why: :mod:`hoity_env.integrations.rllib.league`.

Our pieces are in :mod:`hoity_env.integrations.rllib.env`: ``HoityRLlibEnv`` (a thin
``MultiAgentEnv``, ``illegal_action="raise"``: one illegal action stops the run) and
``MaskedPPOModule`` (RLlib's PPO module reading our observation dict, mask applied to
the logits).  A saved run plays in the harness as ``rllib:PATH`` without starting Ray.

``--module rllib`` (shared mode) trains RLlib's own example module instead,
``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``),
with no code of ours in between: the env is built with ``observation_keys="rllib"``, so its
observation dict has the keys that module reads (``observations``, ``action_mask``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import ray
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import evaluate_tables
from hoity_env.evaluation.ray_backend import BACKENDS, check_reachable
from hoity_env.files import fresh_folder, write_atomically
from hoity_env.integrations.rllib.env import MAIN, SHARED, HoityRLlibEnv, MaskedPPOModule
from hoity_env.integrations.rllib.league import (
    DEFAULT_BOTS,
    LeagueMapping,
    ScriptedBotModule,
    WinRateGate,
    bot_module_id,
    league_specs,
    snapshot_module_id,
)

MODES = ("shared", "league")
MODULES = ("ours", "rllib")
"""``ours``: :class:`MaskedPPOModule`; ``rllib``: RLlib's own ``ActionMaskingTorchRLModule``."""


def policy_spec(module: str = "ours") -> RLModuleSpec:
    """The masked PPO module of ``shared`` and ``main``: ours, or RLlib's own example module."""
    module_class: Any = MaskedPPOModule
    if module == "rllib":
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

        module_class = ActionMaskingTorchRLModule
    return RLModuleSpec(module_class=module_class, model_config={"fcnet_hiddens": [64, 64]})


def env_config(args: argparse.Namespace) -> dict[str, Any]:
    """The env's keyword arguments: RLlib's module reads the keys ``observations`` and ``action_mask``."""
    config: dict[str, Any] = {"num_players": args.players}
    if args.module == "rllib":
        config["observation_keys"] = "rllib"
    return config


def bot_specs(bots: list[str], seed: int, num_players: int) -> dict[str, RLModuleSpec]:
    """One frozen :class:`ScriptedBotModule` per bot, each with its own seed, told the player count."""
    return {
        bot_module_id(name): RLModuleSpec(
            module_class=ScriptedBotModule,
            model_config={"agent": name, "seed": seed + 1000 + i, "num_players": num_players},
        )
        for i, name in enumerate(bots)
    }


def build_config(args: argparse.Namespace) -> PPOConfig:
    """PPO with our env; ``shared`` plays every seat, or ``main`` against the league's bots."""
    config = (
        PPOConfig()
        # RLlib's env check steps with unmasked samples, which illegal_action="raise" refuses.
        .environment(HoityRLlibEnv, env_config=env_config(args), disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=128, num_epochs=2, lr=3e-4)
        .debugging(seed=args.seed)
    )
    if args.mode == "shared":
        modules = {SHARED: policy_spec(args.module)}
        mapping: Any = lambda agent_id, episode, **kw: SHARED  # noqa: E731
        train = [SHARED]
    else:
        bots = bot_specs(args.bots, args.seed, args.players)
        modules = {MAIN: policy_spec(), **bots}
        mapping = LeagueMapping(args.players, tuple(bots))
        train = [MAIN]
    return config.multi_agent(
        policies=set(modules), policy_mapping_fn=mapping, policies_to_train=train
    ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))


def on_learner(algo: Algorithm, fn: Any) -> Any:
    """``fn(learner)`` on the (one) learner, its error re-raised here."""
    (call,) = algo.learner_group.foreach_learner(fn)
    return call.get()


def learner_state(algo: Algorithm, module_id: str) -> Any:
    """The learner's weights of ``module_id`` (the learner is in this process: ``num_learners=0``)."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}")
    return state["learner"]["rl_module"][module_id]


class League:
    """``main``'s league during a run: bots and snapshots, the gate, and ``league.json``."""

    def __init__(self, algo: Algorithm, args: argparse.Namespace, folder: Path) -> None:
        self.algo, self.args, self.folder = algo, args, folder
        self.gate = WinRateGate(args.gate_every, args.gate_threshold)
        self.snapshots: list[Path] = []
        self.opponents = [bot_module_id(b) for b in args.bots]
        self.gates: list[dict[str, Any]] = []
        self.seconds = 0.0  # wall time spent scoring main at the gates
        folder.mkdir(parents=True)
        self.write()

    def specs(self) -> list[str]:
        """The league as harness agent specs (bot names, ``rllib:`` snapshot folders)."""
        return league_specs(self.args.bots, [str(p) for p in self.snapshots])

    def save_main(self, path: Path) -> None:
        """The learner's ``main`` (with its value head) as a module folder."""
        on_learner(self.algo, lambda learner: learner.module[MAIN].save_to_path(str(path)))

    def score(self, candidate: Path) -> tuple[dict[str, float], dict[str, int]]:
        """``main``'s win rate against each member filling every other seat (our harness).

        Also how many of those games hit the round limit: a truncated game has no
        winner, so it counts against ``main`` (a policy that stalls games must not pass).
        """
        me = f"rllib:{candidate}"
        members = self.specs()
        seats = self.args.players - 1
        results = evaluate_tables(
            [[me, *[member] * seats] for member in members],
            num_players=self.args.players,
            games=self.args.gate_games,
            seed=self.args.seed,
            progress=False,
            backend=self.args.gate_backend,
        )
        rates, truncated = {}, {}
        for member, result in zip(members, results, strict=True):
            rates[member] = next(s.win_rate for s in result.agent_stats if s.agent == me)
            truncated[member] = result.truncated
        return rates, truncated

    def after_iteration(self, iteration: int) -> None:
        """At a gate: score ``main`` and, if it passes, freeze a copy into the league."""
        if not self.gate.due(iteration):
            return
        start = time.perf_counter()
        candidate = self.folder / ".candidate"
        shutil.rmtree(candidate, ignore_errors=True)
        self.save_main(candidate)
        rates, truncated = self.score(candidate)
        passed = self.gate.passes(iteration, rates)
        mean = self.gate.history[-1][1]
        shown = ", ".join(
            f"{Path(k).name if k.startswith('rllib:') else k} {v:.2f}" for k, v in rates.items()
        )
        verdict = f">= {self.gate.threshold}" if passed else f"< {self.gate.threshold}"
        joined = None
        if passed:
            joined = self.freeze(candidate)
        else:
            shutil.rmtree(candidate)
        self.gates.append(
            {
                "iteration": iteration,
                "win_rates": rates,
                "truncated": truncated,
                "mean": mean,
                "joined": joined,
            }
        )
        self.write()
        self.seconds += time.perf_counter() - start
        news = f": {joined} joins the league ({len(self.specs())} members)" if joined else ""
        stalled = sum(truncated.values())
        stalls = f"; games at the round limit (no winner): {stalled}" if stalled else ""
        print(
            f"gate after iteration {iteration}: main's win rate {mean:.2f} {verdict} ({shown}){news}{stalls}"
        )

    def freeze(self, candidate: Path) -> str:
        """Add a frozen copy of ``main`` to the league (RLlib and disk); return its module id."""
        module_id = snapshot_module_id(len(self.snapshots) + 1)
        path = self.folder / module_id
        candidate.rename(path)
        self.snapshots.append(path)
        self.opponents.append(module_id)
        # main's own spec (spaces, and the model config as PPO completed it: separate actor
        # and critic encoders), so that main's weights fit the copy key for key.
        spec = on_learner(self.algo, lambda learner: RLModuleSpec.from_module(learner.module[MAIN]))
        self.algo.add_module(
            module_id=module_id,
            module_spec=spec,
            new_agent_to_module_mapping_fn=LeagueMapping(self.args.players, tuple(self.opponents)),
            new_should_module_be_updated=[MAIN],
        )
        # The copy gets main's weights as they were scored; set_state also syncs the env runners.
        state = learner_state(self.algo, MAIN)
        self.algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: state}}}})
        if learner_state(self.algo, module_id).keys() != state.keys():  # torch would load it partly
            raise RuntimeError(f"the snapshot {module_id} does not have main's layers")
        # set_state syncs only remote env runners, and without waiting: every runner, the
        # local one too, must hold the copy before it plays a single step.
        self.algo.env_runner_group.foreach_env_runner(
            lambda runner: runner.module[module_id].set_state(state), local_env_runner=True
        )
        return module_id

    def write(self) -> None:
        """``league.json``: the members (harness specs), module ids and every gate's scores."""
        data = {
            "members": self.specs(),
            "module_ids": self.opponents,
            "threshold": self.gate.threshold,
            "gate_every": self.gate.every,
            "gates": self.gates,
        }
        write_atomically(self.folder / "league.json", json.dumps(data, indent=2) + "\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="shared", help="shared (default) or league")
    parser.add_argument(
        "--module",
        choices=MODULES,
        default="ours",
        help="ours (MaskedPPOModule, default) or rllib (RLlib's own ActionMaskingTorchRLModule; shared mode)",
    )
    parser.add_argument("--iterations", type=int, default=2, help="PPO iterations (train() calls)")
    parser.add_argument("--batch", type=int, default=1000, help="env steps per iteration (all seats act)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--env-runners", type=int, default=0, help="0 = sample in this process")
    parser.add_argument("--address", default=None, help="Ray cluster address ('auto'); default: local")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="folder for the final checkpoint")
    league = parser.add_argument_group("league mode")
    league.add_argument(
        "--bots",
        default=",".join(DEFAULT_BOTS),
        help=f"scripted bots in the league, comma-separated (default {','.join(DEFAULT_BOTS)})",
    )
    league.add_argument("--gate-every", type=int, default=5, help="score main every K iterations (5)")
    league.add_argument(
        "--gate-threshold",
        type=float,
        default=0.4,
        help="mean win rate main needs for a frozen copy to join (0.4; chance is 1/players)",
    )
    league.add_argument("--gate-games", type=int, default=40, help="games per league member (40)")
    league.add_argument(
        "--gate-backend",
        choices=BACKENDS,
        default="local",
        help="where the gate's games run: local (this process) or ray (needs CPUs the env runners leave)",
    )
    league.add_argument("--league-dir", default="runs/rllib-league", help="snapshots and league.json")
    args = parser.parse_args(argv)
    args.bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    try:
        for name in args.bots:
            bot_module_id(name)
        if args.mode == "league" and args.module != "ours":
            raise ConfigError("--module rllib trains the shared mode (the league's bots read our keys)")
        if args.mode == "league" and not args.bots:
            raise ConfigError("a league needs at least one scripted bot (--bots)")
        WinRateGate(args.gate_every, args.gate_threshold)
        if args.gate_games < 1:
            raise ConfigError(f"--gate-games must be >= 1, got {args.gate_games}")
    except ConfigError as exc:
        parser.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    torch.set_num_threads(1)
    if args.address:
        try:
            check_reachable(args.address)  # Ray would retry a dead HOST:PORT for minutes
        except ConfigError as exc:
            raise SystemExit(f"rllib_ppo.py: error: {exc}") from None
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=False)
    algo = build_config(args).build_algo()
    league = League(algo, args, fresh_folder(Path(args.league_dir))) if args.mode == "league" else None
    start, cpu = time.perf_counter(), time.process_time()
    steps = 0
    for i in range(args.iterations):
        result = algo.train()
        steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        print(f"iteration {i + 1}: {steps} env steps sampled so far")
        if league is not None:
            league.after_iteration(i + 1)
    gates = league.seconds if league is not None else 0.0
    wall = time.perf_counter() - start - gates
    label = args.mode if args.module == "ours" else f"{args.mode}, RLlib's ActionMaskingTorchRLModule"
    print(
        f"rllib PPO ({label}): {steps} env steps with {args.env_runners} env runners, "
        f"{steps / wall:.0f} env steps/s (wall), {time.process_time() - cpu:.1f} CPU-s in the driver, "
        "0 illegal actions"
    )
    if league is not None:
        print(
            f"league: {len(league.specs())} members after {len(league.gates)} gates "
            f"({gates:.1f} s of games, not in the rate above), written to {league.folder}"
        )
    if args.save:
        print("checkpoint:", algo.save(os.path.abspath(args.save)).checkpoint.path)
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
