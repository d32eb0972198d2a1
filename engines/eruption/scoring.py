"""Temperatures, burn zones and the final ranking (ERU-7, ERU-140, ERU-154..156)."""
from __future__ import annotations

from typing import Any

from engines.core import Outcome, rank_by

from . import board as B


def thresholds(state):
    """ERU-140: the temperatures that open zones 1, 2 and 3 (`zone_thresholds`)."""
    return B.ZONE_THRESHOLDS[state.options["zone_thresholds"]]


def zone(state: Any, seat: int) -> int:
    """ERU-140: the burn zone (0..3) of `seat`'s temperature: how many thresholds it has reached."""
    temperature: int = state.temperatures[seat]
    reached = 0
    for threshold in B.ZONE_THRESHOLDS[state.options["zone_thresholds"]]:
        if temperature >= threshold:
            reached += 1
    return reached


def wall_allowance(state: Any, seat: int) -> int:
    """ERU-92: walls a seat may build in its walls step, 2 from zone 1 on."""
    return 2 if zone(state, seat) else 1


_STRAW, _WOOD, _STONE = (B.TIEBREAK[m] for m in B.MATERIALS)


def tiebreak_value(state, seat):
    """ERU-155: stockpile and entry walls by material, less the flows into the village."""
    straw, wood, stone = state.stockpiles[seat]
    value = _STRAW * straw + _WOOD * wood + _STONE * stone
    walls, lava = state.walls, state.lava
    for position in B.ENTRIES[state.villages[seat]]:
        material = walls.get(position)
        if material is not None:
            value += B.TIEBREAK[material]
        mask = lava.get(position[0])
        if mask is not None and mask >> position[1] & 1:  # a flow (ERU-22)
            value -= 1
    return value


def tiebreaks(state):
    return [tiebreak_value(state, seat) for seat in range(state.seats)]


def outcome_keys(state):
    """ERU-154..156: lowest temperature, then (option tiebreak "walls") highest tie-break value;
    (ranks, winners)."""
    broken = state.options["tiebreak"] == "walls"
    return rank_by([(-state.temperatures[seat], tiebreak_value(state, seat) if broken else 0)
                    for seat in range(state.seats)])


def outcome(state):
    ranks, winners = outcome_keys(state)
    return Outcome(
        scores=tuple(float(B.MAX_TEMP - t) for t in state.temperatures),  # ERU-154 display score
        ranks=ranks,
        winners=winners,
        detail={"temperatures": list(state.temperatures), "tiebreaks": tiebreaks(state)},
    )
