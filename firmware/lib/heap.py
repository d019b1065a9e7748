"""The Pico's heap kept quick to allocate from: collected at quiet points, with its small holes plugged.

Why (profiled on the emulated chip, benchmarks/node_reply.py --profile): MicroPython puts the frame of every
Python function call whose locals and stack pass 44 bytes on the heap, allocated on the call and freed on the
return, several times a main-loop pass. Its allocator looks for a run of free blocks from the lowest free block
up; after a collection the bottom of the heap is a lace of one- to five-block holes (the garbage that lay between
live objects), so each of those calls walked thousands of allocation-table entries: more than half the node's
time, and a reply waits for the pass it lands in. After a collection this fills the small holes with tiny
objects it keeps, until the allocator's lowest free block is the start of a long free run.

A collection itself stops the node for its mark and sweep; the sweep runs up to the highest block in use, so a
heap collected while it is still small stops it for far less than one that ran full. So: a collection every
``every`` replies, right after one (the host has just heard this node and asks another one next); the automatic
one (when the heap is full) should never come. The count of replies stands for the bytes allocated because
asking the heap (gc.mem_alloc) walks its whole allocation table, a millisecond each time, and gc.threshold counts
the frames of calls too, which are freed as they return: it collected dozens of times a second.
"""

import gc

PLUGS = 1536  # at most this many one-block objects (24 KiB) fill holes
RUN = 24  # plugs placed back to back this many times: the allocator has reached a long free run


class Heap:
    def __init__(self, every=64):
        self.every = every
        self.left = every
        self.plugs = [None] * PLUGS
        self.used = 0  # how many plugs hold a hole now
        self.collections = 0

    def settle(self):
        """Collect, then plug the small holes the collection left."""
        plugs = self.plugs
        for i in range(self.used):
            plugs[i] = None  # the old plugs go too: the holes they filled may have grown into runs
        gc.collect()
        self.collections += 1
        prev = 0
        run = 0
        used = PLUGS
        for i in range(PLUGS):
            plug = i + 0.5  # a float: one 16-byte block, the smallest thing the heap gives
            plugs[i] = plug
            at = id(plug)
            run = run + 1 if at == prev + 16 else 0
            prev = at
            if run >= RUN:
                used = i + 1
                break
        self.used = used
        self.left = self.every

    def replied(self):
        """A reply just went out: a quiet moment to collect, every ``every`` replies."""
        self.left -= 1
        if self.left <= 0:
            self.settle()
