"""A role card can carry its role as an NDEF text record; the PN532 reads it from an NTAG's user memory."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.gpio.clock import FakeClock
from controller.nfc import ndef, pn532
from controller.nfc.fakes import FakePn532
from controller.nfc.reader import NfcError


def card_with(text: str, lang: str = "zh") -> FakePn532:
    chip = FakePn532()
    chip.card = bytes.fromhex("04A2B3C4D5E680")
    memory = ndef.text_tlv(text, lang)
    memory += bytes(-len(memory) % 4)
    chip.ndef_pages = {4 + i // 4: memory[i : i + 4] for i in range(0, len(memory), 4)}
    return chip


def test_a_killer_card_says_killer() -> None:
    chip = card_with("杀手")
    reader = pn532.Pn532(pn532.UartPn532Transport(chip), FakeClock())
    assert reader.poll() == "04A2B3C4D5E680"
    assert ndef.read_text(reader.read_pages) == ["杀手"]


def test_a_blank_card_has_no_text() -> None:
    chip = FakePn532()
    chip.card = bytes.fromhex("04A2B3C4D5E680")
    chip.ndef_pages = {4: b"\x03\x00\xfe\x00"}
    reader = pn532.Pn532(pn532.UartPn532Transport(chip), FakeClock())
    reader.poll()
    assert ndef.read_text(reader.read_pages) == []


@given(st.text(max_size=60), st.sampled_from(["en", "zh", "zh-CN"]))
def test_text_records_round_trip(text: str, lang: str) -> None:
    if len(text.encode()) + len(lang) + 1 > 255:
        return
    message = ndef.ndef_message(b"\x00\x00" + ndef.text_tlv(text, lang))
    assert message is not None and ndef.text_records(message) == [text]


@given(st.binary(max_size=80))
def test_any_card_memory_is_texts_or_a_clear_nfc_error(memory: bytes) -> None:
    """A worn or half-written card never crashes enrollment: the parser says NfcError or gives texts."""
    try:
        message = ndef.ndef_message(memory)
        if message is not None:
            assert all(isinstance(t, str) for t in ndef.text_records(message))
    except NfcError as exc:
        assert "NDEF" in str(exc)
