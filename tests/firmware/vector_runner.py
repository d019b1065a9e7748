"""Checks tests/firmware/vectors.json against seatbus; runs unchanged under CPython and MicroPython.

Usage: <python or micropython> vector_runner.py VECTORS.json SEATBUS_DIR
Prints one line per vector ("ok <name>" or "FAIL <name>: why") and a last line "passed N failed M".
"""

import sys

try:
    from binascii import hexlify, unhexlify
except ImportError:  # pragma: no cover - very old MicroPython
    from ubinascii import hexlify, unhexlify
import json


def hx(b):
    return hexlify(bytes(b)).decode()


def run(vectors_path, seatbus_dir):
    sys.path.insert(0, seatbus_dir)
    import seatbus as s

    with open(vectors_path) as f:
        v = json.load(f)
    results = []

    def check(name, cond, why=""):
        results.append((name, bool(cond), why))

    for c in v["crc32"]:
        got = s.crc32(unhexlify(c["data"]))
        check("crc32 " + c["data"], got == c["crc"], f"got 0x{got:08x}")
        slow = s.crc32_table(unhexlify(c["data"]))  # the fallback for a build without binascii.crc32
        check("crc32 table " + c["data"], slow == c["crc"], f"got 0x{slow:08x}")
    for fr in v["frames"]:
        wire = s.encode_frame(fr["addr"], fr["seq"], fr["type"], unhexlify(fr["payload"]), fr["from_node"])
        check("encode " + fr["name"], hx(wire) == fr["bytes"], hx(wire))
        got = s.Decoder().feed(unhexlify(fr["bytes"]))
        ok = len(got) == 1 and got[0].encode() == wire and got[0].addr == fr["addr"]
        check("decode " + fr["name"], ok, repr(got))
    for st in v["streams"]:
        dec = s.Decoder()
        data = unhexlify(st["stream"])
        got = []
        for i in range(len(data)):  # byte by byte: the worst case for a streaming decoder
            got.extend(dec.feed(data[i : i + 1]))
        if st["idle"]:
            got.extend(dec.idle())
        check("stream " + st["name"], [hx(f.encode()) for f in got] == st["frames"], repr(got))
        dec2 = s.Decoder()
        got2 = dec2.feed(data) + (dec2.idle() if st["idle"] else [])
        check("stream at once " + st["name"], [hx(f.encode()) for f in got2] == st["frames"], repr(got2))
    for m in v["hmac_sha256"]:
        got = hx(s.hmac_sha256(unhexlify(m["key"]), unhexlify(m["msg"])))
        check("hmac " + m["mac"][:8], got == m["mac"], got)
    for se in v["seal"]:
        key = unhexlify(se["key"])
        inner = unhexlify(se["inner"])
        got = s.seal(key, se["addr"], se["seq"], se["counter"], se["inner_type"], inner)
        check("seal", hx(got) == se["payload"], hx(got))
        opened = s.unseal(key, se["addr"], se["seq"], got)
        check("unseal", opened == (se["counter"], se["inner_type"], inner), repr(opened))
        check("unseal other seq refused", s.unseal(key, se["addr"], se["seq"] + 1, got) is None)
        check("unseal wrong key refused", s.unseal(b"x" + key, se["addr"], se["seq"], got) is None)
    for ev in v["events"]:
        enc = s.encode_events([s.encode_event(a, b, c, unhexlify(d)) for a, b, c, d in ev["events"]])
        check("encode events", hx(enc) == ev["payload"], hx(enc))
        dec = s.decode_events(unhexlify(ev["payload"]))
        check("decode events", [[a, b, c, hx(d)] for a, b, c, d in dec] == ev["events"], repr(dec))
    for ident in v["identity"]:
        d = s.decode_identity(unhexlify(ident["payload"]))
        ok = d["proto"] == ident["proto"] and list(d["fw"]) == ident["fw"] and d["caps"] == ident["caps"]
        ok = ok and d["reset_cause"] == ident["reset_cause"] and d["role"] == ident["role"]
        check("identity", ok and d["boot"] == ident["boot"], repr(d))
        enc = s.encode_identity(ident["fw"], ident["caps"], ident["reset_cause"], ident["role"], ident["boot"],
                                ident["proto"])
        check("encode identity (capabilities past 16 bits in its last byte)", hx(enc) == ident["payload"], hx(enc))
    for r in v["rle"]:
        fb = bytearray(bytes([r["fill"]]) * s.SCREEN_BYTES)
        lo, hi = s.decode_rle_into(fb, r["offset"], unhexlify(r["stream"]))
        ok = (lo, hi) == (r["lo"], r["hi"]) and hx(fb[lo:hi]) == r["written"]
        untouched = bytes(fb[:lo]) + bytes(fb[hi:]) == bytes([r["fill"]]) * (s.SCREEN_BYTES - (hi - lo))
        check("rle " + r["name"], ok and untouched, repr((lo, hi)))
    for bad in v["rle_rejected"]:
        fb = bytearray(s.SCREEN_BYTES)
        try:
            s.decode_rle_into(fb, bad["offset"], unhexlify(bad["stream"]))
            check("rle refuses " + bad["name"], False, "decoded without complaint")
        except s.FrameError:
            check("rle refuses " + bad["name"], fb == bytearray(s.SCREEN_BYTES), "wrote before refusing")
    for st in v["stage"]:
        stage, part, parts, addresses, offset, stream = s.decode_stage(unhexlify(st["payload"]))
        ok = (stage, part, parts, list(addresses), offset) == (st["stage"], st["part"], st["parts"], st["addresses"],
                                                              st["offset"])
        check("stage decode", ok and hx(stream) == st["stream"], repr((stage, part, parts, offset)))
        enc = s.encode_stage(stage, part, parts, st["addresses"], offset, unhexlify(st["stream"]))
        check("stage encode", hx(enc) == st["payload"], hx(enc))
    for bad in v["stage_rejected"]:
        try:
            s.decode_stage(unhexlify(bad["payload"]))
            check("stage refuses " + bad["name"], False, "decoded without complaint")
        except s.FrameError:
            check("stage refuses " + bad["name"], True)
    for ds in v["display_staged"]:
        stage, crc, offset, stream = s.decode_display_staged(unhexlify(ds["payload"]))
        ok = (stage, crc, offset, hx(stream)) == (ds["stage"], ds["crc"], ds["offset"], ds["stream"])
        check("display staged decode", ok, repr((stage, crc, offset)))
        enc = s.encode_display_staged(stage, crc, offset, unhexlify(ds["stream"]))
        check("display staged encode", hx(enc) == ds["payload"], hx(enc))
    for bad in v["rejected_encodes"]:
        try:
            s.encode_frame(bad["addr"], bad["seq"], bad["type"], unhexlify(bad["payload"]), bad["from_node"])
            check("refuse " + bad["name"], False, "encoded without complaint")
        except s.FrameError:
            check("refuse " + bad["name"], True)
    check_framing(v, s, check)
    failed = 0
    for name, ok, why in results:
        if ok:
            print("ok " + name)
        else:
            failed += 1
            print("FAIL " + name + ": " + why)
    print(f"passed {len(results) - failed} failed {failed}")
    return failed


def check_framing(v, s, check):
    """The node's allocation-free side of the wire (firmware/lib/framing.py: viper under MicroPython, plain
    Python under CPython) against the same vectors as seatbus."""
    import framing as fr

    for c in v["crc32"]:
        data = unhexlify(c["data"])
        n = len(data)
        buf = bytearray(data) + bytes(4)
        fr.crc_put(buf, 0, n)
        want = bytes([(c["crc"] >> sh) & 0xFF for sh in (24, 16, 8, 0)])
        check("framing crc_put " + c["data"], bytes(buf[n:]) == want, hx(buf[n:]))
        check("framing crc_matches " + c["data"], fr.crc_matches(buf, 0, n, buf, n))
        buf[n + 3] ^= 1
        check("framing crc_matches refuses " + c["data"], not fr.crc_matches(buf, 0, n, buf, n))

    def frames_of(chunks, idle):
        reader = fr.FrameReader()
        got = []
        for chunk in chunks:
            reader.feed(chunk)
            at = reader.next()
            while at >= 0:
                got.append(hx(reader.frame(at).encode()))
                at = reader.next()
        if idle:
            reader.idle()
            at = reader.next()
            while at >= 0:
                got.append(hx(reader.frame(at).encode()))
                at = reader.next()
        return got, reader.pending()

    for f in v["frames"]:
        got, _ = frames_of([unhexlify(f["bytes"])], False)
        check("framing finds " + f["name"], got == [f["bytes"]], repr(got))
        reply = fr.Reply(f["addr"], f["type"], unhexlify(f["payload"])) if f["from_node"] else None
        if reply is not None:
            check("framing reply " + f["name"], hx(reply.ready(f["seq"])) == f["bytes"], hx(reply.buf))
    for st in v["streams"]:
        data = unhexlify(st["stream"])
        got, left = frames_of([data[i : i + 1] for i in range(len(data))], st["idle"])
        check("framing stream " + st["name"], got == st["frames"], repr(got))
        got, left2 = frames_of([data], st["idle"])
        check("framing stream at once " + st["name"], got == st["frames"], repr(got))
        if st["idle"]:
            check("framing stream idle leaves nothing " + st["name"], left == 0 and left2 == 0, repr((left, left2)))
    for r in v["rle"]:
        stream = unhexlify(r["stream"])
        fb = bytearray(bytes([r["fill"]]) * s.SCREEN_BYTES)
        span = fr.rle_apply(fb, stream, 0, len(stream), r["offset"])
        lo, hi = (span >> 11, span & 2047) if span else (0, 0)
        ok = (lo, hi) == (r["lo"], r["hi"]) and hx(fb[lo:hi]) == r["written"]
        untouched = bytes(fb[:lo]) + bytes(fb[hi:]) == bytes([r["fill"]]) * (s.SCREEN_BYTES - (hi - lo))
        check("framing rle " + r["name"], ok and untouched, repr(span))
        filled = bytearray(bytes([r["fill"]]) * s.SCREEN_BYTES)
        got = fr.differ(filled, fb, s.SCREEN_BYTES)
        check("framing differ " + r["name"], got == fr.differ_py(filled, fb, s.SCREEN_BYTES), repr(got))
    a = bytearray(s.SCREEN_BYTES)
    check("framing differ: the same screen", fr.differ(a, bytearray(a), s.SCREEN_BYTES) == 0, "")
    for at in (0, 1, 700, s.SCREEN_BYTES - 1):
        b = bytearray(a)
        b[at] = 0x3E
        got = fr.differ(a, b, s.SCREEN_BYTES)
        check(f"framing differ: byte {at}", got == at * 2048 + at + 1, repr(got))
    b = bytearray(a)
    b[3] = b[900] = 1
    check("framing differ: two bytes apart", fr.differ(a, b, s.SCREEN_BYTES) == 3 * 2048 + 901, "")
    for bad in v["rle_rejected"]:
        stream = unhexlify(bad["stream"])
        fb = bytearray(s.SCREEN_BYTES)
        span = fr.rle_apply(fb, stream, 0, len(stream), bad["offset"])
        check("framing rle refuses " + bad["name"], span == -1 and fb == bytearray(s.SCREEN_BYTES), repr(span))


if __name__ == "__main__":
    sys.exit(1 if run(sys.argv[1], sys.argv[2]) else 0)
