"""Regenerate hardware/WIRING-<profile>.md and hardware/BOM-<profile>.md from hardware/profiles/*.toml.

Run after editing a profile or hardware/parts.toml:  python hardware/generate_docs.py
(tests/config/test_hardware_docs.py fails while the committed files are stale).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.config.hardware_docs import write_all

if __name__ == "__main__":
    for path in write_all():
        print(f"wrote {path.relative_to(Path(__file__).resolve().parents[1])}")
