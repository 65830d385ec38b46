"""The pages of ``hoity-serve``: files of ``serve/static/``, served as they are, and their policy.

The pages are package data read with :mod:`importlib.resources`, and only the names of :data:`STATIC`
are served, so no path from a request ever reaches the file system.  The style and the script are
files of their own, so :data:`PAGE_POLICY` can allow only this server's own files: no inline script or
style, nothing fetched from elsewhere.  See docs/serve.md.
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
