"""The end of Citadels: whether a city can still be completed (CIT-69) and the score (CIT-72..76)."""
from __future__ import annotations

from engines.core import Outcome, rank_by

from .cards import COLOUR, CONSTANTS, DISTRICT, NAME_BIT, POINTS
from .state import CitadelsState


def names_in_play(state: CitadelsState) -> set:
    """District names still in the deck, the hands or the cities."""
    names = {DISTRICT[c] for c in state.deck}
    for part in (state.hands, state.cities):
        for cards in part:
            names.update(DISTRICT[c] for c in cards)
    return names


def completable(state: CitadelsState) -> bool:
    """Can any city still reach city_complete_size? Not when fewer district names
    remain in play (deck, hands, cities) than the size: destroyed_district_to=discard
    can drain the game. RULES.md has no end for that case; the engine then makes the
    current round the last one (docs/rules/citadels.md, CIT-69)."""
    size: int = state.options["city_complete_size"]
    deck = _names(state.deck)  # the deck's names first: they nearly always suffice
    if _count(deck) >= size:
        return True
    for part in (state.hands, state.cities):
        for cards in part:
            deck |= _names(cards)
    return _count(deck) >= size


def _names(cards: list[int]) -> int:
    """The district names among `cards`, one bit each (cards.NAME_BIT)."""
    names = 0
    for c in cards:
        names |= NAME_BIT[c]
    return names


def _count(names: int) -> int:
    n = 0
    while names:
        names &= names - 1
        n += 1
    return n


def five_colour_bonus(state: CitadelsState, seat: int) -> int:
    """CIT-73 with the Haunted City (CIT-58)."""
    colours = set()
    haunted = -1
    for c in state.cities[seat]:
        if DISTRICT[c] == "haunted_city":
            haunted = c
        else:
            colours.add(COLOUR[c])
    if haunted < 0:
        ok = len(colours) == 5
    elif state.final_round and state.built_in[haunted] == state.complete_round:
        ok = len(colours | {"purple"}) == 5
    else:
        ok = len(colours) >= 4
    return CONSTANTS["five_colour_bonus"] if ok else 0


def score_parts(state: CitadelsState, seat: int) -> dict:
    """CIT-72..CIT-75."""
    points = sum(POINTS[c] for c in state.cities[seat])
    colour = five_colour_bonus(state, seat)
    if seat == state.first_completer:
        completion = CONSTANTS["first_complete_bonus"]
    elif len(state.cities[seat]) >= state.options["city_complete_size"]:
        completion = CONSTANTS["other_complete_bonus"]
    else:
        completion = 0
    return {"seat": seat, "district_points": points, "five_colour_bonus": colour,
            "completion_bonus": completion, "total": points + colour + completion, "gold": state.gold[seat]}


def tiebreak_key(parts: dict, tiebreak: str) -> tuple:
    """CIT-76."""
    if tiebreak == "district_points_then_gold":
        return (parts["total"], parts["district_points"], parts["gold"])
    if tiebreak == "gold":
        return (parts["total"], parts["gold"])
    return (parts["total"],)


def score(state: CitadelsState) -> dict:
    parts = [score_parts(state, seat) for seat in range(state.seats)]
    ranks, winners = rank_by([tiebreak_key(p, state.options["tiebreak"]) for p in parts])
    return {"scores": parts, "ranks": list(ranks), "winners": list(winners)}


def outcome(state: CitadelsState) -> Outcome:
    result = state.result if state.result is not None else score(state)
    return Outcome(scores=tuple(float(p["total"]) for p in result["scores"]),
                   ranks=tuple(result["ranks"]), winners=tuple(result["winners"]),
                   detail={"scores": result["scores"]})
