"""The functions of a built rp2 image, by symbol, from its ELF (``arm-none-eabi-nm``, which the firmware's own
toolchain brings): where the emulator's ``hits`` watch and PC samples are told to look (benchmarks/node_path.py,
tests/nodes/test_pico_machine_code.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def functions(elf: Path) -> dict[str, tuple[int, int]]:
    """Every sized symbol of the image as (start, end): a native method of the firmware is
    ``fun_data_<module>_<class>_<name>``, a viper or assembler function ``fun_data_<module>_<module>_dot_py<n>``
    by its place in its module (mpy-cross gives them no name of their own)."""
    out = subprocess.run(["arm-none-eabi-nm", "-S", "--defined-only", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            start = int(parts[0], 16)
            found[parts[3]] = (start, start + int(parts[1], 16))
    return found
