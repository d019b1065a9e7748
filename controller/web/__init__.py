"""The judge's console on a phone: the table's own web server (Starlette on uvicorn, in the table's event loop).

- :mod:`access` — pairing codes, sessions, command counters and rate limits (pure; the clock is injected);
- :mod:`views` — what a page may be sent: the judge's private view, and the board's public view for everyone else;
- :mod:`commands` — the judge's commands with their confirmations, called on the director;
- :mod:`adapters` — the console as the table's ``Remote`` and ``Board`` (beside the handheld and the HDMI board);
- :mod:`app` and :mod:`server` — the pages, the calls and the web sockets, served on the loop (HTTPS by default);
- :mod:`certificate` — the certificate it serves: the club's own, or the table's own, made once and kept;
- :mod:`qr` — the QR code of the table's address for the board.

Nothing here is imported by the director: the console is one more adapter the configuration chooses
(``[console]`` in tianhei.toml, ``tianhei table --console``).
"""
