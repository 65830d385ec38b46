#!/usr/bin/env bash
# AgileRL's recipe, in a virtual environment of its own: AgileRL 2.58 pins pettingzoo<1.27,
# which the main environment (TorchRL, Tianshou, the registry ids) does not share.
# Usage: examples/integrations/agilerl/run.sh [agilerl_ippo.py arguments]   (VENV=... to choose the folder)
set -euo pipefail
cd "$(dirname "$0")/../../.."
VENV="${VENV:-.venv-agilerl}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" && "$VENV/bin/pip" install torch==2.13.0 && "$VENV/bin/pip" install -e ".[dev,agilerl]"
fi
"$VENV/bin/python" -c "from importlib.metadata import version as v; print('pettingzoo', v('pettingzoo'), 'agilerl', v('agilerl'))"
# The env on this older PettingZoo: the checkers and the contract (the registry ids need 1.27).
"$VENV/bin/python" -m pytest -q -p no:cacheprovider -k "not registr" \
    tests/environment/test_pettingzoo_conformance.py tests/environment/test_env_contract.py tests/environment/test_batched_env.py
# AgileRL's IPPO mask bug (a reproduction that fails once AgileRL fixes it), the recipe's
# workaround and MADDPG, which takes the flat env's masks as they are.
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests_agilerl
"$VENV/bin/python" examples/integrations/agilerl/agilerl_ippo.py "$@"
