"""The seat firmware on its own chip: the rp2 image (``./dev firmware``) booted on an emulated RP2040, with the
unchanged bus master talking to it on emulated time (controller/nodes).

Each test is a few emulated seconds at most (about 3-4 s of the host's time per emulated second per Pico). The
image is built once (cached under ~/.cache/tianhei/firmware); when it cannot be built or the emulator cannot be
set up, these tests fail and say why — a seat firmware that never ran on its chip is not a pass.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from controller.bus import seatbus as sb
from controller.bus.display import ssd1306_bytes
from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.bus.table import BusTable
from controller.config.profile import load_profile, parse_profile, profiles_dir
from controller.nodes import emulator_setup
from controller.nodes import flash_layout as fl
from controller.nodes.check import check_images, identify, identify_when_up
from controller.nodes.emulated_bus import EmulatedBus, EmulatedPico
from controller.nodes.images import NodeImage, plan, write_images
from controller.nodes.node_image import littlefs_file, node_uf2
from controller.ports import ButtonEvent, CardEvent, LinkEvent
from controller.screens.render import render
from controller.screens.views import RoleReveal

REPO = Path(__file__).resolve().parents[2]


def seat_config(address: int) -> dict[str, object]:
    config = json.loads((REPO / "firmware" / "config.example.json").read_text())
    config["address"] = address
    return dict(config)


def boot(tmp: Path, firmware: bytes, addresses: list[int]) -> tuple[EmulatedBus, list[EmulatedPico]]:
    try:
        bus = EmulatedBus()
    except emulator_setup.SetupError as err:
        pytest.fail(f"the emulated Pico cannot start: {err}")
    picos = []
    for address in addresses:
        config = seat_config(address)
        path = tmp / f"seat-{address:02d}.uf2"
        path.write_bytes(node_uf2(firmware, config))
        picos.append(bus.add(path, config))
    for address in addresses:
        assert identify_when_up(bus, address) is not None, f"seat {address} did not boot"
    return bus, picos


@pytest.fixture
def seat(tmp_path: Path, firmware: bytes):
    bus, picos = boot(tmp_path, firmware, [5])
    yield bus, picos[0]
    bus.close()


def exchange(bus: EmulatedBus, address: int, seq: int, mtype: int, payload: bytes = b"") -> sb.Frame:
    bus.write(sb.encode_frame(address, seq, mtype, payload))
    decoder = sb.Decoder()
    deadline = bus.now() + 0.01  # the reply timeout of firmware/PROTOCOL.md
    while bus.now() < deadline:
        for frame in decoder.feed(bus.read(deadline - bus.now())):
            if frame.from_node and frame.addr == address and frame.seq == seq:
                return frame
    pytest.fail(f"node {address} did not answer 0x{mtype:02x} within 10 ms of emulated time")


def table(bus: EmulatedBus, addresses: list[int]) -> tuple[BusTable, list[object]]:
    master = BusMaster(bus, [NodeSpec(address=a, seat=a) for a in addresses])
    events: list[object] = []
    bus_table = BusTable(master, threaded=False)
    bus_table.start(events.append)
    return bus_table, events


def test_seat_5_answers_identify_as_itself_after_power_on(seat):
    bus, _pico = seat
    ident = identify(bus, 5)
    assert ident is not None
    assert ident["proto"] == sb.PROTOCOL_VERSION
    assert ident["role"] == sb.ROLE_SEAT
    assert ident["reset_cause"] == sb.RESET_POWER_ON
    caps = int(ident["caps"])  # type: ignore[call-overload]
    for cap in (sb.CAP_BUTTONS, sb.CAP_LED, sb.CAP_DISPLAY, sb.CAP_NFC, sb.CAP_POLL_ALL, sb.CAP_LISTEN):
        assert caps & cap
    assert identify(bus, 6) is None  # another seat's address: silence


def test_poll_with_nothing_to_say_and_set_led_lights_the_pwm_on_the_wire_and_through_a_usb_adapter(seat):
    bus, pico = seat
    assert exchange(bus, 5, 1, sb.IDENTIFY).mtype == sb.IDENTITY
    polled = exchange(bus, 5, 2, sb.POLL, sb.encode_poll(0))
    assert polled.mtype == sb.EVENTS and polled.payload[:1] == b"\x00"
    assert exchange(bus, 5, 3, sb.SET_LED, bytes((255, 0, 128))).mtype == sb.ACK
    bus.run(0.005)
    r, g, b = pico.led()
    assert r > 0.95 and g == 0 and 0.4 < b < 0.6

    # Through a USB adapter with a 1 ms latency timer the same answer reaches the master whole, at the timer's tick
    # after its last byte ended on the line (the benchmarks' FTDI host: node_slots.py --link ftdi:1).
    bus.adapter_tick = 0.001
    bus.run(0.0004)  # off the tick
    assert exchange(bus, 5, 4, sb.SET_LED, bytes((0, 255, 0))).mtype == sb.ACK
    ended = bus.heard[-1][0]
    tick = -(-ended // 1_000_000) * 1_000_000
    # At that tick; or, when the answer ended within two byte times of it, when the emulator saw the line quiet
    # that long (it does not hand a frame over before: emulated_bus.py), at most three byte times past the tick.
    assert tick <= round(bus.now() * 1e9) <= tick + 30_000 and tick > ended


def test_seat_5_answering_while_the_master_still_talks_garbles_both_as_on_the_cable(seat):
    """A node's answer over a frame of the master's (a seat still in a window the host ended, here made to by a
    frame the master sends into the slots) is garbage for the master, and the master's bytes under it for every
    node: neither reaches anyone whole."""
    bus, _pico = seat
    assert exchange(bus, 5, 1, sb.IDENTIFY).mtype == sb.IDENTITY
    slot_us = sb.poll_all_slot_us(bus.baud, sb.POLL_ALL_SHORT_GUARD_US)
    # seat 5 is called to answer in its POLL_ALL slot, 1.5 ms after the frame; the master talks to seat 6 from
    # 0.5 ms after it, for 2 ms
    bus.write(sb.encode_frame(sb.BROADCAST, 2, sb.POLL_ALL, sb.encode_poll_all(slot_us, 5, [5], [], 1500)))
    before = bus.collisions
    got = bus.run(0.0005)
    bus.write(sb.encode_frame(6, 3, sb.DISPLAY_RLE, bytes(200)))
    heard = sb.Decoder().feed(got + bus.run(0.01))
    assert not any(frame.addr == 5 for frame in heard)
    assert bus.collisions > before


def test_seat_3_presses_ok_and_the_master_hears_it_through_poll_all(tmp_path, firmware):
    bus, picos = boot(tmp_path, firmware, [3, 4])
    try:
        bus_table, events = table(bus, [3, 4])
        bus_table.run_for(0.2)
        assert [e.seat for e in events if isinstance(e, LinkEvent) and e.up] == [3, 4]
        assert all(bus_table.master.supports(a, sb.CAP_POLL_ALL) for a in (3, 4))
        picos[0].button("ok", True)
        bus_table.run_for(0.1)
        picos[0].button("ok", False)
        bus_table.run_for(0.1)
        presses = [e for e in events if isinstance(e, ButtonEvent)]
        assert [(e.seat, e.button.name, e.pressed) for e in presses][:2] == [(3, "OK", True), (3, "OK", False)]
    finally:
        bus.close()


def test_seat_5_taps_a_7_byte_killer_card_and_lifts_it(seat):
    bus, pico = seat
    bus_table, events = table(bus, [5])
    bus_table.run_for(0.1)
    uid = bytes.fromhex("04a1b2c3d4e5f6")
    pico.card(uid)
    bus_table.run_for(0.4)
    pico.card(None)
    bus_table.run_for(0.6)
    cards = [e for e in events if isinstance(e, CardEvent)]
    assert [(e.seat, e.uid, e.present) for e in cards] == [(5, uid.hex(), True), (5, uid.hex(), False)]


def test_a_club_with_readers_on_long_wires_clocks_them_at_1_mhz_from_its_profile_and_cards_still_read(
        tmp_path, firmware):
    """``[bus] reader_spi_hz`` in the club's profile goes into every seat's image (``tianhei nodes image``) and
    sets the chip's SPI clock; the default is 4 MHz (firmware/lib/board.py)."""
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    data["bus"]["reader_spi_hz"] = 1_000_000
    seat5 = plan(parse_profile(data, "ours.toml"), remote_key=b"\x11" * 32)[4]
    assert seat5.config["nfc"]["baud"] == 1_000_000
    default5 = plan(load_profile("bus-16"), remote_key=b"\x11" * 32)[4]
    bus = EmulatedBus()
    try:
        picos = []
        for image, address in ((seat5, 5), (default5, 6)):
            config = dict(image.config, address=address)
            path = tmp_path / f"seat-{address:02d}.uf2"
            path.write_bytes(node_uf2(firmware, config))
            picos.append(bus.add(path, config))
        for address in (5, 6):
            assert identify_when_up(bus, address) is not None, f"seat {address} did not boot"
        slow, default = picos
        assert slow.reader_spi_hz() == pytest.approx(1_000_000, rel=0.05)
        assert default.reader_spi_hz() == pytest.approx(4_000_000, rel=0.05)
        bus_table, events = table(bus, [5, 6])
        bus_table.run_for(0.1)
        uid = bytes.fromhex("04a1b2c3d4e5f6")
        slow.card(uid)
        bus_table.run_for(0.4)
    finally:
        bus.close()
    assert [(e.seat, e.uid, e.present) for e in events if isinstance(e, CardEvent)] == [(5, uid.hex(), True)]


def test_a_whole_role_screen_arrives_pixel_for_pixel(seat):
    bus, pico = seat
    bus_table, _events = table(bus, [5])
    bus_table.run_for(0.1)
    image = render(RoleReveal(seat=5, role="killer", partners=(2, 9)))
    bus_table.seats[5].display(image)
    bus_table.run_for(0.5)
    assert bytes(pico.screen.ram) == ssd1306_bytes(image.convert("1"))
    # and then a picture where every byte changes
    noise = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(noise)
    for x in range(0, 128, 3):
        draw.line((x, 0, 127 - x, 63), fill=1)
    bus_table.seats[5].display(noise)
    bus_table.run_for(0.5)
    assert bytes(pico.screen.ram) == ssd1306_bytes(noise)


def showing_role(bus: EmulatedBus, role: str) -> tuple[BusTable, list[object], Image.Image]:
    """Seat 5 up on a master, its role screen drawn: (the table, its events, the picture)."""
    bus_table, events = table(bus, [5])
    bus_table.run_for(0.1)
    image = render(RoleReveal(seat=5, role=role))
    bus_table.seats[5].display(image)
    bus_table.run_for(0.3)
    return bus_table, events, image


def reboot_then_repaint(bus: EmulatedBus, pico: EmulatedPico, bus_table: BusTable, events: list[object],
                        image: Image.Image, seconds: float) -> dict[str, object]:
    """Run until the node has rebooted and the master has it back; the identity it came back with."""
    written_at_reset: list[int] = []
    bus.on_reset = lambda p, reason: written_at_reset.append(len(p.screen.data))
    bus_table.run_for(seconds)
    assert written_at_reset, "the chip never reset"
    assert [e.up for e in events if isinstance(e, LinkEvent)][-2:] == [False, True]
    assert len(pico.screen.data) > written_at_reset[0], "the master did not repaint the screen after the reboot"
    assert bytes(pico.screen.ram) == ssd1306_bytes(image.convert("1"))
    identity = bus_table.master.nodes[5].identity
    assert identity is not None
    return identity


def test_reset_command_reboots_the_node_and_the_master_repaints_it(seat):
    bus, pico = seat
    bus_table, events, image = showing_role(bus, "police")
    bus_table.master.send(5, sb.RESET, bytes((sb.RESET_MAGIC,)))
    identity = reboot_then_repaint(bus, pico, bus_table, events, image, 2.0)
    # machine.reset() on the rp2 port goes through the watchdog, and reset_cause() reads only its REASON
    # register: on the chip a node reset by command says "watchdog" (docs/hardware-truth.md).
    assert pico.resets == [2]  # REASON.FORCE
    assert identity["reset_cause"] == sb.RESET_WATCHDOG


def test_a_hung_node_is_reset_by_its_watchdog_and_repainted_mid_game(seat):
    bus, pico = seat
    bus_table, events, image = showing_role(bus, "civilian")
    bus.call({"op": "hang", "pico": pico.index})  # the core stops with interrupts off: nothing feeds the watchdog
    identity = reboot_then_repaint(bus, pico, bus_table, events, image, 3.5)
    assert pico.resets == [1]  # REASON.TIMER: the watchdog's count ran out (watchdog_ms 2000)
    assert identity["reset_cause"] == sb.RESET_WATCHDOG
    assert "watchdog" in [e for e in events if isinstance(e, LinkEvent)][-1].reason


def test_the_judges_remote_boots_reserves_its_auth_counters_in_flash_and_keeps_them_across_a_power_cut(tmp_path,
                                                                                                     firmware):
    """The remote's image boots (its first flash write at boot, lib/authcounter.py) and the block it reserved is
    in its littlefs when the power comes back: it counts on above it (firmware/PROTOCOL.md: the host refuses a counter it has seen)."""
    key = b"\x11" * 32
    remote = plan(load_profile("bus-16"), remote_key=key)[-1]
    path = write_images([remote], firmware, tmp_path)[0]
    with EmulatedBus() as bus:
        pico = bus.add(path, remote.config, usb=True)
        ident = identify_when_up(bus, remote.address)
        assert ident is not None, f"the remote did not answer: {pico.usb.strip()[-300:]}"
        assert (ident["role"], ident["reset_cause"]) == (sb.ROLE_REMOTE, sb.RESET_POWER_ON)

        def reserved() -> str:
            storage = pico.flash(fl.STORAGE_OFFSET, fl.STORAGE_BYTES)
            return littlefs_file(storage, "auth_counter").decode()

        assert reserved() == f"{sb.key_tag(key)} {sb.AUTH_BLOCK}"
        pico.power_cycle()
        assert identify_when_up(bus, remote.address) is not None
        assert reserved() == f"{sb.key_tag(key)} {2 * sb.AUTH_BLOCK}"


def test_nodes_image_check_boots_a_seat_and_the_remote_and_names_an_image_at_the_wrong_address(tmp_path, firmware):
    """What ``tianhei nodes image --check`` does: every image booted, the remote's included, each asked for its
    IDENTITY at its own address; an image that answers elsewhere (here seat 5's, checked as node 6) is named."""
    images = plan(load_profile("bus-16"), remote_key=b"\x22" * 32)
    chosen = [images[4], images[-1]]
    files = write_images(chosen, firmware, tmp_path)
    assert check_images(chosen, files) == []
    misfiled = [NodeImage("seat-05", 6, chosen[0].config)]
    failures = check_images(misfiled, files[:1], boot_s=0.3)  # up in ~0.1 s: no need to wait a whole second
    assert len(failures) == 1 and failures[0].startswith("seat-05.uf2: no IDENTITY from node 6")
