"""When the Pico's heap is collected: at quiet moments, often enough that each collection is short.

A collection stops the node for its mark and sweep, and a request that arrives meanwhile waits (its bytes are
kept by the UART's interrupt). The sweep runs up to the highest block in use, so a heap collected while its
garbage is still a few kilobytes stops the node for about 2 ms, where one left to fill stopped it for 6 to 9
(benchmarks/node_reply.py, GC pauses). So: a collection every ``every`` replies, right after one, when the host
has just heard this node and asks another one next; the automatic collection (when the heap is full, at any
moment) should never come.

The count of replies stands for the bytes allocated because asking the heap is not free: gc.mem_alloc walks its
whole allocation table, a millisecond a call, and gc.threshold counts the frames of bytecode calls too, which
MicroPython takes from the heap and frees on return; with it the node collected dozens of times a second.
Plugging the small holes a collection leaves (so that the allocator's search starts at a long free run) was
tried and dropped: once the main loop's methods were native and the reply path allocated nothing, the
plugging loop cost more (a reply 4.5 ms late) than the search it saved.
"""

import gc


class Heap:
    def __init__(self, every=32):
        self.every = every
        self.left = every
        self.collections = 0

    def settle(self):
        gc.collect()
        self.collections += 1
        self.left = self.every

    def replied(self):
        """A reply just went out: a quiet moment to collect, every ``every`` replies."""
        self.left -= 1
        if self.left <= 0:
            self.settle()
