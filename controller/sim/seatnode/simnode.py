"""Runs the real firmware (firmware/lib) on fake ``machine`` hardware, driven line by line over stdin/stdout.

Used by the tests and by controller.bus.sim, under the unix ``micropython`` binary (or CPython). The driver on
the other end owns the clock: every step says what time it is, so a simulated game never sleeps.

    argv: FIRMWARE_LIB CONFIG_JSON STATE_DIR [STARTS]   (STARTS: how many times this node was powered before, so a
                             node powered again gets another boot id, as the real one's random id would be)
    in:  s NOW_MS RXHEX|- [NOW_US]  deliver bus bytes, then run Node.step(NOW_MS); NOW_US (default NOW_MS * 1000)
                             is the link's microsecond clock, which times LISTEN slots
         b NAME 1|0          press (1) or release (0) the button/key NAME (pins are active low)
         c UIDHEX|-          put a card on the reader, or take it away
         f N                 make the reader's next N RF exchanges fail
         h                   hang: the main loop stops (a driver stuck in a loop); nothing is stepped or fed,
                             bytes that arrive are lost, until the watchdog resets the board
         d                   dump the display RAM
         n                   the card reader's counters
         q                   quit
    out: t TXHEX             bytes the node put on the bus during the step (DE was high for each write)
         w DELAY_US TXHEX [FROM_US TO_US]  bytes the node sends DELAY_US after the step (its POLL_ALL or LISTEN
                             slot); with FROM/TO only if nothing arrives between those times after the step
                             (a master slot the wait crosses: the host talking there ends the LISTEN window)
         k BUSY R G B BOOT HELD WAKE  after every step: needs stepping soon? LED duties as 0..255, boot id,
                             whether the node holds news the master has not acknowledged (queued events, or a
                             card on the reader that the node has not reported yet), and in how many µs it
                             wants a step to answer in a LISTEN slot (-1: none)
         r RAMHEX            display RAM (after d)
         n EXCHANGES BADCRC HALTED  RF exchanges so far, frames the card ignored for a bad CRC, card halted (after n)
         e MESSAGE           an error (bad command, DE low while transmitting)
         .                   end of the answer
"""

import sys
from binascii import hexlify, unhexlify

FAKES = sys.argv[0].rsplit("/", 1)[0] if "/" in sys.argv[0] else "."
sys.path.insert(0, FAKES)
sys.path.insert(0, sys.argv[1])

import machine  # noqa: E402  (the fake, found first on sys.path)

sys.modules["machine"] = machine

import board  # noqa: E402
import config  # noqa: E402
import seatbus as sb  # noqa: E402
from node import Node  # noqa: E402

cfg = config.load(sys.argv[2])
state_dir = sys.argv[3]
world = machine.world
screen = machine.FakeSSD1306() if "display" in cfg else None
if screen is not None:
    world.i2c_devices[cfg["display"].get("addr", 0x3C)] = screen
reader = machine.FakeMFRC522() if "nfc" in cfg else None
if reader is not None:
    world.spi_devices[cfg["nfc"]["spi"]] = reader
boots = [int(sys.argv[4]) if len(sys.argv) > 4 else 0]


later = []  # (delay_us, bytes, watch) the node asked to send after a delay (its slots): the driver times them
clock_us = [0]  # the link's microsecond clock, set by every step
rx_at = [0]  # when the bytes of this step ended on the line (earlier than the step when the node was busy)


def write_at(deadline, data, watch=None, latest=None, again=None):
    """The node's slot (and the master slot it watches) as moments on the link's clock, handed to the driver as
    delays from this step's moment. As the chip's machine-code wait (rp2send.py): a slot that has begun is answered
    at once, one past ``latest`` not at all (None), or the same slot a round later when ``again`` offers it (2)."""
    now = clock_us[0]
    sent = True
    if latest is not None and now - latest > 0:
        if again is None or now - latest - again[0] > 0:
            return None
        deadline += again[0]
        watch = (again[1], again[2])
        sent = 2
    if watch is not None:
        watch = (watch[0] - now, watch[1] - now)
    later.append((max(0, deadline - now), bytes(data), watch))
    return sent  # as far as the node knows (the driver holds it back if the master talked in the watched slot)


def start(now):
    io = board.build(cfg)
    io.link.uart.de_pin = cfg["uart"].get("de")
    io.link.write_at = write_at
    io.link.after = lambda then, us: then + us  # the step's clock does not wrap
    io.link.us = lambda: clock_us[0]
    io.link.read_at = lambda: rx_at[0]
    io.link.since = lambda then: clock_us[0] - then
    io.link.slot_timed = True  # the driver answers at each slot's exact moment (CAP_SLOT_TIMED)...
    io.link.slot_exact = True  # ...to the microsecond of the simulated clock, as 0.7 does on the chip (SLOT_EXACT)
    counter = None
    if cfg["role"] == "remote":
        from authcounter import Reservation

        counter = Reservation(state_dir + "/auth_counter", unhexlify(cfg["key"]), state_dir + "/counter")
    boots[0] += 1
    boot = (cfg["address"] * 7919 + boots[0] * 104729) & 0xFFFF
    return io, Node(cfg, io, now, board.reset_cause(), boot, counter)


io, node = start(0)
out = sys.stdout
hung = False


def led255():
    if io.led is None:
        return "0 0 0"
    rgb = []
    for pin in ("r", "g", "b"):
        duty = world.pwms[cfg["led"][pin]].duty_u16()
        rgb.append(str(duty // 257))
    return " ".join(rgb)


names = cfg["buttons"] if cfg["role"] == "seat" else cfg["keys"]

while True:
    line = sys.stdin.readline()
    if not line:
        break
    parts = line.split()
    if not parts:
        continue
    op = parts[0]
    if op == "s":
        now = int(parts[1])
        world.now_ms = now
        clock_us[0] = int(parts[3]) if len(parts) > 3 else now * 1000
        rx_at[0] = int(parts[4]) if len(parts) > 4 else clock_us[0]
        if hung and world.wdt is not None and world.wdt.bitten(now):
            hung = False  # the watchdog resets the board: it boots again and says why
            world.reset_cause = machine.WDT_RESET
            io, node = start(now)
        if hung:
            out.write("k 0 " + led255() + " " + str(node.boot) + " 0 -1\n.\n")
            if hasattr(out, "flush"):
                out.flush()
            continue
        if parts[2] != "-":
            io.link.uart.rx.extend(unhexlify(parts[2]))
        try:
            node.step(now)
        except machine.FakeReset:
            world.reset_cause = machine.SOFT_RESET
            tx = io.link.uart.take_tx()  # the ACK of RESET went out before the reset
            if tx:
                out.write("t " + hexlify(tx).decode() + "\n")
            io, node = start(now)
        tx = io.link.uart.take_tx()
        if tx:
            de = io.link.uart.de_during_write
            if cfg["uart"].get("de") is not None and 0 in de:
                out.write("e DE was low while the node transmitted\n")
            io.link.uart.de_during_write = []
            out.write("t " + hexlify(tx).decode() + "\n")
        for delay_us, data, watch in later:
            span = "" if watch is None else " " + str(watch[0]) + " " + str(watch[1])
            out.write("w " + str(delay_us) + " " + hexlify(data).decode() + span + "\n")
        later.clear()
        held = bool(node.queue) or (reader is not None and reader.card != node.card)
        wake = node.wake_us()
        wake = -1 if wake is None else wake
        out.write(f"k {1 if node.busy() else 0} {led255()} {node.boot} {1 if held else 0} {wake}\n")
    elif op == "b":
        world.pins[names[parts[1]]] = 0 if parts[2] == "1" else 1
    elif op == "c":
        if reader is not None:
            reader.card = None if parts[1] == "-" else unhexlify(parts[1])
    elif op == "f":
        if reader is not None:
            reader.fail_next = int(parts[1])
    elif op == "h":
        hung = True
    elif op == "d":
        out.write("r " + (hexlify(bytes(screen.ram)).decode() if screen is not None else "") + "\n")
    elif op == "n":
        if reader is not None:
            out.write(f"n {reader.exchanges} {reader.bad_crc} {1 if reader.halted else 0}\n")
    elif op == "q":
        break
    else:
        out.write("e unknown command " + op + "\n")
    out.write(".\n")
    if hasattr(out, "flush"):
        out.flush()
_ = sb
