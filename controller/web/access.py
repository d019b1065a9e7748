"""Who may steer the table from a phone: pairing codes, sessions, command counters, rate limits.

Why it is built this way (the threat is anyone on the club's Wi-Fi, and anyone in the room who reads the board):

- A pairing code is short enough to type (six digits), lives a few minutes and works once.
- Wrong codes are limited per client address (five a minute, then a wait that doubles each time) and for the
  whole table (twenty a minute from all addresses together), so neither one machine nor many can walk the code
  space: the arithmetic is in docs/security.md ("Pairing: how fast a code can be guessed").
- No one can keep the judge from pairing with those limits. When the table's budget is spent, pairing closes
  only to the addresses that sent a wrong code in the last hour (the guessers); an address that sent none (the
  judge's phone) still has its code checked. A code is not replaced because of wrong guesses (that would let the
  guessers change the code under the judge's fingers); and when the judge renews the code at the table (holding
  BACK on the remote), the new code starts with every limit cleared, bound to it and not to the table's past.
- A session is a random token in an HttpOnly, SameSite=Strict cookie, kept here only as its SHA-256; with it
  goes a CSRF token the judge's page sends in a header. Every command carries a counter that must grow, so a
  recorded command is refused when it is sent again, and a revoked or expired session is simply gone.

Pure: no clock, no I/O (``now`` is passed in), so the rules are tested without waiting.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Session:
    """A paired phone. ``token`` is only known at pairing time (it goes into the cookie, not into memory)."""

    id: str
    csrf: str
    created: float
    expires: float
    client: str
    agent: str
    last_seq: int = 0


@dataclass(frozen=True)
class Refusal:
    """Why a pairing or a call was refused, in both languages; ``status`` is the HTTP status to answer with."""

    status: int
    en: str
    zh: str
    retry_after: float = 0.0

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"error": {"en": self.en, "zh": self.zh}}
        if self.retry_after:
            out["retry_after"] = round(self.retry_after, 1)
        return out


@dataclass(frozen=True)
class Paired:
    session: Session
    token: str


@dataclass
class _Client:
    failures: deque[float] = field(default_factory=deque)
    locked_until: float = 0.0
    lockouts: int = 0
    #: When it last sent a wrong code (a guesser while that is less than ``suspect_s`` ago).
    last_wrong: float = float("-inf")


class Access:
    """Pairing and sessions of one table.

    ``phones``: how many phones may be paired at once (while fewer are, a code is on show). ``tries``: wrong
    codes one address may send within ``window_s`` before it waits ``lockout_s`` (doubling each time).
    ``table_tries``: wrong codes from all addresses within ``window_s`` before pairing closes for ``window_s`` to
    every address that sent a wrong code within ``suspect_s`` (the others may still pair)."""

    def __init__(self, *, code_ttl_s: float = 300.0, session_ttl_s: float = 12 * 3600.0, phones: int = 1,
                 digits: int = 6, tries: int = 5, window_s: float = 60.0, lockout_s: float = 30.0,
                 table_tries: int = 20, suspect_s: float = 3600.0,
                 token: Callable[[int], str] = secrets.token_urlsafe,
                 code_source: Callable[[int], int] = secrets.randbelow) -> None:
        self.code_ttl_s = code_ttl_s
        self.session_ttl_s = session_ttl_s
        self.phones = phones
        self.digits = digits
        self.tries = tries
        self.window_s = window_s
        self.lockout_s = lockout_s
        self.table_tries = table_tries
        self.suspect_s = suspect_s
        self._token = token
        self._randbelow = code_source
        self._code: str | None = None
        self._code_expires = 0.0
        self._sessions: dict[str, Session] = {}  # by the token's digest
        self._clients: dict[str, _Client] = {}
        self._table_failures: deque[float] = deque()
        self._table_closed_until = 0.0
        #: Told whenever the code or the sessions change (the board, the remote's screen, the open sockets).
        self.listeners: list[Callable[[], None]] = []
        self.log: Callable[[str], None] = lambda text: None

    # ---- the code on the board -------------------------------------------------------------------------------
    def code(self, now: float) -> str | None:
        """The code on show now, or None while every phone place is taken. An expired code is replaced."""
        self._expire(now)
        if len(self._sessions) >= self.phones:
            if self._code is not None:
                self._code = None
                self._changed()
            return None
        if self._code is None or now >= self._code_expires:
            self._new_code(now)
        return self._code

    def code_expires(self) -> float:
        return self._code_expires

    def _new_code(self, now: float) -> None:
        self._code = f"{self._randbelow(10 ** self.digits):0{self.digits}d}"
        self._code_expires = now + self.code_ttl_s
        self.log(f"judge's console: pairing code {self._code} (valid {self.code_ttl_s:g} s)")
        self._changed()

    def renew(self, now: float) -> None:
        """The judge at the table asks for a new code (holding BACK): it goes on the board, and every limit on
        guessing starts again with it (the addresses that guessed the old one, the table's count, the waits)."""
        self._clients.clear()
        self._table_failures.clear()
        self._table_closed_until = 0.0
        self._code = None
        self.log("judge's console: a new pairing code at the judge's request; the limits on wrong codes start again")
        self.code(now)

    # ---- pairing ---------------------------------------------------------------------------------------------
    def pair(self, code: str, client: str, agent: str, now: float) -> Paired | Refusal:
        """A phone sends the code it was shown. Refused while its address is waiting out too many wrong codes, or
        while the table is closed to the addresses that guessed; a right code is used up and gives a session."""
        c = self._clients.setdefault(client, _Client())
        if now < c.locked_until:
            wait = c.locked_until - now
            return Refusal(429, f"too many wrong codes from this phone: wait {wait:.0f} s",
                           f"错误次数过多，请等 {wait:.0f} 秒", wait)
        if now < self._table_closed_until and now - c.last_wrong < self.suspect_s:
            wait = self._table_closed_until - now
            return Refusal(429, f"too many wrong codes at this table: pairing reopens in {wait:.0f} s",
                           f"本桌错误次数过多：{wait:.0f} 秒后可再配对", wait)
        current = self.code(now)
        given = "".join(ch for ch in str(code) if ch.isdigit())[: self.digits + 1]
        if current is None:
            return Refusal(403, "no phone can pair now: the judge frees a place at the table (hold BACK)",
                           "现在不能配对：请法官在遥控器上长按返回键", 0)
        if not hmac.compare_digest(given.encode(), current.encode()):
            return self._wrong(c, client, now)
        c.failures.clear()
        c.lockouts = 0
        c.last_wrong = float("-inf")
        token = self._token(32)
        session = Session(self._token(6), self._token(24), now, now + self.session_ttl_s, client, agent[:120])
        self._sessions[_digest(token)] = session
        self._code = None  # single use; the next one (if another phone may pair) is made when asked for
        self.log(f"judge's console: phone {session.id} paired from {client}")
        self._changed()
        return Paired(session, token)

    def _wrong(self, c: _Client, client: str, now: float) -> Refusal:
        for q in (c.failures, self._table_failures):
            q.append(now)
            while q and q[0] <= now - self.window_s:
                q.popleft()
        c.last_wrong = now
        if len(self._table_failures) >= self.table_tries:
            self._table_closed_until = now + self.window_s
            self._table_failures.clear()
            self.log(f"judge's console: {self.table_tries} wrong codes in {self.window_s:g} s; pairing closed for "
                     f"{self.window_s:g} s to every address that sent a wrong code (another phone may still pair)")
        if len(self._clients) > 4096:  # forget addresses that neither wait nor count as guessers any more
            self._clients = {k: v for k, v in self._clients.items()
                             if now < v.locked_until or now - v.last_wrong < self.suspect_s}
        left = self.tries - len(c.failures)
        if left <= 0:
            wait = self.lockout_s * 2 ** c.lockouts
            c.lockouts += 1
            c.locked_until = now + wait
            c.failures.clear()
            self.log(f"judge's console: {client} sent {self.tries} wrong codes; it waits {wait:g} s")
            return Refusal(429, f"wrong code; too many tries: wait {wait:.0f} s",
                           f"配对码错误；次数过多，请等 {wait:.0f} 秒", wait)
        return Refusal(403, f"wrong code ({left} tries left)", f"配对码错误（还可试 {left} 次）")

    # ---- sessions --------------------------------------------------------------------------------------------
    def session(self, token: str | None, now: float) -> Session | None:
        """The live session a cookie names, or None (unknown, revoked or expired)."""
        if not token:
            return None
        self._expire(now)
        return self._sessions.get(_digest(token))

    def check_call(self, token: str | None, csrf: str | None, seq: object, now: float) -> Session | Refusal:
        """A command call: a live session, its CSRF token, and a counter above every one it sent before."""
        s = self.session(token, now)
        if s is None:
            return Refusal(401, "not paired (or the judge revoked this phone): pair again",
                           "未配对（或已被法官断开）：请重新配对")
        if not csrf or not hmac.compare_digest(csrf.encode(), s.csrf.encode()):
            return Refusal(403, "this request did not come from the judge's page", "请求不是来自法官页面")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq <= s.last_seq:
            return Refusal(409, "this command was already sent (a replay or an old page): reload the page",
                           "该指令已发送过（重放或旧页面）：请刷新页面")
        s.last_seq = seq
        return s

    def sessions(self, now: float) -> list[Session]:
        self._expire(now)
        return list(self._sessions.values())

    def revoke(self, session_id: str) -> bool:
        for key, s in list(self._sessions.items()):
            if s.id == session_id:
                del self._sessions[key]
                self.log(f"judge's console: phone {s.id} revoked")
                self._changed()
                return True
        return False

    def revoke_all(self, now: float) -> int:
        """The judge at the table takes the console back: every phone is signed out and a new code is shown, with
        every limit on guessing cleared (:meth:`renew`)."""
        n = len(self._sessions)
        self._sessions.clear()
        self.log(f"judge's console: {n} phone(s) revoked at the table")
        self.renew(now)
        self._changed()
        return n

    def _expire(self, now: float) -> None:
        gone = [k for k, s in self._sessions.items() if now >= s.expires]
        for k in gone:
            self.log(f"judge's console: phone {self._sessions[k].id}'s session expired")
            del self._sessions[k]
        if gone:
            self._changed()

    def _changed(self) -> None:
        for cb in self.listeners:
            cb()
