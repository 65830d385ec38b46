"""What a reader gets from the README and the docs pages: a short front door, links that lead
somewhere, every page reachable from the site's index, measured figures on the results pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
RESULTS = sorted((DOCS / "results").glob("*.md"))
PAGES = sorted(DOCS.glob("*.md")) + RESULTS
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FIGURE = re.compile(r"<!-- figure: ([\w-]+) -->")


def _prose(text: str) -> str:
    """The text outside fenced code blocks."""
    return FENCE.sub("", text)


def _slug(title: str) -> str:
    """MyST's heading anchor (myst_parser's default_slugify) of a heading's text as it renders."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "")
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", title.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(h) for h in re.findall(r"^#{1,4} (.*)$", _prose(page.read_text(encoding="utf-8")), re.M)}


def test_readme_is_a_short_front_door() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.split()) <= 900
    long = [line[:60] for line in _prose(text).splitlines() if len(line) > 200]
    assert long == [], "prose lines over 200 characters"


def test_the_readme_shows_one_generated_figure_the_main_jobs() -> None:
    assert FIGURE.findall(README.read_text(encoding="utf-8")) == ["main-job"]


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_generated_figures_live_on_results_pages(page: Path) -> None:
    # A how-to, reference or explanation page links the result it relies on (docs/results/).
    assert FIGURE.findall(page.read_text(encoding="utf-8")) == []


def _broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` to a file that is not there, or to a heading its page lacks."""
    broken = []
    for m in LINK.finditer(_prose(page.read_text(encoding="utf-8"))):
        target = m.group(1) or m.group(2)
        if re.match(r"[a-z]+:", target) or target.startswith("#hoity_env."):
            continue  # https:, mailto:; #hoity_env.x.y: an API cross-reference (test_docs_site.py)
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists() or (anchor and dest.suffix == ".md" and anchor not in _anchors(dest)):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    assert _broken_links(page) == []


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    page = tmp_path / "a.md"
    page.write_text(
        "# A\n\n## Two `words`\n\n[ok](#two-words) [ok](b.md#b) [no](c.md) [no](b.md#c) [no](#three)\n"
        "```\n[in code](d.md)\n```\n",
        encoding="utf-8",
    )
    assert _broken_links(page) == ["c.md", "b.md#c", "#three"]
    assert _slug("The `champion`: [v2](x.md)") == "the-champion-v2"


def _toctree_entries() -> set[str]:
    entries = set()
    for page in [DOCS / "index.md", *PAGES]:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S):
            base = page.parent.relative_to(DOCS)
            for line in block.splitlines():
                if line.strip() and not line.startswith(":"):
                    entries.add(str(base / line.strip()))
    return entries


def test_every_page_is_reachable_from_the_index() -> None:
    entries = _toctree_entries()
    pages = {str(p.relative_to(DOCS).with_suffix("")) for p in PAGES} - {"index"}
    assert pages - entries == set()
    assert {
        "results/index",
        "results/main_job",
        "results/strength",
        "results/performance",
        "results/suite",
    } <= entries


def test_the_index_arranges_pages_by_purpose() -> None:
    captions = re.findall(r"^:caption: (.*)$", (DOCS / "index.md").read_text(encoding="utf-8"), re.M)
    assert captions == ["Getting started", "How-to guides", "Reference", "Explanation", "Results"]
