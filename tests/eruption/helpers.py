"""Builders for hand-made Eruption positions (worked examples of RULES.md)."""
from __future__ import annotations

import pickle
import random

import pytest

from engines.core import IllegalMove
from engines.eruption import GAME, flow
from engines.eruption import board as B


class FixedDice(random.Random):
    """An RNG whose randint returns scripted dice (white, orange, ...) then falls back."""

    def __init__(self, rolls, seed=0):
        super().__init__(seed)
        self.rolls = list(rolls)

    def randint(self, a, b):
        if self.rolls:
            return self.rolls.pop(0)
        return super().randint(a, b)


def take_tile_id(st, ttype):
    """Remove one tile of type `ttype` from the stack and return its id."""
    for t in reversed(st.stack):
        if B.TILE_TYPE_OF[t] == ttype:
            st.stack.remove(t)
            return t
    # Some worked examples use more copies of a type than the stack has (EX-4, EX-6 use two T2):
    # reuse an id of that type; such positions are not for conservation checks.
    return next(t for t in B.LAVA_TILE_IDS if B.TILE_TYPE_OF[t] == ttype)


def make_state(seats=2, options=None, seed=0, tiles=(), walls=None, temps=None, active=0,
               hands=None, phase="cards", eruptions=()):
    """A state with the given board, at `phase` of `active`'s turn.

    tiles: (type, cell, rotation); type "T7" with rotation = eruption number puts an eruption tile.
    walls: {(cell, edge): material}. eruptions: (number, status, holder) overrides.
    """
    st = GAME.new_state(seats, options or {}, seed)
    if st.drawn_tile >= 0:
        st.stack.append(st.drawn_tile)
    st.drawn_tile = -1
    st.placement_origin = ""
    st.active = active
    st.turn = 1
    for ttype, cell, r in tiles:
        if ttype == "T7":
            k = r - 1
            st.board[cell] = (B.ERUPTION_IDS[k], 0)
            st.lava[cell] = 63
            st.eruption_status[k] = "board"
            st.eruption_holder[k] = active
        else:
            t = take_tile_id(st, ttype)
            st.board[cell] = (t, r)
            st.lava[cell] = B.MASK_OF_TILE[t][r]
    for cell_edge, mat in (walls or {}).items():
        st.walls[cell_edge] = mat
        st.supply[B.MATERIAL_INDEX[mat]] -= 1
    if temps is not None:
        st.temperatures = list(temps)
    if hands is not None:
        for s in range(len(hands)):
            st.draw_pile += st.hands[s]
            st.hands[s] = []
        for s, hand in enumerate(hands):
            for card in hand:
                st.draw_pile.remove(card)
            st.hands[s] = sorted(hand)
    for number, status, holder in eruptions:
        st.eruption_status[number - 1] = status
        st.eruption_holder[number - 1] = holder
    st.phase = phase
    return st


def put_on_top(st, ttype):
    """Move a tile of type `ttype` to the top of the stack; return its id."""
    t = take_tile_id(st, ttype)
    st.stack.append(t)
    return t


def draw(st, ttype, origin="regular"):
    """Put a `ttype` tile on top and start a placement action for the active seat."""
    t = put_on_top(st, ttype)
    events = []
    assert flow.start_placement(st, origin, events)
    assert st.drawn_tile == t
    return t


def refused(st, seat, move, rule):
    """Assert `move` is refused citing `rule` and leaves the state bit-for-bit unchanged."""
    before = pickle.dumps(st)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(st) == before


def kinds(events):
    return [e.kind for e in events]


def of_kind(events, kind):
    return [e.data for e in events if e.kind == kind]
