"""How exactly a seat node on its own chip keeps its POLL_ALL and LISTEN slot: the rp2 firmware on emulated Picos
(controller/nodes), the unchanged bus master with POLL_ALL and LISTEN on, in emulated time, while the deal's
screens arrive (every seat's screen changes every 150 ms) and fingers press buttons at random moments.

A slotted answer must start at its slot's start (firmware/PROTOCOL.md: the slot's index times ``slot_us`` after
the POLL_ALL's last byte, or round and slot after the LISTEN's second copy) and leave the line, DE released,
before the next slot begins: ``POLL_ALL_GUARD_US`` is what the slot keeps for the difference. This prints, for
every answer in a slot, its first byte's start on the line less the slot's ideal start (the node reads the frame
late by its loop's latency, then counts the slot from that moment), the DE pin's rise before that byte, and the
DE pin's fall after the last stop bit; and whether any answer ran past its slot's end (guard included).

What the emulator cannot show: the real UART's edges (a byte here leaves exactly 10 bit times after it entered
the shift register) and the transceiver's own enable and disable times (docs/hardware-truth.md's parts), which
come on top of the DE figures here; and the crystal's drift (every emulated clock is exact).

``--together N`` runs PROTOCOL.md's hardest case instead: every seat presses (then lifts) at the same moment, N
times, on a quiet table listened to in LISTEN windows, and counts the moments in which the master saw a garbled
frame. ``--guard`` is the host's guard (the nodes take ``slot_us`` from the frame; firmware 0.7 fits its answers
to the short guard). Besides overlaps of two nodes' DE it counts answers begun while a host frame was on the line
(``over_host``) and answers too far from any slot this benchmark can find for them (``far_off``, kept out of
``near_late_us``). A roll call that begins its answer after its last slot, on purpose (firmware 0.9.7: its loop
came round late, and nobody talks after that slot), is counted apart (``roll_late``, how late in ``roll_late_us``).

``--screens-every MS`` changes every seat's screen that often instead of the deal's 150 ms; 0 changes none (a quiet
table, as in a vote where the host answers a press with nothing but the seat's own LED): the Picos' floor.

``--min-cycle`` and ``--command-slot`` set the master's POLL_ALL cycle while commands go by name (PROTOCOL.md,
"Where a frame waits inside a Pico": a POLL_ALL after every command was tried that way).

    .venv/bin/python benchmarks/node_slots.py [--seats 4] [--seconds 3] [--guard 40] [--together 12] [--trace 4]
                                              [--screens-every MS] [--min-cycle MS] [--command-slot MS] [--json]
                                              [--clean-line] [--listen-lead US] [--window-acks]
                                              [--link wire|uart:MS|ftdi:MS]

``--link`` puts the host behind the Pi's UART or a USB adapter (``ftdi:1``: an FTDI chip's 1 ms latency timer, as
bus-16's adapter is set), as ``benchmarks/bus_timing.py --links`` does for its simulated nodes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bus_timing import TYPE_NAMES, describe_link, frame_words, host_link  # noqa: E402
from node_reply import boot_seats, symbol  # noqa: E402

from controller.bus import seatbus as sb  # noqa: E402
from controller.bus.master import BusMaster  # noqa: E402
from controller.bus.nodes import NodeSpec  # noqa: E402
from controller.bus.table import BusTable  # noqa: E402
from controller.nodes import firmware_build  # noqa: E402
from controller.nodes.emulated_bus import EmulatedBus  # noqa: E402
from controller.ports import ButtonEvent  # noqa: E402
from controller.screens.render import render  # noqa: E402
from controller.screens.views import RoleReveal, TapCard  # noqa: E402

EARLY_NS = 50_000  # an answer this much before its window's start still counts as in it (early)
# An answer further than this from the slot this benchmark finds for it: most likely one in a window the host had
# already ended (the node had not yet read the host's frame), matched here to the wrong window. Counted apart, so
# that the start error of the answers in their slots shows.
FAR_OFF_US = 100
# A roll call's answer begun later than this after its last slot's start came late on purpose (firmware 0.9.7):
# counted apart (an answer in its slot begins 20-40 µs after the slot's ideal start, the stamp's latency).
ROLL_LATE_NS = sb.POLL_ALL_SHORT_GUARD_US * 1000
ENTRY_GAP_NS = 100_000  # --hits: a function entered again after this long is a new entry, not a helper's return
DEBOUNCE_S = 0.020  # the firmware's debounce_ms: an edge within it of the one before is read when it ends


def slot_starts(said: list[tuple[int, bytes]], byte_ns: int
                ) -> list[tuple[int, int, dict[int, int], int, int, int, int | None]]:
    """Every slotted poll the master sent, as (ns its window begins, slot ns, {address: offset ns}, round ns,
    rounds, message type, the roll call's address): a POLL_ALL's window begins its lead after its last byte; a
    LISTEN's at its second copy's end, or its lead after that (the first copy's ``after_us``)."""
    out = []
    listen_seq = -1
    for done, data in said:
        for frame in sb.Decoder().feed(data):
            if frame.mtype == sb.POLL_ALL:
                slot_us, _, addresses, _, after_us = sb.decode_poll_all(frame.payload)  # (its lead)
                gap_us, rounds, roll = 0, 1, None
            elif frame.mtype == sb.LISTEN:
                slot_us, gap_us, rounds, roll, after_us, addresses, _ = sb.decode_listen(frame.payload)
                if frame.seq == listen_seq:
                    continue  # the second copy: the first already said where the window begins
                listen_seq = frame.seq
            else:
                continue
            slot = slot_us * 1000
            offsets = {a: i * slot for i, a in enumerate(addresses)}
            out.append((done + after_us * 1000, slot, offsets, len(addresses) * slot + gap_us * 1000, rounds,
                        frame.mtype, roll))
    return out


def frames_of(tx: list[int], byte_ns: int) -> list[tuple[int, int]]:
    """(first byte's start, last stop bit's end) of each run of back-to-back bytes one Pico sent."""
    out: list[tuple[int, int]] = []
    for end in tx:
        if out and end - out[-1][1] <= byte_ns + byte_ns // 2:
            out[-1] = (out[-1][0], end)
        else:
            out.append((end - byte_ns, end))
    return out


def answers_over_host(bus: EmulatedBus, edges: dict[int, dict[str, list]]) -> list[tuple[int, int]]:
    """(address, first byte's start in ns) of every answer a node began while a frame of the host's was on the
    line: a node still in a window the host has ended, which garbles the host's frame for every node."""
    host = [(done - len(data) * bus.byte_ns, done) for done, data in bus.said]
    return [(address, start) for address, seen in edges.items() for start, end in frames_of(seen["tx"], bus.byte_ns)
            if any(start < h_end and h_start < end for h_start, h_end in host)]


def measure(bus: EmulatedBus, edges: dict[int, dict[str, list]]) -> dict[str, object]:
    """Each slotted answer against its slot: start error, DE lead and release, overruns. A roll call's answer
    begun after its last slot, and over before the window's end (firmware 0.9.7's late roll call), is counted
    apart (``roll_late_us``)."""
    windows = slot_starts(bus.said, bus.byte_ns)
    by_name = [(done, data[2]) for done, data in bus.said if len(data) > 2 and data[2] != sb.BROADCAST]
    late: list[float] = []
    late_poll_all: list[float] = []
    late_listen: list[float] = []
    roll_late: list[float] = []
    lead: list[float] = []
    release: list[float] = []
    overruns = 0
    for address, seen in edges.items():
        rises = [t for t, level in seen["pin"] if level]
        falls = [t for t, level in seen["pin"] if not level]
        for start, end in frames_of(seen["tx"], bus.byte_ns):
            before = [w for w in windows if w[0] <= start + EARLY_NS]
            asked = [done for done, addr in by_name if done <= start]
            if not before or (asked and asked[-1] > before[-1][0]):
                continue  # an answer to a frame by name, not a slot
            begin, slot, offsets, round_ns, rounds, mtype, roll = before[-1]
            if address not in offsets:
                continue
            last = begin + (rounds - 1) * round_ns + offsets[address]
            if address == roll and start > last + ROLL_LATE_NS and end <= begin + rounds * round_ns:
                roll_late.append((start - last) / 1000)
                continue
            r = max(0, min(rounds - 1, round((start - begin - offsets[address]) / round_ns)))
            ideal = begin + r * round_ns + offsets[address]
            late.append((start - ideal) / 1000)
            (late_poll_all if mtype == sb.POLL_ALL else late_listen).append((start - ideal) / 1000)
            rise = max((t for t in rises if t <= start), default=None)
            fall = min((t for t in falls if t >= end), default=None)
            if rise is not None:
                lead.append((start - rise) / 1000)
            if fall is not None:
                release.append((fall - end) / 1000)
                if fall > ideal + slot:
                    overruns += 1
    over_host = len(answers_over_host(bus, edges))
    # Two nodes driving the line at once (DE high on both): a collision, whatever the slots' arithmetic says.
    driven = sorted((rise, fall, address) for address, seen in edges.items()
                    for rise, fall in zip([t for t, level in seen["pin"] if level],
                                          [t for t, level in seen["pin"] if not level], strict=False))
    collisions = sum(1 for (_, fall, a), (rise, _, b) in itertools.pairwise(driven) if rise < fall and a != b)
    gaps = [(rise - fall) / 1000 for (_, fall, a), (rise, _, b) in itertools.pairwise(driven)
            if a != b and 0 <= rise - fall < 1000 * 1000]
    return {"answers": len(late), "collisions": collisions, "over_host": over_host, "quiet_between_us": spread(gaps), "late_us": spread(late), "poll_all_late_us": spread(late_poll_all),
            "listen_late_us": spread(late_listen), "latest_us": sorted(late)[-8:], "de_lead_us": spread(lead),
            "de_release_us": spread(release), "overruns": overruns,
            "near_late_us": spread([x for x in late if abs(x) <= FAR_OFF_US]),
            "far_off": sum(1 for x in late if abs(x) > FAR_OFF_US), "roll_late": len(roll_late),
            "roll_late_us": spread(roll_late)}


def together_moments(bus: EmulatedBus, table: BusTable, master: BusMaster, heard: list[object], moments: int,
                     rng: random.Random) -> dict[str, object]:
    """PROTOCOL.md, "Slot timing": every seat presses OK at the same moment (a vote), then lifts at the same
    moment, again and again, on a quiet table listened to in LISTEN windows; each moment lands at a random point
    of a window. A moment is garbled when the master saw a garbled frame or a collision in it (its answers
    landed on each other: every seat is then polled by name)."""
    table.run_for(0.3)  # a quiet table: LISTEN windows
    garbled = 0
    slotted = 0
    missing = 0
    for k in range(2 * moments):
        pressed = k % 2 == 0
        before = master.stats.corrupt_detected + master.stats.collisions
        in_windows = master.stats.events_in_windows
        count = len(heard)
        for pico in bus.picos:
            pico.button("ok", pressed)
        table.run_for(0.06)
        garbled += master.stats.corrupt_detected + master.stats.collisions > before
        slotted += master.stats.events_in_windows - in_windows
        missing += len(bus.picos) - sum(1 for e in heard[count:] if getattr(e, "pressed", None) is pressed)
        table.run_for(rng.uniform(0.03, 0.08))  # the next moment falls elsewhere in a window
    return {"moments": 2 * moments, "garbled_moments": garbled, "answers_in_windows": slotted,
            "presses_missing": missing}


#: How far ahead of the emulator's clock the fingers' touches are laid: more than a master's cycle can run.
AHEAD_S = 0.5


def press_records(touches: list[tuple[int, bool, float]],
                  arrived: list[tuple[float, object]]) -> list[tuple[float, int, bool, float]]:
    """Milliseconds from each finger's touch to its press or release in the master's hands, matched in order per
    seat, as (ms, seat, pressed, when the touch counts from). A touch within the node's debounce time (20 ms) of
    the one before is read when that time ends (firmware/PROTOCOL.md, "Buttons"), so it counts from then."""
    heard: dict[int, list[tuple[float, bool]]] = {}
    for at, event in arrived:
        if isinstance(event, ButtonEvent):
            heard.setdefault(event.seat, []).append((at, event.pressed))
    out = []
    before: dict[int, float] = {}
    for address, pressed, when in touches:
        start = max(when, before.get(address, -1.0) + DEBOUNCE_S)
        before[address] = when
        queue = heard.get(address, [])
        while queue and queue[0][1] != pressed:
            queue.pop(0)  # (not matched: counted as missing by the caller's comparison)
        if queue:
            out.append(((queue.pop(0)[0] - start) * 1000, address, pressed, start))
    return out


def ack_times(bus: EmulatedBus, heard_from: int) -> dict[str, list[float]]:
    """For each command by name that a seat acked (``DISPLAY_STAGED``, ``DISPLAY_RLE``, ``SET_LED``): µs from the
    host frame's last byte to the ACK's last byte. A Pico's time to take a frame is what the master's command slot
    waits for, and what a short cycle cannot shorten."""
    sent: dict[tuple[int, int], tuple[int, str]] = {}
    for done, data in bus.said:
        for frame in sb.Decoder().feed(data):
            if not frame.from_node and frame.addr != sb.BROADCAST:
                sent[(frame.addr, frame.seq)] = (done, TYPE_NAMES.get(frame.mtype, f"0x{frame.mtype:02x}"))
    out: dict[str, list[float]] = {}
    decoder = sb.Decoder()
    for at, byte in bus.heard[heard_from:]:
        for frame in decoder.feed(bytes([byte])):
            asked = sent.pop((frame.addr, frame.seq), None)
            if frame.mtype == sb.ACK and asked is not None and asked[0] <= at:
                out.setdefault(asked[1], []).append((at - asked[0]) / 1e3)
    return out


def trace_line(bus: EmulatedBus, heard_from: int, collections: dict[int, list[list[int]]]) -> list[tuple[float, str]]:
    """The line as the traces print it, in seconds: the master's frames (from their first byte: address, type,
    SEQ, bytes), the nodes' answers (at their last byte: type, SEQ, payload), and each seat's heap collections."""
    line: list[tuple[float, str]] = []
    line += [((done - len(data) * bus.byte_ns) / 1e9, frame_words(data)) for done, data in bus.said]
    decoder = sb.Decoder()
    for at, byte in bus.heard[heard_from:]:
        for frame in decoder.feed(bytes([byte])):
            name = TYPE_NAMES.get(frame.mtype, f"0x{frame.mtype:02x}")
            line.append((at / 1e9, f"seat {frame.addr:3d}  {name} s{frame.seq} {frame.payload.hex()} (its end)"))
    for address, spans in collections.items():
        line += [(begin / 1e9, f"gc    seat {address} for {(end - begin) / 1e6:.2f} ms") for begin, end in spans]
    line.sort()
    return line


def trace(line: list[tuple[float, str]], records: list[tuple[float, int, bool, float]], slowest: int,
          entries: dict[int, list[tuple[float, str]]] | None = None) -> None:
    """The ``slowest`` presses, each with the line around it, in ms from the finger (what firmware/PROTOCOL.md's
    "The nodes' own time" was traced with), and the pressing seat's entries into the ``--hits`` functions."""
    for ms, address, pressed, start in sorted(records, reverse=True)[:slowest]:
        print(f"--- {ms:.1f} ms: seat {address} {'press' if pressed else 'release'} at {start * 1000:.3f} ms")
        for at, what in sorted(line + (entries or {}).get(address, [])):
            if start - 0.012 <= at <= start + ms / 1000 + 0.0005:
                print(f"  {(at - start) * 1000:8.3f}  {what}")


def entered(seen: list[tuple[int, int]], names: dict[int, str], address: int) -> list[tuple[float, str]]:
    """The emulator's ``hits`` (ns, function start) as trace lines: a function's first entry, not each return into
    it from the runtime's helpers (a native method comes back into its range after every call it makes)."""
    out: list[tuple[float, str]] = []
    last: dict[int, int] = {}
    for nanos, start in seen:
        if start not in last or nanos - last[start] > ENTRY_GAP_NS:
            out.append((nanos / 1e9, f"seat {address:3d} enters {names[start]}"))
        last[start] = nanos
    return out


def trace_over_host(line: list[tuple[float, str]], over: list[tuple[int, int]], shown: int) -> None:
    """The first ``shown`` answers begun over a frame of the host's, each with the line before it, in ms from
    the answer's first byte: the window the node still thought it was in, and where the host ended it."""
    for address, start_ns in sorted(over, key=lambda answer: answer[1])[:shown]:
        start = start_ns / 1e9
        print(f"--- seat {address} began an answer over the host's frame at {start * 1000:.3f} ms")
        for at, what in line:
            if start - 0.008 <= at <= start + 0.0005:
                print(f"  {(at - start) * 1000:8.3f}  {what}")


def spread(values: list[float]) -> dict[str, float | None]:
    every = sorted(values)
    if not every:
        return {"min": None, "p50": None, "p90": None, "p99": None, "max": None}
    return {"min": round(every[0], 1), "p50": round(statistics.median(every), 1),
            "p90": round(every[min(len(every) - 1, int(len(every) * 0.9))], 1),
            "p99": round(every[min(len(every) - 1, int(len(every) * 0.99))], 1), "max": round(every[-1], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="emulated seconds of screens and presses")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--baud", type=int, default=1_000_000, help="the line's speed (default 1000000)")
    parser.add_argument("--guard", type=int, default=sb.POLL_ALL_SHORT_GUARD_US,
                        help="the host's guard in µs (slot_us = 17 bytes on the wire plus it; nodes take slot_us from the frame)")
    parser.add_argument("--together", type=int, default=0, metavar="MOMENTS",
                        help="instead of the deal: every seat presses (then lifts) at the same moment, MOMENTS times, on a "
                             "quiet table (LISTEN windows); counts the moments that garbled an answer")
    parser.add_argument("--quiet", action="store_true",
                        help="quiet commands confirmed in the slots (firmware/PROTOCOL.md, \"Quiet commands\"; off on the "
                             "table), instead of an exchange per command")
    parser.add_argument("--lead", type=int, default=sb.POLL_ALL_LEAD_US, metavar="US",
                        help="the POLL_ALL's lead: its first slot begins this long after its end (0: at once, as before "
                             "firmware 0.9)")
    parser.add_argument("--listen-lead", type=int, default=None, metavar="US",
                        help="the LISTEN's lead: its window begins this long after its second copy (0: at its end, as "
                             "before firmware 0.9.11; default: the master's, 1500 µs for firmware 0.9.15)")
    parser.add_argument("--min-cycle", type=float, default=None, metavar="MS",
                        help="the master's POLL_ALL cycle while commands go by name (BusMaster.min_cycle)")
    parser.add_argument("--command-slot", type=float, default=None, metavar="MS",
                        help="the commands' part of such a cycle (BusMaster.command_slot)")
    parser.add_argument("--screens-every", type=float, default=150.0, metavar="MS",
                        help="every seat's screen changes this often (default 150: the deal; 0: never, a quiet table)")
    parser.add_argument("--clean-line", action="store_true",
                        help="long LISTEN windows from the start, as on a line that has been clean for 10 s (the "
                             "master's first 10 s, and 10 s after any garbled frame, use 10 ms windows)")
    parser.add_argument("--window-acks", action="store_true",
                        help="the host acks news inside the LISTEN window (WINDOW_ACKS, firmware 0.9.9; off on the "
                             "table: PROTOCOL.md, \"Acks inside the window\")")
    parser.add_argument("--trace", type=int, default=0, metavar="N",
                        help="print the N slowest presses with the line around each and the seats' heap collections, "
                             "and the first N answers begun over a frame of the host's")
    parser.add_argument("--hits", default="", metavar="SYMBOLS",
                        help="with --trace: comma-separated functions of the image (firmware_build.functions, as "
                             "benchmarks/node_path.py --functions takes them); each seat's entries into them are "
                             "put in the traces of its presses (the emulator slows while it watches)")
    parser.add_argument("--link", type=host_link, default=(0.0, 0.0), metavar="LINK",
                        help="how the host hears the line: wire (at once, the default), uart:MS (the Pi's UART, e.g. "
                             "uart:0.2) or ftdi:MS (a USB adapter's latency timer, e.g. ftdi:1: bus-16's adapter)")
    args = parser.parse_args()
    image = firmware_build.build()
    firmware = image.firmware.read_bytes()
    symbols = firmware_build.functions(image.elf) if args.hits else {}
    watched = [n for n in args.hits.split(",") if n]
    unknown = [n for n in watched if n not in symbols]
    if unknown:
        print(f"node_slots: the image has no function {', '.join(unknown)} (arm-none-eabi-nm -S {image.elf})")
        return 2
    names = {symbols[n][0]: n.removeprefix("fun_data_") for n in watched}
    rng = random.Random(args.seed)
    wall = time.monotonic()
    with EmulatedBus(baud=args.baud) as bus:
        addresses = boot_seats(bus, firmware, args.seats)
        bus.adapter_tick, bus.host_delay = args.link
        master = BusMaster(bus, [NodeSpec(address=a, seat=a) for a in addresses], baud=args.baud)
        master.short_guard_us = args.guard  # the nodes say CAP_SLOT_EXACT (firmware 0.7): the host's short guard
        master.slot_us = sb.poll_all_slot_us(master.baud, args.guard)
        master.quiet = args.quiet
        master.poll_lead_us = args.lead
        if args.listen_lead is not None:  # (else the master's own: a shorter one for firmware 0.9.15)
            master.listen_lead = master.listen_quick_lead = args.listen_lead
        master.acks_in_windows = args.window_acks
        if args.clean_line:
            master.noisy_for = 0.0
        if args.min_cycle is not None:
            master.min_cycle = args.min_cycle / 1000
        if args.command_slot is not None:
            master.command_slot = args.command_slot / 1000
        heard: list[object] = []
        arrived: list[tuple[float, object]] = []
        table = BusTable(master, threaded=False)
        table.start(lambda event: (heard.append(event), arrived.append((bus.now(), event))))
        table.run_for(0.2)
        de = {pico.config["address"]: pico.config["uart"]["de"] for pico in bus.picos}
        for pico in bus.picos:
            bus.call({"op": "edges", "pico": pico.index, "gpio": de[pico.config["address"]]})
        bus.said.clear()
        together = together_moments(bus, table, master, heard, args.together, rng) if args.together else None
        heard_from = len(bus.heard)
        if args.trace:
            gc_entry = symbol(image.elf, "gc_collect")
            for pico in bus.picos:
                bus.call({"op": "watch", "pico": pico.index, "gc_entry": gc_entry})
                if watched:
                    bus.call({"op": "hits", "pico": pico.index, "ranges": [list(symbols[n]) for n in watched]})
        views = [TapCard(seat=1), RoleReveal(seat=1, role="killer", partners=(2,)), RoleReveal(seat=1, role="police")]
        step, held = 0.01, set()
        every = args.screens_every / 1000
        touches: list[tuple[int, bool, float]] = []  # (address, pressed, when)
        last: dict[int, float] = {}
        quiet_before = (master.stats.quiet_sent, master.stats.quiet_confirmed, master.stats.quiet_by_name)
        drawn_at: float | None = None
        settle: list[float] = []  # ms from every seat's screen changing to the last one taken by its node
        began = bus.now()
        end = began + (0 if args.together else args.seconds)
        drawn = -1
        while bus.now() < end:
            t = bus.now() - began
            if drawn_at is not None and all(master.settled(a) for a in table.seats):
                settle.append((bus.now() - drawn_at) * 1000)  # (to the end of the step it happened in)
                drawn_at = None
            if every and int(t / every) != drawn:  # every seat's screen changes (the deal: 150 ms)
                drawn = int(t / every)
                for address in table.seats:
                    table.seats[address].display(render(views[(drawn + address) % len(views)]))
                drawn_at = bus.now()
            # A finger presses or lifts now and then, at any moment of the master's cycle: the touches are laid on
            # the emulator's clock further ahead than a cycle can run (a clean line's LISTEN window is 100 ms, and
            # the master's cycle is the whole window), so they land anywhere in it.
            for pico in bus.picos:
                address = pico.config["address"]
                while last.get(address, began) < min(end, bus.now() + AHEAD_S):  # (a click is held 40-200 ms)
                    pressed = pico.index not in held
                    when = last.get(address, began) + rng.uniform(0.0, step)
                    last[address] = when + rng.uniform(0.04, 0.2)
                    if when >= end:
                        break
                    bus.at(when, lambda p=pico, down=pressed: p.button("ok", down))
                    touches.append((address, pressed, when))
                    (held.add if pressed else held.discard)(pico.index)
            table.run_for(step * rng.uniform(0.5, 1.5) if drawn_at is None else 0.001)
        table.run_for(0.25)
        edges = {pico.config["address"]: bus.call({"op": "edges", "pico": pico.index, "take": True})
                 for pico in bus.picos}
        result = measure(bus, edges)
        if together is not None:
            result.update(together)
        else:
            records = press_records(touches, arrived)
            result["press_ms"] = spread([ms for ms, _, _, _ in records])
            if args.trace:
                collections = {pico.config["address"]: bus.call({"op": "watch", "pico": pico.index, "take": True})["gc"]
                               for pico in bus.picos}
                line = trace_line(bus, heard_from, collections)
                entries = {pico.config["address"]: entered(
                    bus.call({"op": "hits", "pico": pico.index, "take": True})["seen"], names, pico.config["address"])
                    for pico in bus.picos} if watched else {}
                trace(line, records, args.trace, entries)
                trace_over_host(line, answers_over_host(bus, edges), args.trace)
            result["screens_ms"] = spread(settle)
            for name, took in sorted(ack_times(bus, heard_from).items()):
                result[f"{name.lower()}_ack_us"] = spread(took)
            sent, confirmed, by_name = (a - b for a, b in zip(
                (master.stats.quiet_sent, master.stats.quiet_confirmed, master.stats.quiet_by_name), quiet_before,
                strict=True))
            result.update(quiet_sent=sent, quiet_confirmed=confirmed, quiet_by_name=by_name,
                          poll_alls=master.stats.poll_alls, listens=master.stats.listens,
                          window_acks=master.stats.window_acks)
        result.update(link=describe_link(args.link), seats=args.seats, emulated_s=round(bus.now() - began, 2), screens_every_ms=args.screens_every,
                      host_s=round(time.monotonic() - wall, 1), slot_us=master.slot_us, guard_us=args.guard)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>14}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
