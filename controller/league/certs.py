"""A small certificate authority for the league, made with the ``openssl`` command: the league broker's server
certificate (for the addresses the clubs dial) and one client certificate per club, whose common name
``club-<club>`` is the club's user at the league broker (``use_identity_as_username``). Only the league's
organiser keeps ``ca.key``; each club gets ``ca.crt``, its own ``club-<club>.crt`` and ``.key``.

The CA itself is the club broker's (controller/hall/certs.py). Files already there are kept, so adding a club
does not change the others' certificates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.hall import topics
from controller.hall.certs import DAYS, CertError, server_cert, sign
from controller.hall.certs import make_ca as _make_ca

__all__ = ["DAYS", "CertError", "ClubCert", "club_client", "club_user", "league_server", "make_all", "make_ca"]

ORGANISATION = "Tianhei league"


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


def make_ca(root: Path) -> Path:
    """``ca.crt`` and ``ca.key`` under ``root`` (kept if there)."""
    return _make_ca(root, ORGANISATION)


def league_server(root: Path, names: Sequence[str]) -> tuple[Path, Path]:
    """The league broker's certificate for every address or host name the clubs dial (loopback always)."""
    return server_cert(root, "league", ORGANISATION, names)


def club_client(root: Path, club: str) -> ClubCert:
    user = club_user(club)
    cert, key = sign(root, user, f"/O={ORGANISATION}/CN={user}",
                     "extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature")
    return ClubCert(club, cert, key)


def make_all(root: Path, clubs: Sequence[str], names: Sequence[str]) -> dict[str, ClubCert]:
    """The CA, the league's server certificate and one client certificate per club."""
    make_ca(root)
    league_server(root, names)
    return {c: club_client(root, c) for c in clubs}
