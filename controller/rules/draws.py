"""The uniform draws of the simulator's hottest loop (a choice per night action and per vote, a shuffle per
deal), made in compiled code: exactly the draws ``random.Random.choice`` and ``random.Random.shuffle`` make, the
same numbers from the same generator state, without two Python frames per draw (mypyc compiles this module;
the standard library's ``random`` stays Python).

The replica is used only where it is exact: for a plain ``random.Random``, and only when :data:`EXACT` (checked
at import against this interpreter's own ``random`` module) holds; otherwise the generator's methods are called
as they are. Either way a seed gives the same games.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

T = TypeVar("T")

#: The generator class and its C method, held as constants: compiled, ``rng.getrandbits(k)`` looks the method up
#: by name on the instance at every draw, and ``random.Random`` is a module attribute looked up by name.
_RANDOM: Final = random.Random
_GETRANDBITS: Final[Callable[[random.Random, int], int]] = random.Random.getrandbits


def _below(rng: random.Random, n: int) -> int:
    """``Random._randbelow_with_getrandbits(n)``: a uniform int in [0, n), n > 0."""
    k = n.bit_length()
    getrandbits = _GETRANDBITS
    r = getrandbits(rng, k)
    while r >= n:
        r = getrandbits(rng, k)
    return r


def _choice(rng: random.Random, seq: Sequence[T]) -> T:
    # A tuple or a list (what the rules and the bots pass) indexed natively; compiled, a Sequence goes through
    # the generic protocol with a boxed index.
    if isinstance(seq, tuple):
        items: tuple[T, ...] = seq
        n = len(items)
        if n:
            return items[_below(rng, n)]
    elif isinstance(seq, list):
        values: list[T] = seq
        n = len(values)
        if n:
            return values[_below(rng, n)]
    else:
        n = len(seq)
        if n:
            return seq[_below(rng, n)]
    raise IndexError("Cannot choose from an empty sequence")


def _shuffle(rng: random.Random, x: list[Any]) -> None:
    # One draw a card. (Fetching a deal's outputs in one getrandbits(32 * m) and cutting them apart was tried:
    # compiled, the big-int shifts cost more than the calls they save.)
    for i in range(len(x) - 1, 0, -1):
        j = _below(rng, i + 1)
        x[i], x[j] = x[j], x[i]


def _matches() -> bool:
    """Does the replica draw what this interpreter's ``random.Random`` draws?"""
    a, b = random.Random(20261202), random.Random(20261202)
    for n in (1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 100, 1000, 2**40 + 3):
        for _ in range(25):
            if a.choice(range(n)) != _choice(b, range(n)):
                return False
    for size in (0, 1, 2, 3, 12, 13, 20, 26, 100):
        for _ in range(5):
            x, y = list(range(size)), list(range(size))
            a.shuffle(x)
            _shuffle(b, y)
            if x != y:
                return False
    return a.random() == b.random()


#: Whether :func:`choice` and :func:`shuffle` may draw themselves (the replica matches ``random``).
EXACT: Final = _matches()


def choice(rng: random.Random, seq: Sequence[T]) -> T:
    """``rng.choice(seq)``."""
    if EXACT and type(rng) is _RANDOM:
        return _choice(rng, seq)
    return rng.choice(seq)


def shuffle(rng: random.Random, x: list[Any]) -> None:
    """``rng.shuffle(x)``."""
    if EXACT and type(rng) is _RANDOM:
        _shuffle(rng, x)
    else:
        rng.shuffle(x)
