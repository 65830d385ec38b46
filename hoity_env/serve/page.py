"""The pages of ``hoity-serve``: files of ``serve/static/``, served as they are, and their policy.

The play page (``play.html``, its style ``play.css`` and its script ``play.js``)
teaches the game where it is played: a short rules panel (open until the first game
starts) that links the full rules at ``/rules``, card codes such as ``A1529``
explained beside the hand, and a bid entered as one number bounded by the legal
range.  The ``/rules`` page (``rules.html``) is the rules contract, ``docs/RULES.md``,
rendered to HTML when it changes (``python docs/_generate/serve_rules.py``; a test fails when the
committed page is stale), so serving it needs no Markdown parser and no internet.

The pages are files, read with :mod:`importlib.resources` and shipped as package
data, and the server answers only the names of :data:`STATIC` (no path from a
request ever reaches the file system).  Because the style and the script are files
of their own, :data:`PAGE_POLICY` allows only this server's own files: no inline
script or style, nothing fetched from elsewhere.  The script writes everything a
request returns as text (``textContent``), never as markup.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["PAGE_POLICY", "STATIC", "static_file"]

PAGE_POLICY = "default-src 'none'; img-src data:; style-src 'self'; script-src 'self'; connect-src 'self'"
"""The Content-Security-Policy of the play, rules and saved-games pages: this server's files only."""

STATIC = {
    "play.css": "text/css; charset=utf-8",
    "play.js": "text/javascript; charset=utf-8",
}
"""The files served at ``/static/NAME``, with their content types (the pages link them)."""


@cache
def static_file(name: str) -> str:
    """The text of ``serve/static/NAME`` (read once: it is part of the installed package)."""
    return (resources.files("hoity_env.serve") / "static" / name).read_text(encoding="utf-8")
