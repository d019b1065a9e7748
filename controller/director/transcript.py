"""The game as a judge would tell it afterwards, in the table's language: the words the table said (the voice
pack's own text, not prompt IDs), what each seat did in front of everyone ("7号举手，投5号"), and, once the
game is over, what happened in the dark (every night's choices and the police's answers) and every seat's role.

Why a transcript of its own and not the log: the log is for whoever runs the table (levels, reprs, timings);
this is for the people who played. It is built only from what the room could see or hear while the game ran —
the utterances and the *public* rule events (``Event.public``) — and keeps the private ones (the deal, the night's
acts) aside until :meth:`Transcript.finish`. So its running part cannot give a secret away whatever the engine
emits: a property test scrambles every private event and finds the same lines (tests/director/test_transcript.py).

:class:`Transcript` is pure (fed by calls, clock given). :class:`Follower` feeds it from a running director:
the utterances through :class:`HeardVoice` (wrapped round the table's voice, so a D2 place is written as the
seat and card the voice really says), the rule events as the director commits them (``on_commit``), card taps
from a table that records its inputs (the sim table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controller.ports import CardEvent
from controller.rules.events import (
    Acted,
    Dealt,
    DefenceClaimed,
    Event,
    NightFell,
    Penalised,
    Spoke,
    Voted,
)
from controller.rules.variant import Variant
from controller.rules.words import KILLER_GAME
from controller.rules.words import shared as shared_words
from controller.screens.numbering import Label, plain
from controller.screens.strings import Lang, action_name, own_word, own_words, role_name
from controller.voice.packs import UnknownPrompt, VoicePack

#: (zh, en) of every sentence the transcript writes itself; ``{seat}``/``{seats}`` are already words ("5号").
WORDS: dict[str, tuple[str, str]] = {
    "seat": ("{n}号", "seat {n}"),
    "hands": ("{seats}举手，投{target}", "{seats} raise their hands for {target}"),
    "hands.one": ("{seats}举手，投{target}", "{seats} raises a hand for {target}"),
    "abstain": ("{seats}弃权", "{seats} abstain"),
    "abstain.one": ("{seats}弃权", "{seats} abstains"),
    "spoke.pass": ("{seat}发言完毕", "{seat} is done"),
    "spoke.timeout": ("{seat}时间到", "{seat}: time is up"),
    "spoke.skipped": ("{seat}跳过发言", "{seat} does not speak"),
    "defence": ("{seat}要求辩护", "{seat} asks to defend"),
    "penalty": ("{seat}被罚一次（共{total}次）", "{seat} gets a penalty ({total} in all)"),
    "tapped": ("{seats}刷了牌", "{seats} tap their cards"),
    "tapped.one": ("{seats}刷了牌", "{seats} taps a card"),
    "reveal": ("—— 终局揭晓：夜里发生的事 ——", "—— Now it can be told: the nights ——"),
    "night": ("第{n}夜", "Night {n}"),
    "quiet": ("无人行动", "nobody acted"),
    "act": ("{who}{what}{target}", "{who}: {what} {target}"),
    "actors": ("{role}（{seats}）", "{role} ({seats})"),
    "target": (" → {seat}", "-> {seat}"),
    "skipped": ("：不行动", ": no action"),
    "forfeited": ("：超时放弃", ": time ran out"),
    "random": ("（随机）", " (at random)"),
    "judge": ("（法官录入）", " (entered by the judge)"),
    # a check's answer (V2.2): the gesture, then the killer game's shared words for it (a variant's own
    # [words.answers] are said without the gesture: W5 "：狼人")
    "nod": ("：点头，{answer}", ": a nod, a {answer}"),
    "shake": ("：摇头，{answer}", ": a shake, {answer}"),
    "none": ("：{answer}", ": {answer}"),
    "met": ("{who}睁眼互认", "{who} open their eyes and meet"),
    "roles": ("身份：", "Roles: "),
    "role": ("{seat}{role}", "{seat} {role}"),
}


def words(key: str, lang: Lang, **fields: object) -> str:
    zh, en = WORDS[key]
    return (zh if lang is Lang.ZH else en).format(**fields)


@dataclass(frozen=True)
class Entry:
    """One line: ``kind`` is ``said`` (the table's voice), ``did`` (a seat, in front of everyone) or ``told``
    (after the end: the nights and the roles)."""

    at: float
    kind: str
    text: str


class Transcript:
    """``pack`` gives each prompt's words; ``label`` writes a seat (D2: "7-1"); ``out`` gets every line as soon
    as it is final (a run of hands is one line, so it is final when something else happens)."""

    def __init__(self, pack: VoicePack, lang: Lang | str = Lang.ZH, *, label: Label = plain,
                 out: Callable[[Entry], None] | None = None, variant: Variant | None = None) -> None:
        self.pack = pack
        #: The version played: its file's words for a check's answer (W5: 狼人 / 好人), where it has them.
        self.variant = variant
        self.lang = Lang.parse(lang)
        self.label = label
        self.out = out
        self.entries: list[Entry] = []
        self.finished = False
        self._run: tuple[str, object, list[int], float] | None = None  # ("hands"|"tapped", target, seats, at)
        self._private: list[tuple[int, Event]] = []  # (the night it happened in, the event), told at the end
        self._night = 0
        self._roles: tuple[str, ...] = ()

    # ---- words ------------------------------------------------------------------------------------------------
    def seat(self, n: int, label: Label | None = None) -> str:
        return words("seat", self.lang, n=(label or self.label)(n))

    def seats(self, ns: Sequence[int], label: Label | None = None) -> str:
        """"1号、2号、4号" / "seats 1, 2, 4" (one seat: as :meth:`seat`). ``label``: how to write a number, if not
        as the game's (a card tap names the physical seat, also where the game counts card places, D2)."""
        if self.lang is Lang.ZH or len(ns) == 1:
            return "、".join(self.seat(n, label) for n in ns) if self.lang is Lang.ZH else self.seat(ns[0], label)
        return "seats " + ", ".join((label or self.label)(n) for n in ns)

    def spoken(self, prompts: Sequence[str]) -> str:
        """The pack's words for an utterance, its parts run together as the voice runs them together. A part
        that starts a new clause after an unfinished one gets a comma ("二号两票，四号一票，平票：…"): a seat
        after anything but a sentence's end, anything after a count; seats in a row are a list ("六号、二号").
        A count ("两票") and a seat's own predicate ("五号请发言") run on."""
        zh = self.lang is Lang.ZH
        text, before = "", ""
        for i, p in enumerate(prompts):
            after = prompts[i + 1] if i + 1 < len(prompts) else ""
            try:
                part = self.pack.clip(p).text.strip() or p
            except UnknownPrompt:
                part = p
            open_end = bool(text) and text[-1] not in "。，：；！？.,:;!?"
            counted = before.startswith("unit.")
            # "六号、二号" is a list; "三号，三号没有遗言" names a seat again to say something of it (a predicate
            # follows: not a seat, a number or a unit)
            said_of = bool(after) and not after.startswith(("seat.", "number.", "unit."))
            listed = open_end and p.startswith("seat.") and before.startswith("seat.") and not said_of
            clause = open_end and (counted or (p.startswith("seat.") and not listed))
            if not text:
                text = part
            elif listed:
                text += ("、" if zh else ", ") + part
            elif zh:
                text += ("，" if clause else "") + part
            elif clause:
                text += "; " + part
            elif open_end and part[:1].isupper():
                text += ": " + part
            else:
                text += " " + part
            before = p
        return text

    def _add(self, at: float, kind: str, text: str) -> None:
        entry = Entry(at, kind, text[:1].upper() + text[1:] if self.lang is Lang.EN else text)
        self.entries.append(entry)
        if self.out is not None:
            self.out(entry)

    def flush(self) -> None:
        """Write out a run of hands (or taps) still open: the game stopped before anything else happened."""
        run, self._run = self._run, None
        if run is None:
            return
        kind, target, seats, at = run
        key = "abstain" if kind == "hands" and target is None else kind
        if len(seats) == 1:
            key += ".one"  # en: "Seat 7 raises a hand", "Seats 1, 2 raise their hands"
        text = words(key, self.lang, seats=self.seats(seats, plain if kind == "tapped" else None),
                     target=self.seat(target) if isinstance(target, int) else "")
        self._add(at, "did", text)

    def _join(self, kind: str, target: object, seat: int, at: float) -> None:
        """Hands for one candidate (or taps at the deal) in a row make one line."""
        if self._run is not None and self._run[0] == kind and self._run[1] == target:
            if seat not in self._run[2]:  # a seat's second card (D1-D3) is the same seat tapping again
                self._run[2].append(seat)
            return
        self.flush()
        self._run = (kind, target, [seat], at)

    # ---- what the table hears and sees ------------------------------------------------------------------------
    def said(self, at: float, prompts: Sequence[str]) -> None:
        if not prompts:
            return
        self.flush()
        self._add(at, "said", self.spoken(prompts))

    def tapped(self, at: float, seat: int) -> None:
        """A card laid on a (physical) seat's reader: the room sees the tap, not the card."""
        self._join("tapped", None, seat, at)

    def committed(self, at: float, events: Sequence[Event]) -> None:
        for e in events:
            if isinstance(e, NightFell):
                self._night = e.night
            if not e.public:
                if isinstance(e, Dealt):
                    self._roles = e.roles
                self._private.append((self._night, e))
                continue
            if isinstance(e, Voted):
                self._join("hands", e.target, e.seat, at)
                continue
            self.flush()
            if isinstance(e, Spoke) and f"spoke.{e.how}" in WORDS:  # (a speaker ruled out: the voice says it)
                self._add(at, "did", words(f"spoke.{e.how}", self.lang, seat=self.seat(e.seat)))
            elif isinstance(e, DefenceClaimed):
                self._add(at, "did", words("defence", self.lang, seat=self.seat(e.seat)))
            elif isinstance(e, Penalised):
                self._add(at, "did", words("penalty", self.lang, seat=self.seat(e.seat),
                                           total=e.total))
            # Everything else public (dawn, tallies, deaths, ties, the end) the voice says: its words are the line.

    def finish(self, at: float, roles: Sequence[str] = ()) -> None:
        """The game is over (C4): tell the nights and every seat's role (``roles``: the final ones, if the game
        changed them, as the dual-card versions do; else those dealt)."""
        if self.finished:
            return
        self.flush()
        self.finished = True
        roles = tuple(roles) or self._roles
        self._add(at, "told", words("reveal", self.lang))
        for night, acts in self._nights():
            self._add(at, "told", words("night", self.lang, n=night))
            for e in acts:
                self._add(at, "told", "  " + self._act(e, roles))
            if not acts:
                self._add(at, "told", "  " + words("quiet", self.lang))
        if roles:
            sep = "，" if self.lang is Lang.ZH else ", "
            told = sep.join(words("role", self.lang, seat=self.seat(i),
                                  role=role_name(r, self.lang) if self.lang is Lang.ZH else role_name(r, self.lang).lower())
                            for i, r in enumerate(roles, 1))
            self._add(at, "told", words("roles", self.lang) + told)

    def _nights(self) -> list[tuple[int, list[Acted]]]:
        nights: dict[int, list[Acted]] = {}
        for night, e in self._private:
            if isinstance(e, Acted) and e.ability != "defence" and night > 0:
                nights.setdefault(night, []).append(e)
        return sorted(nights.items())

    def _act(self, e: Acted, roles: Sequence[str]) -> str:
        names = sorted({roles[a - 1] for a in e.actors if 0 < a <= len(roles)})
        who = words("actors", self.lang, role="+".join(role_name(r, self.lang) for r in names) or "?",
                    seats=self.seats(e.actors))
        if e.ability == "recognise":
            return words("met", self.lang, who=who)
        what = action_name(e.ability, self.lang, self.variant or "")
        if self.lang is Lang.EN:
            what = what.lower()
        if e.target is None:
            tail = words("forfeited" if e.how == "forfeited" else "skipped", self.lang)
            return f"{who}{'' if self.lang is Lang.ZH else ': '}{what}{tail}"
        text = words("act", self.lang, who=who, what=what, target=words("target", self.lang, seat=self.seat(e.target)))
        if e.how in ("random", "judge"):
            text += words(e.how, self.lang)
        if e.result in ("nod", "shake", "none"):
            own = own_word(own_words(self.variant, "answers", e.result), self.lang) if self.variant else ""
            shared = own_word(shared_words(KILLER_GAME).table("answers")[e.result], self.lang)
            text += (f"：{own}" if self.lang is Lang.ZH else f": {own}") if own else \
                words(e.result, self.lang, answer=shared)
        return text


class HeardVoice:
    """A :class:`controller.ports.Voice` that tells ``heard`` every utterance before saying it (and is otherwise
    the voice it wraps)."""

    def __init__(self, voice: Any, heard: Callable[[Sequence[str]], None]) -> None:
        self._voice = voice
        self._heard = heard

    def duration(self, prompts: Sequence[str]) -> float:
        return float(self._voice.duration(prompts))

    def say(self, prompts: Sequence[str], *, urgent: bool = False) -> float:
        self._heard(prompts)
        return float(self._voice.say(prompts, urgent=urgent))

    def masking(self, on: bool) -> None:
        self._voice.masking(on)

    def beep(self, kind: str = "warning") -> None:
        self._voice.beep(kind)

    def __getattr__(self, name: str) -> Any:  # the wrapped voice's extras (run, said, ...)
        return getattr(self._voice, name)


class Follower:
    """Feeds a :class:`Transcript` from a running director: wrap the voice with :meth:`voice`, then
    :meth:`attach` the director (its ``on_commit``: each input's events as they are committed, and ``on_over``).
    ``taps`` is a table whose ``inputs`` list records card taps (the sim table); they are read whenever anything
    else happens, so they land in their place."""

    def __init__(self, transcript: Transcript, clock: Callable[[], float], taps: Any = None) -> None:
        self.transcript = transcript
        self.clock = clock
        self.taps = taps
        self.director: Any = None
        self._inputs = 0

    def voice(self, voice: Any) -> HeardVoice:
        return HeardVoice(voice, self._heard)

    def attach(self, director: Any) -> None:
        self.director = director
        director.on_commit.append(lambda d, events: self._committed(events))
        director.on_over.append(lambda d: self.end())

    def _heard(self, prompts: Sequence[str]) -> None:
        self._tapped()
        self.transcript.said(self.clock(), prompts)

    def _committed(self, events: Sequence[Any]) -> None:
        self._tapped()
        self.transcript.committed(self.clock(), events)

    def _tapped(self) -> None:
        inputs = getattr(self.taps, "inputs", None)
        if inputs is None:
            return
        for event in inputs[self._inputs:]:
            if isinstance(event, CardEvent) and event.present:
                self.transcript.tapped(self.clock(), event.seat)
        self._inputs = len(inputs)

    def end(self) -> None:
        self._tapped()
        s = self.director.state if self.director is not None else None
        roles = tuple(s.roles) if s is not None and s.roles else ()
        self.transcript.finish(self.clock(), roles)


def line(entry: Entry, lang: Lang | str = Lang.ZH) -> str:
    """An entry as printed: the table's clock (m:ss), then the voice's words, or a seat's deed indented."""
    minutes, seconds = divmod(int(entry.at), 60)
    stamp = f"{minutes:3d}:{seconds:02d}"
    if entry.kind == "said":
        quoted = f"「{entry.text}」" if Lang.parse(lang) is Lang.ZH else f"\u201c{entry.text}\u201d"
        return f"{stamp}  {quoted}"
    if entry.kind == "did":
        return f"{stamp}    {entry.text}"
    return entry.text
