"""NFC card readers for the seats: PN532 (I2C or UART) and MFRC522 (SPI), behind one small interface.

Each driver talks to its chip through a transport (I2C, UART, SPI) that tests replace with a fake chip answering
as the datasheet says. :class:`controller.nfc.reader.CardPresence` turns raw polls into "card arrived" and
"card left" events, each reported once.
"""

from controller.nfc.reader import CardPresence, CardReader, NfcError

__all__ = ["CardPresence", "CardReader", "NfcError"]
