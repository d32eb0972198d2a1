"""The Citadels move generator (CIT-45 move catalogue): every legal move of the seat to act, in the
order clients see them, built from the rule predicates of legality.py (the same ones the checks use)."""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from itertools import chain, combinations, permutations, repeat
from typing import Final

from .cards import ASSASSIN, CONSTANTS, COST, DECK_SIZE, MAGICIAN, NAME_BIT, NAMED_BIT, RANKS, THIEF, WARLORD
from .legality import (
    BUILD_LIMIT,
    INCOME_RANKS,
    REDRAW_FULL_LISTING,
    assassin_targets,
    thief_targets,
    to_move,
    warlord_may_destroy,
    warlord_targets,
)
from .moves import (
    Assassinate,
    Build,
    CollectIncome,
    DiscardCharacter,
    DrawCards,
    EndTurn,
    GraveyardDecline,
    GraveyardRecover,
    KeepCards,
    Laboratory,
    MagicRedraw,
    MagicSwap,
    PickCharacter,
    Rob,
    Smithy,
    TakeGold,
    WarlordDestroy,
    WarlordSkip,
)
from .state import DISCARD, END, KEEP, MAIN, OVER, SELECTION, CitadelsState

# Moves are immutable values: the generator hands out these instances instead of building new ones.
_SEAT_IDS: Final = range(CONSTANTS["players_max"])
PICK: Final = {r: PickCharacter(r) for r in RANKS}
DISCARD_RANK: Final = {r: DiscardCharacter(r) for r in RANKS}
ASSASSINATE: Final = {r: Assassinate(r) for r in RANKS}
ROB: Final = {r: Rob(r) for r in RANKS}
BUILD: Final = tuple(Build(c) for c in range(DECK_SIZE))
LABORATORY: Final = tuple(Laboratory(c) for c in range(DECK_SIZE))
SWAP: Final = tuple(MagicSwap(p) for p in _SEAT_IDS)
DESTROY: Final = tuple(tuple(WarlordDestroy(p, c) for c in range(DECK_SIZE)) for p in _SEAT_IDS)
TAKE_GOLD: Final = TakeGold()
DRAW_CARDS: Final = DrawCards()
COLLECT_INCOME: Final = CollectIncome()
END_TURN: Final = EndTurn()
SMITHY: Final = Smithy()
WARLORD_SKIP: Final = WarlordSkip()
GRAVEYARD_ANSWER_MOVES: Final = (GraveyardRecover(), GraveyardDecline())
# MagicRedraw(cards) from a (cards, False) pair, in C: a new hand lists up to 62 redraws
_new_redraw: Final = partial(tuple.__new__, MagicRedraw)
_new_move: Final = tuple.__new__  # a NamedTuple move from its fields, without its interpreted __new__
LABORATORY_BIT: Final = NAMED_BIT["laboratory"]
SMITHY_BIT: Final = NAMED_BIT["smithy"]


def legal_moves(state: CitadelsState, seat: int) -> list:
    phase = state.phase
    if phase == SELECTION:
        if seat != state.picker:
            return []
        kind = DISCARD_RANK if state.selection_step == DISCARD else PICK
        return [kind[r] for r in sorted(state.pile)]
    if phase == OVER or seat != to_move(state):
        return []
    step = state.step
    if step == MAIN:  # one branch per turn step: native calls when compiled
        return main_moves(state, seat)
    if step == KEEP:
        return keep_moves(state, seat)
    if step == END:
        return end_step_moves(state, seat)
    return graveyard_moves(state, seat)


def keep_moves(state: CitadelsState, seat: int) -> list:
    drawn: list[int] = state.drawn
    out = []
    for kept in combinations(drawn, state.keep_count):
        rest = [c for c in drawn if c not in kept]
        for order in permutations(rest):
            out.append(_new_move(KeepCards, (kept, order)))  # KeepCards(kept, order)
    return out


def graveyard_moves(state: CitadelsState, seat: int) -> list:
    return list(GRAVEYARD_ANSWER_MOVES)


def destroy_moves(state: CitadelsState, seat: int) -> list:
    if not warlord_may_destroy(state):
        return []
    return [DESTROY[owner][card] for owner, card, _ in warlord_targets(state, seat)]


def end_step_moves(state: CitadelsState, seat: int) -> list:
    out = destroy_moves(state, seat)
    out.append(WARLORD_SKIP)
    return out


def assassin_moves(state: CitadelsState, seat: int) -> list:
    return [ASSASSINATE[r] for r in assassin_targets(state)]


def thief_moves(state: CitadelsState, seat: int) -> list:
    return [ROB[r] for r in thief_targets(state)]


def magician_moves(state: CitadelsState, seat: int) -> list:
    hand = state.hands[seat]
    out: list = [SWAP[p] for p in range(state.seats) if p != seat]  # swap_partner
    out.extend(redraw_moves(tuple(hand)))
    return out


def power_moves(state: CitadelsState, seat: int, rank: int) -> list:
    """CIT-46..48: the named powers (the others act through their own moves or at reveal)."""
    if rank == ASSASSIN:
        return assassin_moves(state, seat)
    if rank == THIEF:
        return thief_moves(state, seat)
    if rank == MAGICIAN:
        return magician_moves(state, seat)
    return []


def main_moves(state: CitadelsState, seat: int) -> list:
    """The active seat's main step (CIT-32..CIT-61). The predicates of legality.py are spelled out
    here, each marked with its name: this runs at every decision of every playout, where the
    calls cost more than the tests (the checks still call the predicates)."""
    hand: list[int] = state.hands[seat]
    names = 0  # the city's district names, one bit each (owns, new_district)
    for c in state.cities[seat]:
        names |= NAME_BIT[c]
    rank: int = state.active_rank
    action_taken: bool = state.action_taken
    gold: int = state.gold[seat]
    out: list = []
    if not action_taken:  # resource_action_open
        out.append(TAKE_GOLD)
        if state.deck:  # CIT-44
            out.append(DRAW_CARDS)
    if (hand and state.builds_made < BUILD_LIMIT[rank]  # builds_left
            and (action_taken or state.options["action_order"] == "any")):  # build_order_allows
        for c in hand:  # every copy
            if COST[c] <= gold and not names & NAME_BIT[c]:  # new_district
                out.append(BUILD[c])
    if rank in INCOME_RANKS and not state.income_taken:  # has_income
        out.append(COLLECT_INCOME)
    if not state.power_used:
        out += power_moves(state, seat, rank)
    if rank == WARLORD:
        out += destroy_moves(state, seat)
    if hand and names & LABORATORY_BIT and not state.laboratory_used:  # may_use_laboratory
        out += [LABORATORY[c] for c in hand]  # every copy
    if names & SMITHY_BIT and not state.smithy_used and gold >= 2 and state.deck:  # may_use_smithy
        out.append(SMITHY)
    if action_taken:  # may_end_turn
        out.append(END_TURN)
    return out



def redraw_sizes(h: int) -> Sequence[int]:
    """MAGIC_REDRAW subset sizes listed besides the template (which stands for every subset in any
    order): all proper subsets up to REDRAW_FULL_LISTING cards, above that singletons, pairs and
    all-but-one, to keep the search's branching factor sane."""
    return range(1, h) if h <= REDRAW_FULL_LISTING else (1, 2, h - 1)


def redraw_listing(hand: Sequence[int]) -> list:
    """The listed MAGIC_REDRAW subsets of `hand` (redraw_sizes), smallest first."""
    return [combo for k in redraw_sizes(len(hand)) for combo in combinations(hand, k)]


@lru_cache(maxsize=1024)
def redraw_moves(hand: tuple) -> tuple:
    """The Magician's listed redraws of `hand` and the template (CIT-48), built once per hand."""
    if not hand:
        return ()
    listed = chain.from_iterable(map(partial(combinations, hand), redraw_sizes(len(hand))))
    return (*map(_new_redraw, zip(listed, repeat(False))), MagicRedraw(hand, True))
