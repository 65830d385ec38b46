"""The HTML replay viewer: one self-contained file that steps through a game round by round.

Each round's board is the ``render_mode="rgb_array"`` picture as a PNG data URI, beside the round's
reveals and events in words; the page loads nothing from the network and works from a file:// address.
Every string from a replay reaches the page as text, never as markup (a file can say anything), and the
static parts (``static/viewer.{html,css,js}``) are inlined, named by hash in :func:`viewer_policy`.
See docs/play.md.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template

from PIL import Image

from hoity_env.environment.render.standard import board_image
from hoity_env.environment.render.text import describe_event
from hoity_env.files import write_atomically
from hoity_env.replays.format import Replay
from hoity_env.replays.simulate import RoundView, rounds

__all__ = ["replay_html", "script_safe_json", "viewer_policy", "write_html"]


def _hash(text: str) -> str:
    """A Content-Security-Policy source that allows exactly this inline script or style."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode("ascii") + "'"


@cache
def _parts() -> tuple[Template, str, str]:
    """The page's template, style and script (``static/viewer.{html,css,js}`` here), read once."""
    static = resources.files("hoity_env.replays") / "static"
    html_, style, script = (
        (static / f"viewer.{kind}").read_text(encoding="utf-8") for kind in ("html", "css", "js")
    )
    return Template(html_), style, script


@cache
def viewer_policy() -> str:
    """The viewer's Content-Security-Policy: its own style and script (by hash), pictures as data URIs.

    Nothing is fetched, and no inline script or style but these two runs: not even one a
    replay's text could smuggle into the page.  ``hoity-serve`` sends it as a header too.
    """
    _, style, script = _parts()
    return f"default-src 'none'; img-src data:; style-src {_hash(style)}; script-src {_hash(script)}"


def _png_uri(view: RoundView) -> str:
    buffer = io.BytesIO()
    Image.fromarray(board_image(view.state, view.events)).save(buffer, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _frame(view: RoundView, replay: Replay) -> dict[str, object]:
    deck = view.state.deck
    title = "the deal" if view.round < 0 else f"round {view.round + 1}"
    lines = [describe_event(e, deck) for e in view.events]
    if view.round < 0:
        seats = ", ".join(f"player_{p}: {name}" for p, name in enumerate(replay.agents))
        lines = [f"seats: {seats}"]
    return {"title": title, "lines": lines, "image": _png_uri(view)}


def script_safe_json(value: object) -> str:
    """``value`` as JSON that cannot leave, or change the parsing of, the ``<script>`` holding it.

    Inside a script element the HTML parser looks for ``</script``, and ``<!--`` followed
    by ``<script`` switches it to a state where even that end tag is skipped (a label
    ``"<!--<script>"`` would swallow the page's own script).  ``<``, ``>`` and ``&`` only
    occur inside JSON strings, where ``\\u003c``, ``\\u003e`` and ``\\u0026`` mean the same
    characters, so escaping all three leaves the data identical for ``JSON.parse``.
    """
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_html(replay: Replay, views: Sequence[RoundView] | None = None) -> str:
    """The viewer page for a replay, from ``views`` (default: ``rounds(replay)``, which checks it).

    The title and subtitle are HTML-escaped and the frames embedded with :func:`script_safe_json`;
    the page's script puts them in with ``textContent``.
    """
    frames = [_frame(view, replay) for view in (rounds(replay) if views is None else views)]
    data = script_safe_json(frames)
    end = replay.end["reason"] if replay.end else "not finished"
    subtitle = (
        f"{replay.num_players} players, {replay.rules.name} rules, seed {replay.seed}; "
        f"agents {', '.join(replay.agents)}; end: {end}"
    )
    page, style, script = _parts()
    return page.substitute(
        policy=viewer_policy(),
        title=html.escape("Hoity Toity replay"),
        subtitle=html.escape(subtitle),
        style=style,
        script=script,
        data=data,
    )


def write_html(replay: Replay, path: str | Path, views: Sequence[RoundView] | None = None) -> Path:
    """Write the viewer page to ``path`` atomically; return the path."""
    return write_atomically(path, replay_html(replay, views))
