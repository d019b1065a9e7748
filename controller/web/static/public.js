// The public page: the board's lines, as the big screen in the room shows them, and nothing else.
"use strict";
applyWords();
const board = document.getElementById("board");
const offline = document.getElementById("offline");
function show(view) {
  board.replaceChildren();
  for (const line of view.lines) {
    const text = line.text + (line.items.length ? line.items.join("  ") : "");
    board.append(el("div", `board-line ${line.size} ${line.tone}`, text));
  }
}
const socket = live("/ws/public", show, (up) => offline.classList.toggle("hidden", up));
document.getElementById("lang").onclick = () => switchLang(() => socket.reopen());
