"""Rule-based greedy policy and a cheap evaluation for rollouts.

Reads only what `seat` may know: its own hand, characters and the public state.
"""
from __future__ import annotations

import math
import random
from functools import lru_cache

from .cards import (
    ARCHITECT,
    ASSASSIN,
    COLOUR,
    COST,
    DISTRICT,
    INCOME_COLOUR,
    KING,
    MAGICIAN,
    MERCHANT,
    POINTS,
    THIEF,
    WARLORD,
)
from .draws import choice
from .generator import legal_moves
from .legality import destroy_price, new_district
from .moves import (
    Assassinate,
    Build,
    CollectIncome,
    DrawCards,
    EndTurn,
    GraveyardDecline,
    GraveyardRecover,
    Laboratory,
    MagicRedraw,
    MagicSwap,
    Rob,
    Smithy,
    TakeGold,
    WarlordSkip,
)
from .state import DISCARD, END, GRAVEYARD, KEEP, MAIN, OVER, PICK, SELECTION


def _colour_count(state, seat, colour):
    return list(map(COLOUR.__getitem__, state.cities[seat])).count(colour)


def _character_value(state, seat, rank) -> float:
    v = 1.0
    colour = INCOME_COLOUR[rank]
    if colour:
        v += _colour_count(state, seat, colour)
    if rank == ARCHITECT:
        v += 1.5 if state.gold[seat] >= 4 else 0.5
    if rank == MERCHANT:
        v += 1
    if rank == KING:
        v += 0.8
    if rank == MAGICIAN and len(state.hands[seat]) <= 1:
        v += 2
    if rank in (ASSASSIN, THIEF):
        v += 1.2
    if rank == WARLORD:
        v += 0.5 * max(map(len, state.cities))
    return v


def _card_value(state, seat, c) -> float:
    v = POINTS[c] + (0.5 if COLOUR[c] == "purple" else 0)
    if not new_district(state, seat, c):
        v -= 10
    return v


def _pick(state, seat, moves, rng):
    return max(moves, key=lambda m: _character_value(state, seat, m.rank) + rng.random() * 0.5)


def _discard(state, seat, moves, rng):  # discard what helps the opponent most
    other = (seat + 1) % state.seats
    return max(moves, key=lambda m: _character_value(state, other, m.rank) + rng.random() * 0.1)


def _keep(state, seat, moves, rng):
    return max(moves, key=lambda m: sum(_card_value(state, seat, c) for c in m.kept))


def _graveyard(state, seat, moves, rng):
    return GraveyardRecover() if COST[state.graveyard_card] >= 3 else GraveyardDecline()


def _end_step(state, seat, moves, rng):
    """Destroy the cheapest district of the biggest city but one's own, else skip."""
    leader = max(range(state.seats), key=lambda p: (len(state.cities[p]), p != seat))
    hits = [m for m in moves[:-1] if m.player == leader and m.player != seat]  # the last move is WarlordSkip
    if hits:
        return min(hits, key=lambda m: destroy_price(state, m.player, m.card))
    return WarlordSkip()


def _turn(state, seat, moves, rng):
    kinds: dict = {}
    for m in moves:
        kinds.setdefault(type(m), []).append(m)
    if Build in kinds:
        return max(kinds[Build], key=lambda m: _card_value(state, seat, m.card))
    if CollectIncome in kinds:
        return kinds[CollectIncome][0]
    if TakeGold in kinds:
        hand = state.hands[seat]
        want_cards = not hand or all(_card_value(state, seat, c) < 0 for c in hand)
        if want_cards and DrawCards in kinds:
            return kinds[DrawCards][0]
        return kinds[TakeGold][0]
    if Assassinate in kinds:
        targets = kinds[Assassinate]
        prefer = [m for m in targets if m.rank in (MERCHANT, ARCHITECT, KING, WARLORD)
                  and m.rank not in state.held[seat]]
        return choice(rng, prefer or targets)
    if Rob in kinds:
        targets = [m for m in kinds[Rob] if m.rank not in state.held[seat]]
        return choice(rng, targets or kinds[Rob])
    return _turn_extras(state, seat, moves, kinds)


def _turn_extras(state, seat, moves, kinds):
    if MagicSwap in kinds:
        other = max((p for p in range(state.seats) if p != seat), key=lambda p: len(state.hands[p]))
        if len(state.hands[other]) > len(state.hands[seat]) + 1:
            return MagicSwap(other)
        bad = tuple(c for c in state.hands[seat] if _card_value(state, seat, c) < 0)
        if bad and MagicRedraw in kinds:  # the template allows any subset
            return MagicRedraw(bad)
    if Laboratory in kinds:
        bad = [m for m in kinds[Laboratory] if _card_value(state, seat, m.card) < 0]
        if bad:
            return bad[0]
    if Smithy in kinds and state.gold[seat] >= 5 and len(state.hands[seat]) < 3:
        return kinds[Smithy][0]
    return kinds[EndTurn][0] if EndTurn in kinds else moves[0]


_DECISIONS = {PICK: _pick, DISCARD: _discard, KEEP: _keep, GRAVEYARD: _graveyard, END: _end_step, MAIN: _turn}


def choose(state, seat: int, rng: random.Random):
    moves = legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    decision = state.selection_step if state.phase == SELECTION else state.step
    return _DECISIONS[decision](state, seat, moves, rng)


@lru_cache(maxsize=16)
def _worths(size: int, first_completer: int, gold: tuple, cities: tuple, hands: tuple) -> tuple:
    """Every seat's `_worth`, once per position (the search evaluates each seat in turn)."""
    return tuple(_worth(cities[p], hands[p], gold[p], first_completer == p, size) for p in range(len(gold)))


def _worth(city, hand, gold: int, first: bool, size: int) -> float:
    """Expected final points of a seat: city points and bonuses, plus what gold and hand
    can still become (gold turns into points only with buildable cards, and vice versa)."""
    built = set(map(DISTRICT.__getitem__, city))
    pts = sum(map(POINTS.__getitem__, city))
    colours = len(set(map(COLOUR.__getitem__, city)))
    bonus = 3.0 if colours >= 5 else 0.3 * max(0, colours - 2)
    if first:
        bonus += 4.0
    elif len(city) >= size:
        bonus += 2.0
    cost = buildable = 0
    for c in hand:
        if DISTRICT[c] not in built:
            cost += COST[c]
            buildable += 1
    # gold backed by cards to build, cards backed by gold; a little for the rest
    potential = 0.8 * min(gold, cost) + 0.25 * max(0, gold - cost) + 0.4 * min(buildable, 4)
    return pts + bonus + potential + 0.6 * min(len(city), size)


def evaluate(state, seat: int) -> float:
    """Winning chance from the lead in expected final points over the best opponent."""
    if state.phase == OVER:
        return 1.0 if seat in state.result["winners"] else 0.0
    return _lead_chance(_position_worths(state), seat)


def evaluate_all(state, seats: int) -> list[float]:
    """`evaluate` of every seat from one reading of the position."""
    if state.phase == OVER:
        return [evaluate(state, seat) for seat in range(seats)]
    w = _position_worths(state)
    return [_lead_chance(w, seat) for seat in range(seats)]


def _position_worths(state) -> tuple:
    return _worths(state.options["city_complete_size"], state.first_completer, tuple(state.gold),
                   tuple(map(tuple, state.cities)), tuple(map(tuple, state.hands)))


def _lead_chance(w: tuple, seat: int) -> float:
    mine = w[seat]
    best = max(w[:seat] + w[seat + 1:])
    return 1.0 / (1.0 + math.exp(-(mine - best) / SCALE))


SCALE = float(__import__("os").environ.get("GE_CIT_SCALE", 4.0))
