#!/usr/bin/env python3
"""Rebuild a voice pack: ``sounds/build.py zh-CN`` (or ``en``, or a club pack's folder; ``--force`` redoes all).

Needs espeak-ng and sox (Debian: ``apt-get install espeak-ng sox libsox-fmt-all``). The work is done by
``controller.voice.build``; this script only lets it run from a checkout without installing anything.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.cli.sounds import main

if __name__ == "__main__":
    sys.exit(main(["build", *sys.argv[1:]]))
