// Emulated Picos on one RS-485 seat bus, driven in lockstep by a Python process (controller/nodes/emulated_bus.py).
//
// Each Pico is rp2040js's RP2040 (npm, pinned in controller/nodes/emulator_setup.py) running the rp2 image that
// `./dev firmware` built, from a UF2 file (the firmware and the node's config.json in its littlefs). Nothing here
// decides anything about the game: it keeps the chips' clocks, carries the bus bytes with their times, and hands
// every SPI byte and I2C transfer to the Python side, where the chip fakes the rest of the project uses live.
//
// The wire: one JSON object a line on stdin (a request) and on stdout (its answer); while a "run" is under way
// the harness may ask for an SPI byte's answer ({"spi": [pico, byte]}) and waits for {"miso": byte}. Everything
// else that Node or rp2040js would print goes to stderr.
//
// What rp2040js 1.4.1 leaves out, added here at run time without touching the package:
//  - UART TX: the package raises the TX interrupt for ever and sends each byte the moment it is written (its own
//    TODO), so MicroPython's interrupt-driven UART hangs in its handler. Here a byte written to UARTDR waits in a
//    32-byte FIFO and leaves 10 bit times later (UARTFR's TXFF, TXFE and BUSY tell it), and the TX interrupt is
//    raised when a byte leaves with the FIFO at or below half, cleared by UARTICR or by refilling it.
//  - UART RX: the master's bytes arrive one by one at the line's speed, not all at once.
//  - I2C and SPI take their bytes' time on the wire (9 bits a byte at the I2C clock, 8 at the SPI clock).
//  - The watchdog resets the chip: a new RP2040 boots the same flash, with the reason the watchdog latched.
//  - Flash writes: the package's SSI answers a flash chip's status but drops every command, so the bootrom's
//    flash_range_erase and flash_range_program do nothing and littlefs finds its writes gone (the remote's AUTH
//    counter file: OSError 36). Here the first instruction of those two bootrom functions is a BKPT, and the
//    break does what the chip would: erase to 0xFF, or program (a NOR cell only goes from 1 to 0), taking the
//    flash's typical time (W25Q16JV: 45 ms a 4 KiB sector, 0.4 ms a 256-byte page), then returns to the caller.
//
// The line, as one RS-485 pair: two Picos whose bytes are on the wire at the same time (a byte's ten bit times
// overlap) both reach every receiver garbled (each byte XOR 0x5A, as controller/bus/sim.py garbles a collision),
// never as two good bytes one after the other; so do noise bytes put on the line ({"op": "noise"}), and the
// master's bytes with a Pico's or noise on the line at the same time (every Pico that has not yet taken those
// bytes gets them garbled, the master the other's). A Pico with
// its power off ({"op": "off"}) neither runs, hears nor sends until {"op": "power"} boots it again.
'use strict';

const fs = require('fs');
const { Simulator, USBCDC } = require('rp2040js');

console.log = console.error; // stdout is the wire to Python
const logger = {
    debug() {},
    info() {},
    warn() {},
    error(component, message) {
        process.stderr.write(`rp2040js ${component}: ${message}\n`);
    },
};

const FLASH_START = 0x10000000;
const CYCLE_NS = 8; // 125 MHz
const UARTDR = 0x0;
const UARTICR = 0x44;
const UARTIMSC = 0x38;
const TXFF = 1 << 5;
const TXFE = 1 << 7;
const RXFF = 1 << 6;
const RXFE = 1 << 4;
const BUSY = 1 << 3;
const TXINTR = 1 << 5;
const RXINTR = 1 << 4;
const RTINTR = 1 << 6;
const UARTIFLS = 0x34;
const TX_FIFO = 32;
const BREAK_ERASE = 0xe0;
const BREAK_PROGRAM = 0xe1;
const SECTOR_ERASE_NS = 45e6;
const PAGE_PROGRAM_NS = 0.4e6;

// --- the line to Python ---------------------------------------------------------------------------------------
let inbuf = Buffer.alloc(0);
const chunk = Buffer.alloc(1 << 16);

function readLine() {
    for (;;) {
        const nl = inbuf.indexOf(10);
        if (nl >= 0) {
            const line = inbuf.subarray(0, nl).toString();
            inbuf = inbuf.subarray(nl + 1);
            return line;
        }
        let n;
        try {
            n = fs.readSync(0, chunk, 0, chunk.length, null);
        } catch (err) {
            if (err.code === 'EAGAIN') continue;
            if (err.code === 'EOF') return null;
            throw err;
        }
        if (n === 0) return null;
        inbuf = Buffer.concat([inbuf, chunk.subarray(0, n)]);
    }
}

function send(obj) {
    const text = JSON.stringify(obj) + '\n';
    let buf = Buffer.from(text);
    while (buf.length) {
        try {
            buf = buf.subarray(fs.writeSync(1, buf));
        } catch (err) {
            if (err.code !== 'EAGAIN') throw err;
        }
    }
}

// --- the bus --------------------------------------------------------------------------------------------------
const bus = {
    baud: 1000000,
    byteNs: 10000,
    toMaster: [], // [time_ns, byte] that reached the master
    picos: [],
    recent: [], // {source, entry}: the bytes of the last few byte times, to find two senders at once
    noise: [], // [time_ns, byte] still to come on the line from no Pico ({"op": "noise"})
    // [time_ns, byte] of the master's latest bytes, one entry shared by every Pico's queue. Apart from `recent`
    // (what was carried up to now): the master's bytes are queued ahead, when it writes.
    hostBytes: [],
    collisions: 0, // bytes garbled by another sender
};

function loadUf2(flash, data) {
    for (let at = 0; at + 512 <= data.length; at += 512) {
        const block = data.subarray(at, at + 512);
        const view = new DataView(block.buffer, block.byteOffset, 512);
        if (view.getUint32(0, true) !== 0x0a324655 || view.getUint32(4, true) !== 0x9e5d5157) {
            throw new Error(`not a UF2 block at byte ${at}`);
        }
        const target = view.getUint32(12, true);
        const size = view.getUint32(16, true);
        flash.set(block.subarray(32, 32 + size), target - FLASH_START);
    }
}

class Pico {
    constructor(index, spec, flash, reason, scratch) {
        this.index = index;
        this.spec = spec;
        this.sim = new Simulator();
        this.clock = this.sim.clock;
        this.mcu = this.sim.rp2040;
        this.mcu.logger = logger;
        this.watchdog = this.mcu.peripherals[0x40058];
        this.mcu.loadBootrom(bootrom);
        this.wireFlashWrites();
        this.mcu.flash.set(flash);
        this.watchdog.reason = reason;
        if (scratch) this.watchdog.scratchData.set(scratch);
        this.mcu.core.PC = FLASH_START;
        this.resetPending = null;
        this.rxQueue = []; // [time_ns, byte] still to arrive on UART RX
        this.usbText = '';
        this.i2cOut = [];
        this.i2cCurrent = null;
        this.pins = {};
        this.hits = null; // {ranges: [[start, end]], seen: [[nanos, start]], last} while a benchmark times a path through functions
        this.profile = null; // {every, next, counts: Map(PC -> samples)} while the benchmark samples the PC
        this.gcWatch = null; // {entry, back, from, pauses: [[start_ns, end_ns]]} while the benchmark times GC
        this.feeds = null; // [ns] of every watchdog feed (one a main-loop pass) while the benchmark counts them
        this.edges = null; // {tx: [ns a byte's stop bit ended], pin: [[ns, level]]} while a benchmark times slots
        const load = this.watchdog.writeUint32.bind(this.watchdog);
        this.watchdog.writeUint32 = (offset, value) => {
            if (offset === 0x04 && this.feeds !== null) this.feeds.push(this.clock.nanos); // LOAD: a feed
            load(offset, value);
        };
        this.patchUart(this.mcu.uart[spec.uart || 0]);
        this.wireI2c(this.mcu.i2c[spec.i2c === undefined ? 1 : spec.i2c]);
        this.wireSpi(this.mcu.spi[spec.spi || 0]);
        this.watchdog.onWatchdogTrigger = () => {
            // The chip resets here: stop the count, or rp2040js's periodic alarm fires again at the same instant
            // for ever.
            this.watchdog.timer.enable = false;
            this.watchdog.alarm.enable = false;
            this.resetPending = this.watchdog.reason;
        };
        if (spec.usb) {
            // A USB host on the node's console (what mpremote would see). Off by default: a seat node is powered
            // from the bus cable with no host on its USB, and a host's polling costs the node's core time.
            const cdc = new USBCDC(this.mcu.usbCtrl);
            cdc.onSerialData = (buffer) => {
                this.usbText += Buffer.from(buffer).toString('latin1');
                if (this.usbText.length > 65536) this.usbText = this.usbText.slice(-32768);
            };
        }
        for (const [gpio, level] of Object.entries(spec.inputs || {})) {
            this.mcu.gpio[Number(gpio)].setInputValue(!!level);
        }
    }

    patchUart(uart) {
        const pico = this;
        const fifo = [];
        let shifting = false;
        const alarm = this.clock.createAlarm(() => {
            const byte = fifo.shift();
            shifting = false;
            bus.carry(pico, byte, pico.clock.nanos);
            if (pico.edges !== null) pico.edges.tx.push(pico.clock.nanos);
            if (fifo.length <= TX_FIFO / 2) uart.interruptStatus |= TXINTR;
            start();
            uart.checkInterrupts();
        });
        function start() {
            if (!shifting && fifo.length) {
                shifting = true;
                alarm.schedule(bus.byteNs);
            }
        }
        Object.defineProperty(uart, 'flags', {
            get() {
                return (uart.rxFIFO.full ? RXFF : 0) | (uart.rxFIFO.empty ? RXFE : 0) |
                    (fifo.length >= TX_FIFO ? TXFF : 0) | (fifo.length === 0 ? TXFE : 0) |
                    (shifting || fifo.length ? BUSY : 0);
            },
        });
        uart.checkInterrupts = function () {
            pico.mcu.setInterrupt(uart.irq, !!(uart.interruptStatus & uart.interruptMask));
        };
        const write = uart.writeUint32.bind(uart);
        uart.writeUint32 = function (offset, value) {
            if (offset === UARTDR) {
                if (fifo.length < TX_FIFO) fifo.push(value & 0xff);
                if (fifo.length > TX_FIFO / 2) uart.interruptStatus &= ~TXINTR;
                start();
                uart.checkInterrupts();
            } else if (offset === UARTICR || offset === UARTIMSC) {
                write(offset, value);
                uart.checkInterrupts();
            } else {
                write(offset, value);
            }
        };
        // RX as the PL011 does it: the RX interrupt only at the FIFO's trigger level (UARTIFLS), and the receive
        // timeout interrupt (RTINTR) 32 bit periods after the last byte while the FIFO holds any: MicroPython's
        // UART.IRQ_RXIDLE, with which a node times when a frame ended on the line (firmware/lib/rs485.py).
        let rxLevel = 0;
        const rxTrigger = () => [4, 8, 16, 24, 28][rxLevel] || 4;
        const rxCheck = () => {
            if (uart.rxFIFO.itemCount >= rxTrigger()) uart.interruptStatus |= RXINTR;
            else uart.interruptStatus &= ~RXINTR;
            if (uart.rxFIFO.empty) uart.interruptStatus &= ~RTINTR;
            uart.checkInterrupts();
        };
        const idle = this.clock.createAlarm(() => {
            if (!uart.rxFIFO.empty) uart.interruptStatus |= RTINTR;
            if (!uart.rxFIFO.empty && pico.edges !== null) pico.edges.rt.push(pico.clock.nanos);
            uart.checkInterrupts();
        });
        uart.feedByte = function (value) {
            uart.rxFIFO.push(value);
            idle.schedule(Math.round(3.2 * bus.byteNs));
            rxCheck();
        };
        const read = uart.readUint32.bind(uart);
        uart.readUint32 = function (offset) {
            if (offset === UARTIFLS) return rxLevel << 3;
            const value = read(offset);
            if (offset === UARTDR) rxCheck();
            return value;
        };
        const writeRest = uart.writeUint32;
        uart.writeUint32 = function (offset, value) {
            if (offset === UARTIFLS) {
                rxLevel = (value >> 3) & 7;
                rxCheck();
            } else {
                writeRest(offset, value);
            }
        };
        this.uart = uart;
    }

    wireFlashWrites() {
        const { mcu } = this;
        const core = mcu.core;
        const breakAt = (address, code) => {
            const shift = (address & 2) * 8;
            const word = mcu.bootrom[address >> 2];
            mcu.bootrom[address >> 2] = (word & ~(0xffff << shift)) | ((0xbe00 | code) << shift);
        };
        breakAt(romFunction('RE'), BREAK_ERASE);
        breakAt(romFunction('RP'), BREAK_PROGRAM);
        mcu.onBreak = (code) => {
            const [offset, second, count] = [core.registers[0], core.registers[1], core.registers[2]];
            let busyNs;
            if (code === BREAK_ERASE) {
                // flash_range_erase(addr, count, block_size, block_cmd): whole 4 KiB sectors from addr.
                mcu.flash.fill(0xff, offset, offset + second);
                busyNs = Math.ceil(second / 4096) * SECTOR_ERASE_NS;
            } else if (code === BREAK_PROGRAM) {
                // flash_range_program(addr, data, count): data is in RAM (the SDK copies it there first).
                for (let i = 0; i < count; i++) mcu.flash[offset + i] &= mcu.readUint8(second + i);
                busyNs = Math.ceil(count / 256) * PAGE_PROGRAM_NS;
            } else {
                throw new Error(`pico ${this.index} hit a breakpoint ${code} at ${(core.PC - 2).toString(16)}`);
            }
            core.PC = core.LR & ~1;
            this.clock.tick(busyNs);
        };
    }

    wireI2c(i2c) {
        const pico = this;
        const byteNs = () => Math.round(9e9 / (pico.spec.i2c_hz || 400000));
        let pending = null;
        const alarm = this.clock.createAlarm(() => {
            const fn = pending;
            pending = null;
            fn();
        });
        const later = (fn) => {
            pending = fn;
            alarm.schedule(byteNs());
        };
        i2c.onStart = () => i2c.completeStart();
        i2c.onConnect = (address, mode) => {
            const here = (pico.spec.i2c_devices || [0x3c]).includes(address);
            if (here && mode === 0) pico.i2cCurrent = { address, data: [] };
            later(() => i2c.completeConnect(here));
        };
        i2c.onWriteByte = (value) => {
            if (pico.i2cCurrent) pico.i2cCurrent.data.push(value);
            later(() => i2c.completeWrite(true));
        };
        i2c.onReadByte = () => later(() => i2c.completeRead(0x00));
        i2c.onStop = () => {
            if (pico.i2cCurrent && pico.i2cCurrent.data.length) {
                pico.i2cOut.push([pico.i2cCurrent.address, Buffer.from(pico.i2cCurrent.data).toString('hex')]);
            }
            pico.i2cCurrent = null;
            i2c.completeStop();
        };
    }

    wireSpi(spi) {
        const pico = this;
        const csPin = this.spec.spi_cs;
        let miso = 0;
        const alarm = this.clock.createAlarm(() => spi.completeTransmit(miso));
        if (csPin !== undefined) {
            this.mcu.gpio[csPin].addListener((state) => {
                const selected = !pico.mcu.gpio[csPin].outputValue;
                send({ cs: [pico.index, selected ? 1 : 0] });
            });
        }
        spi.onTransmit = (value) => {
            send({ spi: [pico.index, value, pico.clock.nanos] }); // (the time: the card reader's air time)
            const answer = readLine();
            if (answer === null) process.exit(0);
            miso = JSON.parse(answer).miso & 0xff;
            alarm.schedule(Math.round(8e9 / (pico.spec.spi_hz || 1000000)));
        };
    }

    // Run instructions (or sleep to the next alarm) until the clock reaches `until` ns, feeding RX bytes on time.
    runUntil(until) {
        const { mcu, clock } = this;
        const core = mcu.core;
        if (this.off) {
            // No power: the clock of the world goes on, the chip hears nothing and does nothing.
            this.rxQueue = [];
            if (clock.nanos < until) clock.tick(until - clock.nanos);
            return;
        }
        if (this.hung) {
            // A core stuck with its interrupts off: time passes (the watchdog counts down), nothing runs.
            if (clock.nanos < until) clock.tick(until - clock.nanos);
            return;
        }
        while (clock.nanos < until && this.resetPending === null) {
            let stop = until;
            const rx = this.rxQueue;
            while (rx.length && rx[0][0] <= clock.nanos) {
                this.uart.feedByte(rx.shift()[1]);
            }
            if (rx.length && rx[0][0] < stop) stop = rx[0][0];
            while (clock.nanos < stop && this.resetPending === null) {
                if (core.waiting) {
                    const next = clock.nanosToNextAlarm || stop - clock.nanos; // 0: no alarm at all
                    clock.tick(Math.max(1, Math.min(next, stop - clock.nanos)));
                } else {
                    clock.tick(core.executeInstruction() * CYCLE_NS);
                    const prof = this.profile;
                    if (prof !== null && clock.nanos >= prof.next && (prof.open === undefined || prof.open(clock.nanos))) {
                        prof.next = clock.nanos + prof.every;
                        prof.counts.set(core.PC, (prof.counts.get(core.PC) || 0) + 1);
                    }
                    if (prof !== null && prof.alloc !== undefined && core.PC === prof.alloc) {
                        // A heap allocation: who asked (the return address) and for how many bytes (r0).
                        const key = `${core.LR & ~1}:${core.registers[0]}`;
                        prof.allocs.set(key, (prof.allocs.get(key) || 0) + 1);
                    }
                    const hits = this.hits;
                    if (hits !== null) {
                        const pc = core.PC;
                        let inside = -1;
                        for (let i = 0; i < hits.ranges.length; i++) {
                            if (pc >= hits.ranges[i][0] && pc < hits.ranges[i][1]) { inside = i; break; }
                        }
                        if (inside !== hits.last && inside >= 0) hits.seen.push([clock.nanos, hits.ranges[inside][0]]);
                        hits.last = inside;
                    }
                    const gc = this.gcWatch;
                    if (gc !== null) {
                        if (gc.back === null) {
                            if (core.PC === gc.entry) {
                                gc.back = core.LR & ~1;
                                gc.from = clock.nanos;
                            }
                        } else if (core.PC === gc.back) {
                            gc.pauses.push([gc.from, clock.nanos]);
                            gc.back = null;
                        }
                    }
                }
            }
        }
    }

    get nanos() {
        return this.clock.nanos;
    }
}

bus.carry = function (from, byte, at) {
    if (from !== null && from.off) return; // a byte still shifting out when the power went
    const entry = [at, byte];
    const source = from === null ? -1 : from.index;
    if (from !== null && from.profile !== null && from.profile.window) from.profile.openAt = null; // its answer began
    // Another sender's byte on the wire at the same time: both are garbage for every receiver. The Picos run a
    // slice each in turn, so the overlapping byte may have been carried just before or just after this one.
    for (const other of bus.recent) {
        if (other.source !== source && Math.abs(other.entry[0] - at) < bus.byteNs) {
            garble(other.entry);
            garble(entry);
        }
    }
    // A Pico (or noise) on the line while the master's frame is: the master's bytes are garbage for every Pico
    // that has not taken them yet, and the other sender's for the master (which does not hear itself).
    for (const host of bus.hostBytes) {
        if (Math.abs(host[0] - at) < bus.byteNs) {
            garble(host);
            garble(entry);
        }
    }
    bus.recent = bus.recent.filter((one) => one.entry[0] > at - 4 * bus.byteNs);
    bus.recent.push({ source, entry });
    bus.toMaster.push(entry);
    for (const pico of bus.picos) {
        if (pico !== from && pico !== null) pico.rxQueue.push(entry);
    }
};

function garble(entry) {
    if (entry.length === 2) {
        entry[1] ^= 0x5a;
        entry.push(true); // garbled once: a third sender does not ungarble it
        bus.collisions += 1;
    }
}

// --- requests -------------------------------------------------------------------------------------------------
let bootrom = null;
let now = 0; // the bus's time: every Pico has run up to here
let lineFree = 0; // when the master's last byte has left

function flashOf(pico) {
    return new Uint8Array(pico.mcu.flash);
}

// Where the bootrom keeps a function: its table (address at 0x14) is pairs of a two-letter code and an address.
function romFunction(name) {
    const half = (address) => (bootrom[address >> 2] >>> ((address & 2) * 8)) & 0xffff;
    const code = name.charCodeAt(0) | (name.charCodeAt(1) << 8);
    for (let entry = half(0x14); half(entry) !== 0; entry += 4) {
        if (half(entry) === code) return half(entry + 2) & ~1;
    }
    throw new Error(`the bootrom has no function ${name}`);
}

function resetPico(pico, reason, flash) {
    const fresh = new Pico(pico.index, pico.spec, flash || flashOf(pico), reason,
        reason ? pico.watchdog.scratchData : null);
    fresh.clock.tick(pico.nanos);
    bus.picos[pico.index] = fresh;
    return fresh;
}

function run(until, stopOnRx) {
    const slice = bus.byteNs;
    const resets = [];
    while (now < until) {
        const target = Math.min(until, now + slice);
        while (bus.noise.length && bus.noise[0][0] <= target) {
            const [at, byte] = bus.noise.shift();
            bus.carry(null, byte, at);
        }
        for (const pico of bus.picos) {
            pico.runUntil(target);
            if (pico.resetPending !== null) {
                resets.push([pico.index, pico.resetPending]);
                resetPico(pico, pico.resetPending).runUntil(target);
            }
        }
        now = target;
        // Stop once bytes came and the line has been quiet for two byte times: a whole frame, not its first byte.
        if (stopOnRx && bus.toMaster.length && now - bus.toMaster[bus.toMaster.length - 1][0] >= 2 * bus.byteNs) break;
    }
    // A byte that ended within the last byte time may still be hit by another sender's next one: it goes with
    // the next run (a run that stops on a quiet line holds nothing back).
    const ready = bus.toMaster.filter(([t]) => t <= now - bus.byteNs);
    const out = {
        t: now,
        rx: ready.map(([t, b]) => [t, b]),
        resets,
        i2c: [],
        usb: [],
        collisions: bus.collisions,
    };
    bus.toMaster = bus.toMaster.filter(([t]) => t > now - bus.byteNs);
    for (const pico of bus.picos) {
        if (pico.i2cOut.length) {
            out.i2c.push([pico.index, pico.i2cOut]);
            pico.i2cOut = [];
        }
        if (pico.usbText) {
            out.usb.push([pico.index, pico.usbText]);
            pico.usbText = '';
        }
    }
    return out;
}

function handle(req) {
    switch (req.op) {
        case 'hello':
            bus.baud = req.baud || 1000000;
            bus.byteNs = Math.round(10e9 / bus.baud);
            bootrom = Uint32Array.from(req.bootrom);
            return { ok: true };
        case 'add': {
            const flash = new Uint8Array(16 * 1024 * 1024).fill(0xff);
            loadUf2(flash, fs.readFileSync(req.uf2));
            const index = bus.picos.length;
            const pico = new Pico(index, req, flash, 0, null);
            pico.clock.tick(now);
            bus.picos.push(pico);
            return { pico: index };
        }
        case 'write': {
            let at = Math.max(now, lineFree);
            const data = Buffer.from(req.data, 'hex');
            bus.hostBytes = bus.hostBytes.filter((entry) => entry[0] > now - 4 * bus.byteNs);
            for (const byte of data) {
                at += bus.byteNs;
                const entry = [at, byte];
                bus.hostBytes.push(entry);
                for (const pico of bus.picos) pico.rxQueue.push(entry);
            }
            for (const pico of bus.picos) {
                const prof = pico.profile;
                if (prof !== null && prof.window && data.length > 2 && (data[2] & 0x7f) === prof.window.address) {
                    prof.openAt = at; // a frame to it: sampled from its last byte to the answer's first
                }
            }
            lineFree = at;
            return { done: at };
        }
        case 'run':
            return run(req.until, !!req.stop_on_rx);
        case 'pin':
            bus.picos[req.pico].mcu.gpio[req.gpio].setInputValue(!!req.value);
            return { ok: true };
        case 'power':
            resetPico(bus.picos[req.pico], 0, null);
            return { ok: true };
        case 'pwm': {
            const mcu = bus.picos[req.pico].mcu;
            const levels = req.gpios.map((gpio) => {
                const channel = mcu.pwm.channels[(gpio >> 1) & 7];
                const cc = gpio & 1 ? channel.cc >>> 16 : channel.cc & 0xffff;
                return channel.csr & 1 ? cc / (channel.top + 1) : 0;
            });
            return { levels };
        }
        case 'flash': {
            // What the flash holds now (the littlefs a node wrote to, read back the way a debugger would).
            const flash = bus.picos[req.pico].mcu.flash;
            return { data: Buffer.from(flash.subarray(req.offset, req.offset + req.length)).toString('hex') };
        }
        case 'hang':
            bus.picos[req.pico].hung = true;
            return { ok: true };
        case 'off':
            // The power is cut: RAM, registers and the UART's FIFO are gone ({"op": "power"} boots it again).
            bus.picos[req.pico].off = true;
            return { ok: true };
        case 'noise': {
            // Bytes on the line from nobody (a spike, a node gone mad), one byte time apart from `at` ns on.
            let at = Math.max(req.at === undefined ? now : req.at, now);
            for (const byte of Buffer.from(req.data, 'hex')) {
                at += bus.byteNs;
                bus.noise.push([at, byte]);
            }
            bus.noise.sort((a, b) => a[0] - b[0]);
            return { until: at };
        }
        case 'profile': {
            // Sample the PC every `every_ns` of running time (sleep is not sampled); `take` returns the counts
            // [[pc, samples], ...] and stops. The benchmark maps them to symbols (benchmarks/node_reply.py --profile).
            const pico = bus.picos[req.pico];
            if (req.take) {
                const counts = pico.profile ? Array.from(pico.profile.counts.entries()) : [];
                const allocs = pico.profile ? Array.from(pico.profile.allocs.entries()) : [];
                pico.profile = null;
                return { counts, allocs };
            }
            pico.profile = { every: req.every_ns || 10000, next: 0, counts: new Map(), allocs: new Map(),
                alloc: req.alloc_entry === undefined ? undefined : req.alloc_entry & ~1 };
            if (req.to_address !== undefined) {
                // Only the time from the last byte of a frame addressed to it to its answer's first byte (at most
                // 10 ms): where a reply's latency goes (benchmarks/node_reply.py --profile-replies).
                const prof = pico.profile;
                prof.window = { address: req.to_address };
                prof.openAt = null;
                prof.open = (nanos) => prof.openAt !== null && nanos >= prof.openAt && nanos < prof.openAt + 10e6;
            }
            return { ok: true };
        }
        case 'watch': {
            // Time the firmware's garbage collections (from entering `gc_entry`, the address of gc_collect, to
            // its return) and its main-loop passes (watchdog feeds); `take` returns both and stops.
            const pico = bus.picos[req.pico];
            if (req.take) {
                const out = { gc: pico.gcWatch ? pico.gcWatch.pauses : [], feeds: pico.feeds || [] };
                pico.gcWatch = null;
                pico.feeds = null;
                return out;
            }
            pico.gcWatch = { entry: req.gc_entry & ~1, back: null, from: 0, pauses: [] };
            pico.feeds = [];
            return { ok: true };
        }
        case 'hits': {
            // When the core entered each of `ranges` ([start, end) of functions, from the firmware's symbols): the
            // steps of a path in emulated time; `take` returns [[nanos, start], ...] and stops.
            const pico = bus.picos[req.pico];
            if (req.take) {
                const out = pico.hits ? pico.hits.seen : [];
                pico.hits = null;
                return { seen: out };
            }
            pico.hits = { ranges: req.ranges, seen: [], last: -1 };
            return { ok: true };
        }
        case 'edges': {
            // Time this Pico's answers on the line (benchmarks/node_slots.py): when each of its bytes' stop bit
            // ended, every change of the output `gpio` (the transceiver's DE) and every receive timeout it raised;
            // `take` returns them and stops.
            const pico = bus.picos[req.pico];
            if (req.take) {
                const out = pico.edges || { tx: [], pin: [], rt: [] };
                pico.edges = null;
                return out;
            }
            const edges = { tx: [], pin: [], rt: [] };
            pico.edges = edges;
            const pin = pico.mcu.gpio[req.gpio];
            let level = pin.outputValue;
            pin.addListener(() => {
                if (pico.edges === edges && pin.outputValue !== level) {
                    level = pin.outputValue;
                    edges.pin.push([pico.clock.nanos, level ? 1 : 0]);
                }
            });
            return { ok: true };
        }
        case 'peek': {
            // A 32-bit word of the chip's address space as its core would read it (a peripheral's register: the
            // tests read the card reader's SPI clock divisors).
            return { value: bus.picos[req.pico].mcu.readUint32(req.address) >>> 0 };
        }
        case 'pc': {
            // Where each core's PC is now: the benchmark samples it to find where the time goes.
            return { pc: bus.picos[req.pico].mcu.core.PC };
        }
        default:
            return { error: `unknown request ${req.op}` };
    }
}

for (;;) {
    const line = readLine();
    if (line === null) break;
    let answer;
    try {
        answer = handle(JSON.parse(line));
    } catch (err) {
        answer = { error: String(err && err.stack ? err.stack : err) };
    }
    send(answer);
}
