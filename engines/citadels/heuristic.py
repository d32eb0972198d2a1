"""Rule-based greedy policy and a cheap evaluation for rollouts.

Reads only what `seat` may know: its own hand, characters and the public state.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from engines.draws import choice

from .cards import (
    ARCHITECT,
    ASSASSIN,
    COLOUR,
    COST,
    INCOME_COLOUR,
    KING,
    MAGICIAN,
    MERCHANT,
    NAME_BIT,
    POINTS,
    THIEF,
    WARLORD,
)
from .generator import legal_moves
from .legality import destroy_price
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
from .state import DISCARD, END, KEEP, MAIN, OVER, SELECTION, CitadelsState


def _colour_count(state: CitadelsState, seat: int, colour: str) -> int:
    n = 0
    for c in state.cities[seat]:
        if COLOUR[c] == colour:
            n += 1
    return n


def _names(city: Sequence[int]) -> int:
    """The city's district names, one bit each (cards.NAME_BIT)."""
    names = 0
    for c in city:
        names |= NAME_BIT[c]
    return names


def _character_value(state: CitadelsState, seat: int, rank: int) -> float:
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


def _card_value(state: CitadelsState, seat: int, c: int) -> float:
    return _value_in(_names(state.cities[seat]), c)


def _value_in(names: int, c: int) -> float:
    """A card's worth to a city with these district names (a second copy is worth -10)."""
    v = POINTS[c] + (0.5 if COLOUR[c] == "purple" else 0)
    if names & NAME_BIT[c]:  # not new_district
        v -= 10
    return v


def _best_character(state: CitadelsState, seat: int, moves: list, rng: random.Random, noise: float) -> object:
    """max(moves, key=character value + rng.random() * noise): one draw per move, in order."""
    best, top = moves[0], -math.inf
    for m in moves:
        v = _character_value(state, seat, m.rank) + rng.random() * noise
        if v > top:
            best, top = m, v
    return best


def _pick(state: CitadelsState, seat: int, moves: list, rng: random.Random) -> object:
    return _best_character(state, seat, moves, rng, 0.5)


def _discard(state: CitadelsState, seat: int, moves: list, rng: random.Random) -> object:
    """Discard what helps the opponent most."""
    return _best_character(state, (seat + 1) % state.seats, moves, rng, 0.1)


def _keep(state: CitadelsState, seat: int, moves: list, rng: random.Random) -> object:
    names = _names(state.cities[seat])
    return max(moves, key=lambda m: sum(_value_in(names, c) for c in m.kept))


def _graveyard(state, seat, moves, rng):
    return GraveyardRecover() if COST[state.graveyard_card] >= 3 else GraveyardDecline()


def _end_step(state, seat, moves, rng):
    """Destroy the cheapest district of the biggest city but one's own, else skip."""
    leader = max(range(state.seats), key=lambda p: (len(state.cities[p]), p != seat))
    hits = [m for m in moves[:-1] if m.player == leader and m.player != seat]  # the last move is WarlordSkip
    if hits:
        return min(hits, key=lambda m: destroy_price(state, m.player, m.card))
    return WarlordSkip()


def _turn(state: CitadelsState, seat: int, moves: list, rng: random.Random) -> object:
    kinds: dict[type, list] = {}
    for m in moves:
        same = kinds.get(type(m))
        if same is None:
            kinds[type(m)] = [m]
        else:
            same.append(m)
    names = _names(state.cities[seat])
    if Build in kinds:
        return max(kinds[Build], key=lambda m: _value_in(names, m.card))
    if CollectIncome in kinds:
        return kinds[CollectIncome][0]
    if TakeGold in kinds:
        hand = state.hands[seat]
        want_cards = not hand or all(_value_in(names, c) < 0 for c in hand)
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


def choose(state: CitadelsState, seat: int, rng: random.Random) -> object:
    moves = legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    if state.phase == SELECTION:
        return (_discard if state.selection_step == DISCARD else _pick)(state, seat, moves, rng)
    step = state.step
    if step == MAIN:
        return _turn(state, seat, moves, rng)
    if step == KEEP:
        return _keep(state, seat, moves, rng)
    if step == END:
        return _end_step(state, seat, moves, rng)
    return _graveyard(state, seat, moves, rng)


def evaluate(state, seat: int) -> float:
    """Winning chance from the lead in expected final points over the best opponent."""
    if state.phase == OVER:
        return 1.0 if seat in state.result["winners"] else 0.0
    return evaluate_all(state, state.seats)[seat]


def evaluate_all(state: CitadelsState, seats: int) -> list[float]:
    """`evaluate` of every seat from one reading of the position (the search's, once per rollout).
    The characters still to play this round count as the gold they will bring (`_pending`): a
    rollout cut off in the draft or early in the calls would otherwise not tell a strong pick
    from a weak one."""
    if state.phase == OVER and state.result is not None:
        winners = state.result["winners"]
        return [1.0 if seat in winners else 0.0 for seat in range(seats)]
    gold, cards = _pending(state)
    size = state.options["city_complete_size"]
    first_completer = state.first_completer
    w = tuple([_worth(state.cities[p], state.hands[p], gold[p], cards[p], first_completer == p, size)
               for p in range(seats)])
    return [_lead_chance(w, seat) for seat in range(seats)]


def _pending(state: CitadelsState) -> tuple[list[float], list[int]]:
    """Every seat's gold after the characters it still plays this round (the resource action
    as 2 gold, income, the Merchant's bonus; a pending robbery moves the victim's gold to the
    Thief), and the cards the Architect will draw."""
    seats = state.seats
    gold = [float(g) for g in state.gold]
    cards = [0] * seats
    turns = state.phase != SELECTION
    calling = state.calling if turns else 0
    murdered = state.murdered
    for p in range(seats):
        for r in state.held[p]:
            if r < calling or r == murdered:
                continue
            active = turns and r == calling  # the active character: only what is left of its turn
            g = 0.0
            if not (active and state.action_taken):
                g += PEND_ACTION
                if r == MERCHANT:
                    g += 1
                elif r == ARCHITECT:
                    cards[p] += 2
            if not (active and state.income_taken):
                g += _income(state, p, r)
            gold[p] += PEND * g
    robbed = state.robbed
    if robbed and robbed > calling and robbed != murdered:
        victim = thief = -1
        for p in range(seats):
            if robbed in state.held[p]:
                victim = p
            if THIEF in state.held[p]:
                thief = p
        if victim >= 0 and thief >= 0 and victim != thief:
            taken = float(state.gold[victim])
            gold[victim] -= taken
            gold[thief] += taken
    return gold, cards


def _income(state: CitadelsState, seat: int, rank: int) -> int:
    colour = INCOME_COLOUR[rank]
    return _colour_count(state, seat, colour) if colour else 0


def _worth(city: Sequence[int], hand: Sequence[int], gold: float, extra_cards: int, first: bool, size: int) -> float:
    """Expected final points of a seat: city points and bonuses, plus what gold and hand
    can still become (gold turns into points only with buildable cards, and vice versa);
    `extra_cards` are cards still to draw (an average district each)."""
    names = _names(city)
    pts = sum(map(POINTS.__getitem__, city))
    colours = len(set(map(COLOUR.__getitem__, city)))
    bonus = 3.0 if colours >= 5 else 0.3 * max(0, colours - 2)
    if first:
        bonus += 4.0
    elif len(city) >= size:
        bonus += 2.0
    cost = 3.0 * extra_cards
    buildable = extra_cards
    for c in hand:
        if not names & NAME_BIT[c]:  # a new district
            cost += COST[c]
            buildable += 1
    potential = 0.8 * min(gold, cost) + 0.25 * max(0.0, gold - cost) + 0.4 * min(buildable, 4)
    return pts + bonus + potential + 0.6 * min(len(city), size)


def _lead_chance(w: tuple[float, ...], seat: int) -> float:
    mine = w[seat]
    best = -math.inf  # max(w[:seat] + w[seat + 1:])
    for p in range(len(w)):
        if p != seat and w[p] > best:
            best = w[p]
    return 1.0 / (1.0 + math.exp(-(mine - best) / SCALE))


SCALE: Final[float] = 4.0  # points of lead at which evaluate() gives 0.73 (bench/TUNING.md)
PEND: Final[float] = 1.0  # weight of `_pending` gold
PEND_ACTION: Final[float] = 2.0  # the resource action, as gold
