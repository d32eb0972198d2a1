"""Eruption's random draws: the shared ones (engines/draws.py, made exactly as `random.Random` makes
them, so games and searches replay unchanged) and the die."""
from __future__ import annotations

import random

from engines.draws import below, shuffle

__all__ = ["below", "die", "shuffle"]


def die(rng: random.Random) -> int:
    """`rng.randint(1, 6)`. A Random subclass may draw differently: it draws itself."""
    if type(rng) is not random.Random:
        return rng.randint(1, 6)
    return 1 + below(rng, 6)
