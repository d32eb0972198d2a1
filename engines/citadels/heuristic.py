"""Rule-based greedy policy and a cheap evaluation for rollouts.

Reads only what `seat` may know: its own hand, characters and the public state.
"""
from __future__ import annotations

import math
import random

from .cards import (ARCHITECT, ASSASSIN, COLOUR, COST, DISTRICT, INCOME_COLOUR, KING, MAGICIAN,
                    MERCHANT, POINTS, THIEF, WARLORD)
from .moves import (Assassinate, Build, CollectIncome, DiscardCharacter, DrawCards, EndTurn,
                    GraveyardDecline, GraveyardRecover, KeepCards, Laboratory, MagicRedraw,
                    MagicSwap, PickCharacter, Rob, Smithy, TakeGold, WarlordDestroy, WarlordSkip)
from .rules import destroy_price, legal_moves


def _colour_count(s, seat, colour):
    return sum(1 for c in s.cities[seat] if COLOUR[c] == colour)


def _character_value(s, seat, rank) -> float:
    v = 1.0
    colour = INCOME_COLOUR[rank]
    if colour:
        v += _colour_count(s, seat, colour)
    if rank == ARCHITECT:
        v += 1.5 if s.gold[seat] >= 4 else 0.5
    if rank == MERCHANT:
        v += 1
    if rank == KING:
        v += 0.8
    if rank == MAGICIAN and len(s.hands[seat]) <= 1:
        v += 2
    if rank in (ASSASSIN, THIEF):
        v += 1.2
    if rank == WARLORD:
        v += 0.5 * max(len(s.cities[p]) for p in range(s.n))
    return v


def _card_value(s, seat, c) -> float:
    built = {DISTRICT[x] for x in s.cities[seat]}
    v = POINTS[c] + (0.5 if COLOUR[c] == "purple" else 0)
    if DISTRICT[c] in built:
        v -= 10
    return v


def choose(s, seat: int, rng: random.Random):
    moves = legal_moves(s, seat)
    if len(moves) == 1:
        return moves[0]
    first = moves[0]
    if isinstance(first, PickCharacter):
        return max(moves, key=lambda m: _character_value(s, seat, m.rank) + rng.random() * 0.5)
    if isinstance(first, DiscardCharacter):  # discard what helps the opponent most
        other = (seat + 1) % s.n
        return max(moves, key=lambda m: _character_value(s, other, m.rank) + rng.random() * 0.1)
    if isinstance(first, KeepCards):
        return max(moves, key=lambda m: sum(_card_value(s, seat, c) for c in m.kept))
    if isinstance(first, (GraveyardRecover, GraveyardDecline)):
        return GraveyardRecover() if COST[s.grave_card] >= 3 else GraveyardDecline()
    kinds = {type(m): m for m in moves}
    if s.step == "end" or WarlordDestroy in kinds:
        leader = max(range(s.n), key=lambda p: (len(s.cities[p]), p != seat))
        hits = [m for m in moves if isinstance(m, WarlordDestroy) and m.player == leader and m.player != seat]
        if hits and s.step == "end":
            return min(hits, key=lambda m: destroy_price(s, m.player, m.card))
        if s.step == "end":
            return WarlordSkip()
    builds = [m for m in moves if isinstance(m, Build)]
    if builds:
        return max(builds, key=lambda m: _card_value(s, seat, m.card))
    if CollectIncome in kinds:
        return kinds[CollectIncome]
    if TakeGold in kinds:
        hand = s.hands[seat]
        want_cards = not hand or all(_card_value(s, seat, c) < 0 for c in hand)
        if want_cards and DrawCards in kinds:
            return kinds[DrawCards]
        return kinds[TakeGold]
    if Assassinate in kinds:
        targets = [m for m in moves if isinstance(m, Assassinate)]
        prefer = [m for m in targets if m.rank in (MERCHANT, ARCHITECT, KING, WARLORD)
                  and m.rank not in s.held[seat]]
        return rng.choice(prefer or targets)
    if Rob in kinds:
        targets = [m for m in moves if isinstance(m, Rob) and m.rank not in s.held[seat]]
        return rng.choice(targets or [m for m in moves if isinstance(m, Rob)])
    if MagicSwap in kinds:
        other = max((p for p in range(s.n) if p != seat), key=lambda p: len(s.hands[p]))
        if len(s.hands[other]) > len(s.hands[seat]) + 1:
            return MagicSwap(other)
        bad = tuple(c for c in s.hands[seat] if _card_value(s, seat, c) < 0)
        if bad and any(isinstance(mv, MagicRedraw) for mv in moves):  # the template allows any subset
            return MagicRedraw(bad)
    if Laboratory in kinds:
        bad = [m for m in moves if isinstance(m, Laboratory) and _card_value(s, seat, m.card) < 0]
        if bad:
            return bad[0]
    if Smithy in kinds and s.gold[seat] >= 5 and len(s.hands[seat]) < 3:
        return kinds[Smithy]
    return kinds.get(EndTurn, first)


def _worth(s, p) -> float:
    """Expected final points of seat `p`: city points and bonuses, plus what gold and hand
    can still become (gold turns into points only with buildable cards, and vice versa)."""
    city = s.cities[p]
    size = s.opts["city_complete_size"]
    built = {DISTRICT[c] for c in city}
    pts = sum(POINTS[c] for c in city)
    colours = len({COLOUR[c] for c in city})
    bonus = 3.0 if colours >= 5 else 0.3 * max(0, colours - 2)
    if s.first_completer == p:
        bonus += 4.0
    elif len(city) >= size:
        bonus += 2.0
    hand = [c for c in s.hands[p] if DISTRICT[c] not in built]
    cost = sum(COST[c] for c in hand)
    gold = s.gold[p]
    # gold backed by cards to build, cards backed by gold; a little for the rest
    potential = 0.8 * min(gold, cost) + 0.25 * max(0, gold - cost) + 0.4 * min(len(hand), 4)
    return pts + bonus + potential + 0.6 * min(len(city), size)


def evaluate(s, seat: int) -> float:
    """Winning chance from the lead in expected final points over the best opponent."""
    if s.phase == "over":
        return 1.0 if seat in s.result["winners"] else 0.0
    w = [_worth(s, p) for p in range(s.n)]
    mine = w[seat]
    best = max(w[p] for p in range(s.n) if p != seat)
    return 1.0 / (1.0 + math.exp(-(mine - best) / SCALE))


SCALE = float(__import__("os").environ.get("GE_CIT_SCALE", 4.0))
