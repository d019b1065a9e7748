"""A small certificate authority for the league, made with the ``openssl`` command: the league broker's server
certificate (for the addresses the clubs dial) and one client certificate per club, whose common name
``club-<club>`` is the club's user at the league broker (``use_identity_as_username``). Only the league's
organiser keeps ``ca.key``; each club gets ``ca.crt``, its own ``club-<club>.crt`` and ``.key``.

Keys are P-256 (small and quick on a Pi); a key file is the owner's only. Files already there are kept, so adding
a club does not change the others' certificates.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.hall import topics

DAYS = 825


class CertError(Exception):
    """openssl is missing or refused: the message says which and what to do."""


@dataclass(frozen=True)
class ClubCert:
    club: str
    cert: Path
    key: Path

    @property
    def user(self) -> str:
        return club_user(self.club)


def club_user(club: str) -> str:
    """The club's user at the league broker: its certificate's common name."""
    return f"club-{topics.check_name('club', club)}"


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


def _sign(root: Path, name: str, subject: str, extensions: str) -> tuple[Path, Path]:
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


def make_ca(root: Path) -> Path:
    """``ca.crt`` and ``ca.key`` under ``root`` (kept if there)."""
    root.mkdir(parents=True, exist_ok=True)
    ca, key = root / "ca.crt", root / "ca.key"
    if not (ca.is_file() and key.is_file()):
        _key(key)
        _openssl("req", "-x509", "-new", "-key", str(key), "-sha256", "-days", str(DAYS * 2),
                 "-subj", "/O=Tianhei league/CN=Tianhei league CA", "-out", str(ca))
    return ca


def league_server(root: Path, names: Sequence[str]) -> tuple[Path, Path]:
    """The league broker's certificate for every address or host name the clubs dial (loopback always)."""
    sans = ",".join(_san(n) for n in dict.fromkeys([*names, "127.0.0.1", "localhost"]))
    return _sign(root, "league", "/O=Tianhei league/CN=league",
                 f"subjectAltName={sans}\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature")


def club_client(root: Path, club: str) -> ClubCert:
    user = club_user(club)
    cert, key = _sign(root, user, f"/O=Tianhei league/CN={user}",
                      "extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature")
    return ClubCert(club, cert, key)


def make_all(root: Path, clubs: Sequence[str], names: Sequence[str]) -> dict[str, ClubCert]:
    """The CA, the league's server certificate and one client certificate per club."""
    make_ca(root)
    league_server(root, names)
    return {c: club_client(root, c) for c in clubs}
