"""Running the table as a service: systemd's readiness and watchdog protocol (``notify``) and ``tianhei serve``'s
loop of games (``controller/cli/serve.py``)."""
