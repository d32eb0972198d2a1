"""What may be done in Citadels (docs/rules/citadels.md): each rule one small predicate, used by
the move generator `legal_moves` and by the check of its move kind (`CHECKS`), which cites it."""
from __future__ import annotations

from typing import Final

from engines.core import Check, IllegalMove

from .cards import (
    ARCHITECT,
    ASSASSIN,
    BISHOP,
    CARDS_NAMED,
    COLOUR,
    CONSTANTS,
    COST,
    DISTRICT,
    INCOME_COLOUR,
    KING,
    MAGICIAN,
    MERCHANT,
    RANKS,
    THIEF,
    WARLORD,
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

INCOME_RANKS: Final = (KING, BISHOP, MERCHANT, WARLORD)  # CIT-41
REDRAW_FULL_LISTING: Final = 6  # hands up to this size list every MAGIC_REDRAW subset
BUILD_LIMIT: Final[tuple[int, ...]] = tuple(
    CONSTANTS["architect_builds_per_turn"] if rank == ARCHITECT else CONSTANTS["builds_per_turn"]
    for rank in range(WARLORD + 1))  # by rank (0: no character)


# ---------------------------------------------------------------- rules as predicates


def holder(state: CitadelsState, rank: int) -> int:
    """The seat holding character `rank`, or -1."""
    for seat, ranks in enumerate(state.held):
        if rank in ranks:
            return seat
    return -1


def owns(state: CitadelsState, seat: int, district: str) -> bool:
    return not CARDS_NAMED[district].isdisjoint(state.cities[seat])


def owner_of(state: CitadelsState, district: str) -> int:
    for seat in range(state.seats):
        if owns(state, seat, district):
            return seat
    return -1


def draw_numbers(state: CitadelsState, seat: int) -> tuple:
    """CIT-36: (D, K)."""
    return (3 if owns(state, seat, "observatory") else 2), (2 if owns(state, seat, "library") else 1)


def build_limit(rank: int) -> int:
    return BUILD_LIMIT[rank]


def income_amount(state: CitadelsState, seat: int, rank: int) -> int:
    """CIT-41, CIT-64: districts of the character's colour, +1 for the School of Magic."""
    colour = INCOME_COLOUR[rank]
    if colour is None:
        return 0
    amount = 0
    for c in state.cities[seat]:
        if COLOUR[c] == colour or DISTRICT[c] == "school_of_magic":
            amount += 1
    return amount


def destroy_price(state: CitadelsState, owner: int, card: int) -> int:
    """CIT-54."""
    price = COST[card] - 1
    if DISTRICT[card] != "great_wall" and owns(state, owner, "great_wall"):
        price += 1
    return price


def immunity(state: CitadelsState, owner: int, card: int):
    """CIT-55: the rule that makes the district untargetable, or None."""
    if DISTRICT[card] == "keep":
        return "CIT-59"
    if len(state.cities[owner]) >= state.options["city_complete_size"]:
        return "CIT-55"
    if owner == state.protected:
        return "CIT-50"
    return None


def assassin_targets(state: CitadelsState) -> list:
    """CIT-46."""
    if state.options["allow_void_targets"]:
        return list(RANKS)
    return [r for r in RANKS if r != ASSASSIN and r not in state.face_up]


def thief_targets(state: CitadelsState) -> list:
    """CIT-47."""
    low = THIEF if state.options["allow_void_targets"] else MAGICIAN
    return [r for r in RANKS if r >= low and r != state.murdered
            and (state.options["allow_void_targets"] or r not in state.face_up)]


def warlord_targets(state: CitadelsState, seat: int) -> list:
    """CIT-53..CIT-55: (owner, card, price) the Warlord can pay for."""
    out: list = []
    gold: int = state.gold[seat]
    size: int = state.options["city_complete_size"]
    for owner, city in enumerate(state.cities):
        if len(city) >= size or owner == state.protected:
            continue  # immunity() of every card: CIT-55, CIT-50
        wall = owns(state, owner, "great_wall")  # destroy_price's, once per city
        for card in city:
            if DISTRICT[card] != "keep":  # immunity(): CIT-59
                price = COST[card] - 1 + (1 if wall and DISTRICT[card] != "great_wall" else 0)
                if price <= gold:
                    out.append((owner, card, price))
    return out


def resource_action_open(state: CitadelsState) -> bool:
    """CIT-34: the resource action is taken once per turn."""
    return not state.action_taken


def builds_left(state: CitadelsState) -> bool:
    """CIT-38/52: one build a turn, three for the Architect."""
    return state.builds_made < BUILD_LIMIT[state.active_rank]


def build_order_allows(state: CitadelsState) -> bool:
    """CIT-37: with action_order "action_first", no build before the resource action."""
    return state.action_taken or state.options["action_order"] == "any"


def new_district(state: CitadelsState, seat: int, card: int) -> bool:
    """CIT-40: no two districts of the same name in a city."""
    return not owns(state, seat, DISTRICT[card])


def has_income(state: CitadelsState) -> bool:
    """CIT-41: the King, Bishop, Merchant and Warlord collect income."""
    return state.active_rank in INCOME_RANKS


def power_ready(state: CitadelsState, rank: int) -> bool:
    """CIT-42: the active character's power, once per turn."""
    return state.active_rank == rank and not state.power_used


def swap_partner(state: CitadelsState, seat: int, player) -> bool:
    """CIT-48: the Magician swaps hands with one other player."""
    return isinstance(player, int) and 0 <= player < state.seats and player != seat


def redraw_cards_ok(state: CitadelsState, seat: int, cards: tuple) -> bool:
    """CIT-48: one or more distinct cards of the Magician's hand."""
    return bool(cards) and len(set(cards)) == len(cards) and all(c in state.hands[seat] for c in cards)


def warlord_may_destroy(state: CitadelsState) -> bool:
    """CIT-53: the Warlord, once a turn, at its end step unless warlord_timing is "any_time"."""
    return (state.active_rank == WARLORD and not state.warlord_used
            and not (state.step == MAIN and state.options["warlord_timing"] == "end_of_turn"))


def may_use_laboratory(state: CitadelsState, seat: int) -> bool:
    """CIT-60: once a turn, with a Laboratory in the city."""
    return not state.laboratory_used and owns(state, seat, "laboratory")


def may_use_smithy(state: CitadelsState, seat: int) -> bool:
    """CIT-61: once a turn, with a Smithy, 2 gold and a card in the deck (CIT-44)."""
    return (not state.smithy_used and state.gold[seat] >= 2 and bool(state.deck)
            and owns(state, seat, "smithy"))


def may_end_turn(state: CitadelsState) -> bool:
    """CIT-32: the resource action comes first."""
    return state.action_taken


def to_move(state: CitadelsState) -> int | None:
    phase = state.phase
    if phase == OVER:
        return None
    if phase == SELECTION:
        return state.picker
    if state.step == GRAVEYARD:
        return state.graveyard_seat
    return state.active


def seats_to_act(state: CitadelsState) -> list[int]:
    """Only the seat to move acts (the Graveyard owner answers out of turn: to_move)."""
    seat = to_move(state)
    return [] if seat is None else [seat]


def is_over(state: CitadelsState) -> bool:
    return state.phase == OVER


# ---------------------------------------------------------------- the checks (state untouched)

SELECTION_MOVES: Final = frozenset({PickCharacter, DiscardCharacter})  # CIT-19..24
GRAVEYARD_ANSWERS: Final = frozenset({GraveyardRecover, GraveyardDecline})  # CIT-63
# what each turn step accepts from the active seat, and the refusal of anything else
STEP_ANSWERS: Final[dict[str, tuple[frozenset[type], str, str]]] = {
    KEEP: (frozenset({KeepCards}), "CIT-36", "choose which drawn cards to keep first"),
    END: (frozenset({WarlordDestroy, WarlordSkip}), "CIT-53",
          "the turn has ended; only WARLORD_DESTROY or WARLORD_SKIP"),
    MAIN: (frozenset({TakeGold, DrawCards, Build, CollectIncome, Assassinate, Rob, MagicSwap, MagicRedraw,
                      Laboratory, Smithy, WarlordDestroy, EndTurn, WarlordSkip}), "CIT-45", "unknown move {move!r}"),
}


def check_seat(state: CitadelsState, seat: int, move) -> None:
    """Whose decision it is and which kinds answer it (CIT-15, 19, 28, 36, 45, 53, 63, 69)."""
    if state.phase == OVER:
        raise IllegalMove("CIT-69", "the game is over")
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise IllegalMove("CIT-15", f"no seat {seat}")
    kind = type(move)
    if kind in SELECTION_MOVES:
        if state.phase != SELECTION:
            raise IllegalMove("CIT-19", "characters are picked only in the selection phase")
        if seat != state.picker:
            raise IllegalMove("CIT-19", f"seat {state.picker} is picking")
        return
    if state.phase == SELECTION:
        raise IllegalMove("CIT-19", "characters are being selected")
    if state.step == GRAVEYARD:
        if seat != state.graveyard_seat:
            raise IllegalMove("CIT-63", "waiting for the Graveyard owner's answer")
        if kind not in GRAVEYARD_ANSWERS:
            raise IllegalMove("CIT-63", "answer GRAVEYARD_RECOVER or GRAVEYARD_DECLINE")
        return
    if kind in GRAVEYARD_ANSWERS:
        raise IllegalMove("CIT-63", "no destroyed district is offered to the Graveyard")
    if seat != state.active:
        raise IllegalMove("CIT-28", f"it is not your turn: rank {state.active_rank} is playing")
    answers, rule, sentence = STEP_ANSWERS[state.step]
    if kind in answers:
        return
    if state.step != KEEP and kind in STEP_ANSWERS[KEEP][0]:
        raise IllegalMove("CIT-36", "no drawn cards are waiting to be kept")
    raise IllegalMove(rule, sentence.format(move=move))


def check_pick(state: CitadelsState, seat: int, move: PickCharacter) -> None:
    if state.selection_step == DISCARD:
        raise IllegalMove("CIT-24", "discard one character face down before passing on")
    _check_offered(state, move.rank)


def check_discard(state: CitadelsState, seat: int, move: DiscardCharacter) -> None:
    if state.selection_step != DISCARD:
        raise IllegalMove("CIT-24", "a character is discarded only by the 2-player draft, after a pick")
    _check_offered(state, move.rank)


def _check_offered(state: CitadelsState, rank) -> None:
    if rank not in state.pile:
        raise IllegalMove("CIT-19", f"character {rank} was not handed to you")


def check_keep(state: CitadelsState, seat: int, move: KeepCards) -> None:
    kept, returned = tuple(move.kept), tuple(move.returned)
    if len(kept) != state.keep_count or len(set(kept)) != len(kept) or not set(kept).issubset(state.drawn):
        raise IllegalMove("CIT-36", f"keep exactly {state.keep_count} of the drawn cards")
    rest = [c for c in state.drawn if c not in kept]
    if returned and sorted(returned) != sorted(rest):
        raise IllegalMove("CIT-36", "the returned order must list every card not kept")


def check_take_gold(state: CitadelsState, seat: int, move: TakeGold | DrawCards) -> None:
    if not resource_action_open(state):
        raise IllegalMove("CIT-34", "the resource action is taken once per turn")


def check_draw(state: CitadelsState, seat: int, move: DrawCards) -> None:
    check_take_gold(state, seat, move)
    if not state.deck:
        raise IllegalMove("CIT-44", "the deck is empty")


def check_build(state: CitadelsState, seat: int, move: Build) -> None:
    if not builds_left(state):
        raise IllegalMove("CIT-52" if state.active_rank == ARCHITECT else "CIT-38", "no more builds this turn")
    if not build_order_allows(state):
        raise IllegalMove("CIT-37", "take the resource action before building")
    card = move.card
    if card not in state.hands[seat]:
        raise IllegalMove("CIT-38", f"card {card} is not in your hand")
    if not new_district(state, seat, card):
        raise IllegalMove("CIT-40", f"your city already has a {DISTRICT[card]}")
    if COST[card] > state.gold[seat]:
        raise IllegalMove("CIT-38", f"{DISTRICT[card]} costs {COST[card]}, you have {state.gold[seat]}")


def check_income(state: CitadelsState, seat: int, move: CollectIncome) -> None:
    if not has_income(state):
        raise IllegalMove("CIT-41", "this character has no income")
    if state.income_taken:
        raise IllegalMove("CIT-42", "income is collected once per turn")


def _check_power(state: CitadelsState, rank: int, rule: str) -> None:
    if state.active_rank != rank:
        raise IllegalMove(rule, "your character has no such power")
    if not power_ready(state, rank):
        raise IllegalMove("CIT-42", "the character power is used once per turn")


def check_assassinate(state: CitadelsState, seat: int, move: Assassinate) -> None:
    _check_power(state, ASSASSIN, "CIT-46")
    if move.rank not in assassin_targets(state):
        raise IllegalMove("CIT-46", f"character {move.rank} cannot be murdered")


def check_rob(state: CitadelsState, seat: int, move: Rob) -> None:
    _check_power(state, THIEF, "CIT-47")
    if move.rank not in thief_targets(state):
        raise IllegalMove("CIT-47", f"character {move.rank} cannot be robbed")


def check_swap(state: CitadelsState, seat: int, move: MagicSwap) -> None:
    _check_power(state, MAGICIAN, "CIT-48")
    if not swap_partner(state, seat, move.player):
        raise IllegalMove("CIT-48", "swap with one other player")


def check_redraw(state: CitadelsState, seat: int, move: MagicRedraw) -> None:
    _check_power(state, MAGICIAN, "CIT-48")
    if not redraw_cards_ok(state, seat, tuple(move.cards)):
        raise IllegalMove("CIT-48", "redraw one or more distinct cards from your hand")


def check_laboratory(state: CitadelsState, seat: int, move: Laboratory) -> None:
    if not owns(state, seat, "laboratory"):
        raise IllegalMove("CIT-60", "your city has no Laboratory")
    if not may_use_laboratory(state, seat):
        raise IllegalMove("CIT-42", "the Laboratory is used once per turn")
    if move.card not in state.hands[seat]:
        raise IllegalMove("CIT-60", f"card {move.card} is not in your hand")


def check_smithy(state: CitadelsState, seat: int, move: Smithy) -> None:
    if not owns(state, seat, "smithy"):
        raise IllegalMove("CIT-61", "your city has no Smithy")
    if state.smithy_used:
        raise IllegalMove("CIT-42", "the Smithy is used once per turn")
    if state.gold[seat] < 2:
        raise IllegalMove("CIT-61", "the Smithy costs 2 gold")
    if not may_use_smithy(state, seat):
        raise IllegalMove("CIT-44", "the deck is empty")


def check_destroy(state: CitadelsState, seat: int, move: WarlordDestroy) -> None:
    if state.active_rank != WARLORD:
        raise IllegalMove("CIT-53", "only the Warlord destroys districts")
    if state.step == MAIN and state.options["warlord_timing"] == "end_of_turn":
        raise IllegalMove("CIT-53", "the Warlord destroys at the end of his turn (warlord_timing end_of_turn)")
    if not warlord_may_destroy(state):
        raise IllegalMove("CIT-42", "the Warlord destroys once per turn")
    owner, card = move.player, move.card
    if not isinstance(owner, int) or not 0 <= owner < state.seats or card not in state.cities[owner]:
        raise IllegalMove("CIT-53", "no such district in that city")
    rule = immunity(state, owner, card)
    if rule:
        raise IllegalMove(rule, f"{DISTRICT[card]} cannot be targeted")
    price = destroy_price(state, owner, card)
    if price > state.gold[seat]:
        raise IllegalMove("CIT-54", f"destroying {DISTRICT[card]} costs {price}, you have {state.gold[seat]}")


def check_end_turn(state: CitadelsState, seat: int, move: EndTurn) -> None:
    if not may_end_turn(state):
        raise IllegalMove("CIT-32", "take the resource action before ending the turn")


def check_skip(state: CitadelsState, seat: int, move: WarlordSkip) -> None:
    if state.step != END:
        raise IllegalMove("CIT-53", "WARLORD_SKIP is the Warlord's end-step answer")


def check_graveyard_answer(state: CitadelsState, seat: int, move) -> None:
    """CIT-63: recovering costs 1 gold, which the offer required (check_seat covers the rest)."""


CHECKS: Final[dict[type, Check]] = {
    PickCharacter: check_pick, DiscardCharacter: check_discard, KeepCards: check_keep,
    TakeGold: check_take_gold, DrawCards: check_draw, Build: check_build, CollectIncome: check_income,
    Assassinate: check_assassinate, Rob: check_rob, MagicSwap: check_swap, MagicRedraw: check_redraw,
    Laboratory: check_laboratory, Smithy: check_smithy, WarlordDestroy: check_destroy, EndTurn: check_end_turn,
    WarlordSkip: check_skip, GraveyardRecover: check_graveyard_answer, GraveyardDecline: check_graveyard_answer,
}
