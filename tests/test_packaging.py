"""What the built distributions must hold (CI builds and installs them: .ci/package_check.sh).

These are the cheap, static halves of that check: the package data names every shipped
model and every page file, the core install brings no chart or Markdown library, the
metadata points at no placeholder page, and CI runs the packaging script.
"""

from __future__ import annotations

import fnmatch
import re

import pytest

from tests.helpers import ROOT, npz_members

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_package_data_ships_every_named_model() -> None:
    from hoity_env.agents.policies.registry import registry

    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["hoity_env"]
    package = ROOT / "hoity_env"
    models = package / "agents" / "models"
    shipped = sorted(p.relative_to(package).as_posix() for p in models.rglob("*") if p.is_file())
    expected = [f"agents/models/{file}" for file in [*registry().sources, "registry.json"]]
    for file in registry().sources:  # a population folder's own members (npz: beside its manifest)
        if "/" in file:
            folder = file.rsplit("/", 1)[0]
            expected += [f"agents/models/{folder}/{name}" for name in npz_members(models / file)]
    assert shipped == sorted(expected)
    assert all(any(fnmatch.fnmatch(name, g) for g in globs) for name in shipped), (shipped, globs)


def test_package_data_ships_every_page_file_and_nothing_else_there() -> None:
    """The pages of hoity-serve and the replay viewer (``*/static/``), read with importlib.resources."""
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["hoity_env"]
    package = ROOT / "hoity_env"
    pages = sorted(p.relative_to(package).as_posix() for p in package.glob("*/static/*") if p.is_file())
    assert {"serve/static/play.html", "serve/static/rules.html", "replays/static/viewer.js"} <= set(pages)
    assert all(any(fnmatch.fnmatch(name, g) for g in globs) for name in pages), (pages, globs)
    shipped_there = [g for g in globs if "/static/" in g]
    assert all(fnmatch.filter(pages, g) for g in shipped_there), shipped_there  # no glob matches nothing


def test_the_core_install_brings_no_chart_or_markdown_library() -> None:
    """Charts are the ``plots`` extra (and ``train``'s); hoity-serve's rules page is rendered ahead."""
    core = {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].lower() for d in PYPROJECT["project"]["dependencies"]}
    assert core.isdisjoint({"matplotlib", "markdown-it-py", "markdown", "rich"}), core
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(d.startswith("matplotlib") for d in extras["plots"])
    assert any(d.startswith("matplotlib") for d in extras["train"])  # the recipes' learning curve


def test_metadata_points_at_no_placeholder() -> None:
    urls = PYPROJECT["project"].get("urls", {})
    assert not [u for u in urls.values() if "example.invalid" in u or "example.com" in u]
    assert "example.invalid" not in (ROOT / "CITATION.cff").read_text(encoding="utf-8")


def test_ci_runs_the_packaging_check_after_the_tests() -> None:
    lines = [
        line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if line[:1] != "#"
    ]
    pytest_line = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    check = [i for i, line in enumerate(lines) if line.endswith(".ci/package_check.sh")]
    assert check and check[0] > pytest_line
    assert (ROOT / ".ci" / "package_check.sh").stat().st_mode & 0o111  # executable
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert {d.split(">")[0] for d in dev} >= {"build", "twine"}
