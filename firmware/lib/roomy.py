"""Room in an object's attribute table, so that looking up a name it does not hold is short.

MicroPython keeps an instance's attributes in a hash table with linear probing (py/map.c) that grows only when it
is full, to the next of a fixed list of sizes. So a table is mostly between three quarters full and full, and
the node's Node held 71 attributes in a table of 73. Every method call through ``self`` looks its name up there
first and misses (methods live in the class), and a miss probes until it meets an empty slot: with two empty
slots in 73, a few dozen probes, at every call. Two attributes more filled the table, a miss then probed all 73,
and the whole way from a screen frame to its ACK took 20 % longer on the emulated chip (firmware/PROTOCOL.md,
"A frame's way to its ACK"). Filled to one past its size, the table is rebuilt at the next size, a quarter of it
empty.

Attributes deleted again would leave markers that a miss probes past as well, so the padding stays (a few
hundred bytes, once, at boot). Modules' globals are such tables too (a builtin is looked for there first), but
padding the node's modules made the same ways slower, not quicker, so roomy is given objects only.
"""

# py/map.c's hash_allocation_sizes (MicroPython 1.25; tests/nodes/test_roomy.py reads them from the image).
SIZES = (2, 4, 6, 8, 10, 12, 17, 23, 29, 37, 47, 59, 73, 97, 127, 167, 223, 293, 389)


def roomy(obj):
    """Fill ``obj``'s attribute table to one past its size, so that it is rebuilt at the next size with room to
    spare; returns how many padding attributes that took (0 where it cannot be counted)."""
    try:
        n = len(obj.__dict__)
    except AttributeError:
        return 0
    for size in SIZES:
        if size >= n:
            break
    else:
        return 0
    pad = size + 1 - n
    for i in range(pad):
        setattr(obj, "_room" + str(i), None)
    return pad
