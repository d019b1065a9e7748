"""A TCP relay on loopback between a club's bridge and the league's broker, which can cut the link: what the
demo and the tests use to take a club's internet away (the bridge sees its connection drop and every new one
refused) and give it back. Bytes only: the TLS between the brokers passes through untouched.

A blocked relay stops listening (a connection is refused), what an outage looks like. A relay that drops
handshakes (:meth:`drop_handshakes`) is the other kind of cut: it accepts, reads the bridge's first bytes (its TLS
ClientHello) and closes, as a captive portal or a proxy in the way does. Mosquitto before 2.0.15 (Debian 12 has
2.0.11) can hang for good after a few of those (docs/league.md, "Which Mosquitto").
"""

from __future__ import annotations

import asyncio
import contextlib


class Relay:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.blocked = False
        self.dropping = False
        self.cuts = 0
        #: TLS handshakes cut short while :attr:`dropping`
        self.dropped = 0
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", self.port)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def block(self) -> None:
        """Cut every connection and refuse new ones, until :meth:`unblock`."""
        self.blocked = True
        self.cuts += 1
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for w in list(self._open):
            w.transport.abort()

    def drop_handshakes(self) -> None:
        """Cut every connection, then accept new ones and close each after its first bytes, until
        :meth:`unblock`."""
        self.dropping = True
        self.cuts += 1
        for w in list(self._open):
            w.transport.abort()

    async def unblock(self) -> None:
        self.blocked = self.dropping = False
        if self._server is None:
            await self.start()

    async def stop(self) -> None:
        await self.block()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.blocked:
            writer.transport.abort()
            return
        if self.dropping:
            with contextlib.suppress(OSError, asyncio.TimeoutError):
                await asyncio.wait_for(reader.read(65536), 5.0)  # the ClientHello, not passed on
            self.dropped += 1
            writer.close()  # a clean close (FIN) in the middle of the handshake
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._open |= {writer, up_writer}
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        except asyncio.CancelledError:  # the relay's loop is ending: the link goes with it
            pass
        finally:
            self._open -= {writer, up_writer}
            for w in (writer, up_writer):
                w.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError, ConnectionError):
            while data := await reader.read(65536):
                if self.blocked:
                    break
                writer.write(data)
                await writer.drain()
        writer.transport.abort()
