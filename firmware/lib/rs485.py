"""The bus side of the node: a UART plus the RS-485 transceiver's driver-enable pin.

DE is high only while this node transmits: a node that held the line would silence every other seat. Over USB
or a transparent radio there is no DE pin (``de=None``).
"""

import time


class RS485:
    def __init__(self, uart, de=None):
        self.uart = uart
        self.de = de
        if de is not None:
            de.value(0)

    def read(self):
        if self.uart.any():
            return self.uart.read()
        return None

    def write(self, data):
        if self.de is not None:
            self.de.value(1)
        self.uart.write(data)
        self.uart.flush()  # returns once the last stop bit is out, so DE drops after the frame, not during it
        if self.de is not None:
            self.de.value(0)

    def write_after(self, delay_us, data):
        """Write ``data`` ``delay_us`` from now: a POLL_ALL answer in its time slot. The node only answers when it
        has news, so blocking for the slot (at most a few ms, for the last seat) is rare and short."""
        if delay_us > 0:
            time.sleep_us(delay_us)
        self.write(data)
