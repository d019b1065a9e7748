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
