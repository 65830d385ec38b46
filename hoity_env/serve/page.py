"""The play page of ``hoity-serve``: its HTML and style, one self-contained document that teaches the game.

The play page is one self-contained document: no script, font or picture is
fetched from elsewhere (its Content-Security-Policy allows only itself), and its
script (:mod:`hoity_env.serve.page_script`) writes everything a request returns
as text.  A newcomer finds the game explained where it is played: a short rules
panel (open until the first game starts) that links the full rules at ``/rules``,
card codes such as ``A1529`` explained beside the hand where they first appear, and
a bid entered as one number bounded by the legal range.

The ``/rules`` page (:func:`rules_page`) is the rules contract, ``docs/RULES.md``, the
docs site's rules page, served locally: the server needs no internet and no built
docs site.  ``hoity_env/serve/RULES.md`` is a symbolic link to ``docs/RULES.md`` in
the repository (one text, never two copies to keep in step), and a built wheel ships
it as a plain file (``.ci/smoke_installed.py`` checks).  markdown-it-py renders it:
the CommonMark parser the docs site's MyST uses, with tables on and raw HTML off
(the file's ``<!-- figure -->`` markers are dropped first), so the page is as plain
as the play page and obeys the same policy.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from markdown_it import MarkdownIt

from hoity_env.serve.page_script import SCRIPT

__all__ = ["CARD_CODES", "PLAY_PAGE", "RULES_PANEL", "STYLE", "rules_page"]

STYLE = """
body { font-family: sans-serif; background: #f6f1e4; color: #28241f; margin: 1em; }
#board { width: 640px; height: 480px; border: 1px solid #bbb; display: block; }
#main { display: flex; gap: 1.2em; align-items: flex-start; }
#side { max-width: 34em; font-size: 14px; }
#choices button, #bidding button { font-size: 15px; margin: .15em; }
#bid { width: 5em; font-size: 15px; }
#hint td { padding: 0 .4em; } .bar { background: #6b8e4e; height: .8em; display: inline-block; }
#error { color: #a01010; } fieldset { display: inline-block; } label { margin-right: .8em; }
pre { font-size: 12px; background: #fffaf0; padding: .4em; }
.note { font-size: 12px; color: #5a5246; }
#howto { max-width: 52em; font-size: 14px; margin: .6em 0; }
#howto summary { cursor: pointer; font-weight: bold; }
main#rules { max-width: 50em; }
table#replays { border-collapse: collapse; }
#replays th, #replays td { padding: .2em .6em; text-align: left; }
#replays tbody tr:hover { background: #ece3cc; } #replays td a { display: block; color: inherit; }
"""

CARD_CODES = (
    "a card is its series letter (A to F) and its year: C1592 is series C, from 1592; "
    "older cards are worth more, and an exhibition is 3 or more cards whose series run without a gap "
    "(B, C, C, D)"
)
"""How the page explains card codes, beside the hand (where a player first meets them)."""

RULES_PANEL = """
<details id="howto" open><summary>How to play (the rules in short)</summary>
<p>Two to six aristocrats collect antiques. The first to reach the end of the track (30 steps in
the standard rules) ends the game, and the player furthest along wins. Every round has two secret
choices, made by everybody at once and then shown to all:</p>
<ol>
<li><b>Where to go:</b> the Auction House or the Castle.</li>
<li><b>What to do there.</b> At the <b>Auction House</b>, bid for the lot on display (0 = no bid):
equal bids cancel each other, the highest bid left wins and pays it. At the <b>Castle</b>, play
<b>Exhibit</b> (show your best collection), <b>Thief</b> (rob the best exhibition) or
<b>Detective</b> (catch the thieves): Detective beats Thief beats Exhibit. A detective who meets
thieves catches them all (they move back 2, the detective forward 2). Thieves nobody catches each
steal a card from the best exhibition, and then no exhibition scores; otherwise the best exhibition
moves its owner forward by its number of cards.</li>
</ol>
<p><b>Cards:</b> CARD_CODES. Of two exhibitions, more cards win, then the older oldest card.</p>
<p>The original 1990 rules (checks instead of money, two lots, jail for thieves) differ:
<a href="/rules">the full rules</a> give both, every rule with its id.</p>
</details>
""".replace("CARD_CODES", CARD_CODES[0].upper() + CARD_CODES[1:])

PLAY_PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Hoity Toity: play</title>
<style>{STYLE}</style>
</head>
<body>
<h1>Hoity Toity</h1>
<p id="links"><a href="/rules">the rules</a> | <a href="/replays">saved games (replays)</a></p>
{RULES_PANEL}
<fieldset><legend>new game</legend>
<label>players <select id="players"></select></label>
<label>rules <select id="rules"></select></label>
<label>your seat <select id="seat"></select></label>
<label>seed <input id="seed" type="number" min="0" placeholder="random" size="8"></label><br>
<label>opponents (in seat order after yours) <span id="opponents"></span></label>
<button id="start">start</button>
</fieldset>
<label>hint from <select id="hinter"></select></label>
<p id="error"></p>
<div id="game" hidden>
<p id="status"></p>
<div id="main">
<img id="board" alt="the board, as every player sees it">
<div id="side">
<p id="hand"></p>
<p class="note" id="cardcodes">({CARD_CODES})</p>
<h3>your choice</h3><div id="choices"></div>
<form id="bidding" hidden><label>your bid <input id="bid" type="number" step="1" required></label>
<button id="place" type="submit">bid</button> <span class="note" id="bidrange"></span></form>
<table id="hint"></table>
<p id="result"></p>
<button id="leave">leave the game (it is saved)</button>
<h3>last step</h3><ul id="reveal"></ul>
<pre id="table"></pre>
</div>
</div>
</div>
<script>{SCRIPT}</script>
</body>
</html>
"""

COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)


@cache
def rules_page() -> str:
    """The ``/rules`` page's HTML (rendered once: the file is part of the installed package)."""
    text = (resources.files("hoity_env.serve") / "RULES.md").read_text(encoding="utf-8")
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(COMMENT.sub("", text))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Hoity Toity: the rules</title>'
        f"<style>{STYLE}</style></head><body>"
        '<p><a href="/">play</a> | <a href="/replays">saved games</a></p>'
        f'<main id="rules">{body}</main></body></html>\n'
    )
