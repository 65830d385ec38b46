/* The play page's script (hoity-serve, hoity_env/serve/page.py). It talks to the JSON API only
   (/api/setup, /api/games and a game's /action, /hint and /leave) and writes every answer as text
   (textContent), never as markup, so an agent label cannot inject anything. A refusal shows the
   server's own message ({"error": ...}) as it is; a server that does not answer, or answers something
   else, is said in words, never as a script error. The page marks its state on document.body.dataset
   (ready, busy, step, done, hintStep) for the browser tests and the screenshot. */
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
  let answer, data = null;
  try { answer = await fetch(path, init); } catch (e) {
    throw new Error("the server does not answer: is hoity-serve still running?");
  }
  try { data = await answer.json(); } catch (e) { data = null; }
  if (!answer.ok || data === null) {
    throw new Error(data && data.error ? data.error : "the server answered " + answer.status + " " +
      answer.statusText + " instead of a game");
  }
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
  try {
    if (game && !game.replay) {  // the game it replaces is left (and saved) first: it frees its slot
      await api("/api/games/" + game.id + "/leave", {});
      game = null;
    }
    $("howto").open = false;
    show(await api("/api/games", body));
  } catch (e) { fail(e); }
}
async function act(action) {
  document.body.dataset.busy = "1";
  try { show(await api("/api/games/" + game.id + "/action", {action: action})); } catch (e) { fail(e); }
}
function placeBid() {
  const text = $("bid").value.trim(), amount = Number(text);
  const choice = game.choices.find((c) => c.bid !== undefined && c.bid === amount);
  if (text === "" || choice === undefined) {
    fail(new Error("your bid must be a whole number from " + $("bid").min + " to " + $("bid").max));
    return;
  }
  act(choice.action);
}
async function leave() {
  if (!game || game.replay) { return; }
  try {
    const r = await api("/api/games/" + game.id + "/leave", {});
    const over = game.done;
    game.done = true; game.replay = r.replay;
    ended(r.replay, over ? "the game is saved." : "you left the game.");
  } catch (e) { fail(e); }
}
function ended(replay, text) {
  $("choices").replaceChildren(); $("bidding").hidden = true; $("hint").replaceChildren();
  $("leave").disabled = Boolean(replay);
  $("result").textContent = text + " ";
  if (replay) {
    const a = el("a", "watch the replay (every seat's choices)"); a.id = "replay";
    a.href = "/replays/" + encodeURIComponent(replay); $("result").append(a);
  }
  document.body.dataset.done = "1";
}
function showChoices(view) {
  const bids = view.choices.filter((c) => c.bid !== undefined);
  $("choices").replaceChildren(...view.choices.filter((c) => c.bid === undefined).map((c) => {
    const b = el("button", c.label); b.dataset.action = String(c.action);
    b.onclick = () => act(c.action); return b;
  }));
  $("bidding").hidden = bids.length === 0;
  if (bids.length > 0) {
    const low = Math.min(...bids.map((c) => c.bid)), high = Math.max(...bids.map((c) => c.bid));
    Object.assign($("bid"), {min: String(low), max: String(high), value: String(low)});
    $("bidrange").textContent = low === high ? "(your only legal bid: you are the lone bidder)" :
      "(from " + low + " to " + high + "; 0 = no bid)";
  }
}
function show(view) {
  game = view;
  $("error").textContent = "";
  $("game").hidden = false; $("leave").disabled = false;
  $("board").src = view.board;
  const where = view.done ? "game over after " + view.round + " rounds" :
    "round " + view.round + ", " + view.phase + " step";
  $("status").textContent = where + "; you are player_" + view.seat + " (" + view.rules + " rules); seats: " +
    view.agents.map((a, p) => "player_" + p + " " + a).join(", ");
  $("hand").textContent = "your hand: " + (view.hand.join(", ") || "empty") + "; your money: " + view.money +
    (view.checks ? " (checks " + view.checks.join(", ") + ")" : "");
  $("reveal").replaceChildren(...view.reveal.map((t) => el("li", t)));
  $("table").textContent = view.table.join("\n");
  showChoices(view);
  $("result").textContent = "";
  document.body.dataset.step = String(view.step);
  document.body.dataset.done = "0";
  if (view.done) {
    const winners = view.winners ? view.winners.map((p) => "player_" + p).join(", ") : "";
    const verdict = view.left ? "you left the game" : (winners === "" ? "no winner (round limit)" :
      (view.you_win ? "you win!" : "you lose; winner(s): " + winners));
    ended(view.replay, "game over: " + verdict + ".");
    if (view.replay_error) { $("error").textContent = view.replay_error + " (leave to try again)"; }
  } else if ($("hinter").value !== "") { askHint(); }
  document.body.dataset.busy = "0";
}
const KINDS = {policy: " (policy)", decision: " (its decision)",
  mixture: " (mixture: its members' policies, weighted)"};
async function askHint() {
  const agent = $("hinter").value;
  if (!game || game.done || agent === "") { $("hint").replaceChildren(); return; }
  try {
    const h = await api("/api/games/" + game.id + "/hint", {agent: agent});
    if (h.step !== game.step) { return; }
    const head = el("tr");
    head.append(el("th", h.agent + (KINDS[h.kind] || "")));
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
  $("bidding").onsubmit = (e) => { e.preventDefault(); placeBid(); };
  window.addEventListener("pagehide", () => {
    if (game && !game.replay) {
      fetch("/api/games/" + game.id + "/leave", {method: "POST", keepalive: true,
        headers: {"Content-Type": "application/json"}, body: "{}"});
    }
  });
  document.body.dataset.ready = "1";
}
init().catch(fail);
