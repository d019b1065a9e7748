"""Table set-up tools that talk to people at the table: the diagnostic walk-through (``tianhei diag``) and deck
enrollment and checking (``tianhei deck``).

They are written against the ports (Table, Seat, Voice) and one scheduler, like the director, so the same code
runs on every adapter: the ``sim`` table in tests (virtual clock, scripted presses), the ``gpio`` table on a Pi.
Each is a short linear script (:mod:`controller.diag.script`) whose every wait has a deadline (RULES C5).
"""
