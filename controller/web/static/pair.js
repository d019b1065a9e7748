// Pairing: the code from the board, once; a wrong code says how many tries are left.
"use strict";
applyWords();
document.getElementById("lang").onclick = () => switchLang();
const error = document.getElementById("error");
document.getElementById("form").onsubmit = async (e) => {
  e.preventDefault();
  error.classList.add("hidden");
  const code = document.getElementById("code").value.trim();
  let answer;
  try {
    const r = await fetch("/api/pair", { method: "POST", headers: { "content-type": "application/json" },
                                         body: JSON.stringify({ code }), credentials: "same-origin" });
    answer = await r.json();
  } catch (err) {
    answer = { error: { en: "the table does not answer", zh: "桌子没有回应" } };
  }
  if (answer.ok) { location.href = answer.next; return; }
  error.textContent = said(answer.error);
  error.classList.remove("hidden");
};
