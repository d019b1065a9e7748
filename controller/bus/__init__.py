"""The ``bus`` adapter: seat nodes running ``firmware/`` on one RS-485 (or USB) serial line, the Pi as master.

``seatbus`` is the wire format (shared with the firmware, byte for byte), ``master`` polls the nodes, ``display``
turns luma's SSD1306 output into display frames, ``table`` implements the ports, ``sim`` joins the master to
firmware nodes running under the ``micropython`` binary.
"""
