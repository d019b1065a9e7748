"""The judge's remote on the seat bus: paired by a key made on the Pi, its replies sealed, and a recorded reply
useless also after the table restarts. The remote is the real firmware under ``micropython`` (controller/bus/sim.py);
the controller's counter memory is the real file."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from controller.bus import seatbus as sb
from controller.bus.auth_counter import CounterStore
from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.bus.pairing import (
    PairingError,
    counter_path,
    load_key,
    new_key,
    save_key,
    write_remote_config,
)
from controller.bus.sim import SimTable, start_sim_table
from controller.bus.table import BusTable
from controller.ports import InputEvent, RemoteKey, RemoteKeyEvent

REMOTE = 100


def keys(events: list[InputEvent]) -> list[tuple[RemoteKey, bool]]:
    return [(e.key, e.pressed) for e in events if isinstance(e, RemoteKeyEvent)]


def press_center(sim: SimTable) -> None:
    sim.key(REMOTE, "center", True)
    sim.table.run_for(0.1)
    sim.key(REMOTE, "center", False)
    sim.table.run_for(0.1)


def record_remote_replies(master: BusMaster) -> list[sb.Frame]:
    """What a radio receiver in the room would record: every sealed reply of the remote."""
    heard: list[sb.Frame] = []
    original = master._events

    def listen(node, reply):  # type: ignore[no-untyped-def]
        if node.spec.seat == 0:
            heard.append(reply)
        original(node, reply)

    master._events = listen  # type: ignore[method-assign]
    return heard


def restart_controller(sim: SimTable, key: bytes, store_file: Path) -> tuple[BusMaster, list[InputEvent]]:
    """The Pi restarts (power cut, service restart); the seat nodes and the remote keep running."""
    old = sim.master
    specs = [NodeSpec(address=a, seat=n.spec.seat) for a, n in old.nodes.items() if n.spec.seat]
    specs.append(NodeSpec(address=REMOTE, seat=0, key=key, counters=CounterStore(store_file, key)))
    master = BusMaster(sim.bus, specs, reply_timeout=old.reply_timeout, min_cycle=old.min_cycle)
    sim.table = BusTable(master, threaded=False)
    sim.master = master
    events: list[InputEvent] = []
    sim.table.start(events.append)
    return master, events


def test_a_recorded_remote_command_is_refused_after_the_table_restarts(tmp_path: Path) -> None:
    key = new_key()
    store_file = tmp_path / "remote.counter"
    events: list[InputEvent] = []
    with start_sim_table(2, remote_key=key, remote_counters=CounterStore(store_file, key)) as sim:
        heard = record_remote_replies(sim.master)
        sim.table.start(events.append)
        sim.table.run_for(0.1)
        press_center(sim)
        assert keys(events) == [(RemoteKey.CENTER, True), (RemoteKey.CENTER, False)]
        press = next(f for f in heard if sb.decode_events(sb.unseal(key, REMOTE, f.seq, f.payload)[2]))
        assert json.loads(store_file.read_text())["block"] >= 0  # remembered on disk before it took effect
        assert stat.S_IMODE(store_file.stat().st_mode) == 0o600

        master, after = restart_controller(sim, key, store_file)
        remote = master.nodes[REMOTE]
        boot_before = sim.bus.nodes[REMOTE].boot
        master._events(remote, press)  # the recorded "CENTER pressed", played back to the new controller
        assert keys(after) == [], "a replayed press must not reach the director"
        assert master.stats.auth_rejected == 1

        # the real remote kept counting in its old block: it is asked to restart, and then it is heard again
        sim.table.run_for(0.5)
        assert sim.bus.nodes[REMOTE].boot != boot_before, "the remote restarted into a new counter block"
        assert any("asked the remote to restart" in a for a in master.alerts)
        press_center(sim)
        assert keys(after) == [(RemoteKey.CENTER, True), (RemoteKey.CENTER, False)]
        rejected = master.stats.auth_rejected
        master._events(remote, press)  # and the old recording is still refused, now without another restart
        assert keys(after) == [(RemoteKey.CENTER, True), (RemoteKey.CENTER, False)]
        assert master.stats.auth_rejected == rejected + 1
        assert any("replayed counter" in a for a in master.alerts)


def test_a_remote_that_reboots_again_and_again_is_never_refused(tmp_path: Path) -> None:
    key = new_key()
    store_file = tmp_path / "remote.counter"
    events: list[InputEvent] = []
    with start_sim_table(1, remote_key=key, remote_counters=CounterStore(store_file, key)) as sim:
        sim.table.start(events.append)
        sim.table.run_for(0.1)
        for _ in range(12):  # a flat battery, a loose cable: twelve power cuts in a row
            sim.bus.power_cycle(REMOTE, off_for=0.05)
            sim.table.run_for(0.2)
            press_center(sim)
        assert keys(events) == [(RemoteKey.CENTER, True), (RemoteKey.CENTER, False)] * 12
        assert sim.master.stats.auth_rejected == 0
        # each boot reserved one block ahead on the remote's flash, one write each
        tag, limit = (Path(sim.bus.nodes[REMOTE].state_dir) / "auth_counter").read_text().split()
        assert tag == sb.key_tag(key) and int(limit) == 13 * sb.AUTH_BLOCK


def test_the_remote_reserves_the_next_block_before_it_uses_a_counter_in_it(tmp_path: Path) -> None:
    """The firmware's own counter reservation (firmware/lib/authcounter.py), run on CPython here."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware" / "lib"))
    try:
        from authcounter import Reservation
    finally:
        sys.path.pop(0)
    path = str(tmp_path / "auth_counter")
    r = Reservation(path, b"k" * 16)
    counter = r.boot()
    assert counter == 0 and r.limit == sb.AUTH_BLOCK
    for _ in range(sb.AUTH_BLOCK - 1):
        counter = r.next(counter)
    assert counter == sb.AUTH_BLOCK - 1 and r.limit == sb.AUTH_BLOCK
    counter = r.next(counter)  # the first counter of the next block: reserved on flash first
    assert counter == sb.AUTH_BLOCK and Path(path).read_text().split()[1] == str(2 * sb.AUTH_BLOCK)
    again = Reservation(path, b"k" * 16).boot()  # a reboot now starts above everything used
    assert again == 2 * sb.AUTH_BLOCK > counter
    assert Reservation(path, b"another key 1234").boot() == 0  # paired again: a new count
    legacy = tmp_path / "counter"
    legacy.write_text("7")  # firmware 0.2 counted boots in blocks of 2**20
    assert Reservation(str(tmp_path / "new"), b"k" * 16, str(legacy)).boot() == 8 << 20


def test_the_controller_remembers_blocks_and_forgets_them_for_a_new_key(tmp_path: Path) -> None:
    key = new_key()
    store = CounterStore(tmp_path / "remote.counter", key)
    assert store.floor == 0
    store.accept(5)
    store.accept(3 * sb.AUTH_BLOCK + 7)
    again = CounterStore(tmp_path / "remote.counter", key)
    assert again.floor == 4 * sb.AUTH_BLOCK - 1  # everything in the last block seen is refused after a restart
    assert CounterStore(tmp_path / "remote.counter", new_key()).floor == 0
    (tmp_path / "remote.counter").write_text("{not json")
    damaged = CounterStore(tmp_path / "remote.counter", key)
    assert damaged.damaged and "set aside" in damaged.damaged
    assert (tmp_path / "remote.counter.damaged").exists()


def test_pairing_makes_a_private_key_and_writes_it_into_the_remotes_config(tmp_path: Path) -> None:
    key_file = tmp_path / "var" / "remote.key"
    key = new_key()
    save_key(key_file, key)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert load_key(key_file) == key
    config_json = tmp_path / "config.json"
    cfg = write_remote_config(config_json, key, 17)
    assert cfg["role"] == "remote" and cfg["address"] == 17 and cfg["key"] == key.hex()
    assert "keys" in cfg and "uart" in cfg  # from firmware/config.remote.example.json
    # the firmware's own config check accepts it
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware" / "lib"))
    try:
        import config as fw_config
    finally:
        sys.path.pop(0)
    assert fw_config.load(str(config_json))["key"] == key.hex()
    counter_path(key_file).write_text("{}")
    save_key(key_file, new_key())  # pairing anew forgets the old key's counters
    assert not counter_path(key_file).exists()


def test_a_key_others_may_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    key_file = tmp_path / "remote.key"
    save_key(key_file, new_key())
    key_file.chmod(0o644)
    with pytest.raises(PairingError, match="chmod 600"):
        load_key(key_file)
    with pytest.raises(PairingError, match="tianhei remote pair"):
        load_key(tmp_path / "missing.key")


def test_a_remote_whose_counters_are_used_up_is_refused_with_the_way_out(tmp_path: Path) -> None:
    """2**32 counters per key (65,536 boots, or months of polling): then the remote must be paired again."""
    key = new_key()
    events: list[InputEvent] = []
    with start_sim_table(1, remote_key=key) as sim:
        state = Path(sim.bus.nodes[REMOTE].state_dir)
        (state / "auth_counter").write_text(f"{sb.key_tag(key)} {0xFFFFFFFF - 3}")
        sim.bus.power_cycle(REMOTE, off_for=0.05)  # it boots with the last counters of its key
        sim.table.start(events.append)
        sim.table.run_for(0.5)
        assert sim.bus.nodes[REMOTE].errors == []  # the firmware goes on running
        assert any("tianhei remote pair --new" in a for a in sim.master.alerts)


def test_the_table_opens_the_bus_with_the_paired_key_and_its_counters(tmp_path: Path) -> None:
    """What `tianhei table` and `tianhei serve` do with a bus-16 config: the remote is built with the key from
    [remote] key_file and the counters beside it (before, it had no key and was always refused)."""
    import dataclasses

    from controller.bus.table import open_bus_table
    from controller.config.profile import load_profile

    profile = load_profile("bus-16")
    assert profile.bus is not None
    profile = dataclasses.replace(profile, bus=dataclasses.replace(profile.bus, port="loop://"))
    key_file = tmp_path / "remote.key"
    key = new_key()
    save_key(key_file, key)
    CounterStore(counter_path(key_file), key).accept(5 * sb.AUTH_BLOCK)  # accepted before this start
    table = open_bus_table(profile, key_file)
    remote = table.master.nodes[17]
    assert remote.spec.seat == 0 and remote.spec.key == key
    assert remote.auth_counter == 6 * sb.AUTH_BLOCK - 1  # everything up to that block's end is refused
    assert sorted(n.spec.seat for n in table.master.nodes.values()) == list(range(17))
    without_judge = open_bus_table(profile, None)
    assert 17 not in without_judge.master.nodes
    with pytest.raises(PairingError, match="tianhei remote pair"):
        open_bus_table(profile, tmp_path / "never-paired.key")
    unplugged = dataclasses.replace(profile, bus=dataclasses.replace(profile.bus, port=str(tmp_path / "ttyUSB9")))
    with pytest.raises(OSError, match="plug in the USB RS-485 adapter"):
        open_bus_table(unplugged, key_file)
