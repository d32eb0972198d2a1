"""Per-seat views (CIT-9..CIT-14) and determinization for information-set search."""
from __future__ import annotations

import random
from typing import Any

from engines.draws import shuffle

from .cards import DECK_SIZE, DISTRICT, RANKS
from .flow import pick_sequence
from .legality import build_limit
from .scoring import score
from .setup import DEFAULT_OPTIONS
from .state import KEEP, MAIN, OVER, PICK, SELECTION, TURNS, CitadelsState


def _card(c: int) -> dict:
    return {"card": c, "district": DISTRICT[c]}


def options_to_view(options: dict) -> dict:
    """Options as CitadelsOptions fields (gold_supply and initial_crown are strings)."""
    out = dict(options)
    out["gold_supply"] = str(options["gold_supply"])
    out["initial_crown"] = str(options["initial_crown"])
    return out


def options_from_view(d: dict) -> dict:
    out = dict(DEFAULT_OPTIONS)
    out.update({k: v for k, v in d.items() if k in DEFAULT_OPTIONS})
    for key, word in (("gold_supply", "unlimited"), ("initial_crown", "random")):
        if out[key] != word:
            out[key] = int(out[key])
    return out


def view(state: CitadelsState, seat) -> dict:
    """CIT-9..14: the public state, plus what `seat` alone knows. Keys are CitadelsView fields."""
    me = -1 if seat is None else seat
    return {
        "seats": state.seats,
        "viewer": me,
        "options": options_to_view(state.options),
        "round": state.round,
        "phase": state.phase,
        "crown": state.crown,
        "deck_size": len(state.deck),
        "bank": max(state.bank, 0),
        "bank_unlimited": state.bank < 0,
        "players": [_player(state, p) for p in range(state.seats)],
        "discard_pile": [_card(c) for c in state.discard_pile],
        "known_deck": _known_deck(state, me),
        **_selection_view(state, me),
        **_turn_view(state, me),
        # end (CIT-69..CIT-76)
        "first_completer": state.first_completer,
        "complete_round": state.complete_round,
        "final_round": state.final_round,
        "last_murdered_seat": state.last_murdered_seat,
        "scores": list(state.result["scores"]) if state.result else [],
        "winners": list(state.result["winners"]) if state.result else [],
    }


def _player(state: CitadelsState, p: int) -> dict:
    return {
        "seat": p,
        "gold": state.gold[p],
        "hand_size": len(state.hands[p]),
        "city": [{"card": c, "district": DISTRICT[c], "round_built": state.built_in[c]} for c in state.cities[p]],
        "known_hand": [_card(c) for c in state.known_hand[p]],  # CIT-80
        "characters_held": len(state.held[p]),
        "revealed_ranks": [r for r, q in zip(state.revealed_ranks, state.revealed_seats) if q == p],
    }


def _known_deck(state: CitadelsState, me: int) -> list:
    """Deck positions known to everyone, or to `me` (cards it put at the bottom)."""
    known_deck = []
    if state.deck_known:
        for i, c in enumerate(state.deck):
            knower = state.deck_known.get(c)
            if knower is not None and (knower == -1 or knower == me):
                known_deck.append({"card": c, "district": DISTRICT[c], "position": i, "public": knower == -1})
    return known_deck


def _selection_view(state: CitadelsState, me: int) -> dict:
    """CIT-19..CIT-27, and the seat's own hand and characters."""
    mine = me >= 0
    return {
        "face_up": list(state.face_up),
        "face_down_count": len(state.face_down_ranks),
        "face_down_by": list(state.face_down_by),
        "picker": state.picker if state.phase == SELECTION else -1,
        "pick_number": state.pick_number,
        "selection_step": state.selection_step,
        "pile_size": len(state.pile),
        "offered": sorted(state.pile) if mine and state.phase == SELECTION and state.picker == me else [],
        "hand": [_card(c) for c in state.hands[me]] if mine else [],
        "my_characters": list(state.held[me]) if mine else [],
        "my_face_down": list(state.my_discards[me]) if mine else [],
        "seen_sets": [{"ranks": list(x)} for x in state.seen[me]] if mine else [],
        "shown_face_down": state.shown_face_down[me] if mine else 0,
    }


def _turn_view(state: CitadelsState, me: int) -> dict:
    """CIT-28..CIT-56."""
    keep_pending = state.phase == TURNS and state.step == KEEP
    return {
        "calling_rank": state.calling,
        "active_seat": state.active,
        "active_rank": state.active_rank,
        "revealed": [{"rank": r, "seat": q} for r, q in zip(state.revealed_ranks, state.revealed_seats)],
        "murdered_rank": state.murdered,
        "robbed_rank": state.robbed,
        "protected_seat": state.protected,
        "turn_step": state.step if state.phase == TURNS else "",
        "action_taken": state.action_taken,
        "income_taken": state.income_taken,
        "power_used": state.power_used,
        "laboratory_used": state.laboratory_used,
        "smithy_used": state.smithy_used,
        "warlord_used": state.warlord_used,
        "builds_made": state.builds_made,
        "builds_allowed": build_limit(state.active_rank) if state.active >= 0 else 0,
        "drawn_count": len(state.drawn) if keep_pending else 0,
        "keep_count": state.keep_count if keep_pending else 0,
        "drawn_cards": [_card(c) for c in state.drawn] if keep_pending and state.active == me else [],
        "graveyard_card": state.graveyard_card,
        "graveyard_seat": state.graveyard_seat,
        "graveyard_victim": state.graveyard_victim,
        "graveyard_resume": state.graveyard_resume,
    }


# ---------------------------------------------------------------- determinize

def determinize(v: dict[str, Any], seat: int | None, rng: random.Random) -> CitadelsState:
    """A full state agreeing with view `v` of `seat` (None: a spectator); hidden parts resampled from rng.

    Hidden parts: other hands (minus publicly known cards), deck order (minus known
    positions), other seats' unrevealed characters, face-down characters the seat did
    not discard, another picker's pile, another player's pending drawn cards, RNG.
    Deductions from the draft (CIT-12) are not exploited, except that a rank already
    called without answer and not murdered is known to be out (CIT-28).
    """
    seats = v["seats"]
    state = CitadelsState.__new__(CitadelsState)
    state.seats = seats
    state.options = options_from_view(v["options"])
    state.rng = random.Random(rng.getrandbits(64))
    state.round, state.phase, state.crown = v["round"], v["phase"], v["crown"]
    state.bank = -1 if v["bank_unlimited"] else v["bank"]
    players = v["players"]
    state.gold = [p["gold"] for p in players]
    state.cities = [[d["card"] for d in p["city"]] for p in players]
    state.built_in = [-1] * DECK_SIZE
    for p in players:
        for d in p["city"]:
            state.built_in[d["card"]] = d["round_built"]
    state.discard_pile = [d["card"] for d in v["discard_pile"]]
    state.known_hand = [[d["card"] for d in p["known_hand"]] for p in players]

    _deal_cards(state, v, seat, rng)
    _turn_parts(state, v, seat)
    _determinize_characters(state, v, seat, rng)
    state.result = score(state) if state.phase == OVER else None
    return state


def _deal_cards(state: CitadelsState, v: dict, seat, rng: random.Random) -> None:
    """Other hands (beyond their publicly known cards) and the deck (beyond its known positions)."""
    seats, players = state.seats, v["players"]
    my_hand = [d["card"] for d in v["hand"]]
    placed = set(my_hand) | set(state.discard_pile)
    for city in state.cities:
        placed.update(city)
    for p in range(seats):
        if p != seat:
            placed.update(state.known_hand[p])
    known_deck = {d["position"]: d for d in v["known_deck"]}
    placed.update(d["card"] for d in v["known_deck"])
    grave = v["graveyard_card"]
    if grave >= 0:
        placed.add(grave)
    pool = [c for c in range(DECK_SIZE) if c not in placed]
    shuffle(rng, pool)
    state.hands = []
    for p in range(seats):
        if p == seat:
            state.hands.append(list(my_hand))
            continue
        known = state.known_hand[p]
        k = players[p]["hand_size"] - len(known)
        state.hands.append(list(known) + pool[:k])
        del pool[:k]
    state.deck_known = {}
    if not known_deck and len(pool) == v["deck_size"]:  # no known position: the loop below, at once
        state.deck, pool = pool[::-1], []
    else:
        state.deck = []
        for i in range(v["deck_size"]):
            d = known_deck.get(i)
            if d is None:
                state.deck.append(pool.pop())
            else:
                state.deck.append(d["card"])
                state.deck_known[d["card"]] = -1 if d["public"] else seat
    assert not pool, "view inconsistent with the 66-card deck"
    state.graveyard_card, state.graveyard_seat = grave, v["graveyard_seat"]
    state.graveyard_victim, state.graveyard_resume = v["graveyard_victim"], v["graveyard_resume"]


def _turn_parts(state: CitadelsState, v: dict, seat) -> None:
    """The turn's public counters, and the pending drawn cards (another seat's resampled)."""
    state.calling, state.active, state.active_rank = v["calling_rank"], v["active_seat"], v["active_rank"]
    state.murdered, state.robbed, state.protected = v["murdered_rank"], v["robbed_rank"], v["protected_seat"]
    state.step = v["turn_step"] or MAIN
    state.action_taken, state.income_taken, state.power_used = v["action_taken"], v["income_taken"], v["power_used"]
    state.laboratory_used, state.smithy_used = v["laboratory_used"], v["smithy_used"]
    state.warlord_used = v["warlord_used"]
    state.builds_made, state.keep_count = v["builds_made"], v["keep_count"]
    if v["drawn_count"]:
        if state.active == seat:
            state.drawn = [d["card"] for d in v["drawn_cards"]]
        else:
            hidden = [c for c in state.hands[state.active] if c not in state.known_hand[state.active]]
            state.drawn = hidden[-v["drawn_count"]:]
    else:
        state.drawn = []
    state.revealed_ranks = [d["rank"] for d in v["revealed"]]
    state.revealed_seats = [d["seat"] for d in v["revealed"]]
    state.first_completer, state.complete_round = v["first_completer"], v["complete_round"]
    state.final_round, state.last_murdered_seat = v["final_round"], v["last_murdered_seat"]


def _own_draft(state: CitadelsState, v: dict, seat) -> set:
    """What `seat` knows of the draft (CIT-12): its characters, its face-down discards and the
    piles it was handed; nothing for a spectator (seat None). Returns the ranks it accounts for."""
    seats = state.seats
    state.seen = [[] for _ in range(seats)]
    state.shown_face_down = [0] * seats
    state.my_discards = [[] for _ in range(seats)]
    state.held = [[] for _ in range(seats)]
    if seat is None:
        return set()
    state.seen[seat] = [list(d["ranks"]) for d in v["seen_sets"]]
    state.shown_face_down[seat] = v["shown_face_down"]
    state.my_discards[seat] = list(v["my_face_down"])
    state.held[seat] = list(v["my_characters"])
    return set(state.held[seat]) | set(state.my_discards[seat])


def _determinize_characters(state: CitadelsState, v: dict, seat, rng: random.Random) -> None:
    seats = state.seats
    state.face_up = list(v["face_up"])
    state.sequence = pick_sequence(seats, state.crown)
    state.pick_number, state.selection_step = v["pick_number"], v["selection_step"] or PICK
    state.picker = v["picker"] if state.phase == SELECTION else -1
    known = set(state.face_up) | _own_draft(state, v, seat)
    for p, r in zip(state.revealed_seats, state.revealed_ranks):
        if p != seat:
            state.held[p].append(r)
            known.add(r)
    my_pile = state.phase == SELECTION and state.picker == seat
    if my_pile:
        state.pile = list(v["offered"])
        known.update(state.pile)
    unknown = [r for r in RANKS if r not in known]
    shuffle(rng, unknown)
    # ranks called without answer and not murdered are out of play (CIT-28)
    out = [r for r in unknown if state.phase != SELECTION and r < state.calling and r != state.murdered]
    free = [r for r in unknown if r not in out]
    face_down_by = list(v["face_down_by"])
    hidden_fd = [i for i, by in enumerate(face_down_by) if by != seat]
    face_down_ranks = [0] * len(face_down_by)
    mine = iter(v["my_face_down"])
    for i, by in enumerate(face_down_by):
        if by == seat:
            face_down_ranks[i] = next(mine)
    shuffle(rng, hidden_fd)
    for i in hidden_fd:
        face_down_ranks[i] = out.pop() if out else free.pop()
        if face_down_by[i] >= 0:
            state.my_discards[face_down_by[i]].append(face_down_ranks[i])
    state.face_down_ranks, state.face_down_by = face_down_ranks, face_down_by
    for p in range(seats):
        if p != seat:
            for _ in range(v["players"][p]["characters_held"] - len(state.held[p])):
                state.held[p].append(free.pop())
    if not my_pile:
        state.pile = [free.pop() for _ in range(v["pile_size"])]
    assert not free and not out, "view inconsistent with the 8 characters"
