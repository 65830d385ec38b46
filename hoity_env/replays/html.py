"""The HTML replay viewer: one self-contained file that steps through a game round by round.

Each round's board is the same picture as ``render_mode="rgb_array"``
(:mod:`hoity_env.environment.render.standard`), embedded as a PNG data URI, with the
round's reveals and events in words beside it.  The page loads nothing from the
network (no scripts, fonts or images from elsewhere) and works from a file://
address; the arrow keys, Home/End and four buttons move between rounds.

Every string that comes from a replay (agent labels above all: a file can say
anything) reaches the page as text: the title and subtitle are HTML-escaped, the
frames are JSON with ``<``, ``>`` and ``&`` escaped (:func:`script_safe_json`), and
the page's script puts them in with ``textContent``, never as markup.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

from hoity_env.environment.render.standard import board_image
from hoity_env.environment.render.text import describe_event
from hoity_env.files import write_atomically
from hoity_env.replays.format import Replay
from hoity_env.replays.simulate import RoundView, rounds

__all__ = ["replay_html", "script_safe_json", "write_html"]

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; background: #f6f1e4; color: #28241f; margin: 1em; }}
#board {{ width: 640px; height: 480px; border: 1px solid #bbb; display: block; }}
#main {{ display: flex; gap: 1em; align-items: flex-start; }}
#events {{ max-width: 32em; font-size: 14px; }}
button {{ font-size: 16px; margin-right: .3em; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>{subtitle}</p>
<p>
<button id="first" title="Home">&#x25c0;&#x25c0; first</button>
<button id="prev" title="left arrow">&#x25c0; previous</button>
<button id="next" title="right arrow">next &#x25b6;</button>
<button id="last" title="End">last &#x25b6;&#x25b6;</button>
<span id="where"></span>
</p>
<div id="main">
<img id="board" alt="the board">
<div id="events"><h2 id="heading"></h2><ul id="lines"></ul></div>
</div>
<script id="data" type="application/json">{data}</script>
<script>
"use strict";
const frames = JSON.parse(document.getElementById("data").textContent);
let index = 0;
function show(k) {{
  index = Math.max(0, Math.min(frames.length - 1, k));
  const f = frames[index];
  document.getElementById("board").src = f.image;
  document.getElementById("heading").textContent = f.title;
  document.getElementById("where").textContent = (index + 1) + " / " + frames.length;
  const list = document.getElementById("lines");
  list.replaceChildren(...f.lines.map(function (t) {{
    const li = document.createElement("li");
    li.textContent = t;
    return li;
  }}));
  document.body.dataset.index = String(index);
}}
document.getElementById("first").onclick = function () {{ show(0); }};
document.getElementById("prev").onclick = function () {{ show(index - 1); }};
document.getElementById("next").onclick = function () {{ show(index + 1); }};
document.getElementById("last").onclick = function () {{ show(frames.length - 1); }};
document.addEventListener("keydown", function (e) {{
  if (e.key === "ArrowRight" || e.key === " ") {{ show(index + 1); }}
  else if (e.key === "ArrowLeft") {{ show(index - 1); }}
  else if (e.key === "Home") {{ show(0); }}
  else if (e.key === "End") {{ show(frames.length - 1); }}
  else {{ return; }}
  e.preventDefault();
}});
show(0);
</script>
</body>
</html>
"""


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
    ``"<!--<script>"`` used to swallow the page's own script).  ``<``, ``>`` and ``&`` only
    occur inside JSON strings, where ``\\u003c``, ``\\u003e`` and ``\\u0026`` mean the same
    characters, so escaping all three leaves the data identical for ``JSON.parse``.
    """
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_html(replay: Replay, views: Sequence[RoundView] | None = None) -> str:
    """The viewer page for a replay, from ``views`` (default: ``rounds(replay)``, which checks it)."""
    frames = [_frame(view, replay) for view in (rounds(replay) if views is None else views)]
    data = script_safe_json(frames)
    end = replay.end["reason"] if replay.end else "not finished"
    subtitle = (
        f"{replay.num_players} players, {replay.rules.name} rules, seed {replay.seed}; "
        f"agents {', '.join(replay.agents)}; end: {end}"
    )
    return _PAGE.format(title=html.escape("Hoity Toity replay"), subtitle=html.escape(subtitle), data=data)


def write_html(replay: Replay, path: str | Path, views: Sequence[RoundView] | None = None) -> Path:
    """Write the viewer page to ``path`` atomically; return the path."""
    return write_atomically(path, replay_html(replay, views))
