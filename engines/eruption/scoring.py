"""Temperatures, burn zones and the final ranking (ERU-7, ERU-140, ERU-154..156)."""
from __future__ import annotations

from engines.core import Outcome, rank_by

from . import board as B
from .geometry import flows_into


def thresholds(state):
    """ERU-140: the temperatures that open zones 1, 2 and 3 (`zone_thresholds`)."""
    return B.ZONE_THRESHOLDS[state.options["zone_thresholds"]]


def zone(state, seat):
    """ERU-140: the burn zone (0..3) of `seat`'s temperature."""
    temperature = state.temperatures[seat]
    reached = 0
    for k, threshold in enumerate(thresholds(state)):
        if temperature >= threshold:
            reached = k + 1
    return reached


def wall_allowance(state, seat):
    """ERU-92: walls a seat may build in its walls step, 2 from zone 1 on."""
    return 2 if zone(state, seat) else 1


def tiebreak_value(state, seat):
    """ERU-155: stockpile and entry walls by material, less the flows into the village."""
    village = state.villages[seat]
    value = sum(B.TIEBREAK[m] * k for m, k in zip(B.MATERIALS, state.stockpiles[seat], strict=True))
    for position in B.ENTRIES[village]:
        material = state.walls.get(position)
        if material is not None:
            value += B.TIEBREAK[material]
    return value - len(flows_into(state, village))


def tiebreaks(state):
    return [tiebreak_value(state, seat) for seat in range(state.seats)]


def outcome_keys(state):
    """ERU-154..156: lowest temperature, then highest tie-break value; (ranks, winners)."""
    return rank_by([(-state.temperatures[seat], tiebreak_value(state, seat)) for seat in range(state.seats)])


def outcome(state):
    ranks, winners = outcome_keys(state)
    return Outcome(
        scores=tuple(float(B.MAX_TEMP - t) for t in state.temperatures),  # ERU-154 display score
        ranks=ranks,
        winners=winners,
        detail={"temperatures": list(state.temperatures), "tiebreaks": tiebreaks(state)},
    )
