#!/usr/bin/env bash
# RLlib in a virtual environment of its own (ray[rllib] 2.60 pins gymnasium 1.2.2 and is ~1.8 GB,
# too big for CI): build it, run the adapter/module tests and a 2-iteration PPO run with 0 and 2
# env runners.  Usage: training/rllib_check.sh   (VENV=... to choose the folder)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv-rllib}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" && "$VENV/bin/pip" install torch==2.13.0 && "$VENV/bin/pip" install -e ".[dev,rllib]"
fi
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests_rllib
for runners in 0 2; do
    "$VENV/bin/python" training/rllib_ppo.py --iterations 2 --batch 2000 --env-runners "$runners"
done
