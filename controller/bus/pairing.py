"""Pairing the judge's radio remote: one secret key, made on the Pi, known to the Pi and the remote only.

The key seals every reply of the remote (``seatbus.seal``, HMAC-SHA256), so a transmitter that does not know it
cannot press the judge's keys. It is made here from the operating system's random source (``secrets``), kept in
one file readable by the table's own user only (0600; a key file that others may read is refused), and put on the
remote by writing it into the remote's ``config.json`` (the Pico's flash, copied with ``mpremote`` or Thonny), or
shown once to be typed there. The remote's accepted counters are kept beside the key (``auth_counter.py``).
"""

from __future__ import annotations

import json
import secrets
import stat
from pathlib import Path

from .auth_counter import CounterStore, CounterStoreError, write_private

KEY_BYTES = 16  # the remote's firmware wants 16+ bytes (firmware/lib/config.py); 128 bits is plenty for a MAC


class PairingError(Exception):
    """The key cannot be made, read or written; the message names the file and the fix."""


def counter_path(key_file: Path) -> Path:
    """Where the remote's accepted counters are kept: beside its key (``remote.key`` -> ``remote.counter``)."""
    return Path(key_file).with_suffix(".counter")


def new_key() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


def save_key(key_file: Path, key: bytes) -> None:
    """Write the key (hex) with mode 0600, and forget the counters of any earlier key."""
    try:
        write_private(Path(key_file), key.hex() + "\n")
    except CounterStoreError as exc:
        raise PairingError(f"{exc}; the key's folder must exist and be writable by this user") from exc
    counter_path(key_file).unlink(missing_ok=True)


def load_key(key_file: Path) -> bytes:
    """The pairing key, or :class:`PairingError` saying what is wrong with the file and what to do."""
    path = Path(key_file)
    try:
        info = path.stat()
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError as exc:
        raise PairingError(f"no pairing key at {path}: the judge's remote would be refused; "
                           f"run `tianhei remote pair` to make one") from exc
    except PermissionError as exc:
        raise PairingError(f"the pairing key {path} cannot be read by this user; run the command as the table's "
                           f"user (sudo -u tianhei ...)") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise PairingError(f"the pairing key {path} cannot be read ({exc}); make a new one: "
                           f"tianhei remote pair --new") from exc
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise PairingError(f"the pairing key {path} may be read by other users (mode "
                           f"{stat.S_IMODE(info.st_mode):04o}): chmod 600 {path}, and pair again if others "
                           f"could have copied it (tianhei remote pair --new)")
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < KEY_BYTES:
        raise PairingError(f"the pairing key {path} is not {KEY_BYTES}+ bytes of hex; make a new one: "
                           f"tianhei remote pair --new")
    return key


def open_counters(key_file: Path, key: bytes) -> CounterStore:
    return CounterStore(counter_path(key_file), key)


def write_remote_config(path: Path, key: bytes, address: int | None) -> dict[str, object]:
    """Put the key (and the remote's bus address) into the remote's ``config.json``; start from the shipped
    example for a remote when the file does not exist yet. Returns the configuration written."""
    path = Path(path)
    if path.is_file():
        try:
            cfg = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise PairingError(f"{path} is not the remote's JSON configuration ({exc}); fix it or give a new "
                               f"file name") from exc
        if not isinstance(cfg, dict):
            raise PairingError(f"{path} must be a JSON object (the remote's config.json)")
        if cfg.get("role") not in (None, "remote"):
            raise PairingError(f"{path} is the configuration of a {cfg.get('role')} node, not of the remote; give "
                               f"the remote's config.json")
    else:
        example = Path(__file__).resolve().parents[2] / "firmware" / "config.remote.example.json"
        cfg = json.loads(example.read_text(encoding="utf-8")) if example.is_file() else {}
    cfg["role"] = "remote"
    cfg["key"] = key.hex()
    if address is not None:
        cfg["address"] = address
    try:
        write_private(path, json.dumps(cfg, indent=1) + "\n")
    except CounterStoreError as exc:
        raise PairingError(str(exc)) from exc
    return cfg

