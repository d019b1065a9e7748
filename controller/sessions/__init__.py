"""Whole tables in one object: the director wired to a table's adapters (the simulated table, the seat-bus
simulator), a voice, a journal and the bots, on one scheduler. Apart from controller/director because these are
where adapters are chosen: the director itself knows only the ports (controller/ports.py)."""
