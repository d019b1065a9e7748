"""When the Pico's heap is collected: at quiet moments, often enough that each collection is short.

A collection stops the node for its mark and sweep, and a request that arrives meanwhile waits (its bytes are
kept by the UART's interrupt). The sweep runs up to the highest block in use, so a heap collected while its
garbage is still a few kilobytes stops the node for about 2 ms, where one left to fill stopped it for 6 to 9
(benchmarks/node_reply.py, GC pauses). So: a collection every ``every`` replies, right after one, when the host
has just heard this node and asks another one next; the automatic collection (when the heap is full, at any
moment) should never come.

The count of replies and the clock stand for the bytes allocated because asking the heap is not free:
gc.mem_alloc walks its whole allocation table, a millisecond a call, and gc.threshold counts the frames of bytecode
calls too, which MicroPython takes from the heap and frees on return; with it the node collected dozens of times a
second. Since firmware 0.9.6 the loop allocates next to nothing (the panel's and the reader's drivers took a few
thousand blocks a second before), so a collection every 32 replies (seven a second in the deal, each one 2 ms in
front of the next request) became one every two seconds.
Plugging the small holes a collection leaves (so that the allocator's search starts at a long free run) was
tried and dropped: once the main loop's methods were native and the reply path allocated nothing, the
plugging loop cost more (a reply 4.5 ms late) than the search it saved.
"""

import gc

EVERY = 1024  # replies between collections while the host asks often (deal: about 230 replies a second a seat)
MOST_MS = 2000  # ... and at most this long between them, so a card on the reader (a scan's few allocations) or
# a quiet table's rare replies never let the heap fill


class Heap:
    def __init__(self, every=EVERY, most_ms=MOST_MS):
        self.every = every
        self.most_ms = most_ms
        self.left = every
        self.last = 0
        self.collections = 0

    def settle(self, now=0):
        gc.collect()
        self.collections += 1
        self.left = self.every
        self.last = now

    def replied(self, now):
        """A reply just went out at ``now`` (ms): a quiet moment to collect, every ``every`` replies or after
        ``most_ms``, whichever comes first."""
        self.left -= 1
        if self.left <= 0 or now - self.last >= self.most_ms:
            self.settle(now)
