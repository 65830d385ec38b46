#!/usr/bin/env bash
# RLlib in a virtual environment of its own (ray[rllib] 2.60 pins gymnasium 1.2.2 and is ~1.8 GB,
# too big for CI): build it, run tests_rllib/ (adapter, module, league, Ray evaluation backend),
# 2 PPO iterations of RLlib's own ActionMaskingTorchRLModule on the env built with
# observation_keys="rllib" (no wrapper; HoityRLlibEnv's illegal_action="raise"), 2-iteration PPO
# runs of ours in both modes with 0 and 2 env runners (league: a gate after each iteration,
# threshold 0 so that a snapshot joins and plays: this checks freezing, not learning), and
# hoity-eval on the Ray backend against the local one.
# Usage: training/rllib_check.sh   (VENV=... to choose the folder)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv-rllib}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" && "$VENV/bin/pip" install torch==2.13.0 && "$VENV/bin/pip" install -e ".[dev,rllib]"
fi
# -n 0: one process (each pytest-xdist worker would start a Ray instance of its own).
"$VENV/bin/python" -m pytest -q -p no:cacheprovider -n 0 tests_rllib
league=$(mktemp -d)
trap 'rm -rf "$league"' EXIT
"$VENV/bin/python" training/rllib_ppo.py --module rllib --iterations 2 --batch 2000 --env-runners 0
for runners in 0 2; do
    "$VENV/bin/python" training/rllib_ppo.py --iterations 2 --batch 2000 --env-runners "$runners"
    "$VENV/bin/python" training/rllib_ppo.py --mode league --iterations 2 --batch 2000 \
        --env-runners "$runners" --gate-every 1 --gate-threshold 0 --league-dir "$league/$runners"
done
eval_args=(--agents expert,collector,random,random --games 400 --seed 1 --no-progress)
"$VENV/bin/python" -m hoity_env.cli.eval "${eval_args[@]}" >"$league/local.md"
"$VENV/bin/python" -m hoity_env.cli.eval "${eval_args[@]}" --backend ray >"$league/ray.md"
cmp "$league/local.md" "$league/ray.md" && echo "hoity-eval --backend ray: the same table as local, 400 games"
