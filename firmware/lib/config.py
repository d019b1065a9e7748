"""The node's own configuration: ``config.json`` beside ``main.py`` on the node's flash.

JSON, not TOML, because MicroPython ships a json module and no TOML parser. Every mistake is reported with the
key that holds it, because the only place to read the message may be a serial console at the table.
"""

import json

ROLES = ("seat", "remote")
SEAT_BUTTONS = ("prev", "next", "ok")
REMOTE_KEYS = ("up", "down", "left", "right", "center", "menu", "back")


class ConfigError(ValueError):
    pass


def _need(cfg, key, where, kind):
    if key not in cfg:
        raise ConfigError(f"{where}: missing key '{key}'")
    value = cfg[key]
    if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise ConfigError(f"{where}: '{key}' must be a whole number, got {value!r}")
    if kind is dict and not isinstance(value, dict):
        raise ConfigError(f"{where}: '{key}' must be a table of settings, got {value!r}")
    if kind is str and not isinstance(value, str):
        raise ConfigError(f"{where}: '{key}' must be text, got {value!r}")
    return value


def validate(cfg, where="config.json"):
    """Return cfg if it is a usable node configuration, else raise ConfigError naming the key and the fix."""
    if not isinstance(cfg, dict):
        raise ConfigError(f"{where}: must be a JSON object")
    role = _need(cfg, "role", where, str)
    if role not in ROLES:
        raise ConfigError(f"{where}: 'role' must be one of {ROLES}, got {role!r}")
    address = _need(cfg, "address", where, int)
    if not 1 <= address <= 126:
        raise ConfigError(
            f"{where}: 'address' must be 1..126 (seat number, or the remote's address), got {address}"
        )
    uart = _need(cfg, "uart", where, dict)
    for key in ("id", "tx", "rx", "baud"):
        _need(uart, key, where + " [uart]", int)
    if "de" in uart and uart["de"] is not None:
        _need(uart, "de", where + " [uart]", int)
    names = SEAT_BUTTONS if role == "seat" else REMOTE_KEYS
    section = "buttons" if role == "seat" else "keys"
    pins = _need(cfg, section, where, dict)
    for name in names:
        _need(pins, name, where + " [" + section + "]", int)
    for name in pins:
        if name not in names:
            raise ConfigError(f"{where} [{section}]: unknown {name!r}; expected {names}")
    if "led" in cfg:
        led = _need(cfg, "led", where, dict)
        for key in ("r", "g", "b"):
            _need(led, key, where + " [led]", int)
    if "display" in cfg:
        _need(cfg, "i2c", where, dict)
        for key in ("id", "sda", "scl"):
            _need(cfg["i2c"], key, where + " [i2c]", int)
        background = cfg["i2c"].get("background", True)
        if not isinstance(background, bool):
            raise ConfigError(
                f"{where} [i2c]: 'background' must be true (the panel drawn while the loop runs, lib/rp2i2c.py) "
                f"or false (each write waits for its transfer), got {background!r}"
            )
    if "nfc" in cfg:
        nfc = _need(cfg, "nfc", where, dict)
        kind = _need(nfc, "type", where + " [nfc]", str)
        if kind != "mfrc522":
            raise ConfigError(f"{where} [nfc]: 'type' {kind!r} is not supported; use 'mfrc522'")
        for key in ("spi", "sck", "mosi", "miso", "cs"):
            _need(nfc, key, where + " [nfc]", int)
        if "baud" in nfc:
            baud = _need(nfc, "baud", where + " [nfc]", int)
            if not 100000 <= baud <= 10000000:
                raise ConfigError(
                    f"{where} [nfc]: 'baud' is the reader's SPI clock, 100000..10000000 (the MFRC522 takes up to "
                    f"10 MHz; 4000000 is the default, 1000000 for a reader on long wires), got {baud}"
                )
    if role == "remote":
        key = _need(cfg, "key", where, str)
        hexdigits = "0123456789abcdefABCDEF"
        if len(key) < 32 or len(key) % 2 or any(c not in hexdigits for c in key):
            raise ConfigError(
                f"{where}: 'key' must be at least 16 bytes as hex (32+ hex digits); "
                "write it with `tianhei remote pair --remote-config config.json` on the Pi"
            )
    wdt = cfg.get("watchdog_ms", 2000)
    if not isinstance(wdt, int) or not 0 <= wdt <= 8000:
        raise ConfigError(
            f"{where}: 'watchdog_ms' must be 0 (off) or up to 8000 (the RP2040 limit), got {wdt!r}"
        )
    return cfg


def load(path="config.json"):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        raise ConfigError(path + ": not found; copy firmware/config.example.json and set 'address'") from None
    try:
        cfg = json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{path}: not valid JSON ({e})") from None
    return validate(cfg, path)
