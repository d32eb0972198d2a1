"""Who wins The Downfall of Pompeii (POM-83)."""
from __future__ import annotations

from engines.core import Outcome, rank_by

from .state import PompeiiState


def outcome(state: PompeiiState) -> Outcome:
    """POM-83: most saved, then fewest in the volcano; equal keys share."""
    keys = [(state.saved[seat], -state.volcano[seat]) for seat in range(state.seats)]
    ranks, winners = rank_by(keys)
    return Outcome(scores=tuple(float(x) for x in state.saved), ranks=ranks, winners=winners,
                   detail={"saved": tuple(state.saved), "volcano": tuple(state.volcano)})
