// The judge's console: the private view, pushed by the table; every command with the handheld's confirmation.
"use strict";
applyWords();
const CSRF = document.querySelector('meta[name="tianhei-csrf"]').content;
let seq = Number(document.querySelector('meta[name="tianhei-seq"]').content) || 0;
const $ = (id) => document.getElementById(id);
let view = null, selected = null, clock = null, toastTimer = null;

function toast(text, bad) {
  const t = $("toast");
  t.textContent = text;
  t.className = bad ? "toast bad" : "toast";
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.add("hidden"), 3500);
}

function ask(question) {
  return new Promise((resolve) => {
    $("toast").classList.add("hidden");
    $("sheet-question").textContent = question;
    $("sheet").classList.remove("hidden");
    $("sheet-yes").onclick = () => { $("sheet").classList.add("hidden"); resolve(true); };
    $("sheet-no").onclick = () => { $("sheet").classList.add("hidden"); resolve(false); };
  });
}

async function send(command, args, confirmed) {
  seq += 1;
  let r, answer;
  try {
    r = await fetch("/api/command", {
      method: "POST", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-tianhei-csrf": CSRF },
      body: JSON.stringify({ seq, command, args: args || {}, confirmed: !!confirmed }) });
    answer = await r.json();
  } catch (err) {
    toast(LANG === "en" ? "the table does not answer" : "桌子没有回应", true);
    return;
  }
  if (r.status === 401) { location.href = "/pair"; return; }
  if (answer.confirm) {
    if (await ask(said(answer.confirm))) await send(command, args, true);
    return;
  }
  toast(answer.ok ? said(answer.message) : said(answer.error), !answer.ok);
}

function render(v) {
  view = v;
  $("headline").textContent = v.headline || "";
  $("turn").textContent = v.turn || "";
  $("paused").classList.toggle("hidden", !v.paused);
  $("phones").textContent = v.phones;
  clock = v.countdown ? { left: v.countdown.remaining, total: v.countdown.total, at: performance.now() } : null;
  tick();
  const open = v.commands || {};
  for (const b of document.querySelectorAll("#commands button")) {
    b.disabled = !open[b.dataset.cmd];
  }
  const entry = !!open.judge_pick, direction = !!open.direction;
  for (const id of ["cmd-judge_pick", "cmd-no_pick"]) $(id).classList.toggle("hidden", !entry);
  for (const id of ["cmd-clockwise", "cmd-anticlockwise"]) $(id).classList.toggle("hidden", !direction);
  const lobby = v.stage === "checkin";
  $("lobby").classList.toggle("hidden", !lobby);
  $("play").classList.toggle("hidden", lobby);
  if (lobby) {
    $("lobby-players").textContent = v.players;
    $("lobby-joined").textContent = (v.joined || []).join(", ") || "-";
    $("lobby-deck").textContent = v.deck || "";
    $("lobby-problem").textContent = v.problem || "";
    $("cmd-start").disabled = !open.start;
  }
  const seats = $("seats");
  seats.replaceChildren();
  for (const s of v.seats || []) {
    const b = el("button", "seat");
    b.dataset.seat = s.seat;
    if (!s.alive) b.classList.add("dead");
    if (s.acting) b.classList.add("acting");
    if (selected === s.seat) b.classList.add("selected");
    if (/killer|devil|evil/.test(s.role_id)) b.classList.add("killer");
    else if (/police/.test(s.role_id)) b.classList.add("police");
    b.append(el("b", "", s.label), el("span", "role", s.role));
    if (s.pick !== null) b.append(el("span", "pick", "→" + s.pick));
    const state = s.alive ? t("alive") : t("out");
    b.append(el("div", "small dim", state + (s.penalties ? ` · ${t("penalties")} ${s.penalties}` : "")));
    b.onclick = () => { selected = selected === s.seat ? null : s.seat; render(view); };
    seats.append(b);
  }
  $("lines").replaceChildren(...(v.lines || []).slice().reverse().map((x) => el("li", "", x)));
  const story = $("story");
  const atBottom = story.scrollTop + story.clientHeight >= story.scrollHeight - 4;
  story.replaceChildren(...(v.story || []).map((x) => el("li", "", x)));
  if (atBottom) story.scrollTop = story.scrollHeight;
}

function tick() {
  const box = $("clock");
  if (!clock) { box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
  const left = view && view.paused ? clock.left : Math.max(0, clock.left - (performance.now() - clock.at) / 1000);
  $("timer").textContent = Math.ceil(left) + (LANG === "en" ? " s" : " 秒");
  $("bar").style.width = (clock.total ? 100 * left / clock.total : 0) + "%";
}
setInterval(tick, 250);

for (const b of document.querySelectorAll("#commands button")) {
  b.onclick = () => {
    const args = {};
    if (b.dataset.seat) {
      if (selected === null) { toast(t("choose_seat"), true); return; }
      args[b.dataset.cmd === "judge_pick" ? "target" : "seat"] = selected;
    }
    if (b.id === "cmd-no_pick") args.target = null;
    if (b.dataset.cmd === "extend") args.seconds = 30;
    if (b.dataset.cmd === "direction") args.clockwise = b.id === "cmd-clockwise";
    send(b.dataset.cmd, args);
  };
}
$("cmd-start").onclick = () => send("start");
$("cmd-players-up").onclick = () => send("players", { step: 1 });
$("cmd-players-down").onclick = () => send("players", { step: -1 });
$("logout").onclick = async () => {
  await fetch("/api/logout", { method: "POST", credentials: "same-origin", headers: { "x-tianhei-csrf": CSRF } });
  location.href = "/pair";
};
const socket = live("/ws/judge", render, (up, code) => {
  $("offline").classList.toggle("hidden", up);
  if (code === 4401) { toast(t("signed_out"), true); setTimeout(() => { location.href = "/pair"; }, 1500); }
});
$("lang").onclick = () => switchLang(() => socket.reopen());
