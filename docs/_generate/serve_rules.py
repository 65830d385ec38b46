"""Write ``hoity_env/serve/static/rules.html``: ``hoity-serve``'s ``/rules`` page, from ``docs/RULES.md``.

    python docs/_generate/serve_rules.py           # after an edit of docs/RULES.md (or of its figures)
    python docs/_generate/serve_rules.py --check   # change nothing; exit 1 if the committed page is stale

The rules are rendered here, when they change, rather than by the server at run time,
so that ``hoity-serve`` (in every install of hoity_env) needs no Markdown parser:
markdown-it-py, the CommonMark parser the docs site's MyST uses (the ``docs`` and
``dev`` extras bring it), with tables on and raw HTML off; the file's
``<!-- figure -->`` markers are dropped first.  The page links the play page's
stylesheet and has no script, as plain as the play page and under the same policy
(:mod:`hoity_env.serve.page`).  ``tests/serve/test_serve_pages.py`` fails when the
committed page is not what this script writes.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from markdown_it import MarkdownIt

from hoity_env.files import write_atomically

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "RULES.md"
PAGE = ROOT / "hoity_env" / "serve" / "static" / "rules.html"
COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)


def render(markdown: str) -> str:
    """The ``/rules`` page for the rules text ``markdown``."""
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(COMMENT.sub("", markdown))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Hoity Toity: the rules</title>'
        '<link rel="stylesheet" href="/static/play.css"></head><body>'
        '<p><a href="/">play</a> | <a href="/replays">saved games</a></p>'
        f'<main id="rules">{body}</main></body></html>\n'
    )


def stale(rules: Path = RULES, page: Path = PAGE) -> bool:
    """Whether ``page`` is not the rendering of ``rules`` (a missing page is stale)."""
    expected = render(rules.read_text(encoding="utf-8"))
    return not page.is_file() or page.read_text(encoding="utf-8") != expected


def main(argv: Sequence[str] | None = None) -> int:
    """Write the page (or, with ``--check``, only say whether it is stale); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the page is stale")
    args = parser.parse_args(argv)
    shown = PAGE.relative_to(ROOT)
    if args.check:
        if stale():
            print(f"stale: {shown} (run python docs/_generate/serve_rules.py)", file=sys.stderr)
            return 1
        return 0
    write_atomically(PAGE, render(RULES.read_text(encoding="utf-8")))
    print(f"wrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
