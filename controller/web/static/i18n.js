// The pages' own words, Chinese first (the table's words come from the server, already in the page's language).
"use strict";
const WORDS = {
  title_public: ["天黑 · 公共屏幕", "Tianhei · public board"],
  title_pair: ["法官手机配对", "Pair the judge's phone"],
  title_judge: ["法官控制台", "Judge's console"],
  pair_hint: ["输入大屏幕或遥控器上显示的配对码", "Type the code shown on the board or the remote"],
  pair_button: ["配对", "Pair"],
  public_link: ["只看公共屏幕", "Only the public board"],
  offline: ["连接中断，正在重连…", "Connection lost, reconnecting…"],
  paused: ["已暂停", "Paused"],
  commands: ["指令", "Commands"],
  seats: ["座位", "Seats"],
  story: ["经过", "Story"],
  messages: ["消息", "Messages"],
  seat_hint: ["点座位选择，再按需要的指令", "Tap a seat, then a command"],
  start: ["开始游戏", "Start game"], pause: ["暂停", "Pause"], resume: ["继续", "Resume"],
  repeat: ["重播", "Repeat"], extend: ["加时30秒", "+30 s"], end_timer: ["结束计时", "End timer"],
  undo: ["撤销", "Undo"], eject: ["请出场", "Eject"], penalty: ["罚分", "Penalty"],
  surrender: ["投降", "Surrender"], self_destruct: ["自爆", "Self-destruct"], judge_pick: ["录入选择", "Enter pick"], no_pick: ["不行动", "No action"],
  clockwise: ["顺时针", "Clockwise"], anticlockwise: ["逆时针", "Anticlockwise"],
  redeal: ["重新发牌", "Redeal"], abort: ["中止游戏", "Abort"],
  more_players: ["人数 +1", "Players +1"], fewer_players: ["人数 −1", "Players −1"],
  confirm: ["确认", "Confirm"], cancel: ["取消", "Cancel"], logout: ["断开此手机", "Sign out"],
  phones: ["已配对手机：", "Phones paired: "], choose_seat: ["请先点一个座位", "Tap a seat first"],
  joined: ["已签到：", "Checked in: "], deck: ["牌：", "Deck: "], players_n: ["人数：", "Players: "],
  record_voice: ["录制法官语音", "Record the judge's voice"],
  alive: ["存活", "in"], out: ["出局", "out"], penalties: ["罚", "pen."], signed_out: ["已断开", "Signed out"],
};
function pageLang() {
  const q = new URLSearchParams(location.search).get("lang");
  if (q === "en" || q === "zh") { localStorage.setItem("tianhei.lang", q); return q; }
  return localStorage.getItem("tianhei.lang") === "en" ? "en" : "zh";
}
let LANG = pageLang();
function t(key) { const w = WORDS[key]; return w ? w[LANG === "en" ? 1 : 0] : key; }
function said(pair) { return pair ? (LANG === "en" ? pair.en : pair.zh) : ""; }
function applyWords() {
  document.documentElement.lang = LANG === "en" ? "en" : "zh-CN";
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  const b = document.getElementById("lang");
  if (b) b.textContent = LANG === "en" ? "中文" : "English";
}
function switchLang(then) {
  LANG = LANG === "en" ? "zh" : "en";
  localStorage.setItem("tianhei.lang", LANG);
  applyWords();
  if (then) then();
}
// A socket that comes back by itself (a phone's Wi-Fi drops in and out).
function live(path, onMessage, onState) {
  let ws = null, closedByUs = false;
  function open() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}${path}?lang=${LANG}`);
    ws.onopen = () => onState(true);
    ws.onmessage = (e) => onMessage(JSON.parse(e.data));
    ws.onclose = (e) => {
      onState(false, e.code);
      if (!closedByUs && e.code !== 4401) setTimeout(open, 1500);
    };
  }
  open();
  return { reopen() { closedByUs = true; ws.close(); closedByUs = false; setTimeout(open, 50); } };
}
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
