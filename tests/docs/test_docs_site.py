"""The documentation site builds with warnings as errors and works in a real browser (docs/conf.py).

The build is the documented command (``python -m sphinx -W -b html docs OUT``); then every
internal link of every page must resolve (file and anchor), every page must be reachable
from the front page, and headless Chromium must load pages without console errors, with
their pictures, and find pages through the search box.
"""

from __future__ import annotations

import functools
import html
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from filelock import FileLock

from tests.browser import Browser
from tests.helpers import ROOT, api_pages, public_modules


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per run: the pytest-xdist workers of a run share one build.

    The first worker to get here builds it, under a lock, into the run's own temporary folder
    (above each worker's); the others wait and read it.  Without xdist the folder is this
    process's own.  A build is written to a partial folder and renamed when it succeeded.
    """
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder: every worker's basetemp is inside it
    out = shared / "docs_site"
    with FileLock(shared / "docs_site.lock"):
        if not (out / "index.html").is_file():
            partial = shared / "docs_site.partial"
            shutil.rmtree(partial, ignore_errors=True)
            command = ["-m", "sphinx", "-W", "-q", "-b", "html", "-d", str(partial / ".doctrees")]
            done = subprocess.run(
                [sys.executable, *command, "docs", str(partial)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert done.returncode == 0, done.stderr[-4000:]
            partial.rename(out)
    return out


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.links.append(str(a["href"]))
        if tag == "img" and a.get("src"):
            self.images.append(str(a["src"]))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _pages(site: Path) -> dict[Path, _Page]:
    return {p: _parse(p) for p in site.rglob("*.html") if "_sources" not in p.parts}


def _internal(href: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", href) and not href.startswith("//")


def test_every_internal_link_resolves(site: Path) -> None:
    pages = _pages(site)
    broken = []
    for path, page in pages.items():
        for href in filter(_internal, page.links):
            target, _, anchor = urllib.parse.unquote(href).partition("#")
            file = (path.parent / target).resolve() if target else path
            if file.is_dir():
                file = file / "index.html"
            if not file.exists():
                broken.append(f"{path.relative_to(site)} -> {href}")
            elif anchor and file.suffix == ".html" and anchor not in (pages.get(file) or _parse(file)).ids:
                broken.append(f"{path.relative_to(site)} -> {href} (no such anchor)")
        for src in filter(_internal, page.images):
            if not (path.parent / urllib.parse.unquote(src)).exists():
                broken.append(f"{path.relative_to(site)} image {src}")
    assert not broken, "\n".join(broken[:40])


def test_every_page_is_reachable_from_the_front_page(site: Path) -> None:
    pages = _pages(site)
    seen = {site / "index.html"}
    todo = [site / "index.html"]
    while todo:
        path = todo.pop()
        for href in filter(_internal, pages[path].links):
            target = urllib.parse.unquote(href).partition("#")[0]
            file = (path.parent / target).resolve() if target else path
            if file.suffix == ".html" and file in pages and file not in seen:
                seen.add(file)
                todo.append(file)
    special = ("search.html", "genindex.html", "py-modindex.html")  # Sphinx's own index pages
    unreachable = sorted(str(p.relative_to(site)) for p in set(pages) - seen if p.name not in special)
    assert not unreachable, unreachable


def test_api_reference_has_a_page_for_every_module(site: Path) -> None:
    """Each module's own page (``module-NAME``), not an anchor of something with its name: a function
    named like its module (``hoity_env.evaluation.tournament``) used to take the module's place."""
    modules = set(api_pages().module_names())
    assert public_modules() <= modules
    ids = {anchor for page in _pages(site).values() for anchor in page.ids}
    missing = sorted(m for m in modules if f"module-{m}" not in ids)
    assert not missing, missing


@pytest.mark.parametrize("module", sorted(public_modules()))
def test_public_module_pages_hold_their_docstrings(site: Path, module: str) -> None:
    page = site / "api" / "generated" / f"{module}.html"
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))
    text = html.unescape(text).replace("\u2019", "'")  # Sphinx's smart quotes
    words = re.sub(r":\w+:|`|\*", "", api_pages().summary(module)).split()[:6]
    assert words and " ".join(words) in text, (module, words)


def test_api_index_lists_every_subpackage(site: Path) -> None:
    names = api_pages().module_names()
    packages = [n for n in names if (ROOT / n.replace(".", "/") / "__init__.py").is_file()]
    links = set(_parse(site / "api" / "index.html").links)
    assert {f"generated/{p}.html#module-{p}" for p in packages} <= links, sorted(links)


def test_narrative_pages_link_the_functions_they_describe(site: Path) -> None:
    links = set(_parse(site / "evaluation.html").links)
    for target in ("hoity_env.evaluation.harness.evaluate", "hoity_env.evaluation.tournament.head_to_head"):
        page = target.rpartition(".")[0]
        assert f"api/generated/{page}.html#{target}" in links, target


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, as a reader's browser gets it.

    Over ``file://`` Chromium blocks the search page's ``fetch`` of each result's page (the
    snippet under the link): a console error that shows up or not depending on timing."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/favicon.ico":  # asked by the browser itself, not by a page: no content
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.parametrize(
    "page", ["index.html", "environment.html", "training.html", "api/generated/hoity_env.html"]
)
def test_pages_load_without_errors_with_their_pictures(served: str, browser: Browser, page: str) -> None:
    browser.goto(f"{served}/{page}")
    browser.wait_until("document.readyState === 'complete'")
    broken = browser.evaluate(
        "Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
    )
    assert broken == [], broken
    assert browser.errors == [], browser.errors


def test_search_finds_the_environment_page(served: str, browser: Browser) -> None:
    browser.goto(f"{served}/search.html?q=parallel_env")
    # The API pages match first (objects), the narrative pages follow as the search goes on.
    found = browser.wait_until(
        "Array.from(document.querySelectorAll('#search-results a'), a => a.href)"
        ".filter(h => h.includes('/environment.html') || h.includes('/quickstart.html')).join(' ')",
        seconds=30,
    )
    assert "environment.html" in str(found) or "quickstart.html" in str(found), found
    browser.wait_until("document.querySelectorAll('#search-results p.context').length > 0")  # the snippets
    assert browser.errors == [], browser.errors
