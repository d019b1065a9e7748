# ruff: noqa: F821  (the registers, labels and instructions are the inline assembler's, known to MicroPython's compiler only)
"""The bus's bulk byte work in Thumb machine code, on the RP2040 only (rs485.py and framing.py import it when
sys.platform is "rp2"; elsewhere their viper loops do the same).

Why: viper on the Cortex-M0+ keeps most of a loop's locals on the stack, and its byte loops ran at 0.8-1.2 µs a
byte on the emulated chip: a 190-byte screen frame took 0.23 ms to come out of the UART driver's ring and 0.16 ms
more to have its CRC checked, and every seat does both for every seat's screen (the pass that does it is what a
press waits behind: firmware/PROTOCOL.md, "Bytes in machine code"). Written in Thumb, the same loops take 10-15
cycles a byte. Each function is a few instructions of the Cortex-M0+'s 16-bit set (ARMv6-M: no register-offset
loads in MicroPython's assembler, so addresses are added first); r4-r7 are saved by the assembler's entry.
"""

import micropython


@micropython.asm_thumb
def ring_take(r0, r1, r2):
    """Take up to r2 bytes out of the UART driver's receive ring into the buffer r1; the number taken. r0: the
    UART object's address, its ring checked by rs485._ring_at (buf at +32, size +36, iget +38, iput +40,
    py/ringbuf.h). Only iget is written: the receive interrupt only ever moves iput."""
    ldr(r3, [r0, 32])  # the ring's bytes
    ldrh(r4, [r0, 38])  # iget
    ldrh(r5, [r0, 40])  # iput
    ldrh(r6, [r0, 36])  # size
    sub(r5, r5, r4)  # waiting: iput - iget...
    bge(POSITIVE)
    add(r5, r5, r6)  # ...past the wrap
    label(POSITIVE)
    cmp(r5, r2)
    ble(FITS)
    mov(r5, r2)  # no more than asked
    label(FITS)
    mov(r7, r5)  # the answer
    label(LOOP)
    cmp(r5, 0)
    beq(DONE)
    add(r2, r3, r4)
    ldrb(r2, [r2, 0])
    strb(r2, [r1, 0])
    add(r1, 1)
    add(r4, 1)
    cmp(r4, r6)
    blt(NO_WRAP)
    mov(r4, 0)
    label(NO_WRAP)
    sub(r5, 1)
    b(LOOP)
    label(DONE)
    strh(r4, [r0, 38])
    mov(r0, r7)


@micropython.asm_thumb
def crc_ok(r0, r1, r2, r3):
    """1 when the CRC-32 (seatbus.py's: reflected 0xEDB88320, from and to all ones) of the bytes r0[r1:r2] is the
    big-endian word at r0[r2], else 0. r3: framing.py's table of 256 words."""
    add(r1, r0, r1)  # from here...
    add(r2, r0, r2)  # ...to here
    mov(r0, 0)
    mvn(r0, r0)  # crc = 0xFFFFFFFF
    label(LOOP)
    cmp(r1, r2)
    bge(DONE)
    ldrb(r4, [r1, 0])
    eor(r4, r0)
    lsl(r4, r4, 24)
    lsr(r4, r4, 22)  # ((crc ^ byte) & 0xFF) * 4
    add(r4, r4, r3)
    ldr(r4, [r4, 0])
    lsr(r0, r0, 8)
    eor(r0, r4)
    add(r1, 1)
    b(LOOP)
    label(DONE)
    mvn(r0, r0)
    ldrb(r4, [r2, 0])
    lsl(r4, r4, 8)
    ldrb(r5, [r2, 1])
    orr(r4, r5)
    lsl(r4, r4, 8)
    ldrb(r5, [r2, 2])
    orr(r4, r5)
    lsl(r4, r4, 8)
    ldrb(r5, [r2, 3])
    orr(r4, r5)
    cmp(r4, r0)
    beq(SAME)
    mov(r0, 0)  # (after the branch: a mov of a constant sets the flags)
    b(END)
    label(SAME)
    mov(r0, 1)
    label(END)


@micropython.asm_thumb
def rle_apply(r0, r1, r2, r3):
    """framing.rle_apply in machine code: the screen's run-length code (seatbus.py) in buf r1 from i to end (r2:
    i | end << 16) applied to the framebuffer r0 (1,024 bytes) from offset r3. Checked whole before a byte is
    written: lo * 2048 + hi of what changed, 0 when nothing did, -1 when the code is bad (nothing written)."""
    lsr(r4, r3, 10)
    bne(BAD_OFFSET)  # offset outside 0..1023
    lsr(r4, r2, 16)
    add(r4, r4, r1)  # end
    lsl(r2, r2, 16)
    lsr(r2, r2, 16)
    add(r1, r1, r2)  # from
    mov(r2, r4)
    push({r0, r1, r3})  # the framebuffer, from and offset again for the writing pass
    # The checking pass: r1 the code, r3 pos, r4 n, r6 lo, r7 hi (r0 and r5 scratch).
    mov(r6, 0)
    mvn(r6, r6)  # lo = -1
    mov(r7, 0)
    label(C_LOOP)
    cmp(r1, r2)
    bge(C_DONE)
    ldrb(r4, [r1, 0])
    add(r1, 1)
    cmp(r4, 0x80)
    bge(C_NOT_LITERAL)
    add(r4, 1)  # a literal of op + 1 bytes
    add(r5, r1, r4)
    cmp(r5, r2)
    bgt(BAD)
    mov(r1, r5)
    b(C_CHANGE)
    label(C_NOT_LITERAL)
    mov(r5, 0x3F)
    and_(r5, r4)
    cmp(r5, 0x3F)
    bne(C_COUNTED)
    cmp(r1, r2)
    bge(BAD)
    ldrb(r0, [r1, 0])  # the count's second byte
    add(r1, 1)
    add(r5, r5, r0)
    label(C_COUNTED)
    cmp(r4, 0xC0)
    bge(C_SKIP)
    add(r5, 2)  # a run of n + 2
    cmp(r1, r2)
    bge(BAD)
    add(r1, 1)  # its value
    mov(r4, r5)
    b(C_CHANGE)
    label(C_SKIP)
    add(r5, 1)  # a skip of n + 1
    add(r3, r3, r5)
    sub(r0, r3, 1)
    lsr(r0, r0, 10)
    bne(BAD)  # past the screen's end
    b(C_LOOP)
    label(C_CHANGE)
    cmp(r6, 0)
    bge(C_HAS_LO)
    mov(r6, r3)
    label(C_HAS_LO)
    add(r3, r3, r4)
    sub(r0, r3, 1)
    lsr(r0, r0, 10)
    bne(BAD)
    mov(r7, r3)
    b(C_LOOP)
    label(BAD)
    pop({r0, r1, r3})
    label(BAD_OFFSET)
    mov(r0, 0)
    mvn(r0, r0)
    b(END)
    label(C_DONE)
    pop({r0, r1, r3})
    cmp(r6, 0)
    bge(WRITE)
    mov(r0, 0)  # nothing changes
    b(END)
    label(WRITE)
    push({r6, r7})
    # The writing pass, over code known good: r0 the framebuffer, r1 the code, r3 pos (r4-r7 scratch).
    label(W_LOOP)
    cmp(r1, r2)
    bge(W_DONE)
    ldrb(r4, [r1, 0])
    add(r1, 1)
    cmp(r4, 0x80)
    bge(W_NOT_LITERAL)
    add(r4, 1)
    add(r5, r0, r3)
    add(r3, r3, r4)
    label(W_LITERAL)
    ldrb(r6, [r1, 0])
    strb(r6, [r5, 0])
    add(r1, 1)
    add(r5, 1)
    sub(r4, 1)
    bne(W_LITERAL)
    b(W_LOOP)
    label(W_NOT_LITERAL)
    mov(r5, 0x3F)
    and_(r5, r4)
    cmp(r5, 0x3F)
    bne(W_COUNTED)
    ldrb(r6, [r1, 0])
    add(r1, 1)
    add(r5, r5, r6)
    label(W_COUNTED)
    cmp(r4, 0xC0)
    bge(W_SKIP)
    add(r5, 2)
    ldrb(r6, [r1, 0])
    add(r1, 1)
    add(r7, r0, r3)
    add(r3, r3, r5)
    label(W_RUN)
    strb(r6, [r7, 0])
    add(r7, 1)
    sub(r5, 1)
    bne(W_RUN)
    b(W_LOOP)
    label(W_SKIP)
    add(r5, 1)
    add(r3, r3, r5)
    b(W_LOOP)
    label(W_DONE)
    pop({r6, r7})
    lsl(r0, r6, 11)
    add(r0, r0, r7)
    label(END)
