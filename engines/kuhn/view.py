"""What a seat may know (KP-8), and states consistent with it (determinize)."""
from __future__ import annotations

import random
from typing import Any

from .scoring import chips, winner
from .setup import RANKS, check_options
from .state import OVER, KuhnState


def view(state: KuhnState, seat: int | None) -> dict[str, Any]:
    """KP-8: the actions, stakes and the viewer's own card; both cards only at a showdown."""
    shown = state.phase == OVER and state.folded < 0
    return {
        "seat": -1 if seat is None else seat,
        "seats": state.seats,
        "options": dict(state.options),
        "phase": state.phase,
        "turn": state.turn,
        "card": "" if seat is None else state.cards[seat],
        "actions": list(state.actions),
        "stakes": list(state.stakes),
        "shown_cards": list(state.cards) if shown else [],
        "winner": winner(state) if state.phase == OVER else -1,
        "chips": chips(state),
    }


def determinize(seen: dict[str, Any], seat: int, rng: random.Random) -> KuhnState:
    """A full state agreeing with the view `seen`: the unseen cards dealt at random, a fresh rng."""
    state = KuhnState()
    state.seats = int(seen["seats"])
    state.options = check_options(state.seats, dict(seen["options"]))
    state.rng = random.Random(rng.getrandbits(64))
    if seen["shown_cards"]:
        state.cards = list(seen["shown_cards"])
    else:
        unseen = [c for c in RANKS if c != seen["card"]]
        rng.shuffle(unseen)
        state.cards = [seen["card"] if s == seat else unseen.pop() for s in range(state.seats)]
    state.actions, state.stakes = list(seen["actions"]), [int(x) for x in seen["stakes"]]
    state.turn, state.phase = int(seen["turn"]), seen["phase"]
    # seats alternate from seat 0, so the last action was made by seat (len - 1) % 2
    state.folded = (len(state.actions) - 1) % 2 if state.actions[-1:] == ["fold"] else -1
    return state
