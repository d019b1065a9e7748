"""roomy.py under the real MicroPython binary: the node's objects leave their attribute tables with room, one
attribute past a table size (so the table was rebuilt at the next size), whatever attributes they hold."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.firmware.mp_standins import run_node_script

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware" / "lib"))
from roomy import SIZES

sys.path.pop(0)

SCRIPT = r"""from roomy import roomy


class Twelve:
    def __init__(self):
        for i in range(12):
            setattr(self, "a" + str(i), i)


twelve = Twelve()
print("padded", roomy(twelve), "now", len(twelve.__dict__))
link = Link()
io = IO(link, Pin())
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}}, io, 0)
print("node", len(node.__dict__), "span", len(node.spare_span.__dict__))
"""


def test_every_table_the_loop_calls_into_is_one_past_a_size(micropython: str) -> None:
    words = run_node_script(micropython, SCRIPT)
    assert words[:4] == ["padded", "1", "now", "13"], "12 attributes fill a table of 12: one more rebuilds it at 17"
    node, span = int(words[5]), int(words[7])
    assert node - 1 in SIZES and span - 1 in SIZES, (node, span)
