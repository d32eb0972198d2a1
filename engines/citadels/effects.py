"""What each accepted Citadels move does (`EFFECTS`), once its check has passed; the turn then
runs on through the flow table (flow.py) where a move ends a pick or a turn."""
from __future__ import annotations

from typing import Final

from engines.core import Effect, Event
from engines.playout import advance

from .cards import ARCHITECT, CONSTANTS, COST, DISTRICT, MERCHANT, WARLORD
from .flow import FLOW
from .legality import destroy_price, draw_numbers, income_amount, owner_of
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
from .state import DISCARD, END, GRAVEYARD, KEEP, MAIN, PICK, CitadelsState


def gain(state: CitadelsState, seat: int, amount: int) -> int:
    """Bank pays what it holds (CIT-5)."""
    if state.bank >= 0:
        amount = min(amount, state.bank)
        state.bank -= amount
    state.gold[seat] += amount
    return amount


def pay(state: CitadelsState, seat: int, amount: int) -> None:
    state.gold[seat] -= amount
    if state.bank >= 0:
        state.bank += amount


def draw_cards(state: CitadelsState, count: int) -> list[int]:
    """CIT-44: as many as the deck holds."""
    cards = state.deck[:count]
    del state.deck[:count]
    for c in cards:
        state.deck_known.pop(c, None)
    return cards


def to_bottom(state: CitadelsState, cards: list[int], knower: int) -> None:
    for c in cards:
        state.deck.append(c)
        state.deck_known[c] = knower


def take_from_hand(state: CitadelsState, seat: int, card: int) -> None:
    state.hands[seat].remove(card)
    if card in state.known_hand[seat]:
        state.known_hand[seat].remove(card)


def pick_character(state: CitadelsState, seat: int, move: PickCharacter, events: list[Event]) -> None:
    state.pile.remove(move.rank)
    state.held[seat].append(move.rank)
    events.append(Event("character_picked", {"seat": seat, "rank": move.rank}, seat))
    if state.seats == 2 and state.pick_number in (1, 2):  # CIT-24: keep, then discard one of choice
        state.selection_step = DISCARD
        return
    advance(FLOW, state, events, "after_pick")


def discard_character(state: CitadelsState, seat: int, move: DiscardCharacter, events: list[Event]) -> None:
    state.pile.remove(move.rank)
    state.face_down_ranks.append(move.rank)
    state.face_down_by.append(seat)
    state.my_discards[seat].append(move.rank)
    state.selection_step = PICK
    events.append(Event("character_discarded", {"seat": seat, "rank": move.rank}, seat))
    advance(FLOW, state, events, "after_pick")


def after_action(state: CitadelsState, seat: int, events: list[Event]) -> None:
    """CIT-37: Merchant and Architect bonuses right after the resource action."""
    state.action_taken = True
    if state.active_rank == MERCHANT:  # CIT-51
        got = gain(state, seat, CONSTANTS["merchant_extra_gold"])
        events.append(Event("gold_gained", {"seat": seat, "amount": got, "reason": "merchant"}))
    elif state.active_rank == ARCHITECT:  # CIT-52
        cards = draw_cards(state, CONSTANTS["architect_extra_cards"])
        state.hands[seat].extend(cards)
        events.append(Event("cards_drawn", {"seat": seat, "count": len(cards), "kept": len(cards),
                                            "reason": "architect"}))
        events.append(Event("cards_seen", {"seat": seat, "cards": cards, "reason": "architect"}, seat))


def take_gold(state: CitadelsState, seat: int, move: TakeGold, events: list[Event]) -> None:
    got = gain(state, seat, CONSTANTS["take_gold_amount"])
    events.append(Event("gold_gained", {"seat": seat, "amount": got, "reason": "take_gold"}))
    after_action(state, seat, events)


def draw(state: CitadelsState, seat: int, move: DrawCards, events: list[Event]) -> None:
    d, k = draw_numbers(state, seat)
    cards = draw_cards(state, d)
    events.append(Event("cards_drawn", {"seat": seat, "count": len(cards), "kept": min(k, len(cards)),
                                        "reason": "draw"}))
    events.append(Event("cards_seen", {"seat": seat, "cards": cards, "reason": "draw"}, seat))
    state.hands[seat].extend(cards)  # held while the keep choice is pending
    if len(cards) <= k:
        after_action(state, seat, events)
        return
    state.drawn, state.keep_count, state.step = cards, k, KEEP


def keep_cards(state: CitadelsState, seat: int, move: KeepCards, events: list[Event]) -> None:
    kept = list(move.kept)
    returned = list(move.returned) or [c for c in state.drawn if c not in kept]
    for c in returned:
        state.hands[seat].remove(c)
    to_bottom(state, returned, seat)  # CIT-36 [actor]
    state.drawn, state.keep_count, state.step = [], 0, MAIN
    events.append(Event("cards_kept", {"seat": seat, "kept": len(kept), "returned": len(returned)}))
    events.append(Event("cards_returned", {"seat": seat, "cards": returned, "reason": "draw"}, seat))
    after_action(state, seat, events)


def build(state: CitadelsState, seat: int, move: Build, events: list[Event]) -> None:
    card = move.card
    pay(state, seat, COST[card])
    take_from_hand(state, seat, card)
    state.cities[seat].append(card)
    state.built_in[card] = state.round
    state.builds_made += 1
    events.append(Event("district_built", {"seat": seat, "card": card, "district": DISTRICT[card],
                                       "cost": COST[card], "round": state.round}))
    if len(state.cities[seat]) == state.options["city_complete_size"]:
        first = state.first_completer < 0
        if first:  # CIT-69, CIT-70
            state.first_completer, state.complete_round, state.final_round = seat, state.round, True
        events.append(Event("city_completed", {"seat": seat, "round": state.round, "first": first}))


def collect_income(state: CitadelsState, seat: int, move: CollectIncome, events: list[Event]) -> None:
    state.income_taken = True
    got = gain(state, seat, income_amount(state, seat, state.active_rank))
    events.append(Event("income_collected", {"seat": seat, "rank": state.active_rank, "amount": got}))


def assassinate(state: CitadelsState, seat: int, move: Assassinate, events: list[Event]) -> None:
    state.power_used = True
    state.murdered = move.rank
    events.append(Event("murder_named", {"seat": seat, "rank": move.rank}))


def rob(state: CitadelsState, seat: int, move: Rob, events: list[Event]) -> None:
    state.power_used = True
    state.robbed = move.rank
    events.append(Event("robbery_named", {"seat": seat, "rank": move.rank}))


def magic_swap(state: CitadelsState, seat: int, move: MagicSwap, events: list[Event]) -> None:
    state.power_used = True
    other = move.player
    state.hands[seat], state.hands[other] = state.hands[other], state.hands[seat]
    state.known_hand[seat], state.known_hand[other] = state.known_hand[other], state.known_hand[seat]
    events.append(Event("magic_swap", {"seat": seat, "target": other, "cards_given": len(state.hands[other]),
                                   "cards_received": len(state.hands[seat])}))
    events.append(Event("cards_seen", {"seat": seat, "cards": list(state.hands[seat]), "reason": "swap"}, seat))
    events.append(Event("cards_seen", {"seat": other, "cards": list(state.hands[other]), "reason": "swap"}, other))


def magic_redraw(state: CitadelsState, seat: int, move: MagicRedraw, events: list[Event]) -> None:
    state.power_used = True
    cards = list(move.cards)
    for c in cards:
        state.hands[seat].remove(c)
    state.known_hand[seat] = []  # CIT-80: the public can no longer tell which cards stayed
    to_bottom(state, cards, seat)
    new = draw_cards(state, len(cards))
    state.hands[seat].extend(new)
    events.append(Event("magic_redraw", {"seat": seat, "count": len(cards)}))
    events.append(Event("cards_returned", {"seat": seat, "cards": cards, "reason": "redraw"}, seat))
    events.append(Event("cards_seen", {"seat": seat, "cards": new, "reason": "redraw"}, seat))


def laboratory(state: CitadelsState, seat: int, move: Laboratory, events: list[Event]) -> None:
    state.laboratory_used = True
    state.hands[seat].remove(move.card)
    state.known_hand[seat] = []  # CIT-80
    to_bottom(state, [move.card], seat)
    got = gain(state, seat, 1)
    events.append(Event("laboratory_used", {"seat": seat, "gold": got}))
    events.append(Event("cards_returned", {"seat": seat, "cards": [move.card], "reason": "laboratory"}, seat))


def smithy(state: CitadelsState, seat: int, move: Smithy, events: list[Event]) -> None:
    state.smithy_used = True
    pay(state, seat, 2)
    cards = draw_cards(state, 3)
    state.hands[seat].extend(cards)
    events.append(Event("smithy_used", {"seat": seat, "count": len(cards)}))
    events.append(Event("cards_seen", {"seat": seat, "cards": cards, "reason": "smithy"}, seat))


def warlord_destroy(state: CitadelsState, seat: int, move: WarlordDestroy, events: list[Event]) -> None:
    owner, card = move.player, move.card
    price = destroy_price(state, owner, card)
    state.warlord_used = True
    pay(state, seat, price)
    state.cities[owner].remove(card)
    state.built_in[card] = -1
    events.append(Event("district_destroyed", {"seat": seat, "target": owner, "card": card,
                                           "district": DISTRICT[card], "price": price}))
    resume = state.step
    keeper = owner_of(state, "graveyard")
    if keeper >= 0 and keeper != seat and state.gold[keeper] >= 1:  # CIT-63
        state.graveyard_card, state.graveyard_seat = card, keeper
        state.graveyard_victim, state.graveyard_resume = owner, resume
        state.step = GRAVEYARD
        events.append(Event("graveyard_offered", {"seat": keeper, "card": card}))
        return
    dispose(state, card, events)
    if resume == END:
        advance(FLOW, state, events, "finish_turn")


def dispose(state: CitadelsState, card: int, events: list[Event]) -> None:
    """CIT-56."""
    if state.options["destroyed_district_to"] == "deck_bottom":
        to_bottom(state, [card], -1)
        where = "deck_bottom"
    else:
        state.discard_pile.append(card)
        where = "discard"
    events.append(Event("district_removed", {"card": card, "district": DISTRICT[card], "to": where}))


def resume_after_graveyard(state: CitadelsState, events: list[Event]) -> None:
    resume = state.graveyard_resume
    state.graveyard_card = state.graveyard_seat = state.graveyard_victim = -1
    state.graveyard_resume = ""
    state.step = resume
    if resume == END:
        advance(FLOW, state, events, "finish_turn")


def graveyard_recover(state: CitadelsState, seat: int, move: GraveyardRecover, events: list[Event]) -> None:
    card = state.graveyard_card
    pay(state, seat, 1)
    state.hands[seat].append(card)
    state.known_hand[seat].append(card)  # CIT-63, CIT-80: public
    events.append(Event("graveyard_recovered", {"seat": seat, "card": card, "district": DISTRICT[card]}))
    resume_after_graveyard(state, events)


def graveyard_decline(state: CitadelsState, seat: int, move: GraveyardDecline, events: list[Event]) -> None:
    events.append(Event("graveyard_declined", {"seat": seat}))
    dispose(state, state.graveyard_card, events)
    resume_after_graveyard(state, events)


def end_turn(state: CitadelsState, seat: int, move: EndTurn, events: list[Event]) -> None:
    if state.active_rank == WARLORD and state.options["warlord_timing"] == "end_of_turn":
        state.step = END  # CIT-32 end step
        events.append(Event("warlord_step", {"seat": seat}))
        return
    advance(FLOW, state, events, "finish_turn")


def warlord_skip(state: CitadelsState, seat: int, move: WarlordSkip, events: list[Event]) -> None:
    events.append(Event("warlord_skipped", {"seat": seat}))
    advance(FLOW, state, events, "finish_turn")


EFFECTS: Final[dict[type, Effect]] = {
    PickCharacter: pick_character, DiscardCharacter: discard_character, TakeGold: take_gold,
    DrawCards: draw, KeepCards: keep_cards, Build: build, CollectIncome: collect_income,
    Assassinate: assassinate, Rob: rob, MagicSwap: magic_swap, MagicRedraw: magic_redraw,
    Laboratory: laboratory, Smithy: smithy, WarlordDestroy: warlord_destroy, WarlordSkip: warlord_skip,
    GraveyardRecover: graveyard_recover, GraveyardDecline: graveyard_decline, EndTurn: end_turn,
}
