"""Upgrading a club's broker set up before client ids were bound to logins: systemd/install-broker.sh sets the old
sessions' store aside itself, once, with the broker stopped (docs/club.md), instead of a note asking the club to
delete mosquitto.db by hand. Run as a dry run (every step printed, nothing changed) on a stand-in for /etc and
/var/lib."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "systemd" / "install-broker.sh"


def dry_run(tmp_path: Path, conf: str | None, store: bool) -> list[str]:
    conf_path, store_path = tmp_path / "tianhei.conf", tmp_path / "mosquitto.db"
    if conf is not None:
        conf_path.write_text(conf, encoding="utf-8")
    if store:
        store_path.write_bytes(b"\0")
    env = dict(os.environ, TIANHEI_MOSQUITTO_CONF=str(conf_path), TIANHEI_MOSQUITTO_STORE=str(store_path))
    done = subprocess.run(["bash", str(SCRIPT), "--rooms", "1,2", "--dry-run"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert store_path.exists() == store  # a dry run changes nothing
    return [line.split(None, 1)[1] for line in done.stdout.splitlines() if line.startswith("[")]


def test_a_broker_with_the_old_client_ids_has_its_store_set_aside_once_while_stopped(tmp_path):
    steps = dry_run(tmp_path, "listener 1883 127.0.0.1\nallow_anonymous false\n", store=True)
    store = tmp_path / "mosquitto.db"
    aside = steps.index(f"mv {store} {store}.before-client-ids")
    assert steps.index("systemctl stop mosquitto") < aside < steps.index("systemctl restart mosquitto")


def test_a_broker_already_binding_ids_to_logins_or_a_new_one_keeps_its_store(tmp_path):
    for conf in ("listener 1883 127.0.0.1\nuse_username_as_clientid true\n", None):
        steps = dry_run(tmp_path, conf, store=True)
        assert not any(s.startswith("mv ") for s in steps) and "systemctl stop mosquitto" not in steps
