"""ruff (lint + format) and mypy stay clean: the house rules of STYLE.md, enforced."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import ROOT

PATHS = ["hoity_env", "tests", "examples", "benchmarks", "training"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint() -> None:
    out = _run("ruff", "check", *PATHS)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format() -> None:
    out = _run("ruff", "format", "--check", *PATHS)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_strict_on_the_package() -> None:
    out = _run("mypy")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_pre_commit_hooks_run_the_suites_checks() -> None:
    # .pre-commit-config.yaml is the contributor's copy of the three checks above (CONTRIBUTING.md):
    # the same ruff (a release the dev extra allows), on the same paths, with pyproject's settings
    # (no extra arguments but --fix), and the same mypy run.
    import yaml
    from packaging.requirements import Requirement
    from packaging.version import Version

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    repos = {repo["repo"]: repo for repo in config["repos"]}
    ruff_repo = repos["https://github.com/astral-sh/ruff-pre-commit"]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dev = re.search(r"^dev = \[(.*?)\]", pyproject, re.S | re.M)
    assert dev is not None
    pins = [Requirement(r) for r in re.findall(r'"([^"]+)"', dev.group(1))]
    ruff = next(r for r in pins if r.name == "ruff")
    assert Version(ruff_repo["rev"].removeprefix("v")) in ruff.specifier, (ruff_repo["rev"], str(ruff))
    hooks = {hook["id"]: hook for hook in ruff_repo["hooks"]}
    assert set(hooks) == {"ruff-check", "ruff-format"}
    assert hooks["ruff-check"].get("args", []) == ["--fix"] and "args" not in hooks["ruff-format"]
    paths = f"^({'|'.join(PATHS)})/"
    assert hooks["ruff-check"]["files"] == hooks["ruff-format"]["files"] == paths
    (mypy,) = repos["local"]["hooks"]
    assert (mypy["entry"], mypy["pass_filenames"], mypy.get("args")) == ("mypy", False, None)
