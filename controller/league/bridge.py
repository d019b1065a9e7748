"""Mosquitto's own bridge between a club's broker and the league's, and the league broker's configuration.

A club's ``mosquitto.conf`` gets a ``connection`` section (:func:`bridge_section`): the club's broker dials the
league's over TLS with the club's certificate, and sends on, at QoS 1, what the hall writes under
``tianhei/<club>/hall/league/`` as ``league/<club>/…``. ``cleansession false`` with a persistent local session:
while the link is down (the league's machine off, the club's internet gone for an hour) the club's broker queues
what the bridge owes and delivers it when the link comes back; the tables and the hall never notice.

The league's broker (:func:`league_files`) has two kinds of listener: TLS on the addresses the clubs dial,
requiring a certificate from the league's CA whose common name (``club-<club>``) is the user, and loopback with
a password for the league service. On both, a client's id is its login (``use_username_as_clientid``): a bridge is
``club-<club>`` whatever id it sends, so one club's certificate cannot take another club's bridge, and only the
league service's password is ``league``. Its ACL lets each club's bridge write only ``league/<club>/#`` and read only
its own receipt (``league/<club>/receipt``: which of the club's games the league has); the league service reads
``league/#`` and writes only the receipts.
"""

from __future__ import annotations

import getpass
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.hall import broker, topics
from controller.hall.league_feed import KINDS, RECEIPT
from controller.league.certs import club_user

PREFIX = "league"
#: The league service's user at the league broker (loopback listener, with a password).
LEAGUE_USER = "league"
#: How the bridge reports its own state at the league (retained, with a last will of "0"): league/<club>/bridge.
BRIDGE_STATE = "bridge"
#: The first Mosquitto whose TLS bridge survives handshakes that the other end closes (upstream's "Backport SSL
#: connect fixes", issues 2594 and 2595). Before it (Debian 12 has 2.0.11) such a failed handshake leaves the
#: bridge in the broker's socket table, its next connection adds it a second time, and after a few the broker's
#: main loop spins for good: the bridge and the club's whole broker stop. No bridge option avoids that code path.
#: systemd/install-broker.sh installs a newer one (Debian's bookworm-backports); the warning is for a club whose
#: broker came another way.
HANDSHAKE_FIXED = (2, 0, 15)


def handshake_warning(version: tuple[int, ...]) -> str | None:
    """One line for the club's organiser when the installed Mosquitto has that bug, else None."""
    if not version or version >= HANDSHAKE_FIXED:
        return None
    return (f"warning: Mosquitto {'.'.join(map(str, version))} can hang (the bridge and the whole club broker) "
            f"after a few TLS handshakes to the league are cut short by something in the way (a captive portal, a "
            f"proxy); install Mosquitto {'.'.join(map(str, HANDSHAKE_FIXED))} or later (on Debian or Raspberry Pi OS "
            f"bookworm: sudo sh systemd/mosquitto-package.sh, from bookworm-backports), or restart the club's broker "
            f"whenever the league shows this club down while it is online (docs/league.md, 'Which Mosquitto')")


@dataclass(frozen=True)
class Bridge:
    """Where a club's broker sends the league's messages, and the files it proves itself with."""

    club: str
    address: str
    cafile: Path
    certfile: Path
    keyfile: Path
    #: Mosquitto's ``restart_timeout BASE CAP``: seconds between the bridge's attempts, growing up to CAP.
    restart: tuple[int, int] = (2, 60)

    def __post_init__(self) -> None:
        topics.check_name("club", self.club)
        check_address(self.address)

    def section(self) -> str:
        """The club broker's bridge section (what :func:`controller.hall.broker.write_files` appends)."""
        return bridge_section(self)


def check_address(address: str) -> str:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise broker.BrokerError(f"league address {address!r}: write HOST:PORT, e.g. league.example:8883")
    return address


def league_topic(club: str, kind: str) -> str:
    return f"{PREFIX}/{topics.check_name('club', club)}/{kind}"


def bridge_section(b: Bridge) -> str:
    """The ``connection`` section of the club's mosquitto.conf."""
    local = f"{topics.PREFIX}/{b.club}/hall/league/"
    remote = f"{PREFIX}/{b.club}/"
    lines = ["", "# The league: this club's results and standings go on to the league's broker "
             "(controller/league/bridge.py).",
             f"connection league-{b.club}", f"address {b.address}", "bridge_protocol_version mqttv311",
             f"bridge_cafile {b.cafile}", f"bridge_certfile {b.certfile}", f"bridge_keyfile {b.keyfile}",
             "bridge_tls_version tlsv1.2",
             # a session that outlives the link, on both sides: what the bridge owes waits for the league
             "cleansession false", "local_cleansession false",
             f"remote_clientid {club_user(b.club)}", f"local_clientid bridge-league-{b.club}",
             "try_private false", "keepalive_interval 10", f"restart_timeout {b.restart[0]} {b.restart[1]}",
             "start_type automatic",
             # the league sees whether the club's bridge is up (retained, with a last will)
             "notifications true", "notifications_local_only false",
             f"notification_topic {league_topic(b.club, BRIDGE_STATE)}"]
    lines += [f"topic {kind} out 1 {local} {remote}" for kind in KINDS]
    # and back: the league's receipt, which games of this club it has (the hall sends again what it lacks)
    lines.append(f"topic {RECEIPT} in 1 {local} {remote}")
    return "\n".join(lines) + "\n"


def league_acl(clubs: Sequence[str]) -> str:
    lines = ["# Generated by tianhei (controller/league/bridge.py): each club writes only its own league topics.",
             "", f"user {LEAGUE_USER}", f"topic read {PREFIX}/#", f"topic write {PREFIX}/+/{RECEIPT}"]
    for club in clubs:
        club = topics.check_name("club", club)
        lines += ["", f"user {club_user(club)}", f"topic write {PREFIX}/{club}/#",
                  f"topic read {PREFIX}/{club}/{RECEIPT}"]
    return "\n".join(lines) + "\n"


@dataclass
class LeagueFiles:
    root: Path
    tls_port: int
    local_port: int
    clubs: list[str]
    conf: Path
    passwords: dict[str, str] = field(default_factory=dict)
    warning: str | None = None


def league_files(root: Path, clubs: Sequence[str], certs: Path, *, tls_port: int = 8883, local_port: int = 1884,
                 binds: Sequence[str] = ("127.0.0.1",), data_dir: Path | None = None, run_as: str | None = None,
                 log_file: Path | None = None) -> LeagueFiles:
    """The league broker's mosquitto.conf, acl, passwd and the league service's secret under ``root``; the
    certificates (``ca.crt``, ``league.crt``, ``league.key``) are those in ``certs`` (controller/league/certs.py).
    The service's existing password is kept."""
    clubs = [topics.check_name("club", c) for c in clubs]
    if not clubs:
        raise broker.BrokerError("a league needs at least one club; give --clubs red,blue")
    for name in ("ca.crt", "league.crt", "league.key"):
        if not (certs / name).is_file():
            raise broker.BrokerError(f"{certs / name} is missing; make the league's certificates first "
                                     f"(tianhei league certs --out {certs} --clubs …)")
    root, certs = root.absolute(), certs.absolute()  # mosquitto reads the paths from wherever it is started
    root.mkdir(parents=True, exist_ok=True)
    (root / "secrets").mkdir(exist_ok=True)
    os.chmod(root / "secrets", 0o700)
    files = LeagueFiles(root, tls_port, local_port, clubs, root / "mosquitto.conf")
    password = broker.kept_secret(root / "secrets" / f"{LEAGUE_USER}.secret")
    files.passwords[LEAGUE_USER] = password
    passwd = root / "passwd"
    passwd.unlink(missing_ok=True)
    subprocess.run([broker._tool(broker.PASSWD), "-c", "-b", str(passwd), LEAGUE_USER, password], check=True,
                   capture_output=True)
    os.chmod(passwd, 0o640)
    acl = root / "acl"
    acl.write_text(league_acl(clubs))
    # One set of auth settings for both listeners (per_listener_settings false): with per-listener settings a
    # disconnected client has no listener, and Mosquitto 2.0 then refused every message queued for the league
    # service's persistent session (the records waited for the halls' resends instead).
    lines = ["# Generated by tianhei (controller/league/bridge.py): the league's broker.",
             "per_listener_settings false"]
    tls = broker.ListenerTls(certs / "ca.crt", certs / "league.crt", certs / "league.key")
    for host in broker.unique(binds):  # the clubs' bridges: TLS, a certificate from the league's CA is the user name
        lines += [*broker.listener(tls_port, host, tls), "require_certificate true", "use_identity_as_username true"]
    # the league service: loopback, with a password (the only user in passwd; a club's login is its certificate)
    lines += [*broker.listener(local_port, "127.0.0.1"), "allow_anonymous false", f"password_file {passwd}",
              f"acl_file {acl}", "max_queued_messages 100000", "max_inflight_messages 100"]
    lines += broker.process_lines(data_dir, run_as, log_file)
    files.conf.write_text("\n".join(lines) + "\n")
    if run_as is None:
        files.warning = broker.readable_by_the_broker([passwd, acl, certs / "league.key"], data_dir)
    return files


class LeagueMosquitto(broker.Mosquitto):
    """The league's broker on loopback ports (tests, the demo): TLS for the bridges, a password for the service."""

    def __init__(self, root: Path, clubs: Sequence[str], certs: Path, tls_port: int | None = None,
                 local_port: int | None = None) -> None:
        self.root = root
        self.clubs = list(clubs)
        self.certs = certs
        self.tls_port = tls_port or broker.free_port()
        self.port = local_port or broker.free_port()
        (root / "data").mkdir(parents=True, exist_ok=True)
        # Ports it picked may be picked again at the first start (Mosquitto.start), before any bridge knows them;
        # the files are then written again (the service's password is kept).
        self._picked = tls_port is None and local_port is None
        self.files = self._write()
        self.proc = None
        self.starts = 0

    def _write(self) -> broker.BrokerFiles:
        self.league = league_files(self.root, self.clubs, self.certs, tls_port=self.tls_port, local_port=self.port,
                                   data_dir=self.root / "data", run_as=getpass.getuser(),
                                   log_file=self.root / "mosquitto.log")
        return broker.BrokerFiles(self.root, self.port, "league", [], self.league.conf, dict(self.league.passwords))
