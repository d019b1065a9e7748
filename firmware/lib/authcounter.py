"""The remote's AUTH counter across reboots: it only ever grows, at the cost of one small flash write per block.

The controller refuses any counter it has already seen (the counter is what makes a recorded radio reply useless),
so a remote that reboots must not start counting again from where it started before. Writing the counter to flash
on every reply would wear the flash out in days, so the remote *reserves* blocks of ``sb.AUTH_BLOCK`` counters:
the file holds the end of the reserved range, written before any counter in the range is used. At boot the remote
starts at that end (above every counter it ever used) and reserves the next block; while it runs, it reserves
the next block when it reaches the end of the current one. A remote that reboots a thousand times an evening
burns a thousand blocks and is never refused; the controller keeps the block it last accepted the same way
(``controller/bus/auth_counter.py``).

The file also names the key it counts for (a short tag, not the key): pairing the remote again with a new key
starts a new count from 0. ``counter`` is the file of firmware 0.2, which counted boots in blocks of 2**20; it
is read once to go on above it.
"""

import seatbus as sb

LIMIT = 0xFFFFFFFF  # the counter is a u32 on the wire


class Exhausted(Exception):
    """Every counter of this key has been used: the remote must be paired again (a new key counts from 0)."""


class Reservation:
    def __init__(self, path, key, legacy_path=None):
        self.path = path
        self.legacy_path = legacy_path
        self.tag = sb.key_tag(key)
        self.limit = 0

    def _read(self):
        try:
            with open(self.path) as f:
                parts = f.read().split()
            if len(parts) == 2 and parts[0] == self.tag:
                return int(parts[1])
            return 0  # another key (re-paired), or a damaged file that names none: a new count
        except (OSError, ValueError):
            pass
        if self.legacy_path is not None:
            try:
                with open(self.legacy_path) as f:
                    boots = int(f.read().strip() or "0")
                return (boots + 1) << 20  # above every counter firmware 0.2 could have used
            except (OSError, ValueError):
                pass
        return 0

    def _write(self, limit):
        if limit > LIMIT:
            raise Exhausted("every AUTH counter of this key is used: pair the remote again")
        with open(self.path, "w") as f:
            f.write(self.tag + " " + str(limit))
        self.limit = limit

    def boot(self):
        """The counter this boot starts from (its first reply uses the next one); reserves the block above."""
        start = self._read()
        start = (start + sb.AUTH_BLOCK - 1) // sb.AUTH_BLOCK * sb.AUTH_BLOCK  # whole blocks, as the host counts
        try:
            self._write(start + sb.AUTH_BLOCK)
        except Exhausted:
            self.limit = start  # nothing reserved: next() says Exhausted, and the node answers unsealed
        return start

    def next(self, counter):
        """The counter after ``counter``, reserving the next block first when it would leave the reserved one."""
        counter += 1
        if counter >= self.limit:
            self._write(self.limit + sb.AUTH_BLOCK)
        return counter
