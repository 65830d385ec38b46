"""Sphinx configuration of the hoity_env documentation site (Furo theme, MyST Markdown).

Build it, warnings as errors, with::

    python -m sphinx -W -b html docs docs/_build/html

The API reference (``docs/api/``) is generated from the docstrings of every module of
the package at build time: ``_generate/api_pages.py`` writes one ``automodule`` page per module (by
its full dotted path, so that no function of the same name hides a module) before the
build reads the sources, so a new module appears without editing anything here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "docs" / "_generate"))

import api_pages  # noqa: E402

import hoity_env  # noqa: E402  (after the path: the checkout's package, not an installed one)

project = "hoity_env"
author = "hoity_env developers"
copyright = "2026, hoity_env developers"
release = hoity_env.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# results/*.md are pages (the Results section); the folders under results/ hold the result files.
exclude_patterns = ["_build", "_generate", "reference/*.md", "reference/**/*.md", "results/*/**"]

# MyST: anchors for headings down to level 4, so that page.md#section links resolve.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

# autodoc: document what each module defines (not what a package re-exports, which would
# describe the same object twice), with type hints in the description.
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_typehints = "description"
autodoc_mock_imports = ["ray"]  # the rllib extra lives in its own virtual environment

# An attribute docstring naming a short name that two classes define (``copies``) would fail the
# build on an ambiguous cross-reference; the page still links the first target.
suppress_warnings = ["ref.python"]

html_theme = "furo"
html_title = f"hoity_env {release}"
html_static_path: list[str] = []


def setup(app: Any) -> None:
    """Write the API pages (``_generate/api_pages.py``) when the build starts, before the sources are read."""
    app.connect("builder-inited", lambda app: api_pages.write_pages(Path(app.srcdir)))
