"""A small certificate authority made with the ``openssl`` command, for a Mosquitto that speaks TLS: the club's
broker on the club's Wi-Fi (its listener beside the tables) and the league's broker (controller/league/certs.py,
which adds the clubs' client certificates).

Keys are P-256 (small and quick on a Pi); a key file is its owner's only (0600). Files already there are kept, so
writing the broker's files again does not change a certificate the tables already trust.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

DAYS = 825


class CertError(Exception):
    """openssl is missing or refused: the message says which and what to do."""


def _openssl(*args: str) -> None:
    tool = shutil.which("openssl")
    if tool is None:
        raise CertError("openssl is not installed; install Debian's package: sudo apt-get install openssl")
    done = subprocess.run([tool, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise CertError(f"openssl {args[0]} failed: {done.stderr.strip().splitlines()[-1] if done.stderr else '?'}")


def _key(path: Path) -> None:
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(path))
    os.chmod(path, 0o600)


def sign(root: Path, name: str, subject: str, extensions: str) -> tuple[Path, Path]:
    """``name.crt`` and ``name.key`` under ``root``, signed by ``root``'s CA (kept if both are there)."""
    cert, key = root / f"{name}.crt", root / f"{name}.key"
    if cert.is_file() and key.is_file():
        return cert, key
    _key(key)
    csr, ext = root / f"{name}.csr", root / f"{name}.ext"
    ext.write_text(extensions + "\n")
    try:
        _openssl("req", "-new", "-key", str(key), "-subj", subject, "-out", str(csr))
        _openssl("x509", "-req", "-in", str(csr), "-CA", str(root / "ca.crt"), "-CAkey", str(root / "ca.key"),
                 "-CAcreateserial", "-days", str(DAYS), "-sha256", "-extfile", str(ext), "-out", str(cert))
    finally:
        csr.unlink(missing_ok=True)
        ext.unlink(missing_ok=True)
    return cert, key


def _san(name: str) -> str:
    try:
        ipaddress.ip_address(name)
        return f"IP:{name}"
    except ValueError:
        return f"DNS:{name}"


def make_ca(root: Path, organisation: str) -> Path:
    """``ca.crt`` and ``ca.key`` under ``root`` (kept if there)."""
    root.mkdir(parents=True, exist_ok=True)
    ca, key = root / "ca.crt", root / "ca.key"
    if not (ca.is_file() and key.is_file()):
        _key(key)
        _openssl("req", "-x509", "-new", "-key", str(key), "-sha256", "-days", str(DAYS * 2),
                 "-subj", f"/O={organisation}/CN={organisation} CA", "-out", str(ca))
    return ca


def server_cert(root: Path, name: str, organisation: str, names: Sequence[str]) -> tuple[Path, Path]:
    """A broker's certificate for every address or host name its clients dial (loopback always). Made again (by
    the same CA, which the clients keep trusting) when the names change: a broker given a new address must name it,
    or every client that checks the name is refused. ``name.names`` remembers what it was made for."""
    every = list(dict.fromkeys([*names, "127.0.0.1", "localhost"]))
    made_for = root / f"{name}.names"
    if not made_for.is_file() or made_for.read_text().split() != every:
        (root / f"{name}.crt").unlink(missing_ok=True)
    sans = ",".join(_san(n) for n in every)
    signed = sign(root, name, f"/O={organisation}/CN={name}",
                  f"subjectAltName={sans}\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature")
    made_for.write_text("\n".join(every) + "\n")
    return signed
