"""The play page of ``hoity-serve``: its HTML, style and script, in one self-contained document.

The play page is one self-contained document: no script, font or picture is
fetched from elsewhere (its Content-Security-Policy allows only itself), and
everything a request returns reaches the page through ``textContent``, never as
markup, so an agent label cannot inject anything.  The script only talks to the
JSON API of :mod:`hoity_env.serve.server`: ``/api/setup``, ``/api/games`` and a
game's ``/action``, ``/hint`` and ``/leave``.
"""

from __future__ import annotations

__all__ = ["PLAY_PAGE", "STYLE"]

STYLE = """
body { font-family: sans-serif; background: #f6f1e4; color: #28241f; margin: 1em; }
#board { width: 640px; height: 480px; border: 1px solid #bbb; display: block; }
#main { display: flex; gap: 1.2em; align-items: flex-start; }
#side { max-width: 34em; font-size: 14px; }
#choices button { font-size: 15px; margin: .15em; }
#hint td { padding: 0 .4em; } .bar { background: #6b8e4e; height: .8em; display: inline-block; }
#error { color: #a01010; } fieldset { display: inline-block; } label { margin-right: .8em; }
pre { font-size: 12px; background: #fffaf0; padding: .4em; }
"""

_SCRIPT = r"""
"use strict";
const $ = (id) => document.getElementById(id);
const HINT_ROWS = 8;  // the most likely choices listed; the rest are summed in one line
let game = null, setup = null;
function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) { e.textContent = text; }
  return e;
}
async function api(path, body) {
  const init = body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const answer = await fetch(path, init);
  const data = await answer.json();
  if (!answer.ok) { throw new Error(data.error || answer.statusText); }
  return data;
}
function fail(e) { $("error").textContent = String(e.message || e); document.body.dataset.busy = "0"; }
function option(value, text) { const o = el("option", text); o.value = value; return o; }
function seats() {
  const n = Number($("players").value);
  $("seat").replaceChildren(...Array.from({length: n}, (_, p) => option(p, "player_" + p)));
  const box = $("opponents");
  box.replaceChildren(...Array.from({length: n - 1}, (_, k) => {
    const s = el("select"); s.className = "opponent";
    s.append(...setup.agents.map((a) => option(a, a)));
    return s;
  }));
}
async function start() {
  $("error").textContent = "";
  const body = {players: Number($("players").value), rules: $("rules").value, seat: Number($("seat").value),
    opponents: Array.from(document.querySelectorAll(".opponent"), (s) => s.value)};
  if ($("seed").value !== "") { body.seed = Number($("seed").value); }
  document.body.dataset.busy = "1";
  try { show(await api("/api/games", body)); } catch (e) { fail(e); }
}
async function act(action) {
  document.body.dataset.busy = "1";
  try { show(await api("/api/games/" + game.id + "/action", {action: action})); } catch (e) { fail(e); }
}
async function leave() {
  if (!game || game.done) { return; }
  try {
    const r = await api("/api/games/" + game.id + "/leave", {});
    game.done = true;
    ended(r.replay, "you left the game.");
  } catch (e) { fail(e); }
}
function ended(replay, text) {
  $("choices").replaceChildren(); $("hint").replaceChildren(); $("leave").disabled = true;
  $("result").textContent = text + " ";
  if (replay) {
    const a = el("a", "watch the replay (every seat's choices)"); a.id = "replay";
    a.href = "/replays/" + encodeURIComponent(replay); $("result").append(a);
  }
  document.body.dataset.done = "1";
}
function show(view) {
  game = view;
  $("error").textContent = "";
  $("game").hidden = false; $("leave").disabled = false;
  $("board").src = view.board;
  $("status").textContent = "round " + view.round + ", " + view.phase + " step; you are player_" + view.seat +
    " (" + view.rules + " rules); seats: " + view.agents.map((a, p) => "player_" + p + " " + a).join(", ");
  $("hand").textContent = "your hand: " + (view.hand.join(", ") || "empty") + "; your money: " + view.money +
    (view.checks ? " (checks " + view.checks.join(", ") + ")" : "");
  $("reveal").replaceChildren(...view.reveal.map((t) => el("li", t)));
  $("table").textContent = view.table.join("\n");
  $("choices").replaceChildren(...view.choices.map((c) => {
    const b = el("button", c.label); b.dataset.action = String(c.action);
    b.onclick = () => act(c.action); return b;
  }));
  $("result").textContent = "";
  document.body.dataset.step = String(view.step);
  document.body.dataset.done = "0";
  if (view.done) {
    const winners = view.winners ? view.winners.map((p) => "player_" + p).join(", ") : "";
    const verdict = view.left ? "you left the game" : (winners === "" ? "no winner (round limit)" :
      (view.you_win ? "you win!" : "you lose; winner(s): " + winners));
    ended(view.replay, "game over: " + verdict + ".");
  } else if ($("hinter").value !== "") { askHint(); }
  document.body.dataset.busy = "0";
}
async function askHint() {
  const agent = $("hinter").value;
  if (!game || game.done || agent === "") { $("hint").replaceChildren(); return; }
  try {
    const h = await api("/api/games/" + game.id + "/hint", {agent: agent});
    if (h.step !== game.step) { return; }
    const head = el("tr");
    head.append(el("th", h.agent + (h.kind === "policy" ? " (policy)" : " (its decision)")));
    const ranked = h.probabilities.slice().sort((a, b) => b.p - a.p);
    const shown = ranked.filter((r, k) => k === 0 || (k < HINT_ROWS && r.p >= 0.005));
    const rows = shown.map((r) => {
      const row = el("tr"), bar = el("span"); bar.className = "bar"; bar.style.width = (r.p * 12) + "em";
      const cell = el("td"); cell.append(bar);
      row.append(el("td", r.label), el("td", (100 * r.p).toFixed(1) + "%"), cell); return row;
    });
    if (shown.length < ranked.length) {
      const rest = ranked.slice(shown.length).reduce((t, r) => t + r.p, 0);
      const row = el("tr");
      const others = ranked.length - shown.length;
      row.append(el("td", others + " others"), el("td", (100 * rest).toFixed(1) + "%"));
      rows.push(row);
    }
    $("hint").replaceChildren(head, ...rows);
    for (const b of document.querySelectorAll("#choices button")) {
      const r = h.probabilities.find((x) => String(x.action) === b.dataset.action);
      b.title = h.agent + ": " + (100 * r.p).toFixed(1) + "%";
    }
    document.body.dataset.hintStep = String(h.step);
  } catch (e) { fail(e); }
}
async function init() {
  setup = await api("/api/setup");
  $("rules").append(...setup.rules.map((r) => option(r, r)));
  if (setup.rules.includes("standard")) { $("rules").value = "standard"; }
  const [low, high] = setup.players;
  for (let n = low; n <= high; n++) { $("players").append(option(n, n + " players")); }
  $("players").value = String(Math.min(4, high));
  $("hinter").append(option("", "no hint"), ...setup.agents.map((a) => option(a, a)));
  if (setup.ladder) { $("links").append(" | ", Object.assign(el("a", "ladder report"), {href: "/ladder"})); }
  $("players").onchange = seats; seats();
  $("start").onclick = start; $("leave").onclick = leave; $("hinter").onchange = askHint;
  window.addEventListener("pagehide", () => {
    if (game && !game.done) {
      fetch("/api/games/" + game.id + "/leave", {method: "POST", keepalive: true,
        headers: {"Content-Type": "application/json"}, body: "{}"});
    }
  });
  document.body.dataset.ready = "1";
}
init().catch(fail);
"""

PLAY_PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Hoity Toity: play</title>
<style>{STYLE}</style>
</head>
<body>
<h1>Hoity Toity</h1>
<p id="links"><a href="/replays">saved games (replays)</a></p>
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
<h3>your choice</h3><div id="choices"></div>
<table id="hint"></table>
<p id="result"></p>
<button id="leave">leave the game (it is saved)</button>
<h3>last step</h3><ul id="reveal"></ul>
<pre id="table"></pre>
</div>
</div>
</div>
<script>{_SCRIPT}</script>
</body>
</html>
"""
