"""The ``/rules`` page of ``hoity-serve``: the rules contract, ``docs/RULES.md``, as HTML, served locally.

The play page's rules panel is a summary in a few lines; it links this page for the
full rules with every rule id, the docs site's rules page.  The server needs no
internet and no built docs site: ``hoity_env/serve/RULES.md`` is a symbolic link to
``docs/RULES.md`` in the repository (one text, never two copies to keep in step),
and a built wheel ships it as a plain file (``.ci/smoke_installed.py`` checks).

markdown-it-py renders it: the CommonMark parser the docs site's MyST uses, with
tables on and raw HTML off (the file's ``<!-- figure -->`` markers are dropped
first), so the page is as plain as the play page and obeys the same policy.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from markdown_it import MarkdownIt

from hoity_env.serve.page import STYLE

__all__ = ["rules_page"]

COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)


@cache
def rules_page() -> str:
    """The rules page's HTML (rendered once: the file is part of the installed package)."""
    text = (resources.files("hoity_env.serve") / "RULES.md").read_text(encoding="utf-8")
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(COMMENT.sub("", text))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Hoity Toity: the rules</title>'
        f"<style>{STYLE}</style></head><body>"
        '<p><a href="/">play</a> | <a href="/replays">saved games</a></p>'
        f'<main id="rules">{body}</main></body></html>\n'
    )
