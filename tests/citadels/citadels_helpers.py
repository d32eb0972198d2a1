"""Scenario builders for Citadels rule tests (tests only; they edit states directly)."""
from __future__ import annotations

import random

from engines.citadels import GAME, flow
from engines.citadels.cards import DISTRICT
from engines.core import (
    advance,
    play_random,  # noqa: F401  (re-export for tests)
)


def card_of(s, district: str, exclude=()) -> int:
    """A card id of `district` taken preferably from the deck (else from a hand)."""
    for c in s.deck:
        if DISTRICT[c] == district and c not in exclude:
            return c
    for hand in s.hands:
        for c in hand:
            if DISTRICT[c] == district and c not in exclude:
                return c
    raise LookupError(district)


def _lift(s, c: int) -> None:
    if c in s.deck:
        s.deck.remove(c)
        return
    for hand in s.hands:
        if c in hand:
            hand.remove(c)
            return
    for city in s.cities:
        if c in city:
            city.remove(c)
            return
    raise LookupError(c)


def give(s, seat: int, district: str, to: str = "hand", built_round: int = 0) -> int:
    """Move a card of `district` into seat's hand or city (keeps the 66-card total)."""
    c = card_of(s, district)
    _lift(s, c)
    if to == "hand":
        s.hands[seat].append(c)
    else:
        s.cities[seat].append(c)
        s.built_in[c] = built_round
    return c


def clear_hand(s, seat: int) -> None:
    s.deck.extend(s.hands[seat])
    s.hands[seat] = []


def deal_round(s, held: dict, face_up=()) -> list:
    """Skip the draft: seats hold `held` = {seat: [ranks]}; the rest is face down. Starts calling."""
    s.held = [list(held.get(p, [])) for p in range(s.seats)]
    used = {r for rs in held.values() for r in rs} | set(face_up)
    s.face_up = list(face_up)
    s.face_down_ranks = [r for r in range(1, 9) if r not in used]
    s.face_down_by = [-1] * len(s.face_down_ranks)
    s.pile, s.picker, s.phase = [], -1, "turns"
    s.calling = 0
    ev: list = []
    advance(flow.FLOW, s, ev, "call_next")
    return ev


def new(n: int, seed: int = 0, **options):
    return GAME.new_state(n, options, seed)


def play(s, seat, *moves):
    ev = []
    for mv in moves:
        ev.extend(GAME.apply(s, seat, mv))
    return ev


def random_game(n: int, seed: int, options=None):
    s = GAME.new_state(n, options or {}, seed)
    rng = random.Random(seed)
    log = play_random(GAME, s, rng)
    return s, log
