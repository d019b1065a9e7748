"""The club's hall (seed 004 §5.13, seed 000): every table and the hall service are clients of one MQTT broker.

A table publishes its status, the public view of each event, its results and the game's record through the
:class:`~controller.ports.Publisher` port (``mqtt.py``: an SQLite outbox in front of aiomqtt); the hall service
(``service.py``) subscribes to every room, keeps the waiting list (``waiting.py``), says when a room's game ends,
and serves the hall's web page (``web.py``). The topic tree is in ``topics.py``.
"""
