"""The recipes of examples/integrations/ run and train with masking (docs/design.md §8).

Each recipe asserts by itself that no illegal action was sampled or flagged; here it
runs as a user would run it (a subprocess, a short budget) and must say so.  The
libraries come with the ``integrations`` extra (TorchRL, Tianshou) or ``train``
(the CleanRL-style loop needs only torch): a missing one fails the import test
below instead of skipping.  AgileRL cannot share this environment (it pins
``pettingzoo<1.27``); its recipe runs from ``examples/integrations/agilerl/run.sh``.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "examples" / "integrations"

RUNS = {
    "cleanrl_ppo.py": (["--total-steps", "4096"], "cleanrl PPO:"),
    "torchrl_mappo.py": (["--frames", "1024"], "torchrl MAPPO:"),
    "tianshou_dqn.py": (["--steps", "1000"], "tianshou DQN:"),
}


@pytest.mark.parametrize("module", ["torchrl", "tianshou", "tensordict"])
def test_integration_libraries_are_installed(module: str) -> None:
    """The suite's environment has the integrations extra: no recipe test may skip for want of it."""
    importlib.import_module(module)


@pytest.mark.parametrize("script", sorted(RUNS))
def test_recipe_trains_without_illegal_actions(script: str) -> None:
    args, banner = RUNS[script]
    out = subprocess.run(
        [sys.executable, str(RECIPES / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    line = next((x for x in out.stdout.splitlines() if x.startswith(banner)), None)
    assert line is not None, out.stdout
    assert "0 illegal actions" in line


def test_every_recipe_is_run_or_documented() -> None:
    """A new recipe must be added to RUNS (or to the AgileRL-style script list)."""
    scripts = {p.name for p in RECIPES.glob("*.py")}
    assert scripts == set(RUNS), scripts ^ set(RUNS)


def test_rllib_spec_without_the_extra_is_a_clear_error(tmp_path: Path) -> None:
    """``rllib:PATH`` needs ray (its own venv, tests_rllib/); here it must fail with a ConfigError."""
    from hoity_env import ConfigError
    from hoity_env.agents import make

    with pytest.raises(ConfigError, match="rllib"):
        make(f"rllib:{tmp_path}")
