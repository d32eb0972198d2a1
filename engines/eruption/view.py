"""What a seat may know (ERU-33/34) and a full state rebuilt from it (`determinize`).

View keys are the EruptionView proto's field names.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

from . import board as B
from . import derived, draws
from .scoring import tiebreaks, wall_allowance, zone
from .setup import FLAGS, check_options, deck_for
from .state import Cells, EruptionState


def _materials(counts):
    return {m: counts[i] for i, m in enumerate(B.MATERIALS)}


def _tile_type(tile):
    return B.TILE_TYPE_OF[tile] if tile >= 0 else ""


def view(state, seat):
    """ERU-33/34: everything public, plus `seat`'s own hand."""
    return {
        "seat": -1 if seat is None else seat,
        "seats": state.seats,
        "options": dict(state.options),
        "active": state.active,
        "first_player": state.first_player,
        "turn": state.turn,
        "phase": state.phase,
        "villages": list(state.villages),
        "temperatures": list(state.temperatures),
        "zones": [zone(state, s) for s in range(state.seats)],
        "tiebreaks": tiebreaks(state),
        "stockpiles": [_materials(p) for p in state.stockpiles],
        "hand_sizes": [len(h) for h in state.hands],
        "hand": [] if seat is None else list(state.hands[seat]),
        "supply": _materials(state.supply),
        "removed_walls": _materials(state.removed_walls),
        "stack_count": len(state.stack),
        "draw_pile_count": len(state.draw_pile),
        "discard": list(state.discard),
        "tiles": [{"tile": t, "tile_type": B.TILE_TYPE_OF[t], "x": c[0], "y": c[1], "rotation": r}
                  for c, (t, r) in sorted(state.board.items())],
        "walls": [{"x": s[0], "y": s[1], "edge": e, "material": m}
                  for (s, e), m in sorted(state.walls.items())],
        "eruption_tiles": [{"number": k + 1, "status": state.eruption_status[k],
                            "holder": state.eruption_holder[k]} for k in range(3)],
        "drawn_tile": state.drawn_tile,
        "drawn_tile_type": _tile_type(state.drawn_tile),
        "quake_tile": state.quake_tile,
        "quake_tile_type": _tile_type(state.quake_tile),
        "placement_origin": state.placement_origin,
        "excluded": [{"x": c[0], "y": c[1]} for c in sorted(state.excluded)],
        "eruptions_placed": state.eruptions_placed,
        "walls_built": state.walls_built,
        "wall_allowance": wall_allowance(state, state.active),
        "end_trigger": state.end_trigger,
        "trigger_seat": state.trigger_seat,
        "turns_left": state.turns_left,
        "removed_tiles": list(state.removed_tiles),
        "burnout_removed_count": len(state.burnout_removed),
    }


def _unseen_cards(state, v, seat):
    """(own hand as seen, the cards `seat` has not seen, sorted): the other hands and the draw pile
    are dealt from those."""
    own = sorted(v["hand"]) if seat is not None and seat >= 0 else []
    unseen = Counter(deck_for(state.options))
    unseen.subtract(Counter(own))
    unseen.subtract(Counter(state.discard))
    return own, sorted(unseen.elements())


def _lay_board(state, v):
    state.board, state.lava = Cells(), Cells()
    for t in v["tiles"]:
        cell = (int(t["x"]), int(t["y"]))
        state.board[cell] = (int(t["tile"]), int(t["rotation"]))
        state.lava[cell] = B.MASK_OF_TILE[int(t["tile"])][int(t["rotation"])]
    state.walls = {((int(w["x"]), int(w["y"])), int(w["edge"])): w["material"] for w in v["walls"]}
    state.eruption_status = [""] * 3
    state.eruption_holder = [-1] * 3
    for et in v["eruption_tiles"]:
        k = int(et["number"]) - 1
        state.eruption_status[k] = et["status"]
        state.eruption_holder[k] = int(et["holder"])


def _turn_state(state, v):
    state.active = int(v["active"])
    state.first_player = int(v["first_player"])
    state.turn = int(v["turn"])
    state.phase = v["phase"]
    state.drawn_tile = int(v["drawn_tile"])
    state.quake_tile = int(v["quake_tile"])
    state.placement_origin = v["placement_origin"]
    state.excluded = {(int(c["x"]), int(c["y"])) for c in v["excluded"]}
    state.eruptions_placed = int(v["eruptions_placed"])
    state.walls_built = int(v["walls_built"])
    state.end_trigger = v["end_trigger"]
    state.trigger_seat = int(v["trigger_seat"])
    state.turns_left = int(v["turns_left"])
    state.removed_tiles = [int(t) for t in v["removed_tiles"]]


def _unseen_tiles(state):
    """The unseen tiles, in id order: the stack (its size is public) and, the rest, those a burnout removed."""
    known = set(state.removed_tiles) | {t for t, _ in state.board.values()} | {state.drawn_tile, state.quake_tile}
    return [t for t in B.LAVA_TILE_IDS if t not in known]


def determinize(v, seat, rng: random.Random) -> EruptionState:
    """A full state agreeing with view `v`; hands, pile and stack order and rng resampled."""
    template = _template(v, seat)
    state = _copy_public(template.state)
    state.rng = random.Random(rng.getrandbits(64))
    pool = template.pool[:]
    draws.shuffle(rng, pool)
    state.hands = [list(template.own) if s == seat else sorted([pool.pop() for _ in range(size)])
                   for s, size in enumerate(template.hand_sizes)]
    state.draw_pile = pool
    tiles = template.unseen_tiles[:]
    draws.shuffle(rng, tiles)
    k = template.stack_count
    state.stack, state.burnout_removed = tiles[:k], tiles[k:]
    state.derived = _root_answers(state)
    return state


class _Template:
    """What `determinize` makes of one view before it deals: the public state, the cards and tiles
    it deals from (a search determinizes one view again and again)."""

    view: dict[str, Any]  # the view it was made of (the same object) ...
    snapshot: dict[str, Any]  # ... and a copy of it then, to tell that it has not changed since
    seat: int | None
    state: EruptionState  # every public field of the state
    pool: list[str]  # the cards the other hands and the draw pile are dealt from, sorted
    own: list[str]  # the seat's own hand
    hand_sizes: list[int]
    unseen_tiles: list[int]  # the stack and the tiles a burnout removed, in id order
    stack_count: int


_LAST_TEMPLATE: list[_Template | None] = [None]


def _template(v, seat) -> _Template:
    """The template of view `v` for `seat`: the last one when `v` is the same view, unchanged since."""
    last = _LAST_TEMPLATE[0]
    if last is not None and last.view is v and last.seat == seat and last.snapshot == v:
        return last
    t = _Template()
    t.view, t.snapshot, t.seat = v, copy.deepcopy(v), seat
    t.state = state = EruptionState.__new__(EruptionState)
    seats = int(v["seats"])
    state.seats = seats
    state.options = check_options(seats, {k: v["options"][k] for k in FLAGS})
    state.villages = B.VILLAGES_BY_COUNT[seats]
    state.temperatures = [int(t) for t in v["temperatures"]]
    state.stockpiles = [[int(p[m]) for m in B.MATERIALS] for p in v["stockpiles"]]
    state.supply = [int(v["supply"][m]) for m in B.MATERIALS]
    state.removed_walls = [int(v["removed_walls"][m]) for m in B.MATERIALS]
    state.discard = list(v["discard"])
    t.own, t.pool = _unseen_cards(state, v, seat)
    t.hand_sizes = [int(size) for size in v["hand_sizes"]]
    _lay_board(state, v)
    _turn_state(state, v)
    t.unseen_tiles, t.stack_count = _unseen_tiles(state), int(v["stack_count"])
    _LAST_TEMPLATE[0] = t  # made whole before another search (thread) can see it
    return t


def _copy_public(base: EruptionState) -> EruptionState:
    """A template's state with its own copies of the parts a game changes (hidden parts not set)."""
    state = EruptionState.__new__(EruptionState)
    state.seats, state.options, state.villages = base.seats, base.options, base.villages
    state.temperatures = base.temperatures[:]
    state.stockpiles = [p[:] for p in base.stockpiles]
    state.supply, state.removed_walls, state.discard = base.supply[:], base.removed_walls[:], base.discard[:]
    state.board, state.lava, state.walls = base.board.copy(), base.lava.copy(), dict(base.walls)
    state.eruption_status, state.eruption_holder = base.eruption_status[:], base.eruption_holder[:]
    state.active, state.first_player, state.turn, state.phase = base.active, base.first_player, base.turn, base.phase
    state.drawn_tile, state.quake_tile, state.placement_origin = base.drawn_tile, base.quake_tile, base.placement_origin
    state.excluded = set(base.excluded)
    state.eruptions_placed, state.walls_built = base.eruptions_placed, base.walls_built
    state.end_trigger, state.trigger_seat, state.turns_left = base.end_trigger, base.trigger_seat, base.turns_left
    state.removed_tiles = base.removed_tiles[:]
    return state


_LAST_ROOT: list[derived.Derived | None] = [None]


def _root_answers(state):
    """A search determinizes one view again and again: the board answers made for the last
    determinized board serve the next one when it is the same board (`derived.of` checks)."""
    state.derived = _LAST_ROOT[0]
    _LAST_ROOT[0] = d = derived.of(state)
    derived.share(d)
    return d
