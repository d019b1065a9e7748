"""The seat firmware's native code on the chip: every ``@micropython.native`` function frozen into the rp2 image
starts on a 4-byte boundary (controller/nodes/firmware_build.py, ALIGN_NATIVE).

Found on emulated Picos: MicroPython 1.25's mpy-tool.py gives frozen ARMv6-M native code only 2-byte alignment,
while that code reads its 32-bit constants relative to a 4-byte-aligned start. Which functions landed on a 2-byte
boundary changed with every edit of firmware/; one harmless edit left rs485.py's ``readinto`` reading a wrong word
for ``0xFFFF``, and every node stayed deaf to the host."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from controller.nodes import firmware_build

TOOL_1_25 = """        if config.native_arch in (
            MP_NATIVE_ARCH_ARMV6,
            MP_NATIVE_ARCH_XTENSA,
            MP_NATIVE_ARCH_XTENSAWIN,
        ):
            # ARMV6 or Xtensa -- four byte align.
            self.fun_data_attributes += " __attribute__ ((aligned (4)))"
"""


def test_micropython_1_25s_mpy_tool_is_taught_to_align_cortex_m0_code_as_armv6s(tmp_path: Path) -> None:
    tool = tmp_path / "mpy-tool.py"
    tool.write_text(TOOL_1_25)
    firmware_build._align_native(tool)
    assert "MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_ARMV6M,\n" in tool.read_text()
    firmware_build._align_native(tool)  # a second unpack of the same tree: nothing more to do
    assert tool.read_text().count("MP_NATIVE_ARCH_ARMV6M") == 1


def test_another_micropythons_mpy_tool_is_refused_with_a_message(tmp_path: Path) -> None:
    tool = tmp_path / "mpy-tool.py"
    tool.write_text("# a later MicroPython that aligns its native code some other way\n")
    with pytest.raises(firmware_build.BuildError, match="ALIGN_NATIVE"):
        firmware_build._align_native(tool)


def test_every_native_function_of_the_seat_image_starts_on_a_four_byte_boundary() -> None:
    try:
        image = firmware_build.build()
    except firmware_build.BuildError as err:
        pytest.fail(f"the rp2 firmware could not be built: {err}")
    symbols = subprocess.run(["arm-none-eabi-nm", str(image.elf)], capture_output=True, text=True, check=True).stdout
    native = [line.split() for line in symbols.splitlines() if " t fun_data_" in line]
    assert len(native) >= 30, "the node's native functions are in the image (rs485, framing, node, buttons)"
    assert any(words[2] == "fun_data_rs485_RS485_readinto" for words in native)
    assert [words[2] for words in native if int(words[0], 16) % 4] == []
    firmware_build._check_native_alignment(image.elf)  # the build's own check agrees


def test_an_image_with_native_code_on_a_two_byte_boundary_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    listing = ("1003478e t fun_data_rs485_RS485_readinto\n"  # native, on a 2-byte boundary
               "1003462c t fun_data_rs485_RS485_waiting\n"
               "10056965 r fun_data_rs485_RS485__idle\n")  # bytecode: any alignment will do

    def nm(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 0, listing, "")

    monkeypatch.setattr(firmware_build.subprocess, "run", nm)
    with pytest.raises(firmware_build.BuildError, match=r"1 frozen native functions .* fun_data_rs485_RS485_readinto"):
        firmware_build._check_native_alignment(Path("firmware.elf"))
