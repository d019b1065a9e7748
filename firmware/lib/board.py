"""Builds the node's hardware from its config with ``machine``: the only module here that touches pins.

Under test the ``machine`` imported here is the fake from controller/sim/seatnode, installed in sys.modules
before this module is imported; nothing else changes.
"""

import machine
import seatbus as sb
from buttons import Bank, Debounced
from rs485 import RS485, RXBUF

SEAT_IDS = {"prev": sb.BTN_PREV, "next": sb.BTN_NEXT, "ok": sb.BTN_OK}
REMOTE_IDS = {
    "up": sb.KEY_UP,
    "down": sb.KEY_DOWN,
    "left": sb.KEY_LEFT,
    "right": sb.KEY_RIGHT,
    "center": sb.KEY_CENTER,
    "menu": sb.KEY_MENU,
    "back": sb.KEY_BACK,
}

# The card reader's SPI clock: the MFRC522 takes up to 10 Mbit/s (data sheet §8.1.2); 4 MHz is what the widely used
# Arduino MFRC522 library clocks it at. At 1 MHz each register access was 16 µs on the wire alone, and a scan step
# is eight (controller/nodes/emulated_bus.py's harness clocks its fake at this rate too).
NFC_SPI_BAUD = 4_000_000


class IO:
    """What Node needs: link, buttons, led, screen, reader, wdt, reset."""

    def __init__(self):
        self.link = None
        self.buttons = []
        self.led = None
        self.screen = None
        self.reader = None
        self.wdt = None
        self.bank = None  # the buttons read at once (buttons.Bank), where the chip allows
        self.reset = machine.reset


def reset_cause():
    """machine.reset_cause() in the protocol's terms (seatbus RESET_*)."""
    cause = machine.reset_cause()
    if cause == getattr(machine, "WDT_RESET", -1):
        return sb.RESET_WATCHDOG
    if cause == getattr(machine, "PWRON_RESET", -1):
        return sb.RESET_POWER_ON
    if cause == getattr(machine, "SOFT_RESET", -1):
        return sb.RESET_SOFT
    return sb.RESET_OTHER


def build(cfg):
    io = IO()
    u = cfg["uart"]
    # rxbuf: the node reads the bus once the line has gone quiet (rs485.py), so a burst of back-to-back frames
    # (a stage's STAGE parts, up to 8 of 249 bytes) must fit in the receive buffer (256 bytes by default).
    uart = machine.UART(u["id"], baudrate=u["baud"], tx=machine.Pin(u["tx"]), rx=machine.Pin(u["rx"]), rxbuf=RXBUF)
    de = machine.Pin(u["de"], machine.Pin.OUT) if u.get("de") is not None else None
    io.link = RS485(uart, de, u["baud"], u["id"], u.get("de"))
    ids = SEAT_IDS if cfg["role"] == "seat" else REMOTE_IDS
    pins = cfg["buttons"] if cfg["role"] == "seat" else cfg["keys"]
    debounce = cfg.get("debounce_ms", 20)
    for name in sorted(pins):
        pin = machine.Pin(pins[name], machine.Pin.IN, machine.Pin.PULL_UP)
        io.buttons.append(Debounced(pin, ids[name], debounce))
    io.bank = Bank.of(io.buttons, [pins[name] for name in sorted(pins)])
    if "led" in cfg:
        from rgbled import RGBLed

        led = cfg["led"]
        pwms = [machine.PWM(machine.Pin(led[c])) for c in ("r", "g", "b")]
        io.led = RGBLed(pwms[0], pwms[1], pwms[2], led.get("common_anode", False))
    if "display" in cfg:
        from ssd1306 import SSD1306

        i = cfg["i2c"]
        i2c = machine.I2C(
            i["id"], sda=machine.Pin(i["sda"]), scl=machine.Pin(i["scl"]), freq=i.get("freq", 400000)
        )
        # (background false: every panel write waits for its transfer, as before firmware 0.9.13)
        io.screen = SSD1306(i2c, cfg["display"].get("addr", 0x3C), i["id"] if i.get("background", True) else None)
        io.screen.init()
    if "nfc" in cfg:
        from mfrc522 import MFRC522

        n = cfg["nfc"]
        spi = machine.SPI(
            n["spi"],
            baudrate=n.get("baud", NFC_SPI_BAUD),
            sck=machine.Pin(n["sck"]),
            mosi=machine.Pin(n["mosi"]),
            miso=machine.Pin(n["miso"]),
        )
        cs = machine.Pin(n["cs"], machine.Pin.OUT)
        rst = machine.Pin(n["rst"], machine.Pin.OUT) if n.get("rst") is not None else None
        io.reader = MFRC522(spi, cs, rst, spi_id=n["spi"], cs_gpio=n["cs"])
        io.reader.init()
    if cfg.get("watchdog_ms", 2000):
        io.wdt = machine.WDT(timeout=cfg.get("watchdog_ms", 2000))
    return io
