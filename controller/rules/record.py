"""``Record``: the engine's immutable value type (events, inputs, the pieces of the state).

A record is a plain class: its fields are ``Final`` attributes set once in ``__init__`` (mypy, part of the test
command, rejects any later assignment, so nothing in the code base can mutate an event or an input) and named in
``__match_args__``, which this base class reads to compare, hash and print records by value, like frozen
dataclasses do.

Why not dataclasses: the simulator compiles the rules with mypyc (controller/compiled_rules.py), which makes a
class with an explicit ``__init__`` a native C struct, built in a few nanoseconds, whose fields compiled code reads
directly. A dataclass's generated ``__init__`` stays interpreted Python under mypyc (a Python frame for every
event, about a tenth of a simulated game), and mypyc cannot compile the ``ClassVar`` defaults the events carry.
The rest of the code base still sees dataclasses: :func:`dataclass_view` gives every record class the
``__dataclass_fields__`` that ``dataclasses.fields``, ``replace`` and ``is_dataclass`` read.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr


# Acyclic (compiled, not tracked by the cycle collector: a record holds only values, never a reference back to
# something that holds it), so making and freeing one skips the collector's bookkeeping; every subclass says so too.
@mypyc_attr(acyclic=True)
class Record:
    #: The fields, in order (what ``__init__`` takes, what compares, hashes and prints).
    __match_args__: ClassVar[tuple[str, ...]] = ()
    #: Set for each record class by :func:`dataclass_view`.
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]] = {}

    def values(self) -> tuple[Any, ...]:
        """The fields' values, in order."""
        return tuple([getattr(self, name) for name in self.__match_args__])

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), self.values()


def dataclass_view(*classes: type[Record]) -> None:
    """Give each record class the ``__dataclass_fields__`` of a dataclass with the same fields, so
    ``dataclasses.fields(event)``, ``dataclasses.replace(event, ...)`` and ``is_dataclass`` work on records (the
    journal, the hall and the tests use them). ``replace`` passes every field, so no default is needed here."""
    for cls in classes:
        shadow = dataclasses.make_dataclass(cls.__name__, [(name, Any) for name in cls.__match_args__])
        cls.__dataclass_fields__ = {f.name: f for f in dataclasses.fields(shadow)}
