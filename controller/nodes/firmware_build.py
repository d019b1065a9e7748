"""``./dev firmware``: the rp2 MicroPython image for the seat nodes, with ``firmware/`` frozen in, built from
Debian's packages only and cached under ``~/.cache/tianhei/firmware``.

The sources: Debian trixie's ``micropython`` source package (ports/rp2; its lib/ submodules are empty), the
``pico-sdk-source`` and ``tinyusb-source`` binary packages (arch all, unpacked with dpkg-deb) and the ``mbedtls``
source package; the compiler is bookworm's ``gcc-arm-none-eabi`` with ``libnewlib-arm-none-eabi``. trixie's
package lists are read into an apt state folder of our own (``apt-get -o Dir::State=…``), never the system's
sources. The recipe is ours: one CMake configure of ports/rp2 with our frozen manifest, one ninja build.

Cache layout (``TIANHEI_CACHE`` moves it): ``apt/`` (the lists), ``dl/`` (the packages as downloaded),
``src-<versions>/`` (unpacked, with lib/ linked to the packaged SDKs), ``build-<versions>/`` (CMake's tree, reused
when only firmware/ changed), ``images/<key>/firmware.bin`` where the key hashes the package versions, the recipe
and every file of firmware/. Once the packages are downloaded the build runs offline.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The versions the build is known to work with: another one is refused with a message (the UART work-around,
#: the flash layout and the frozen manifest are written against MicroPython 1.25's rp2 port).
WANTED = {"micropython": "1.25.", "pico-sdk-source": "2.1.", "tinyusb-source": "0.18.", "mbedtls": "3."}
TRIXIE = "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main"
TOOLCHAIN = ("gcc-arm-none-eabi", "libnewlib-arm-none-eabi")
#: Bump when the recipe below changes what it builds. 2: frozen native code aligned to 4 bytes (ALIGN_NATIVE);
#: 3: the Cortex-M0+ code generator adds the base register back (ADD_BASE).
RECIPE = "rp2-RPI_PICO-3"
#: MicroPython 1.25's mpy-tool.py freezes a native (``@micropython.native``/``viper``) function for the Cortex-M0+
#: with only 2-byte alignment, but the native code it froze loads its 32-bit constants PC-relative on the
#: assumption that the function starts on a 4-byte boundary (py/asmthumb.c checks this only in an assert). About
#: half of the node's native functions landed on a 2-byte boundary in any build, which ones changing with every
#: edit of firmware/, and such a function read a wrong word for a constant like ``0xFFFF``: one harmless edit made
#: every node deaf (rs485.py's ``readinto`` never read a byte). The first of two fixes to Debian's source
#: (ADD_BASE below): ARMv6-M frozen native code is aligned as ARMv6's is. ``_check_native_alignment`` refuses an
#: image in which it is not.
ALIGN_NATIVE = (
    "            MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_XTENSA,\n",
    "            MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_ARMV6M,\n            MP_NATIVE_ARCH_XTENSA,\n",
)
#: MicroPython 1.25's Thumb code generator (py/asmthumb.c, ``asm_thumb_add_reg_reg_offset``) computes a base
#: register plus a large offset on ARMv6-M by adding the offset to itself instead of to the base. Native code reaches
#: that branch when it loads entry 287 or later of its module's qstr or object table (a module with many names:
#: node.py has nearly that many), and the load then reads a small absolute address: a ``NameError`` on a name of
#: garbage bytes, or a fault. Which loads reach it changed with edits of firmware/ that changed nothing (an unused
#: method on ``Node`` was enough). Later MicroPythons add the base; so does the build, in the unpacked Debian source
#: before mpy-cross and the firmware are built. ``_check_native_offsets`` refuses an image with the bad sequence.
ADD_BASE = (
    "            asm_thumb_mov_rlo_i16(as, reg_dest, offset << offset_shift);\n"
    "            asm_thumb_add_rlo_rlo_rlo(as, reg_dest, reg_dest, reg_dest);\n",
    "            asm_thumb_mov_rlo_i16(as, reg_dest, offset << offset_shift);\n"
    "            asm_thumb_add_rlo_rlo_rlo(as, reg_dest, reg_dest, reg_base);\n",
)
FLASH_BASE = 0x10000000  # where firmware.bin's first byte sits in the RP2040's address space (XIP flash)
REPO = Path(__file__).resolve().parents[2]


class BuildError(RuntimeError):
    """One line: what could not be had or built, and what to do."""


@dataclass(frozen=True)
class Image:
    firmware: Path  # firmware.bin: what goes at the start of flash
    elf: Path  # the symbols, for the benchmark's PC samples
    key: str


def cache_root() -> Path:
    root = os.environ.get("TIANHEI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tianhei")
    return Path(root) / "firmware"


def firmware_files(root: Path = REPO / "firmware") -> dict[str, bytes]:
    """What gets frozen: main.py and lib/*.py, links followed (lib/seatbus.py is the host's file)."""
    files = {"main.py": (root / "main.py").read_bytes()}
    for path in sorted((root / "lib").glob("*.py")):
        files[f"lib/{path.name}"] = path.read_bytes()
    return files


def firmware_hash(files: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()[:16]


def _run(args: list[str], what: str, cwd: Path | None = None, log: Path | None = None) -> str:
    try:
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as err:
        raise BuildError(f"{what}: {args[0]} is not installed") from err
    if log is not None:
        log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).strip().splitlines() if line.strip()]
        where = f" (the whole output: {log})" if log is not None else ""
        raise BuildError(f"{what} failed: {lines[-1] if lines else 'exit ' + str(done.returncode)}{where}")
    return done.stdout


class TrixieApt:
    """apt-get and apt-cache on trixie's lists, in a state folder of our own."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "state" / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (root / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        (root / "etc" / "preferences.d").mkdir(parents=True, exist_ok=True)
        (root / "etc" / "sources.list.d").mkdir(parents=True, exist_ok=True)
        status = root / "state" / "status"
        if not status.exists():
            status.write_text("")
        (root / "etc" / "sources.list").write_text(f"{TRIXIE}\n{TRIXIE.replace('deb ', 'deb-src ', 1)}\n")

    def options(self) -> list[str]:
        r = self.root
        pairs = {
            "Dir::State": r / "state", "Dir::State::status": r / "state" / "status", "Dir::Cache": r / "cache",
            "Dir::Etc::SourceList": r / "etc" / "sources.list", "Dir::Etc::SourceParts": r / "etc" / "sources.list.d",
            "Dir::Etc::Preferences": r / "etc" / "preferences", "Dir::Etc::PreferencesParts": r / "etc" / "preferences.d",
            "Debug::NoLocking": "1", "APT::Sandbox::User": "root" if os.geteuid() == 0 else os.environ.get("USER", ""),
        }
        out: list[str] = []
        for key, value in pairs.items():
            out += ["-o", f"{key}={value}"]
        return out

    def update(self) -> None:
        _run(["apt-get", *self.options(), "update"], "reading Debian trixie's package lists")

    def candidate(self, package: str, source: bool) -> str:
        if source:
            text = _run(["apt-cache", *self.options(), "showsrc", package], f"looking up trixie's {package}")
            versions = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Version:")]
        else:
            text = _run(["apt-cache", *self.options(), "policy", package], f"looking up trixie's {package}")
            versions = [line.split(":", 1)[1].strip() for line in text.splitlines()
                        if line.strip().startswith("Candidate:")]
        versions = [v for v in versions if v and v != "(none)"]
        if not versions:
            raise BuildError(f"Debian trixie has no {'source ' if source else ''}package {package}")
        return versions[0]

    def fetch(self, package: str, version: str, source: bool, into: Path) -> None:
        verb = ["source", "--download-only"] if source else ["download"]
        _run(["apt-get", *self.options(), *verb, f"{package}={version}"], f"downloading trixie's {package}",
             cwd=into)


def _versions_file() -> Path:
    return cache_root() / "dl" / "versions.json"


def fetch_sources(offline: bool = False) -> dict[str, str]:
    """The package versions whose files are in dl/ (downloading them first unless offline or already there)."""
    dl = cache_root() / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    known = json.loads(_versions_file().read_text()) if _versions_file().exists() else None
    if known is not None and all(_downloaded(dl, name, v) for name, v in known.items()):
        return dict(known)
    if offline:
        raise BuildError(f"the firmware's Debian packages are not in {dl} and --offline forbids fetching them")
    for tool in ("apt-get", "apt-cache", "dpkg-source", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise BuildError(f"{tool} is missing: the firmware is built from Debian packages (a Debian host)")
    apt = TrixieApt(cache_root() / "apt")
    apt.update()
    versions: dict[str, str] = {}
    for name, prefix in WANTED.items():
        source = name in ("micropython", "mbedtls")
        version = apt.candidate(name, source)
        upstream = version.split(":", 1)[-1]
        if not upstream.startswith(prefix):
            raise BuildError(f"trixie's {name} is {version}; this build is written for {prefix}x "
                             "(controller/nodes/firmware_build.py WANTED)")
        if not _downloaded(dl, name, version):
            apt.fetch(name, version, source, dl)
        versions[name] = version
    _versions_file().write_text(json.dumps(versions, indent=1, sort_keys=True))
    return versions


def _plain(version: str) -> str:
    return version.split(":", 1)[-1]


def _downloaded(dl: Path, name: str, version: str) -> bool:
    if name in ("micropython", "mbedtls"):
        return (dl / f"{name}_{_plain(version)}.dsc").exists()
    return any(dl.glob(f"{name}_{_plain(version).replace('+', '*')}_all.deb"))


def unpack(versions: dict[str, str]) -> Path:
    """The MicroPython tree with lib/pico-sdk, lib/tinyusb and lib/mbedtls linked to the packaged sources."""
    tag = hashlib.sha256(json.dumps([versions, ALIGN_NATIVE, ADD_BASE], sort_keys=True).encode()).hexdigest()[:12]
    src = cache_root() / f"src-{tag}"
    done = src / ".unpacked"
    if done.exists():
        return src / "micropython"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    dl = cache_root() / "dl"
    for name, folder in (("micropython", "micropython"), ("mbedtls", "mbedtls")):
        _run(["dpkg-source", "--no-check", "-x", str(dl / f"{name}_{_plain(versions[name])}.dsc"), str(src / folder)],
             f"unpacking {name}")
    for name in ("pico-sdk-source", "tinyusb-source"):
        deb = next(dl.glob(f"{name}_{_plain(versions[name]).replace('+', '*')}_all.deb"))
        _run(["dpkg-deb", "-x", str(deb), str(src / "debs")], f"unpacking {name}")
    mp = src / "micropython"
    _align_native(mp / "tools" / "mpy-tool.py")
    _add_base(mp / "py" / "asmthumb.c")
    links = {"pico-sdk": src / "debs/usr/src/pico-sdk", "tinyusb": src / "debs/usr/src/tinyusb",
             "mbedtls": src / "mbedtls"}
    for name, target in links.items():
        if not target.is_dir():
            raise BuildError(f"the unpacked packages have no {target.relative_to(src)}")
        lib = mp / "lib" / name
        if lib.is_symlink() or lib.is_file():
            lib.unlink()
        elif lib.is_dir():
            shutil.rmtree(lib)
        lib.symlink_to(target)
    done.write_text(json.dumps(versions))
    return mp


def _align_native(mpy_tool: Path) -> None:
    """ALIGN_NATIVE, applied to the unpacked source's mpy-tool.py (refused with a message when the text is not
    there: another MicroPython, whose alignment must be looked at again)."""
    _patch(mpy_tool, ALIGN_NATIVE, f"{mpy_tool} does not align frozen native code as MicroPython 1.25's does: check "
           "how it aligns ARMv6-M native code (controller/nodes/firmware_build.py ALIGN_NATIVE)")


def _add_base(asmthumb: Path) -> None:
    """ADD_BASE, applied to the unpacked source's py/asmthumb.c (refused with a message when the text is not there:
    another MicroPython, whose code generator must be looked at again)."""
    _patch(asmthumb, ADD_BASE, f"{asmthumb} does not compute a base plus a large offset as MicroPython 1.25's does: "
           "check asm_thumb_add_reg_reg_offset (controller/nodes/firmware_build.py ADD_BASE)")


def _patch(source: Path, change: tuple[str, str], refusal: str) -> None:
    """Replace ``change``'s first text by its second in ``source`` once (a tree unpacked before already has it);
    ``refusal`` when the first text is not there exactly once: another MicroPython, to be looked at again."""
    text = source.read_text(encoding="utf-8")
    before, after = change
    if after in text:
        return
    if text.count(before) != 1:
        raise BuildError(refusal)
    source.write_text(text.replace(before, after), encoding="utf-8")


def _is_offset_self_add(h: list[int], i: int) -> bool:
    """Do the halfwords at h[i - 3:i + 2] hold ADD_BASE's bad sequence: ``movs rD, #hi; lsls rD, rD, #8; adds rD,
    #lo`` (a 16-bit offset), ``adds rD, rD, rD`` (the base forgotten), then ``ldrh rD, [rD, #62]`` (a qstr) or ``ldr
    rD, [rD, #124]`` (an object)? The Thumb encodings of ARMv6-M's 16-bit instructions."""
    add, load = h[i], h[i + 1]
    d = add & 7
    if add >> 9 != 0b0001100 or (add >> 3) & 7 != d or (add >> 6) & 7 != d:
        return False
    if load >> 11 not in (0b10001, 0b01101) or (load >> 6) & 31 != 31 or (load >> 3) & 7 != d or load & 7 != d:
        return False
    movs, lsls, adds = h[i - 3], h[i - 2], h[i - 1]
    return (movs >> 11 == 0b00100 and (movs >> 8) & 7 == d and lsls >> 11 == 0 and (lsls >> 6) & 31 == 8
            and lsls & 7 == d and adds >> 11 == 0b00110 and (adds >> 8) & 7 == d)


def _check_native_offsets(elf: Path, binary: Path) -> None:
    """No frozen native function holds ADD_BASE's bad sequence: the fix took effect."""
    image = binary.read_bytes()
    bad = []
    for name, address, size in _native_functions(elf):
        code = image[address - FLASH_BASE : address - FLASH_BASE + size]
        h = [int.from_bytes(code[k : k + 2], "little") for k in range(0, len(code) - 1, 2)]
        if any(_is_offset_self_add(h, i) for i in range(3, len(h) - 1)):
            bad.append(name)
    if bad:
        raise BuildError(f"{len(bad)} frozen native functions add an offset to itself instead of to its base (the "
                         f"first: {bad[0]}); they would read a wrong name or fault on the chip (firmware_build.py "
                         "ADD_BASE)")


def _check_native_alignment(elf: Path) -> None:
    """Every frozen native function starts on a 4-byte boundary: ALIGN_NATIVE took effect."""
    odd = [name for name, address, _ in _native_functions(elf) if address % 4]
    if odd:
        raise BuildError(f"{len(odd)} frozen native functions are not on a 4-byte boundary (the first: {odd[0]}); "
                         "their 32-bit constants would be read wrong on the chip (firmware_build.py ALIGN_NATIVE)")


def _native_functions(elf: Path) -> list[tuple[str, int, int]]:
    """(name, address, size) of every frozen native function: its code in .text, a ``t`` symbol named
    ``fun_data_…`` (bytecode's are read-only data, ``r``)."""
    return [(name, start, end - start) for name, (start, end) in functions(elf).items()
            if name.startswith("fun_data_")]


def functions(elf: Path) -> dict[str, tuple[int, int]]:
    """Every function of the image (a sized symbol in .text, ``t`` or ``T``) as its [start, end): where the
    emulator's ``hits`` watch and PC samples are told to look (benchmarks/node_path.py, tests/nodes). A frozen
    native method is ``fun_data_<module>_<class>_<name>``; a viper or assembler function
    ``fun_data_<module>_<module>_dot_py<n>``, by its place in its module (mpy-cross gives it no name of its own)."""
    done = subprocess.run(["arm-none-eabi-nm", "-S", str(elf)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildError(f"arm-none-eabi-nm could not read {elf}: {done.stderr.strip()}")
    found = {}
    for words in (line.split() for line in done.stdout.splitlines()):
        if len(words) == 4 and words[2] in ("t", "T"):
            start = int(words[0], 16)
            found[words[3]] = (start, start + int(words[1], 16))
    return found


def ensure_toolchain() -> None:
    if shutil.which("arm-none-eabi-gcc") and Path("/usr/lib/arm-none-eabi/include/stdio.h").exists():
        return
    if os.geteuid() != 0:
        raise BuildError("the Arm compiler is missing: `sudo apt-get install " + " ".join(TOOLCHAIN) + "`")
    print("installing from Debian: " + " ".join(TOOLCHAIN), file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    done = subprocess.run(["apt-get", "install", "-y", "-qq", *TOOLCHAIN], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
        done = subprocess.run(["apt-get", "install", "-y", "-qq", *TOOLCHAIN], env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise BuildError(f"apt-get could not install the Arm compiler ({' '.join(TOOLCHAIN)}): {last}")
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            raise BuildError(f"{tool} is missing: `apt-get install cmake ninja-build`")


def _manifest(stage: Path) -> str:
    # The port's own modules (the littlefs mount in _boot.py, rp2.py), then ours: lib/ as top-level modules and
    # main.py, which the port runs at boot when it is frozen (pyexec_file_if_exists looks there first).
    return (f'freeze("$(PORT_DIR)/modules")\n'
            f'freeze("{stage / "lib"}")\n'
            f'freeze("{stage}", "main.py")\n')


@contextlib.contextmanager
def _one_build_at_a_time() -> Iterator[None]:
    """Two builds at once (two benchmarks, two test workers) share the build folder and its stage: one removed
    the files the other was freezing, and its build failed. The second waits for the first, and then finds its
    image in the cache."""
    cache_root().mkdir(parents=True, exist_ok=True)
    with open(cache_root() / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build(offline: bool = False, verbose: bool = False) -> Image:
    files = firmware_files()
    versions = fetch_sources(offline)
    key = hashlib.sha256(json.dumps([versions, RECIPE, firmware_hash(files)], sort_keys=True).encode()).hexdigest()[:16]
    out = cache_root() / "images" / key
    if (out / "firmware.bin").exists() and (out / "firmware.elf").exists():
        return Image(out / "firmware.bin", out / "firmware.elf", key)
    with _one_build_at_a_time():
        if (out / "firmware.bin").exists() and (out / "firmware.elf").exists():
            return Image(out / "firmware.bin", out / "firmware.elf", key)  # built meanwhile by another
        return _build(files, versions, key, out)


def _build(files: dict[str, bytes], versions: dict[str, str], key: str, out: Path) -> Image:
    ensure_toolchain()
    mp = unpack(versions)
    tag = mp.parent.name.removeprefix("src-")
    work = cache_root() / f"build-{tag}"
    stage = work / "stage"
    if stage.exists():
        shutil.rmtree(stage)
    (stage / "lib").mkdir(parents=True)
    for name, data in files.items():
        (stage / name).write_bytes(data)
    (work / "mplib").mkdir(exist_ok=True)
    (work / "mplib" / "README.md").write_text("micropython-lib is not packaged; the manifest needs none of it.\n")
    (work / "manifest.py").write_text(_manifest(stage))
    cmake = work / "cmake"
    if not (cmake / "build.ninja").exists():
        print(f"configuring the rp2 port (MicroPython {versions['micropython']})", file=sys.stderr)
        _run(["cmake", "-S", str(mp / "ports" / "rp2"), "-B", str(cmake), "-G", "Ninja",
              "-DMICROPY_BOARD=RPI_PICO", f"-DMICROPY_FROZEN_MANIFEST={work / 'manifest.py'}",
              "-DPICO_NO_PICOTOOL=1", f"-DMICROPY_LIB_DIR={work / 'mplib'}"],
             "configuring the rp2 build", log=work / "cmake.log")
    print("building the rp2 firmware (about 2 minutes the first time)", file=sys.stderr)
    _run(["ninja", "-C", str(cmake), "-j", str(os.cpu_count() or 2)], "building the rp2 firmware",
         log=work / "ninja.log")
    _check_native_alignment(cmake / "firmware.elf")
    _check_native_offsets(cmake / "firmware.elf", cmake / "firmware.bin")
    out.mkdir(parents=True, exist_ok=True)
    for name in ("firmware.elf", "firmware.bin"):  # whole files only: a reader takes the image once both are there
        shutil.copy2(cmake / name, out / f"{name}.part")
        (out / f"{name}.part").replace(out / name)
    (out / "versions.json").write_text(json.dumps({"packages": versions, "recipe": RECIPE,
                                                    "firmware": firmware_hash(files)}, indent=1))
    return Image(out / "firmware.bin", out / "firmware.elf", key)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev firmware", description=__doc__.split("\n\n")[0])
    parser.add_argument("--offline", action="store_true", help="never fetch: use the packages already in the cache")
    args = parser.parse_args(argv)
    try:
        image = build(offline=args.offline)
    except BuildError as err:
        print(f"./dev firmware: {err}", file=sys.stderr)
        return 2
    print(image.firmware)
    return 0


if __name__ == "__main__":
    sys.exit(main())
