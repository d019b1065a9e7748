"""Where things live in a Pico's 2 MB flash under MicroPython's rp2 port (1.25, board RPI_PICO).

The firmware is at the start; the filesystem is the last ``MICROPY_HW_FLASH_STORAGE_BYTES`` (1408 KiB, ports/rp2
mpconfigport.h), mounted at boot by the port's _boot.py as littlefs v2 with 4 KiB blocks and 256-byte pages
(``vfs.VfsLfs2(bdev, progsize=256)``; read size and lookahead the VfsLfs2 defaults, 32).
"""

FLASH_BYTES = 2 * 1024 * 1024
STORAGE_BYTES = 1408 * 1024
STORAGE_OFFSET = FLASH_BYTES - STORAGE_BYTES  # 0xA0000
BLOCK_SIZE = 4096
BLOCK_COUNT = STORAGE_BYTES // BLOCK_SIZE
PROG_SIZE = 256
READ_SIZE = 32
LOOKAHEAD_SIZE = 32
