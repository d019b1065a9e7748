"""The judge's console's TLS certificate: the club's own, or one the table makes for itself once and keeps.

Why HTTPS on a club's own Wi-Fi: the judge's page shows every seat's role and its session cookie steers the game,
and anyone on the Wi-Fi can read plain HTTP. Why self-signed by default: a club has no domain and no IT person, and
a table's address on the club's network is not one a public authority would sign. The phone warns once ("not
private"); the judge compares the certificate's SHA-256 fingerprint, which the table shows (the log, the board),
with the one the phone shows, and accepts it.

The certificate is made by the ``openssl`` command (on every Raspberry Pi OS: ``ca-certificates`` needs it), with
an EC P-256 key (quick to make and to use on a Pi Zero 2 W); Python's own ``ssl`` checks a pair and works out the
fingerprint. Nothing here imports the web stack: the configuration check uses it too.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import logging
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from controller.private_file import make_private

log = logging.getLogger(__name__)

#: The files the table makes beside its journal when the club brings no certificate of its own.
CERT_NAME = "console-cert.pem"
KEY_NAME = "console-key.pem"
#: Ten years: a self-signed certificate is trusted by its fingerprint, not by its dates, and a new one would mean
#: a new warning on every phone.
DAYS = 3650
#: The board shows this many bytes of the fingerprint (2**64 work to forge a certificate that starts the same).
SHORT_BYTES = 8

_PEM_CERT = re.compile(rb"-----BEGIN CERTIFICATE-----\s+([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----")


class CertificateError(OSError):
    """The console cannot serve HTTPS with these files: one line naming the file and the fix."""


@dataclass(frozen=True, slots=True)
class Certificate:
    cert: Path
    key: Path
    #: SHA-256 over the certificate (DER), as a phone's certificate viewer shows it: ``3F:0E:...``.
    fingerprint: str
    #: The table made it just now (a phone that accepted the old one will warn once more).
    made: bool = False

    @property
    def short(self) -> str:
        """The fingerprint's first bytes, for the board in the room."""
        return ":".join(self.fingerprint.split(":")[:SHORT_BYTES])


def fingerprint_of(pem: bytes) -> str:
    """The SHA-256 fingerprint of the first certificate in ``pem`` (raises ValueError if there is none)."""
    found = _PEM_CERT.search(pem)
    if found is None:
        raise ValueError("not a PEM certificate")
    try:
        der = base64.b64decode(b"".join(found.group(1).split()), validate=True)
    except binascii.Error:
        raise ValueError("a damaged PEM certificate") from None
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def _read(path: Path) -> bytes | str:
    """The file's bytes, or why it cannot be read."""
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return "is a folder, not a file"
    try:
        return path.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"


def _no_passphrase() -> bytes:
    raise ValueError("passphrase")


def _expired(cert: Path) -> str | None:
    """When the certificate expired, if it has (CPython's own decoder; nothing is said if it is missing)."""
    decode = getattr(getattr(ssl, "_ssl", None), "_test_decode_cert", None)
    if decode is None:
        return None
    try:
        not_after = str(decode(str(cert)).get("notAfter", ""))
        if not_after and ssl.cert_time_to_seconds(not_after) < time.time():
            return not_after
    except (ssl.SSLError, ValueError, OSError):
        return None
    return None


def check_pair(cert: Path, key: Path) -> list[tuple[str, str, str]]:
    """What is wrong with ``cert`` and ``key`` as the console's certificate: ``(which, message, fix)`` with
    ``which`` ``"cert"`` or ``"key"``; empty when they can serve HTTPS."""
    problems: list[tuple[str, str, str]] = []
    cert_bytes, key_bytes = _read(cert), _read(key)
    if isinstance(cert_bytes, str):
        problems.append(("cert", f"{cert}: {cert_bytes}", "give the path of the certificate (PEM), or leave cert and "
                         "key unset and the table makes its own"))
    else:
        try:
            fingerprint_of(cert_bytes)
        except ValueError as exc:
            problems.append(("cert", f"{cert}: {exc}",
                             "give a PEM file that starts with -----BEGIN CERTIFICATE-----"))
    if isinstance(key_bytes, str):
        problems.append(("key", f"{key}: {key_bytes}", "give the path of the certificate's private key (PEM)"))
    elif b"PRIVATE KEY-----" not in key_bytes:
        problems.append(("key", f"{key}: not a PEM private key",
                         "give a PEM file that starts with -----BEGIN ... PRIVATE KEY-----"))
    elif b"ENCRYPTED" in key_bytes:
        problems.append(("key", f"{key}: the key is protected by a passphrase, which the table cannot type",
                         f"remove it: openssl pkey -in {key} -out {key.with_suffix('.plain.pem')}"))
    if problems:
        return problems
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key, password=_no_passphrase)
    except ssl.SSLError as exc:
        if "KEY_VALUES_MISMATCH" in str(exc) or "mismatch" in str(exc.reason or "").lower():
            return [("key", f"{key} is not the key of {cert}", "give the key that was made with this certificate")]
        return [("cert", f"{cert} and {key} cannot serve HTTPS ({exc.reason or exc})",
                 "check that both are PEM files of one certificate and its key")]
    except (ValueError, OSError) as exc:
        return [("key", f"{key} cannot be used ({exc})", "give an unencrypted PEM private key")]
    expired = _expired(cert)
    if expired:
        return [("cert", f"{cert} expired on {expired}", "renew it, or leave cert and key unset and the table "
                 "makes its own")]
    return []


def load(cert: Path, key: Path) -> Certificate:
    """The club's own certificate (checked as the configuration check does)."""
    problems = check_pair(cert, key)
    if problems:
        raise CertificateError(f"the judge's console cannot serve HTTPS: {problems[0][1]} ({problems[0][2]})")
    return Certificate(cert, key, fingerprint_of(cert.read_bytes()))


def names_for(hosts: Iterable[str]) -> list[str]:
    """The subjectAltName entries of a table's certificate: its name on the network (and ``.local``), every
    address it may be reached at, and loopback. A phone that reaches it by another address warns as it would
    anyway for a self-signed certificate; the fingerprint is what the judge checks."""
    entries: list[str] = []
    name = socket.gethostname()
    for host in [name, f"{name}.local" if name and "." not in name else "", "localhost", "127.0.0.1", "::1",
                 *hosts]:
        host = host.strip("[]")
        if not host or host in ("0.0.0.0", "::"):
            continue
        try:
            entry = f"IP:{ipaddress.ip_address(host)}"
        except ValueError:
            if not re.fullmatch(r"[A-Za-z0-9.-]+", host):
                continue
            entry = f"DNS:{host}"
        if entry not in entries:
            entries.append(entry)
    return entries


def _make(folder: Path, hosts: Iterable[str]) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        raise CertificateError("the judge's console needs the openssl command to make its certificate "
                               "(sudo apt install openssl), or give [console] cert and key, or set tls = false")
    stamp = f".new-{os.getpid()}"
    cert_tmp, key_tmp = folder / (CERT_NAME + stamp), folder / (KEY_NAME + stamp)
    make_private(key_tmp)  # 0600 before the key is written into it, whatever the umask
    command = [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
               "-keyout", str(key_tmp), "-out", str(cert_tmp), "-days", str(DAYS), "-subj", "/CN=Tianhei table",
               "-addext", "subjectAltName=" + ",".join(names_for(hosts)),
               "-addext", "basicConstraints=critical,CA:FALSE",
               "-addext", "keyUsage=critical,digitalSignature",
               "-addext", "extendedKeyUsage=serverAuth"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        done = None
        why = str(exc)
    if done is None or done.returncode != 0:
        for f in (cert_tmp, key_tmp):
            f.unlink(missing_ok=True)
        if done is not None:
            why = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise CertificateError(f"the judge's console could not make its certificate in {folder}: openssl said "
                               f"{why!r} (give [console] cert and key, or set tls = false)")
    key_tmp.chmod(0o600)
    os.replace(key_tmp, folder / KEY_NAME)
    os.replace(cert_tmp, folder / CERT_NAME)  # the certificate last: both are there once it is


def own(folder: Path, hosts: Iterable[str] = ()) -> Certificate:
    """The table's own certificate in ``folder`` (the journal's): made once, the first time, and kept, so its
    fingerprint stays the one the judge's phone accepted. A pair found unusable (a file lost or damaged) is set
    aside, never deleted, and a new one made."""
    cert, key = folder / CERT_NAME, folder / KEY_NAME
    made = False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if cert.exists() or key.exists():
            problems = check_pair(cert, key)
            if problems:
                aside = f".unusable-{time.strftime('%Y%m%d-%H%M%S')}"
                for f in (cert, key):
                    if f.exists():
                        f.rename(f.with_name(f.name + aside))
                log.warning("the judge's console's certificate could not be used (%s): set aside as *%s, a new "
                            "one is made; phones will warn once more", problems[0][1], aside)
        if not cert.exists():
            _make(folder, hosts)
            made = True
        make_private(key)  # a key copied in under a loose umask is tightened again
        pem = cert.read_bytes()
    except CertificateError:
        raise
    except OSError as exc:
        raise CertificateError(f"the judge's console cannot keep its certificate in {folder}: "
                               f"{exc.strerror or exc} (check the folder's owner, or give [console] cert and key)"
                               ) from None
    problems = check_pair(cert, key)
    if problems:
        raise CertificateError(f"the judge's console cannot serve HTTPS: {problems[0][1]} ({problems[0][2]})")
    return Certificate(cert, key, fingerprint_of(pem), made)



def where(tls: bool, cert: str | None, key: str | None, journal: str | Path) -> tuple[Path, Path, bool] | None:
    """The files the console serves: ``(cert, key, own)``, ``own`` when they are the table's own (beside the
    journal, made the first time); None for plain HTTP (``tls = false``)."""
    if not tls:
        return None
    if cert and key:
        return Path(cert), Path(key), False
    folder = Path(journal).parent
    return folder / CERT_NAME, folder / KEY_NAME, True


def describe(tls: bool, cert: str | None, key: str | None, journal: str | Path) -> str:
    """One line for ``tianhei config check``: how the console is served and the fingerprint a judge compares."""
    found = where(tls, cert, key, journal)
    if found is None:
        return "plain HTTP (tls = false): the Wi-Fi can read the judge's view and the session"
    cert_path, _, own_pair = found
    whose = "the table's own certificate" if own_pair else "the club's certificate"
    try:
        fp = fingerprint_of(cert_path.read_bytes())
    except (OSError, ValueError):
        return f"HTTPS, {whose} {cert_path} (made at the first start)" if own_pair else f"HTTPS, {whose} {cert_path}"
    return f"HTTPS, {whose} {cert_path}, SHA-256 fingerprint {fp}"
