"""Per-seat views (CIT-9..CIT-14) and determinization for information-set search."""
from __future__ import annotations

import random

from .cards import DECK_SIZE, DISTRICT, RANKS
from .rules import DEFAULT_OPTIONS, build_limit, pick_sequence, score
from .state import CitadelsState


def _card(c: int) -> dict:
    return {"card": c, "district": DISTRICT[c]}


def options_to_view(opts: dict) -> dict:
    """Options as CitadelsOptions fields (gold_supply and initial_crown are strings)."""
    out = dict(opts)
    out["gold_supply"] = str(opts["gold_supply"])
    out["initial_crown"] = str(opts["initial_crown"])
    return out


def options_from_view(d: dict) -> dict:
    out = dict(DEFAULT_OPTIONS)
    out.update({k: v for k, v in d.items() if k in DEFAULT_OPTIONS})
    for key, word in (("gold_supply", "unlimited"), ("initial_crown", "random")):
        if out[key] != word:
            out[key] = int(out[key])
    return out


def view(s: CitadelsState, seat) -> dict:
    me = -1 if seat is None else seat
    n = s.n
    players = []
    for p in range(n):
        revealed = [r for r, q in zip(s.revealed_ranks, s.revealed_seats) if q == p]
        players.append({
            "seat": p,
            "gold": s.gold[p],
            "hand_size": len(s.hands[p]),
            "city": [{"card": c, "district": DISTRICT[c], "round_built": s.built_in[c]} for c in s.cities[p]],
            "known_hand": [_card(c) for c in s.known_hand[p]],  # CIT-80
            "characters_held": len(s.held[p]),
            "revealed_ranks": revealed,
        })
    known_deck = []
    if s.deck_known:
        for i, c in enumerate(s.deck):
            knower = s.deck_known.get(c)
            if knower is not None and (knower == -1 or knower == me):
                known_deck.append({"card": c, "district": DISTRICT[c], "position": i, "public": knower == -1})
    mine = me >= 0
    keep_pending = s.phase == "turns" and s.step == "keep"
    v = {
        "seats": n,
        "viewer": me,
        "options": options_to_view(s.opts),
        "round": s.round,
        "phase": s.phase,
        "crown": s.crown,
        "deck_size": len(s.deck),
        "bank": max(s.bank, 0),
        "bank_unlimited": s.bank < 0,
        "players": players,
        "discard_pile": [_card(c) for c in s.discard_pile],
        "known_deck": known_deck,
        # selection (CIT-19..CIT-27)
        "face_up": list(s.face_up),
        "face_down_count": len(s.fd_ranks),
        "face_down_by": list(s.fd_by),
        "picker": s.picker if s.phase == "selection" else -1,
        "pick_number": s.pick_no,
        "selection_step": s.sel_step,
        "pile_size": len(s.pile),
        "offered": sorted(s.pile) if mine and s.phase == "selection" and s.picker == me else [],
        "hand": [_card(c) for c in s.hands[me]] if mine else [],
        "my_characters": list(s.held[me]) if mine else [],
        "my_face_down": list(s.my_discards[me]) if mine else [],
        "seen_sets": [{"ranks": list(x)} for x in s.seen[me]] if mine else [],
        "shown_face_down": s.shown_face_down[me] if mine else 0,
        # turns (CIT-28..CIT-56)
        "calling_rank": s.calling,
        "active_seat": s.active,
        "active_rank": s.active_rank,
        "revealed": [{"rank": r, "seat": q} for r, q in zip(s.revealed_ranks, s.revealed_seats)],
        "murdered_rank": s.murdered,
        "robbed_rank": s.robbed,
        "protected_seat": s.protected,
        "turn_step": s.step if s.phase == "turns" else "",
        "action_taken": s.action_taken,
        "income_taken": s.income_taken,
        "power_used": s.power_used,
        "laboratory_used": s.lab_used,
        "smithy_used": s.smithy_used,
        "warlord_used": s.warlord_used,
        "builds_made": s.builds,
        "builds_allowed": build_limit(s.active_rank) if s.active >= 0 else 0,
        "drawn_count": len(s.drawn) if keep_pending else 0,
        "keep_count": s.keep_n if keep_pending else 0,
        "drawn_cards": [_card(c) for c in s.drawn] if keep_pending and s.active == me else [],
        "graveyard_card": s.grave_card,
        "graveyard_seat": s.grave_seat,
        "graveyard_victim": s.grave_victim,
        "graveyard_resume": s.grave_resume,
        # end (CIT-69..CIT-76)
        "first_completer": s.first_completer,
        "complete_round": s.complete_round,
        "final_round": s.final_round,
        "last_murdered_seat": s.last_murdered_seat,
        "scores": list(s.result["scores"]) if s.result else [],
        "winners": list(s.result["winners"]) if s.result else [],
    }
    return v


# ---------------------------------------------------------------- determinize

def determinize(v: dict, seat: int, rng: random.Random) -> CitadelsState:
    """A full state agreeing with view `v` of `seat`; hidden parts resampled from rng.

    Hidden parts: other hands (minus publicly known cards), deck order (minus known
    positions), other seats' unrevealed characters, face-down characters the seat did
    not discard, another picker's pile, another player's pending drawn cards, RNG.
    Deductions from the draft (CIT-12) are not exploited, except that a rank already
    called without answer and not murdered is known to be out (CIT-28).
    """
    n = v["seats"]
    s = CitadelsState.__new__(CitadelsState)
    s.n = n
    s.opts = options_from_view(v["options"])
    s.rng = random.Random(rng.getrandbits(64))
    s.round, s.phase, s.crown = v["round"], v["phase"], v["crown"]
    s.bank = -1 if v["bank_unlimited"] else v["bank"]
    players = v["players"]
    s.gold = [p["gold"] for p in players]
    s.cities = [[d["card"] for d in p["city"]] for p in players]
    s.built_in = [-1] * DECK_SIZE
    for p in players:
        for d in p["city"]:
            s.built_in[d["card"]] = d["round_built"]
    s.discard_pile = [d["card"] for d in v["discard_pile"]]
    s.known_hand = [[d["card"] for d in p["known_hand"]] for p in players]

    # --- cards
    my_hand = [d["card"] for d in v["hand"]]
    placed = set(my_hand) | set(s.discard_pile)
    for city in s.cities:
        placed.update(city)
    for p in range(n):
        if p != seat:
            placed.update(s.known_hand[p])
    known_deck = {d["position"]: d for d in v["known_deck"]}
    placed.update(d["card"] for d in v["known_deck"])
    grave = v["graveyard_card"]
    if grave >= 0:
        placed.add(grave)
    pool = [c for c in range(DECK_SIZE) if c not in placed]
    rng.shuffle(pool)
    s.hands = []
    for p in range(n):
        if p == seat:
            s.hands.append(list(my_hand))
            continue
        known = s.known_hand[p]
        k = players[p]["hand_size"] - len(known)
        s.hands.append(list(known) + pool[:k])
        del pool[:k]
    s.deck = []
    s.deck_known = {}
    for i in range(v["deck_size"]):
        d = known_deck.get(i)
        if d is None:
            s.deck.append(pool.pop())
        else:
            s.deck.append(d["card"])
            s.deck_known[d["card"]] = -1 if d["public"] else seat
    assert not pool, "view inconsistent with the 66-card deck"
    s.grave_card, s.grave_seat = grave, v["graveyard_seat"]
    s.grave_victim, s.grave_resume = v["graveyard_victim"], v["graveyard_resume"]

    # --- turn scalars
    s.calling, s.active, s.active_rank = v["calling_rank"], v["active_seat"], v["active_rank"]
    s.murdered, s.robbed, s.protected = v["murdered_rank"], v["robbed_rank"], v["protected_seat"]
    s.step = v["turn_step"] or "main"
    s.action_taken, s.income_taken, s.power_used = v["action_taken"], v["income_taken"], v["power_used"]
    s.lab_used, s.smithy_used, s.warlord_used = v["laboratory_used"], v["smithy_used"], v["warlord_used"]
    s.builds, s.keep_n = v["builds_made"], v["keep_count"]
    if v["drawn_count"]:
        if s.active == seat:
            s.drawn = [d["card"] for d in v["drawn_cards"]]
        else:
            hidden = [c for c in s.hands[s.active] if c not in s.known_hand[s.active]]
            s.drawn = hidden[-v["drawn_count"]:]
    else:
        s.drawn = []
    s.revealed_ranks = [d["rank"] for d in v["revealed"]]
    s.revealed_seats = [d["seat"] for d in v["revealed"]]
    s.first_completer, s.complete_round = v["first_completer"], v["complete_round"]
    s.final_round, s.last_murdered_seat = v["final_round"], v["last_murdered_seat"]

    # --- characters
    _determinize_characters(s, v, seat, rng)
    s.result = score(s) if s.phase == "over" else None
    return s


def _determinize_characters(s: CitadelsState, v: dict, seat: int, rng: random.Random) -> None:
    n = s.n
    s.face_up = list(v["face_up"])
    s.sequence = pick_sequence(n, s.crown)
    s.pick_no, s.sel_step = v["pick_number"], v["selection_step"] or "pick"
    s.picker = v["picker"] if s.phase == "selection" else -1
    s.seen = [[] for _ in range(n)]
    s.seen[seat] = [list(d["ranks"]) for d in v["seen_sets"]]
    s.shown_face_down = [0] * n
    s.shown_face_down[seat] = v["shown_face_down"]
    s.my_discards = [[] for _ in range(n)]
    s.my_discards[seat] = list(v["my_face_down"])
    s.held = [[] for _ in range(n)]
    s.held[seat] = list(v["my_characters"])
    known = set(s.face_up) | set(s.held[seat]) | set(s.my_discards[seat])
    for p, r in zip(s.revealed_seats, s.revealed_ranks):
        if p != seat:
            s.held[p].append(r)
            known.add(r)
    my_pile = s.phase == "selection" and s.picker == seat
    if my_pile:
        s.pile = list(v["offered"])
        known.update(s.pile)
    unknown = [r for r in RANKS if r not in known]
    rng.shuffle(unknown)
    # ranks called without answer and not murdered are out of play (CIT-28)
    out = [r for r in unknown if s.phase != "selection" and r < s.calling and r != s.murdered]
    free = [r for r in unknown if r not in out]
    fd_by = list(v["face_down_by"])
    hidden_fd = [i for i, by in enumerate(fd_by) if by != seat]
    fd_ranks = [0] * len(fd_by)
    mine = iter(s.my_discards[seat])
    for i, by in enumerate(fd_by):
        if by == seat:
            fd_ranks[i] = next(mine)
    rng.shuffle(hidden_fd)
    for i in hidden_fd:
        fd_ranks[i] = out.pop() if out else free.pop()
        if fd_by[i] >= 0:
            s.my_discards[fd_by[i]].append(fd_ranks[i])
    s.fd_ranks, s.fd_by = fd_ranks, fd_by
    for p in range(n):
        if p != seat:
            for _ in range(v["players"][p]["characters_held"] - len(s.held[p])):
                s.held[p].append(free.pop())
    if not my_pile:
        s.pile = [free.pop() for _ in range(v["pile_size"])]
    assert not free and not out, "view inconsistent with the 8 characters"
