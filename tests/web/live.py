"""A table playing on the simulated hardware and the real clock, with the judge's console on loopback, run in a
thread of its own (the tests are the phones: an HTTP client, a web socket, a browser, from this thread).

Bots play the seats quickly (a fraction of a second to think) and the voice is silent but timed (a tenth of a
second a prompt), so a whole game takes well under a minute; everything else is the table as ``tianhei table
--console`` runs it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import ssl
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from controller import live
from controller.config import load
from controller.director.bots import TableBots
from controller.voice.null_voice import NullVoice


class PublicWatcher:
    """A player's phone with the public page open: a public socket read in a thread of its own, every message kept."""

    def __init__(self, table: LiveTable, lang: str = "zh") -> None:
        self._open = contextlib.ExitStack()
        self.socket = self._open.enter_context(table.socket(f"/ws/public?lang={lang}"))
        self.messages: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        import json

        try:
            for text in self.socket:
                self.messages.append(json.loads(text))
        except Exception:  # the socket closed
            pass

    def close(self) -> None:
        self._open.close()
        self._thread.join(10)

    def assert_board_only(self, code: str) -> None:
        """The secrecy property over every message this phone got: the board's facts only, no role and no night
        choice before the end (C4), never the pairing code; at the end every role is public."""
        import json

        from controller.screens.strings import ROLES

        words = {w for zh, en in ROLES.values() for w in (zh, en)}
        public_keys = {"gesture", "night", "day", "dead", "speaker", "seconds", "candidate", "tally", "out", "tied",
                       "numbering"}
        assert self.messages and self.messages[-1]["board"]["gesture"] == "over", "the end was not seen"
        before_end = [m for m in self.messages if m["board"].get("gesture") != "over"]
        assert {"eyes_closed", "speech", "vote"} <= {m["board"].get("gesture") for m in before_end}
        for m in self.messages:
            text = json.dumps(m, ensure_ascii=False)
            assert code not in text and "pairing" not in text, text
        for m in before_end:
            text = json.dumps(m, ensure_ascii=False)
            assert set(m["board"]) <= public_keys, m
            assert not [w for w in words if w in text], text
        assert self.messages[-1]["board"]["roles"]


class LiveTable:
    def __init__(self, tmp: Path, *, players: int = 8, phones: int = 1, night_action_s: float = 5, seed: int = 3,
                 autoplay: str | None = "heuristic", think_s: tuple[float, float] = (0.05, 0.2),
                 lang: str = "zh-CN", code_ttl_s: float = 300, checkin: bool = False, port: int = 0,
                 tls: bool = True, console: str = "") -> None:
        cfg = tmp / "tianhei.toml"
        cfg.write_text(
            f'[table]\nlanguage = "{lang}"\n[game]\nplayers = {players}\nseed = {seed}\n'
            f'[journal]\npath = "{tmp / "j.sqlite"}"\n'
            f"[timers]\ndeal_s = 0.5\nnight_action_s = {night_action_s}\nspeech_s = 1.5\nlast_words_s = 1.5\ndefence_s = 1.5\n"
            f"warning_s = 1\nvote_window_s = 0.4\nanswer_s = 0.3\ntally_s = 0.3\n"
            f'[console]\nhost = "127.0.0.1"\nport = {port}\nphones = {phones}\ncode_ttl_s = {code_ttl_s}\n'
            f"revoke_hold_s = 0.3\n" + ("" if tls else "tls = false\n") + console)
        self.config = load(cfg)
        self.autoplay = autoplay
        #: Seats check in and the judge starts the game (``tianhei table --checkin``) instead of an immediate deal.
        self.checkin = checkin
        self.think_s = think_s
        self.console: Any = None
        self.director: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.over = threading.Event()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._task: asyncio.Task[Any] | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    # ---- lifecycle ------------------------------------------------------------------------------------------
    def __enter__(self) -> LiveTable:
        self._thread.start()
        assert self._ready.wait(30), "the console never listened"
        if self._error is not None:
            raise self._error
        return self

    def __exit__(self, *exc: object) -> None:
        if self.loop is not None and self._task is not None and not self._task.done():
            self.loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(30)
        assert not self._thread.is_alive(), "the table did not stop"

    def _run(self) -> None:
        original_voice, original_bots, original_timings = live.open_voice_for, live.TableBots, live.timings
        live.open_voice_for = lambda config, clock: NullVoice(clock, part_seconds=0.05)  # type: ignore[assignment]
        live.TableBots = functools.partial(TableBots, think_s=self.think_s)  # type: ignore[misc]
        # the pause between two vote calls, a table's own constant, shortened like the [timers] above
        live.timings = lambda config: dataclasses.replace(original_timings(config), vote_gap_s=0.1)  # type: ignore[assignment]
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self._error = exc
            self._ready.set()
        finally:
            live.open_voice_for, live.TableBots, live.timings = original_voice, original_bots, original_timings

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()

        def started(director: Any) -> None:
            self.director = director
            director.on_over.append(lambda d: self.over.set())

        def listening(console: Any) -> None:
            self.console = console
            self._ready.set()

        opts = live.LiveOptions(autoplay=self.autoplay, window=False, console=True, on_console=listening,
                                on_started=started, checkin=self.checkin)
        self._task = asyncio.create_task(live.run_live(self.config, opts))
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    # ---- from the test's thread ---------------------------------------------------------------------------
    @property
    def base(self) -> str:
        """The address the phones open: ``https://`` (the table's own certificate) unless ``tls=False``."""
        return f"{self.console.scheme}://127.0.0.1:{self.console.port}"

    @property
    def certificate(self) -> Path:
        """The certificate the table made for itself (beside its journal) and serves."""
        assert self.console.certificate is not None, "the console serves plain HTTP"
        return Path(self.console.certificate.cert)

    def trust(self) -> ssl.SSLContext | None:
        """A phone that checked the fingerprint and trusts the table's certificate (and nothing else)."""
        if self.console.certificate is None:
            return None
        return ssl.create_default_context(cafile=self.certificate)

    def client(self, source: str = "127.0.0.1") -> httpx.Client:
        """A phone on the network (``source``: its address; loopback has a whole /8 of them)."""
        verify: ssl.SSLContext | bool = self.trust() or True
        return httpx.Client(base_url=self.base, timeout=10,
                            transport=httpx.HTTPTransport(local_address=source, verify=verify))

    def socket(self, path: str, **kwargs: Any) -> Any:
        """A web socket to ``path`` (``wss://`` over the table's certificate, or ``ws://``)."""
        from websockets.sync.client import connect

        scheme = "wss" if self.console.certificate is not None else "ws"
        if scheme == "wss":
            # TLS 1.2 for this client: websockets' sync client reads the socket in a thread of its own from the
            # moment it connects, while this thread writes the upgrade request; under TLS 1.3 the server's session
            # tickets arrive just then, and one SSL object read and written from two threads at once now and then
            # loses the request (the socket hangs until the server's deadline). A browser has no such race.
            context = self.trust()
            assert context is not None
            context.maximum_version = ssl.TLSVersion.TLSv1_2
            kwargs["ssl"] = context
        return connect(f"{scheme}://127.0.0.1:{self.console.port}{path}", proxy=None, **kwargs)

    def on_loop(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the table's loop (between two director steps) and return what it returned."""
        assert self.loop is not None
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def call() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)

        self.loop.call_soon_threadsafe(call)
        return future.result(10)

    def check_in(self, *seats: int) -> None:
        """Each seat presses OK on the check-in screen."""
        from controller.ports import Button

        def press() -> None:
            for seat in seats:
                self.console.lobby.table.click(seat, Button.OK)

        self.wait_for(lambda: self.console.lobby is not None, why="the check-in")
        self.on_loop(press)

    def code(self) -> str:
        """The code on the board, read as the judge reads it."""
        return str(self.on_loop(self.console.code))

    def wait_for(self, what: Callable[[], bool], timeout: float = 30.0, why: str = "") -> None:
        done, gave_up = threading.Event(), threading.Event()

        def poll() -> None:
            if what():
                done.set()
            elif not gave_up.is_set():
                assert self.loop is not None
                self.loop.call_later(0.05, poll)

        assert self.loop is not None
        self.loop.call_soon_threadsafe(poll)
        if not done.wait(timeout):
            gave_up.set()
            raise AssertionError(f"timed out waiting: {why}")
