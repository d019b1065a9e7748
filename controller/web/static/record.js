// The club's judge records the table's prompts: record with MediaRecorder, listen, take again, send. The phone
// decodes its own recording (whatever codec it used) to 16-bit WAV; the table judges the take and keeps it or
// says why not. Where the judge stopped is where the page starts next time (the first prompt not recorded).
"use strict";
Object.assign(WORDS, {
  title_record: ["录制法官语音", "Record the judge's voice"],
  left: ["剩余 ", "Left: "], slot: ["限长 ", "max "],
  record: ["● 录音", "● Record"], stop: ["■ 停止", "■ Stop"], play_take: ["▶ 试听", "▶ Play take"],
  send: ["发送到本桌", "Send to the table"], retake: ["重录", "Retake"], hear_now: ["▶ 本桌现在的声音", "▶ Hear the table"],
  previous: ["← 上一条", "← Previous"], skip: ["跳过 →", "Skip →"], first_left: ["第一条未录", "First not recorded"],
  all_prompts: ["全部提示（按录制顺序）", "Every prompt (in recording order)"], back_console: ["返回法官控制台", "Back to the console"],
  recorded: ["已录制：本桌播放你的录音", "Recorded: the table plays your take"],
  built: ["未录制：本桌用内置语音", "Not recorded: the table uses the built voice"],
  recording: ["录音中…说完请按停止", "Recording… press Stop when done"],
  sending: ["正在发送…", "Sending…"], all_done: ["全部录完！", "All recorded!"],
  kept: ["已保存", "Kept"], mic_denied: ["无法使用麦克风：", "The microphone cannot be used: "],
  not_heard: ["本桌现在不用这些录音；在配置中写入：", "The table does not speak with these takes yet; put in the config: "],
  heard: ["录音保存在 ", "Takes are saved in "], heard_restart: ["（重新启动本桌后生效）", " (heard from the table's next start)"],
  v_silent: ["没有听到声音：请检查麦克风是否打开、页面是否可以使用麦克风", "No voice was heard: check that the microphone is on and that the page may use it"],
  v_clipped: ["录音削波（{clipped}的声音达到满幅）：离麦克风远一点，或小声一点", "Clipped ({clipped} of the voice at full scale): a little further from the microphone, or softer"],
  v_noisy: ["噪音太大：声音只比背景高 {snr_db} dB（需要 20）：换个安静的地方，或靠近麦克风", "Mostly noise: the voice is only {snr_db} dB above the room (20 needed): somewhere quieter, or closer"],
  v_quiet: ["声音太小（{lufs} LUFS，至少 −45）：靠近麦克风", "Too quiet ({lufs} LUFS, at least −45): closer to the microphone"],
  v_long: ["太长：{seconds} 秒，这一条最多 {slot_s} 秒：说快一点", "Too long: {seconds} s, at most {slot_s} s for this one: a little brisker"],
});
applyWords();
const CSRF = document.querySelector('meta[name="tianhei-csrf"]').content;
const $ = (id) => document.getElementById(id);
let data = null, at = 0, recorder = null, chunks = [], take = null, takeUrl = null;

function fmt(template, figures) {
  return template.replace(/\{(\w+)\}/g, (_, k) => {
    const v = figures[k];
    if (v === undefined) return "?";
    return k === "clipped" ? (100 * v).toFixed(2) + "%" : (Math.round(v * 10) / 10).toString();
  });
}

async function load(goTo) {
  const r = await fetch("/api/record/prompts", { credentials: "same-origin" });
  if (r.status === 401) { location.href = "/pair"; return; }
  data = await r.json();
  const want = goTo || data.next;
  at = Math.max(0, data.prompts.findIndex((p) => p.id === want));
  if (data.tools) { $("tools").textContent = data.tools; $("tools").classList.remove("hidden"); }
  show();
}

function show() {
  const p = data.prompts[at];
  $("left").textContent = data.left;
  $("total").textContent = data.total;
  if (!p) return;
  $("pid").textContent = p.id;
  $("slot").textContent = p.slot + " s";
  $("text").textContent = p.text;
  $("state").textContent = data.left === 0 ? t("all_done") : t(p.recorded ? "recorded" : "built");
  $("state").className = p.recorded ? "small good" : "small dim";
  $("where").textContent = data.heard ? t("heard") + data.folder + t("heard_restart") : t("not_heard") + data.config_line;
  const list = $("list");
  list.textContent = "";
  data.prompts.forEach((q, i) => {
    const li = el("li", i === at ? "current" : "", (q.recorded ? "✓ " : "○ ") + q.text);
    li.dataset.id = q.id;
    li.onclick = () => { at = i; resetTake(); show(); };
    list.appendChild(li);
  });
}

function resetTake() {
  take = null;
  if (takeUrl) URL.revokeObjectURL(takeUrl);
  takeUrl = null;
  $("play").disabled = $("send").disabled = $("retake").disabled = true;
  $("verdict").classList.add("hidden");
}

async function startRecording() {
  resetTake();
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia(
      { audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 } });
  } catch (e) {
    verdict(t("mic_denied") + e.message, true);
    return;
  }
  chunks = [];
  recorder = new MediaRecorder(stream);
  recorder.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
  recorder.onstop = () => {
    stream.getTracks().forEach((tr) => tr.stop());
    take = new Blob(chunks, { type: recorder.mimeType });
    takeUrl = URL.createObjectURL(take);
    $("play").disabled = $("send").disabled = $("retake").disabled = false;
    $("rec").disabled = false;
    $("stop").disabled = true;
    $("state").textContent = "";
  };
  recorder.start();
  $("rec").disabled = true;
  $("stop").disabled = false;
  $("state").textContent = t("recording");
  $("state").className = "small bad";
}

// The recording as 16-bit mono WAV at 22.05 kHz (the pack's rate): the browser decodes its own codec.
async function toWav(blob) {
  const rate = 22050;
  const ctx = new OfflineAudioContext({ numberOfChannels: 1, length: 1, sampleRate: rate });
  const audio = await ctx.decodeAudioData(await blob.arrayBuffer());
  const n = audio.length, chans = audio.numberOfChannels;
  const out = new DataView(new ArrayBuffer(44 + 2 * n));
  const text = (o, s) => { for (let i = 0; i < s.length; i++) out.setUint8(o + i, s.charCodeAt(i)); };
  text(0, "RIFF"); out.setUint32(4, 36 + 2 * n, true); text(8, "WAVE"); text(12, "fmt ");
  out.setUint32(16, 16, true); out.setUint16(20, 1, true); out.setUint16(22, 1, true);
  out.setUint32(24, audio.sampleRate, true); out.setUint32(28, 2 * audio.sampleRate, true);
  out.setUint16(32, 2, true); out.setUint16(34, 16, true); text(36, "data"); out.setUint32(40, 2 * n, true);
  const data = [];
  for (let c = 0; c < chans; c++) data.push(audio.getChannelData(c));
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < chans; c++) s += data[c][i];
    s = Math.max(-1, Math.min(1, s / chans));
    out.setInt16(44 + 2 * i, Math.round(s * 32767), true);
  }
  return new Blob([out], { type: "audio/wav" });
}

function verdict(text, bad) {
  const v = $("verdict");
  v.textContent = text;
  v.className = bad ? "panel bad-text" : "panel good-text";
}

async function send() {
  const p = data.prompts[at];
  $("send").disabled = true;
  verdict(t("sending"), false);
  let answer;
  try {
    const body = await toWav(take);
    const r = await fetch("/api/record/take?id=" + encodeURIComponent(p.id), {
      method: "POST", credentials: "same-origin", body,
      headers: { "content-type": "audio/wav", "x-tianhei-csrf": CSRF } });
    answer = await r.json();
    if (!r.ok) { verdict(said(answer.error) || String(r.status), true); $("send").disabled = false; return; }
  } catch (e) {
    verdict(String(e), true);
    $("send").disabled = false;
    return;
  }
  $("verdict").dataset.code = answer.code;
  if (answer.code !== "ok") {
    verdict(fmt(t("v_" + answer.code), answer.figures), true);
    $("send").disabled = true;
    return;
  }
  const keptText = t("kept") + " · " + (Math.round(answer.figures.seconds * 10) / 10) + " s";
  await load(answer.next || p.id);
  resetTake();
  verdict(keptText, false);
  $("verdict").dataset.code = "ok";
}

$("rec").onclick = startRecording;
$("retake").onclick = startRecording;
$("stop").onclick = () => { if (recorder && recorder.state === "recording") recorder.stop(); };
$("play").onclick = () => { if (takeUrl) { $("audio").src = takeUrl; $("audio").play(); } };
$("hear").onclick = () => {
  $("audio").src = "/api/record/clip?id=" + encodeURIComponent(data.prompts[at].id);
  $("audio").play();
};
$("send").onclick = send;
$("prev").onclick = () => { at = Math.max(0, at - 1); resetTake(); show(); };
$("skip").onclick = () => { at = Math.min(data.prompts.length - 1, at + 1); resetTake(); show(); };
$("first").onclick = () => { resetTake(); load(); };
$("lang").onclick = () => switchLang(show);
load();
