"""A recipe run as a script computes the same floats on every x86-64 CPU (``run_training.PORTABLE_MATH``).

The figures this guards are the README's: the main job printed three different tables on
one machine under three sets of torch kernels, and the record's under these settings.
"""

from __future__ import annotations

import os

import pytest

from tests.helpers import ROOT
from tests.training.test_training import _load


def test_run_cli_sets_portable_kernels_and_keeps_what_the_user_set(monkeypatch: pytest.MonkeyPatch) -> None:
    run_training = _load("run_training")
    seen: dict[str, str] = {}
    monkeypatch.setattr(os, "environ", {"ATEN_CPU_CAPABILITY": "avx512"})
    assert run_training.run_cli(lambda: seen.update(os.environ), "train_ppo.py") == 0
    assert seen == {"ATEN_CPU_CAPABILITY": "avx512", "MKL_CBWR": "COMPATIBLE"}
    monkeypatch.setattr(os, "environ", {})
    assert run_training.run_cli(lambda: seen.update(os.environ), "train_ppo.py") == 0
    assert seen == run_training.PORTABLE_MATH == {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}


@pytest.mark.parametrize("recipe", ["train_ppo", "selfplay", "shared_ppo"])
def test_every_recipe_runs_its_main_under_run_cli(recipe: str) -> None:
    assert f'sys.exit(run_cli(main, "{recipe}.py"))' in (ROOT / "training" / f"{recipe}.py").read_text()
