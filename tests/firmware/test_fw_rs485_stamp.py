"""firmware/lib/rs485.py: a node times its slots from when the host's frame ended, stamped by its UART's receive
timeout. A stamp is the end of the bytes that had come when it was taken: seat 4's answer ends, the host's LISTEN
follows, and seat 2 reads both before the LISTEN's own stamp comes. Read with the answer's stamp, the LISTEN's
window was counted from the answer's end, hundreds of µs early, and seat 2 answered over seat 3 (emulated Picos).
Run under the real MicroPython binary with a stand-in UART whose interrupt the test raises."""

from __future__ import annotations

import subprocess
from pathlib import Path

LIB = Path(__file__).resolve().parents[2] / "firmware" / "lib"

SCRIPT = r"""import sys
sys.path.insert(0, LIB)
import time
import rs485


class UART:
    IRQ_RXIDLE = 1

    def __init__(self):
        self.rx = bytearray()
        self.handler = None

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler

    def any(self):
        return len(self.rx)

    def readinto(self, buf, n):
        k = min(n, len(self.rx))
        buf[:k] = self.rx[:k]
        self.rx = self.rx[k:]
        return k

    def quiet(self):  # the receive timeout: 32 bit times after the last byte
        self.handler(self)


uart = UART()
link = rs485.RS485(uart, None, 1000000)
buf = bytearray(128)
uart.rx.extend(b"A" * 17)  # seat 4's answer
uart.quiet()
answer_end = link.idle_at - 32
time.sleep_us(300)
uart.rx.extend(b"L" * 42)  # the host's LISTEN (both copies) has come; its own timeout has not yet
print(link.readinto(buf, 128), link.read_at() == answer_end)
print(link.readinto(buf, 128))
uart.quiet()
print(link.readinto(buf, 128), link.read_at() == link.idle_at - 32, link.read_at() - answer_end >= 300)
"""


def test_seat_2_reads_the_listen_after_seat_4s_answer_with_the_listens_own_stamp(micropython: str) -> None:
    out = subprocess.run([micropython, "-c", SCRIPT.replace("LIB", repr(str(LIB)))], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    answer, waiting, listen = out.stdout.splitlines()
    assert answer == "17 True", "the answer's bytes only, with the answer's stamp"
    assert waiting == "0", "the LISTEN waits for the stamp of its own end"
    assert listen == "42 True True"
