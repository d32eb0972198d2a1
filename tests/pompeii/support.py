"""Helpers for the Pompeii tests: build positions by hand (test decks are allowed by POM-25)."""
from __future__ import annotations

import pickle
import random

import pytest

from engines import core
from engines.core import IllegalMove
from engines.pompeii import GAME
from engines.pompeii import board as B
from engines.pompeii.state import ESCAPE, FIRST_MOVE, PLACE_LAVA, PompeiiState


def cell(r, c):
    return r * B.COLS + c


def new(players=2, seed=0, **options):
    return GAME.new_state(players, options, seed)


def put(state: PompeiiState, square, seat, n=1):
    state.people[cell(*square) * state.seats + seat] += n


def count(state, square, seat=None):
    c = cell(*square)
    return state.on_cell(c) if seat is None else state.count(c, seat)


def cover(state, square, symbol):
    c = cell(*square)
    state.lava[c] = symbol
    state.lava_order.append((c, symbol))


def settle_position(players=2, hands=None, deck_top=(), first_ad79=True, turn=0, **options):
    """A phase-1 position; `deck_top` lists the next draws, first drawn first."""
    s = new(players, **options)
    if hands is not None:
        s.hands = [list(h) for h in hands]
    s.first_ad79 = first_ad79
    # the scripted draws on top, then a buffer of Pompeii cards, then the second AD79
    s.deck = [B.AD79] + [5] * 10 + list(deck_top)[::-1]
    s.turn = turn
    return s


def escape_position(players=2, turn=0, tile="scroll", step=PLACE_LAVA, **options):
    """A phase-2 position with an empty board and `tile` pending for seat `turn`."""
    s = new(players, **options)
    s.phase = ESCAPE
    s.step = step
    s.hands = [[] for _ in range(players)]
    s.supply = [0] * players
    s.turn = turn
    s.eruption_seat = (turn - 1) % players
    s.opening_drawn = 6
    s.pending_tile = tile if step == PLACE_LAVA else ""
    if tile in B.TILE_KINDS and step == PLACE_LAVA:
        s.bag[B.TILE_KINDS.index(tile)] -= 1
    return s


def start_moves(state, seat=None):
    """Skip straight to the first move of `seat` (records lone people as POM-94 asks)."""
    seat = state.turn if seat is None else seat
    p = state.seats
    state.turn = seat
    state.pending_tile = ""
    state.step = FIRST_MOVE
    state.lone = tuple(c for c in B.CITY if state.people[c * p + seat] == 1 and state.on_cell(c) == 1)
    state.moves_made = 0
    state.first_end = -1
    state.first_lone = False
    return state


def refused(state, seat, move, rule):
    """The move is refused citing `rule` and the state stays bit-for-bit unchanged."""
    before = pickle.dumps(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, seat, move)
    assert err.value.rule == rule, err.value
    assert pickle.dumps(state) == before
    return err.value


def squares(moves, kind=None):
    return sorted(tuple(m.square) for m in moves if kind is None or type(m) is kind)


def play_random(state, rng: random.Random):
    return core.play_random(GAME, state, rng)
