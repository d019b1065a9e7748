"""The seat firmware's native code on the chip: every ``@micropython.native`` function frozen into the rp2 image
starts on a 4-byte boundary (controller/nodes/firmware_build.py, ALIGN_NATIVE), and none adds a large offset to
itself instead of to its base register (ADD_BASE).

Found on emulated Picos: MicroPython 1.25's mpy-tool.py gives frozen ARMv6-M native code only 2-byte alignment,
while that code reads its 32-bit constants relative to a 4-byte-aligned start. Which functions landed on a 2-byte
boundary changed with every edit of firmware/; one harmless edit left rs485.py's ``readinto`` reading a wrong word
for ``0xFFFF``, and every node stayed deaf to the host."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.nodes import firmware_build

# The ARMv6-M sequence of ADD_BASE's fault, as halfwords: movs r0, #2; lsls r0, r0, #8; adds r0, #0x14 (r0 = 0x214,
# the offset of qstr 297 less 31, times 2); then the add and ``ldrh r0, [r0, #62]``.
OFFSET = [0x2002, 0x0200, 0x3014]
SELF_ADD = 0x1800  # adds r0, r0, r0: the base forgotten
BASE_ADD = 0x1980  # adds r0, r0, r6: the module's qstr table (REG_QSTR_TABLE) added, as the fixed generator does
LOAD_QSTR = 0x8FC0  # ldrh r0, [r0, #62]
LOAD_OBJECT = 0x6FC0  # ldr r0, [r0, #124]

ASMTHUMB_1_25 = """        } else if (reg_dest != reg_base) {
            asm_thumb_mov_rlo_i16(as, reg_dest, offset << offset_shift);
            asm_thumb_add_rlo_rlo_rlo(as, reg_dest, reg_dest, reg_dest);
        } else {
"""

TOOL_1_25 = """        if config.native_arch in (
            MP_NATIVE_ARCH_ARMV6,
            MP_NATIVE_ARCH_XTENSA,
            MP_NATIVE_ARCH_XTENSAWIN,
        ):
            # ARMV6 or Xtensa -- four byte align.
            self.fun_data_attributes += " __attribute__ ((aligned (4)))"
"""


FIXES = [
    pytest.param(firmware_build._align_native, "mpy-tool.py", TOOL_1_25,
                 "MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_ARMV6M,\n", "ALIGN_NATIVE",
                 id="mpy-tool aligns Cortex-M0 code as ARMv6's"),
    pytest.param(firmware_build._add_base, "asmthumb.c", ASMTHUMB_1_25,
                 "asm_thumb_add_rlo_rlo_rlo(as, reg_dest, reg_dest, reg_base);", "ADD_BASE",
                 id="the code generator adds the base"),
]


@pytest.mark.parametrize(("fix", "name", "text", "corrected", "constant"), FIXES)
def test_micropython_1_25s_source_is_corrected_once(fix: Callable[[Path], None], name: str, text: str,
                                                    corrected: str, constant: str, tmp_path: Path) -> None:
    source = tmp_path / name
    source.write_text(text)
    fix(source)
    assert corrected in source.read_text()
    fix(source)  # a second unpack of the same tree: nothing more to do
    assert source.read_text().count(corrected) == 1


@pytest.mark.parametrize(("fix", "name", "text", "corrected", "constant"), FIXES)
def test_another_micropythons_source_is_refused_with_a_message(fix: Callable[[Path], None], name: str, text: str,
                                                                corrected: str, constant: str,
                                                                tmp_path: Path) -> None:
    source = tmp_path / name
    source.write_text("# a later MicroPython that does this some other way\n")
    with pytest.raises(firmware_build.BuildError, match=constant):
        fix(source)


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
    listing = ("1003478e 00000200 t fun_data_rs485_RS485_readinto\n"  # native, on a 2-byte boundary
               "1003462c 00000040 t fun_data_rs485_RS485_waiting\n"
               "10056965 00000030 r fun_data_rs485_RS485__idle\n")  # bytecode: any alignment will do

    def nm(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 0, listing, "")

    monkeypatch.setattr(firmware_build.subprocess, "run", nm)
    with pytest.raises(firmware_build.BuildError, match=r"1 frozen native functions .* fun_data_rs485_RS485_readinto"):
        firmware_build._check_native_alignment(Path("firmware.elf"))


@pytest.mark.parametrize("load", [LOAD_QSTR, LOAD_OBJECT], ids=["a qstr", "an object"])
def test_the_self_add_before_a_table_load_is_told_from_the_right_add(load: int) -> None:
    assert firmware_build._is_offset_self_add([*OFFSET, SELF_ADD, load], 3)
    assert not firmware_build._is_offset_self_add([*OFFSET, BASE_ADD, load], 3)
    assert not firmware_build._is_offset_self_add([*OFFSET, SELF_ADD, load - 0x40], 3)  # another offset: not it
    assert not firmware_build._is_offset_self_add([0x2102, *OFFSET[1:], SELF_ADD, load], 3)  # the offset in r1


def test_no_native_function_of_the_seat_image_forgets_its_base() -> None:
    try:
        image = firmware_build.build()
    except firmware_build.BuildError as err:
        pytest.fail(f"the rp2 firmware could not be built: {err}")
    firmware_build._check_native_offsets(image.elf, image.firmware)


def test_an_image_whose_native_code_forgets_its_base_is_refused(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    good = [0xB5F0, *OFFSET, BASE_ADD, LOAD_QSTR, 0xBDF0]  # push; the fixed sequence; pop
    bad = [0xB5F0, *OFFSET, SELF_ADD, LOAD_QSTR, 0xBDF0]
    code = b"".join(h.to_bytes(2, "little") for h in good + bad)
    binary = tmp_path / "firmware.bin"
    binary.write_bytes(bytes(0x100) + code)
    listing = ("10000100 00000010 t fun_data_node_Node__take_frames\n"
               "10000110 00000010 t fun_data_node_Node__flush\n"
               "10000100 00000020 r const_table_data_node\n")  # not native code: not looked at

    def nm(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 0, listing, "")

    monkeypatch.setattr(firmware_build.subprocess, "run", nm)
    with pytest.raises(firmware_build.BuildError, match=r"1 frozen native functions .* fun_data_node_Node__flush"):
        firmware_build._check_native_offsets(Path("firmware.elf"), binary)
