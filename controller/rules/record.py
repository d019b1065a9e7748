"""``@record``: the engine's immutable value type (events, inputs, the pieces of the state).

To the type checker a record is a frozen dataclass: mypy (part of the test command) rejects any assignment to a
field, so nothing in the code base can mutate an event or an input. At run time it is a plain slotted dataclass,
because the engine makes one for every event and frozen dataclasses pay for ``object.__setattr__`` on every
field: about 9% of the simulator's instructions (callgrind, benchmarks/simulate_speed.py). Records hash by value
like frozen dataclasses do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True)
def record(cls: type[T]) -> type[T]:
    return dataclass(slots=True, unsafe_hash=True)(cls)
