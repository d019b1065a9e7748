"""A seat node without its chip: the real firmware (firmware/lib) on fake ``machine`` hardware, stepped over a pipe.

``simnode.py`` is a script run by the ``micropython`` binary (or CPython), with ``machine.py`` beside it found
first on its path; neither is imported by the table. ``tianhei bus-sim`` and ``tianhei seat-nodes``
(controller/bus/sim.py) start one per seat, and the firmware tests use the same ones: they belong to the product,
which never reaches into tests/ (pyproject.toml's import contract).
"""

from pathlib import Path

#: The harness script each simulated node runs.
SIMNODE = Path(__file__).resolve().with_name("simnode.py")
#: The fake ``machine`` module beside it.
FAKE_MACHINE = Path(__file__).resolve().with_name("machine.py")
