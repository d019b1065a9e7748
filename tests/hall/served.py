"""A Starlette app served by a real uvicorn on 127.0.0.1 in a thread of its own, as ``tianhei hall`` and
``tianhei league`` serve their pages: for the tests that attack a page from loopback."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx
import uvicorn


class Served:
    def __init__(self, app: Any) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])),
                                       daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        with httpx.Client(timeout=1) as probe:  # bounded poll until it answers
            for _ in range(100):
                try:
                    probe.get(f"{self.base}/state")
                    break
                except httpx.TransportError:
                    continue
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.server.force_exit = True  # a closed page's socket handler ends only at the page's next change
        self.thread.join(10)
        assert not self.thread.is_alive(), "the page's server did not stop"
        self.sock.close()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def browser(self) -> httpx.Client:
        """A browser on the page's own machine."""
        return httpx.Client(base_url=self.base, timeout=5)


class ServedGuarded:
    """A page as ``tianhei hall`` and ``tianhei league`` serve it now: ``opener(port)`` (their ``open_page``, on
    127.0.0.1) run in a loop of its own thread, behind the guarded server's deadlines and limits."""

    def __init__(self, opener: Any) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.opener = opener
        self.started = threading.Event()
        self.server: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.done = asyncio.Event()
        try:
            self.server = await self.opener(self.port)
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self.started.set()
        await self.done.wait()
        await self.server.stop()

    def __enter__(self) -> ServedGuarded:
        self.thread.start()
        assert self.started.wait(10) and self.error is None, self.error
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.done.set)
        self.thread.join(10)
        assert not self.thread.is_alive(), "the page's server did not stop"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"
