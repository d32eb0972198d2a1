"""Eruption's random draws, made exactly as `random.Random` makes them: the same calls of its C
`getrandbits`, in the same order (CPython's `_randbelow_with_getrandbits`), so games and searches
replay unchanged. Compiled, a shuffle costs a tenth of the interpreted `Random.shuffle`, which was a
third of a determinization (bench/notes/eruption.md). A Random subclass may draw differently: it
draws itself."""
from __future__ import annotations

import random
from typing import Any, Final

_BITS: Final[tuple[int, ...]] = tuple(n.bit_length() for n in range(128))  # the deck holds 60 cards


def below(rng: random.Random, bound: int) -> int:
    """`rng._randbelow(bound)`: a uniform int in [0, bound), for 0 < bound < 128."""
    k = _BITS[bound]
    r: int = rng.getrandbits(k)
    while r >= bound:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """`rng.shuffle(items)`: the same permutation from the same draws."""
    if type(rng) is not random.Random or len(items) > 128:
        rng.shuffle(items)
        return
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def die(rng: random.Random) -> int:
    """`rng.randint(1, 6)`."""
    if type(rng) is not random.Random:
        return rng.randint(1, 6)
    return 1 + below(rng, 6)
