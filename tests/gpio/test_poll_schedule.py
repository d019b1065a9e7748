"""Every reader is polled within 100 ms, measured with an injected clock that charges each I2C transfer its
time on a 400 kHz bus and lets the PN532s take their time to answer."""

from __future__ import annotations

from PIL import Image, ImageDraw

from controller.gpio.fakes import Transfer
from controller.gpio.poller import POLL_PROMISE_S
from controller.ports import CardEvent

from .rig import Rig, make_rig


def charge_bus_time(rig: Rig, speed_hz: int) -> None:
    def charge(transfer: Transfer) -> None:
        # address byte + payload, 9 clocks per byte (8 bits + ACK), plus start/stop and driver overhead
        nbytes = 1 + max(len(transfer.data), 1)
        rig.clock.advance(nbytes * 9 / speed_hz + 50e-6)

    rig.bus.on_transfer = charge


def run_table(rig: Rig, seconds: float) -> None:
    """The I/O thread's loop, single-threaded, under a heavy director: every 0.5 s every seat's screen is
    redrawn whole (a phase change: 8 KiB of frames), and every 0.1 s one seat's countdown digit changes."""
    end = rig.clock.monotonic() + seconds
    next_burst = next_tick = rig.clock.monotonic()
    frame = 0
    while rig.clock.monotonic() < end:
        now = rig.clock.monotonic()
        if now >= next_burst:
            for seat in rig.table.seats.values():
                seat.display(Image.new("1", (128, 64), frame % 2))
            next_burst += 0.5
        if now >= next_tick:
            image = Image.new("1", (128, 64), frame % 2)
            ImageDraw.Draw(image).text((100, 20), str(frame % 10), fill=1 - frame % 2)
            rig.table.seats[frame % 8 + 1].display(image)
            frame += 1
            next_tick += 0.1
        rig.table.step()
        if not rig.table._next_frame_pending():
            rig.clock.sleep(min(rig.table.scheduler.due_in(), max(0.0, min(next_burst, next_tick) - now)))


def test_worst_case_poll_interval_with_eight_pn532_on_one_bus() -> None:
    rig = make_rig()
    for chip in rig.readers.values():
        chip.busy_polls = 2  # the chip needs ~4 ms to answer InListPassiveTarget
    rig.readers[4].card = bytes.fromhex("04A1B2C3D4E5F6")
    charge_bus_time(rig, rig.profile.i2c_speed_hz)
    rig.table.start(rig.events.append, thread=False)
    run_table(rig, 2.0)
    worst = rig.table.scheduler.worst_interval
    print(f"\nworst-case poll interval, 8 x PN532 at {rig.profile.i2c_speed_hz} Hz: {worst * 1000:.1f} ms "
          f"over {rig.table.scheduler.rounds} rounds")
    assert worst <= POLL_PROMISE_S
    assert [e for e in rig.events if isinstance(e, CardEvent)] == [
        CardEvent(4, "04A1B2C3D4E5F6", True, rig.events[0].at)
    ], "the card left on seat 4's reader is reported exactly once"
    rig.table.stop()


def test_a_broken_reader_does_not_stall_the_others() -> None:
    rig = make_rig()
    rig.readers[2].silent = True  # never answers: each poll waits its bounded timeout
    rig.readers[6].card = bytes.fromhex("A1B2C3D4")
    charge_bus_time(rig, rig.profile.i2c_speed_hz)
    rig.table.start(rig.events.append, thread=False)
    run_table(rig, 1.0)
    worst = rig.table.scheduler.worst_interval
    print(f"\nworst-case poll interval with one silent reader: {worst * 1000:.1f} ms")
    assert worst <= POLL_PROMISE_S
    assert any(isinstance(e, CardEvent) and e.seat == 6 for e in rig.events)
    presence = next(p for p in rig.table.scheduler.presences if p.seat == 2)
    assert presence.errors > 0 and "did not answer" in presence.last_error
    rig.table.stop()


def test_the_io_thread_delivers_a_card_tap(rig: Rig) -> None:
    """The real background thread, on the real clock: a tap arrives through the sink."""
    import threading

    from controller.gpio.clock import SystemClock

    arrived = threading.Event()
    rig.table.stop()
    live = make_rig()
    live.table.clock = SystemClock()
    live.table.scheduler.clock = SystemClock()
    for presence in live.table.scheduler.presences:
        presence._now = SystemClock().monotonic
    for reader in live.table.scheduler.presences:
        reader.reader.clock = SystemClock()  # type: ignore[attr-defined]
    live.readers[1].card = bytes.fromhex("CAFEBABE")
    live.table.start(lambda e: arrived.set() if isinstance(e, CardEvent) else None)
    try:
        assert arrived.wait(timeout=5.0)
    finally:
        live.table.stop()
