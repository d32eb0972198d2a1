"""Eruption's random draws, made exactly as `random.Random` makes them (engines/draws.py: the same
`getrandbits` calls in the same order, so games and searches replay unchanged), for lists of any items:
engines.draws.shuffle is typed for ints, and compiled code checks every item it reads against that type
(Eruption shuffles card names). A Random subclass may draw differently: it draws itself."""
from __future__ import annotations

import random
from typing import Any

from engines.draws import below


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """`rng.shuffle(items)`: the same permutation from the same draws."""
    if type(rng) is not random.Random:
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
