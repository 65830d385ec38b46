/* The replay viewer (hoity_env/replays/html.py): the frames come from the page's JSON data block, and
   every line of text goes in through textContent, never as markup. */
"use strict";
const frames = JSON.parse(document.getElementById("data").textContent);
let index = 0;
function show(k) {
  index = Math.max(0, Math.min(frames.length - 1, k));
  const f = frames[index];
  document.getElementById("board").src = f.image;
  document.getElementById("heading").textContent = f.title;
  document.getElementById("where").textContent = (index + 1) + " / " + frames.length;
  const list = document.getElementById("lines");
  list.replaceChildren(...f.lines.map(function (t) {
    const li = document.createElement("li");
    li.textContent = t;
    return li;
  }));
  document.body.dataset.index = String(index);
}
document.getElementById("first").onclick = function () { show(0); };
document.getElementById("prev").onclick = function () { show(index - 1); };
document.getElementById("next").onclick = function () { show(index + 1); };
document.getElementById("last").onclick = function () { show(frames.length - 1); };
document.addEventListener("keydown", function (e) {
  if (e.key === "ArrowRight" || e.key === " ") { show(index + 1); }
  else if (e.key === "ArrowLeft") { show(index - 1); }
  else if (e.key === "Home") { show(0); }
  else if (e.key === "End") { show(frames.length - 1); }
  else { return; }
  e.preventDefault();
});
show(0);
