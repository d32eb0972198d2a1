"""Kuhn poker turn flow as named steps (`engines.core.advance` runs them): the other seat acts,
or the hand ends with a showdown (KP-7) and the pot goes to its winner."""
from __future__ import annotations

from engines.core import PUBLIC, Event

from .scoring import winner
from .state import OVER, KuhnState


def next_seat(state: KuhnState, events: list[Event]) -> str | None:
    state.turn = 1 - state.turn
    return None


def showdown(state: KuhnState, events: list[Event]) -> str | None:
    events.append(Event("showdown", {"cards": list(state.cards)}, PUBLIC))
    return "pot"


def pot(state: KuhnState, events: list[Event]) -> str | None:
    state.phase, state.turn = OVER, -1
    won = winner(state)
    events.append(Event("pot_won", {"seat": won, "chips": state.stakes[1 - won]}))
    return None


FLOW = {"next_seat": next_seat, "showdown": showdown, "pot": pot}
