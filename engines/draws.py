"""Random draws made exactly as `random.Random` makes them (the same calls of its C
`getrandbits`, in the same order, so games and searches replay unchanged), but in this module:
compiled, a shuffle costs a tenth of the interpreted `Random.shuffle`, which spent about 2,700
instructions per card (a third of a Citadels determinization, bench/notes/citadels.md), and a
choice no interpreted frames (two per decision of a random playout, engines/playout.py)."""
from __future__ import annotations

import random
from typing import Any, Final

_BITS: Final[tuple[int, ...]] = tuple(n.bit_length() for n in range(128))  # a deck holds 66 cards


def below(rng: random.Random, bound: int) -> int:
    """`rng._randbelow(bound)` (CPython's `_randbelow_with_getrandbits`): a uniform int in [0, bound)."""
    k = _BITS[bound] if bound < 128 else bound.bit_length()
    r: int = rng.getrandbits(k)
    while r >= bound:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """`rng.shuffle(items)`: the same permutation from the same draws. A Random subclass may draw
    differently, so it shuffles itself. Typed for any items: compiled code would check each item it
    reads against a narrower type (Citadels shuffles card numbers, Eruption card names)."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def choice(rng: random.Random, seq: list[Any]) -> Any:
    """`rng.choice(seq)`: an element of a non-empty list (IndexError for an empty one, as Random's)."""
    if type(rng) is not random.Random or not seq:
        return rng.choice(seq)
    return seq[below(rng, len(seq))]
