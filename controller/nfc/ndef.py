"""NDEF text records on NFC Forum Type 2 tags (NTAG21x), so a card can carry its role name.

Type 2 tag memory (NFC Forum T2T spec): user data starts at page 4 as TLV blocks; the NDEF Message TLV has type
0x03 (length in one byte, or 0xFF plus two bytes), 0xFE ends the data, 0x00 is padding. A Text record (NFC Forum
RTD-Text) is a short record with TNF 1 and type "T"; its payload is a status byte (bit 7: UTF-16, bits 0-5:
language code length), the language code, then the text. Deck enrollment reads this to pre-select a card's role.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.nfc.reader import NfcError

FIRST_USER_PAGE = 4


def ndef_message(memory: bytes) -> bytes | None:
    """The NDEF message in a tag's user memory (from page 4), or None if the tag holds none."""
    i = 0
    while i < len(memory):
        tlv = memory[i]
        if tlv == 0x00:
            i += 1
            continue
        if tlv == 0xFE:
            return None
        if i + 1 >= len(memory):
            break
        length, head = memory[i + 1], 2
        if length == 0xFF:
            length, head = int.from_bytes(memory[i + 2 : i + 4], "big"), 4
        body = memory[i + head : i + head + length]
        if len(body) < length:
            raise NfcError("NDEF TLV runs past the memory that was read")
        if tlv == 0x03:
            return bytes(body)
        i += head + length
    return None


def text_records(message: bytes) -> list[str]:
    """The texts of the Text records of an NDEF message (short and normal records; others skipped)."""
    try:
        return _text_records(message)
    except IndexError as exc:  # a header byte past the end: the message is cut short, not a crash
        raise NfcError(f"NDEF record header cut short in {message.hex(' ')}") from exc


def _text_records(message: bytes) -> list[str]:
    texts, i = [], 0
    while i < len(message):
        header = message[i]
        short, has_id, tnf = header & 0x10, header & 0x08, header & 0x07
        type_len = message[i + 1]
        if short:
            payload_len, i = message[i + 2], i + 3
        else:
            payload_len, i = int.from_bytes(message[i + 2 : i + 6], "big"), i + 6
        id_len = 0
        if has_id:
            id_len, i = message[i], i + 1
        rtype = message[i : i + type_len]
        i += type_len + id_len
        payload = message[i : i + payload_len]
        i += payload_len
        if len(payload) < payload_len:
            raise NfcError("NDEF record runs past the end of the message")
        if tnf == 0x01 and rtype == b"T" and payload:
            status = payload[0]
            lang_len = status & 0x3F
            encoding = "utf-16" if status & 0x80 else "utf-8"
            texts.append(payload[1 + lang_len :].decode(encoding, errors="replace"))
        if header & 0x40:  # ME: message end
            break
    return texts


def text_tlv(text: str, lang: str = "en") -> bytes:
    """The user memory of a tag holding one Text record (for writing cards and for tests)."""
    payload = bytes([len(lang)]) + lang.encode() + text.encode()
    if len(payload) > 255:
        raise ValueError("text too long for a short record")
    record = bytes([0xD1, 0x01, len(payload)]) + b"T" + payload  # MB ME SR, TNF 1
    return bytes([0x03, len(record)]) + record + b"\xfe"


def read_text(read_pages: Callable[[int], bytes], max_pages: int = 36) -> list[str]:
    """Read the Text records of the card on a reader; ``read_pages(page)`` returns 16 bytes (4 pages)."""
    memory = b""
    for page in range(FIRST_USER_PAGE, FIRST_USER_PAGE + max_pages, 4):
        memory += read_pages(page)
        message = None
        try:
            message = ndef_message(memory)
        except NfcError:
            continue  # the TLV goes on in the next pages
        if message is not None or b"\xfe" in memory:
            return text_records(message) if message is not None else []
    return []
