"""The position evaluation the search calls after each rollout (`evaluate`, `evaluate_all`): an
estimated chance to win for each seat, from the temperatures, the expected damage and threats at
each village, and the tie-break potential (ERU-150..156). Reads only what `seat` may know.
"""
from __future__ import annotations

import math
from functools import cache
from typing import Any, Final

from . import board as B
from . import derived
from .board import Cell, Position
from .scoring import outcome_keys
from .setup import deck_for
from .state import OVER

# ERU-95: chance out of 36 that a wall holds a dice check, by `dice_tie_goes_to`
_HOLD: Final = {"wall": {"straw": 21, "wood": 26, "stone": 30}, "lava": {"straw": 15, "wood": 21, "stone": 26}}
_STRAW, _WOOD, _STONE = (B.TIEBREAK[m] for m in B.MATERIALS)
_MEAN_CARD_TIEBREAK: Final = 1.85  # mean tie-break value of a non-Rain card discarded for a wall (ERU-155)


def _threats(state: Any) -> dict[int, int]:
    """Village -> the empty spaces next to it that lava already reaches: flows one placement away (per board;
    a village with none is not a key)."""
    d = derived.of(state)
    threats = d.threats
    if threats is None:
        threats = {}
        villages_at = B.ENTRY_VILLAGES_BY_ID
        for spot in derived.spots(d):
            for v in villages_at[spot[5]]:
                threats[v] = threats.get(v, 0) + 1
        d.threats = threats
    return threats


Outlook = tuple[float, int, int]  # (expected heat, tie-break value, threats) of a seat's village


def _outlooks(state: Any) -> list[Outlook]:
    """Every seat's `_village_outlook` with its village's threats."""
    threats = _threats(state)
    villages: tuple[int, ...] = state.villages
    out: list[Outlook] = []
    for s in range(state.seats):
        heat, tiebreak = _village_outlook(state, s)
        out.append((heat, tiebreak, threats.get(villages[s], 0)))
    return out


Standing = tuple[float, float, int, float]


def _standing(state: Any, seat: int, outlook: Outlook, rain: float, cards: float) -> Standing:
    """A seat's temperature once its `rain` cards are played, expected damage, threats, and
    tie-break potential: the tie-break value plus what `cards` more walls would add
    (`outlook`: its `_outlooks` entry). Floats throughout: the same values as from the ints."""
    heat, tiebreak, threats = outlook
    temperature: int = state.temperatures[seat]
    return (max(temperature - 30 * rain, 0.0), heat, threats, tiebreak + cards)


def _village_outlook(state: Any, seat: int) -> tuple[float, int]:
    """(heat the seat's village expects at its next damage step from the current flows (ERU-50),
    its `scoring.tiebreak_value`), in one pass over its entry positions."""
    hold = _HOLD[state.options["dice_tie_goes_to"]]
    stock: list[int] = state.stockpiles[seat]
    tiebreak = _STRAW * stock[0] + _WOOD * stock[1] + _STONE * stock[2]
    heat = 0.0
    lava: dict[Cell, int] = state.lava
    walls: dict[Position, str] = state.walls
    for pos in B.ENTRIES[state.villages[seat]]:
        mat = walls.get(pos)
        if mat is not None:
            tiebreak += B.TIEBREAK[mat]
        mask = lava.get(pos[0])
        if mask is not None and mask >> pos[1] & 1:  # a flow (ERU-22)
            tiebreak -= 1
            heat += 20 if mat is None else 10 * (36 - hold[mat]) / 36
    return heat, tiebreak


def _hand_estimates(state: Any, seat: int) -> list[tuple[float, float]]:
    """(Rain cards, tie-break value of the others as walls) for every seat, as `seat` sees them:
    its own hand exactly, the others' hand sizes times the unseen cards' averages."""
    hands: list[list[str]] = state.hands
    own = hands[seat]
    discard: list[str] = state.discard
    exclude_rain: bool = state.options["exclude_rain_cards"]
    unseen: int = _deck_size(exclude_rain) - len(own) - len(discard)
    rain_cards: int = 0 if exclude_rain else B.CARD_COUNT["rain"]
    unseen_rain = rain_cards - own.count("rain") - discard.count("rain")
    p_rain = unseen_rain / unseen if unseen > 0 else 0.0
    out: list[tuple[float, float]] = []
    rain: float
    walls: float
    for s in range(state.seats):
        if s == seat:
            rain = float(own.count("rain"))
            walls = float(sum([B.TIEBREAK[B.CARD_MATERIAL[c]] for c in own if c != "rain"]))
        else:
            rain = p_rain * len(hands[s])
            walls = _MEAN_CARD_TIEBREAK * (len(hands[s]) - rain)
        out.append((rain, walls))
    return out


@cache
def _deck_size(exclude_rain_cards: bool) -> int:
    return len(deck_for({"exclude_rain_cards": exclude_rain_cards}))


def _edge_logit(mine: Standing, other: Standing) -> float:
    """Log-odds that `mine` beats `other` (`_standing` tuples); weights fitted by logistic
    regression on 28k positions of greedy self-play (1500 games, 2 seats).
    Temperature gaps count more as the game heats up; when both villages near 290 the game
    ends in ties at 290 broken by walls (ERU-151, ERU-155), so tie-break potential takes over."""
    t, d, th, tb = mine
    to, do, tho, tbo = other
    hot = min(max((min(t, to) - 230) / 60, 0.0), 1.0)
    return (1.3 * (to - t) / 100 * max(t, to) / B.MAX_TEMP + 0.95 * (tb - tbo) / 5 * hot
            + 0.09 * (do - d) / 20 + 0.057 * (tho - th))


def evaluate(state, seat):
    """Estimated chance that `seat` wins (see `_edge_logit`); the outcome once the game is over."""
    if state.phase == OVER:
        ranks, winners = outcome_keys(state)
        return 1.0 / len(winners) if seat in winners else 0.0
    return _win_chance(state, seat, _outlooks(state))


def evaluate_all(state, seats):
    """`evaluate` of every seat, each village's outlook computed once."""
    if state.phase == OVER:
        return [evaluate(state, seat) for seat in range(seats)]
    outlooks = _outlooks(state)
    return [_win_chance(state, seat, outlooks) for seat in range(seats)]


def _win_chance(state: Any, seat: int, outlooks: list[Outlook]) -> float:
    hands = _hand_estimates(state, seat)
    rain, cards = hands[seat]
    mine = _standing(state, seat, outlooks[seat], rain, cards)
    p = 1.0
    others = 0
    for s in range(state.seats):
        if s != seat:
            rain, cards = hands[s]
            p *= 1.0 / (1.0 + math.exp(-_edge_logit(mine, _standing(state, s, outlooks[s], rain, cards))))
            others += 1
    return p ** (1.0 / others) if others > 1 else p
