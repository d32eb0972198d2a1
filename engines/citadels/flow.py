"""Turn flow of Citadels as a table of named steps (`engines.core.advance` runs them): rounds, the character
draft, the calling order and the end of the game. Each step names the next, or returns None where
the game waits for a seat."""
from __future__ import annotations

from typing import Final

from engines.core import Event, Step
from engines.draws import shuffle

from .cards import BISHOP, DRAFT, KING, RANKS, THIEF, WARLORD
from .legality import holder
from .scoring import completable, names_in_play, score
from .state import MAIN, OVER, PICK, SELECTION, TURNS, CitadelsState


def reset_turn(state: CitadelsState) -> None:
    state.step = MAIN
    state.action_taken = state.income_taken = state.power_used = False
    state.laboratory_used = state.smithy_used = state.warlord_used = False
    state.builds_made, state.drawn, state.keep_count = 0, [], 0
    state.graveyard_card = state.graveyard_seat = state.graveyard_victim = -1
    state.graveyard_resume = ""


def pick_sequence(seats: int, crown: int) -> list:
    """Seats in picking order (CIT-19, CIT-24, CIT-25)."""
    order = [(crown + i) % seats for i in range(seats)]
    return order * 2 if seats <= 3 else order


def start_round(state: CitadelsState, events: list) -> str | None:
    """CIT-18..CIT-21: gather, shuffle, initial discards, first offer."""
    seats = state.seats
    state.round += 1
    state.phase, state.selection_step = SELECTION, PICK
    state.held = [[] for _ in range(seats)]
    state.my_discards = [[] for _ in range(seats)]
    state.seen = [[] for _ in range(seats)]
    state.shown_face_down = [0] * seats
    state.calling, state.active, state.active_rank = 0, -1, 0
    state.murdered = state.robbed = 0
    state.protected = -1
    state.revealed_ranks, state.revealed_seats = [], []
    reset_turn(state)
    events.append(Event("round_started", {"round": state.round, "crown": state.crown}))
    ranks = list(RANKS)
    shuffle(state.rng, ranks)
    state.face_down_ranks, state.face_down_by = [ranks.pop(0)], [-1]  # CIT-21.1 face down, hidden
    state.face_up = []
    king_aside = False
    while len(state.face_up) < DRAFT[seats]["face_up_start"]:
        rank = ranks.pop(0)
        if rank == KING and not state.options["king_may_be_face_up"]:  # CIT-21.2
            king_aside = True
            events.append(Event("king_set_aside", {"round": state.round}))
            continue
        state.face_up.append(rank)
        events.append(Event("face_up_discard", {"rank": rank}))
    if king_aside:  # CIT-21.3
        ranks.append(KING)
        shuffle(state.rng, ranks)
    state.pile = ranks
    state.sequence = pick_sequence(seats, state.crown)
    state.pick_number = 0
    return "offer"


def offer(state: CitadelsState, events: list) -> str | None:
    """Hand the pile to the next picker; he alone sees it (CIT-12)."""
    seat = state.sequence[state.pick_number]
    state.picker = seat
    shown = 0
    if state.seats == 7 and state.pick_number == 6:  # CIT-23: the last picker also takes the initial face-down card
        i = state.face_down_by.index(-1)
        shown = state.face_down_ranks.pop(i)
        del state.face_down_by[i]
        state.pile.append(shown)
        state.shown_face_down[seat] = shown
    ranks = sorted(state.pile)
    state.seen[seat].append(ranks)
    events.append(Event("characters_offered", {"seat": seat, "ranks": ranks[:], "face_down_rank": shown}, seat))
    return None


def after_pick(state: CitadelsState, events: list) -> str | None:
    """CIT-19: the pile passes on; after the last pick the turns begin."""
    state.pick_number += 1
    if state.pick_number < len(state.sequence):
        return "offer"
    last = state.sequence[-1]
    for rank in state.pile:  # CIT-22..CIT-25: the card not kept goes face down, known to the last picker
        state.face_down_ranks.append(rank)
        state.face_down_by.append(last)
        state.my_discards[last].append(rank)
        events.append(Event("character_discarded", {"seat": last, "rank": rank}, last))
    state.pile = []
    state.picker = -1
    state.phase = TURNS
    events.append(Event("selection_ended", {"round": state.round}))
    return "call_next"


def call_next(state: CitadelsState, events: list) -> str | None:
    """CIT-28: call the next rank that answers, or end the round."""
    while True:
        state.calling += 1
        rank = state.calling
        if rank > WARLORD:
            return "end_round"
        seat = holder(state, rank)
        if seat < 0 or rank == state.murdered:  # CIT-28, CIT-30: silence
            events.append(Event("character_called", {"rank": rank, "seat": -1}))
            continue
        reveal(state, rank, seat, events)
        return None


def reveal(state: CitadelsState, rank: int, seat: int, events: list) -> None:
    """CIT-29: the called character's seat plays; robbery, crown and protection take effect."""
    state.revealed_ranks.append(rank)
    state.revealed_seats.append(seat)
    state.active, state.active_rank = seat, rank
    reset_turn(state)
    events.append(Event("character_called", {"rank": rank, "seat": seat}))
    if rank == state.robbed:  # CIT-29.1, CIT-31
        thief = holder(state, THIEF)
        amount = state.gold[seat]
        state.gold[seat] = 0
        state.gold[thief] += amount
        events.append(Event("robbery", {"thief_seat": thief, "victim_seat": seat, "rank": rank, "amount": amount}))
    if rank == KING:  # CIT-29.2, CIT-49
        state.crown = seat
        events.append(Event("crown_taken", {"seat": seat}))
    if rank == BISHOP:  # CIT-29.3, CIT-50
        state.protected = seat


def end_round(state: CitadelsState, events: list) -> str | None:
    """CIT-33."""
    state.active, state.active_rank = -1, 0
    victim = holder(state, state.murdered) if state.murdered else -1
    state.last_murdered_seat = victim
    events.append(Event("round_ended", {"round": state.round, "murdered_rank": state.murdered,
                                        "murdered_seat": victim}))
    if state.murdered == KING and victim >= 0 and state.options["murdered_king_gets_crown"]:
        state.crown = victim
        events.append(Event("crown_taken", {"seat": victim}))
    if not state.final_round and not completable(state):  # CIT-69 gap, see completable()
        state.final_round, state.complete_round = True, state.round
        events.append(Event("game_stalled", {"round": state.round, "names_left": len(names_in_play(state))}))
    if state.final_round:  # CIT-69
        state.phase = OVER
        state.calling = 0
        state.result = score(state)
        events.append(Event("game_over", {"scores": state.result["scores"], "winners": list(state.result["winners"])}))
        return None
    return "start_round"


def finish_turn(state: CitadelsState, events: list) -> str | None:
    """CIT-32: the turn ends; the next rank is called."""
    events.append(Event("turn_ended", {"seat": state.active, "rank": state.active_rank}))
    return "call_next"


FLOW: Final[dict[str, Step]] = {
    "start_round": start_round,
    "offer": offer,
    "after_pick": after_pick,
    "call_next": call_next,
    "end_round": end_round,
    "finish_turn": finish_turn,
}

