"""The Citadels move generator (CIT-45 move catalogue): every legal move of the seat to act, in the
order clients see them, built from the rule predicates of legality.py (the same ones the checks use)."""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from itertools import chain, combinations, permutations, repeat
from typing import Final

from .cards import ASSASSIN, CARDS_NAMED, CONSTANTS, COST, DECK_SIZE, DISTRICT, MAGICIAN, RANKS, THIEF, WARLORD
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
from .state import DISCARD, END, GRAVEYARD, KEEP, MAIN, OVER, SELECTION, CitadelsState

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
LABORATORIES: Final = CARDS_NAMED["laboratory"]
SMITHIES: Final = CARDS_NAMED["smithy"]


def legal_moves(state: CitadelsState, seat: int) -> list:
    if state.phase == SELECTION:
        if seat != state.picker:
            return []
        kind = DISCARD_RANK if state.selection_step == DISCARD else PICK
        return [kind[r] for r in sorted(state.pile)]
    if state.phase == OVER or seat != to_move(state):
        return []
    return DECISIONS[state.step](state, seat)


def keep_moves(state: CitadelsState, seat: int) -> list:
    out = []
    for kept in combinations(state.drawn, state.keep_count):
        rest = [c for c in state.drawn if c not in kept]
        for order in permutations(rest):
            out.append(KeepCards(tuple(kept), order))
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


POWERS: Final = {ASSASSIN: assassin_moves, THIEF: thief_moves, MAGICIAN: magician_moves}  # CIT-46..48


def main_moves(state: CitadelsState, seat: int) -> list:
    """The active seat's main step (CIT-32..CIT-61). The predicates of legality.py are spelled out
    here, each marked with its name: this runs at every decision of every playout, where the
    calls cost more than the tests (the checks still call the predicates)."""
    hand = state.hands[seat]
    city = state.cities[seat]
    rank = state.active_rank
    out: list = []
    if not state.action_taken:  # resource_action_open
        out.append(TAKE_GOLD)
        if state.deck:  # CIT-44
            out.append(DRAW_CARDS)
    if (hand and state.builds_made < BUILD_LIMIT[rank]  # builds_left
            and (state.action_taken or state.options["action_order"] == "any")):  # build_order_allows
        gold = state.gold[seat]
        built = set(map(DISTRICT.__getitem__, city))  # new_district
        for c in hand:  # every copy
            if COST[c] <= gold and DISTRICT[c] not in built:
                out.append(BUILD[c])
    if rank in INCOME_RANKS and not state.income_taken:  # has_income
        out.append(COLLECT_INCOME)
    if not state.power_used:
        powers = POWERS.get(rank)
        if powers is not None:
            out += powers(state, seat)
    if rank == WARLORD:
        out += destroy_moves(state, seat)
    if hand and not state.laboratory_used and not LABORATORIES.isdisjoint(city):  # may_use_laboratory
        out += [LABORATORY[c] for c in hand]  # every copy
    if (not state.smithy_used and state.gold[seat] >= 2 and state.deck
            and not SMITHIES.isdisjoint(city)):  # may_use_smithy
        out.append(SMITHY)
    if state.action_taken:  # may_end_turn
        out.append(END_TURN)
    return out


DECISIONS: Final = {MAIN: main_moves, KEEP: keep_moves, END: end_step_moves, GRAVEYARD: graveyard_moves}


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
