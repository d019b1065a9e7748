"""The seat nodes' own chip: the rp2 firmware image, per-node flash images, and emulated Picos on a bus."""
