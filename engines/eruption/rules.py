"""Eruption rules: state, geometry queries, turn machine and move resolution.

Rule ids (ERU-n) refer to docs/rules/eruption.md.
"""
from __future__ import annotations

import random
from functools import lru_cache
from itertools import permutations

from engines.core import Event, IllegalMove, InvalidOptions

from . import board as B
from .spec import SPEC
from .moves import (
    BuildWall, DiscardForTile, DiscardForWall, DiscardSurplus, DrawExtraTile, EndCards,
    EndPlacement, EndTurn, PlaceEruption, PlaceTile, PlayAftershock, PlayLavaFlow, PlayQuake,
    PlayRain, PlayReinforce, PlayRelocate, PlaySinkhole, PlayVolcanicBomb, QuakeReplace,
)

# Configuration flags (spec.py): name -> (default, allowed values)
FLAGS = {o.name: (o.default, o.allowed) for o in SPEC.options}

PHASES = ("eruption", "placement", "extra_placement", "cards", "quake", "walls", "over")


def default_options():
    return {k: v[0] for k, v in FLAGS.items()}


def check_options(seats, options):
    if not isinstance(seats, int) or not 2 <= seats <= 6:
        raise InvalidOptions("ERU-1", f"Eruption is for 2 to 6 players, not {seats}.")
    full = default_options()
    for k, v in dict(options or {}).items():
        if k not in FLAGS:
            raise InvalidOptions("ERU-1", f"unknown option {k!r}")
        allowed = FLAGS[k][1]
        if type(v) is not type(FLAGS[k][0]) or v not in allowed:
            raise InvalidOptions("ERU-1", f"option {k!r} must be one of {list(allowed)}, not {v!r}")
        full[k] = v
    return full


class State:
    """The whole game. Hidden parts: hands, draw_pile order, stack order, burnout_removed, rng."""

    __slots__ = (
        "n", "options", "rng", "villages", "temps", "stockpiles", "hands", "draw_pile", "discard",
        "stack", "board", "lava", "walls", "supply", "eruption_holder", "eruption_status",
        "active", "first_player", "turn", "phase", "drawn", "quake_tile", "origin", "excluded",
        "eruptions_placed", "walls_built", "end_trigger", "trigger_seat", "turns_left",
        "removed_tiles", "burnout_removed", "removed_walls",
    )

    def clone(self):
        s = State.__new__(State)
        s.n = self.n
        s.options = self.options
        s.rng = random.Random()
        s.rng.setstate(self.rng.getstate())
        s.villages = self.villages
        s.temps = self.temps[:]
        s.stockpiles = [p[:] for p in self.stockpiles]
        s.hands = [h[:] for h in self.hands]
        s.draw_pile = self.draw_pile[:]
        s.discard = self.discard[:]
        s.stack = self.stack[:]
        s.board = dict(self.board)
        s.lava = dict(self.lava)
        s.walls = dict(self.walls)
        s.supply = self.supply[:]
        s.eruption_holder = self.eruption_holder[:]
        s.eruption_status = self.eruption_status[:]
        s.active = self.active
        s.first_player = self.first_player
        s.turn = self.turn
        s.phase = self.phase
        s.drawn = self.drawn
        s.quake_tile = self.quake_tile
        s.origin = self.origin
        s.excluded = set(self.excluded)
        s.eruptions_placed = self.eruptions_placed
        s.walls_built = self.walls_built
        s.end_trigger = self.end_trigger
        s.trigger_seat = self.trigger_seat
        s.turns_left = self.turns_left
        s.removed_tiles = self.removed_tiles[:]
        s.burnout_removed = self.burnout_removed[:]
        s.removed_walls = self.removed_walls[:]
        return s

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, d):
        for k, v in d.items():
            setattr(self, k, v)


def deck_for(options):
    """ERU-5: the action deck, Rain left out with exclude_rain_cards."""
    deck = []
    for kind in B.CARD_KINDS:
        if kind == "rain" and options["exclude_rain_cards"]:
            continue
        deck += [kind] * B.CARD_COUNT[kind]
    return deck


def new_state(seats, options, seed):
    opts = check_options(seats, options)
    st = State.__new__(State)
    st.n = seats
    st.options = opts
    st.rng = random.Random(seed)
    st.villages = B.VILLAGES_BY_COUNT[seats]  # ERU-16
    st.temps = [0] * seats
    st.stockpiles = [[1, 1, 1] for _ in range(seats)]  # ERU-31.4
    st.supply = [B.SUPPLY[i] - seats for i in range(3)]
    st.stack = list(B.LAVA_TILE_IDS)  # ERU-31.1
    st.rng.shuffle(st.stack)
    st.draw_pile = deck_for(opts)  # ERU-31.3
    st.rng.shuffle(st.draw_pile)
    st.hands = []
    for _ in range(seats):
        st.hands.append(sorted(st.draw_pile.pop() for _ in range(B.STARTING_CARDS)))
    st.discard = []
    st.board, st.lava, st.walls = {}, {}, {}
    st.eruption_holder = [-1, -1, -1]
    st.eruption_status = ["unclaimed"] * 3
    st.first_player = st.rng.randrange(seats)  # ERU-32
    st.active = st.first_player
    st.turn = 0
    st.phase = "placement"
    st.drawn = st.quake_tile = -1
    st.origin = ""
    st.excluded = set()
    st.eruptions_placed = st.walls_built = 0
    st.end_trigger = ""
    st.trigger_seat = st.turns_left = -1
    st.removed_tiles, st.burnout_removed = [], []
    st.removed_walls = [0, 0, 0]
    events = []
    begin_turn(st, events)
    return st, events


# ---------------------------------------------------------------- geometry queries

def thresholds(st):
    return B.ZONE_THRESHOLDS[st.options["zone_thresholds"]]  # ERU-140


def zone(st, seat):
    t = st.temps[seat]
    z = 0
    for k, th in enumerate(thresholds(st)):
        if t >= th:
            z = k + 1
    return z


def constraints(st, s):
    """ERU-19: (lava_in, constrained) edge masks of space s from its neighbours."""
    lava_in = B.VOLCANO_LAVA_IN[s]
    constrained = B.VOLCANO_CONSTRAINED[s]
    lava = st.lava
    for e, n in enumerate(B.NEIGHBOUR_SPACE[s]):
        if n is not None:
            m = lava.get(n)
            if m is not None:
                constrained |= 1 << e
                if m >> B.OPP[e] & 1:
                    lava_in |= 1 << e
    return lava_in, constrained


def open_ends(st):
    """ERU-23: empty space -> mask of its edges facing lava."""
    ends = {}
    board = st.board
    for vc, e, s in B.EXITS:
        if s not in board:
            ends[s] = ends.get(s, 0) | 1 << B.OPP[e]
    for c, m in st.lava.items():
        nb = B.NEIGHBOUR_SPACE[c]
        for e in B.EDGES_OF_MASK[m]:
            n = nb[e]
            if n is not None and n not in board:
                ends[n] = ends.get(n, 0) | 1 << B.OPP[e]
    return ends


def tile_placements(st, tile, excluded=()):
    """ERU-72: every legal (space, rotation) for lava tile `tile`, skipping excluded spaces."""
    masks = B.MASK_OF_TILE[tile]
    out = []
    for s in sorted(open_ends(st)):
        if s in excluded:
            continue
        li, co = constraints(st, s)
        for r in range(6):
            if masks[r] & co == li:  # rule 2; rule 3 holds since li != 0
                out.append((s, r))
    return out


def is_placeable(st, tile):
    """ERU-71: at least one legal placement on a non-excluded space."""
    masks = B.MASK_OF_TILE[tile]
    for s in open_ends(st):
        if s in st.excluded:
            continue
        li, co = constraints(st, s)
        for m in masks:
            if m & co == li:
                return True
    return False


def eruption_spaces(st):
    """ERU-63: empty playable spaces where every constrained edge shows lava."""
    out = []
    board = st.board
    for s in B.PLAYABLE:
        if s not in board:
            li, co = constraints(st, s)
            if li == co:
                out.append(s)
    return out


def eruption_cells(st):
    return {c for c, (t, _) in st.board.items() if t >= B.ERUPTION_IDS[0]}


def card_tiles(st):
    """ERU-66: the tiles Quake, Aftershock and Sinkhole may act on. Seed 002 names lava tiles (岩漿板塊),
    not eruption tiles (爆發板塊); `cards_act_on_eruption_tiles` lets them act on both."""
    if st.options["cards_act_on_eruption_tiles"]:
        return sorted(st.board)
    return sorted(c for c, (t, _) in st.board.items() if t < B.ERUPTION_IDS[0])


def all_linked(lava, sources):
    """ERU-21: every tile of `lava` reaches the volcano or an eruption tile in `sources`."""
    seen = set()
    todo = []
    for vc, e, s in B.EXITS:
        m = lava.get(s)
        if m is not None and m >> B.OPP[e] & 1 and s not in seen:
            seen.add(s)
            todo.append(s)
    for c in sources:
        if c in lava and c not in seen:
            seen.add(c)
            todo.append(c)
    while todo:
        c = todo.pop()
        nb = B.NEIGHBOUR_SPACE[c]
        for e in B.EDGES_OF_MASK[lava[c]]:
            n = nb[e]
            if n is not None and n not in seen:
                m = lava.get(n)
                if m is not None and m >> B.OPP[e] & 1:
                    seen.add(n)
                    todo.append(n)
    return len(seen) == len(lava)


def walls_of_tile(st, c, mask=None):
    """ERU-24: open-end walls belonging to the tile on c."""
    out = []
    nb = B.NEIGHBOUR_SPACE[c]
    for e in B.EDGES_OF_MASK[st.lava[c] if mask is None else mask]:
        n = nb[e]
        if n is not None and n not in st.board:
            pos = (n, B.OPP[e])
            if pos in st.walls:
                out.append(pos)
    return out


def sinkhole_targets(st):
    """ERU-121: tiles whose removal keeps every other tile linked to a source.

    Lava links form an undirected graph; join every source tile (exit tile or
    eruption tile) to one virtual root. A tile is removable exactly when it is
    not an articulation point of that graph (Tarjan's low-link, iterative).
    """
    lava = st.lava
    root = None
    adj = {root: []}
    for c, m in lava.items():
        nb = B.NEIGHBOUR_SPACE[c]
        links = []
        for e in B.EDGES_OF_MASK[m]:
            n = nb[e]
            if n is not None and lava.get(n, 0) >> B.OPP[e] & 1:
                links.append(n)
        adj[c] = links
    sources = {s for vc, e, s in B.EXITS if lava.get(s, 0) >> B.OPP[e] & 1} | eruption_cells(st)
    for c in sources:
        adj[root].append(c)
        adj[c].append(root)
    disc = {root: 0}
    low = {root: 0}
    cut = set()
    todo = [(root, None, iter(adj[root]))]
    while todo:
        u, parent, it = todo[-1]
        for v in it:
            if v == parent:
                continue
            if v in disc:
                if disc[v] < low[u]:
                    low[u] = disc[v]
            else:
                disc[v] = low[v] = len(disc)
                todo.append((v, u, iter(adj[v])))
                break
        else:
            todo.pop()
            if parent is not None or todo:
                if low[u] < low[parent]:
                    low[parent] = low[u]
                if parent is not None and low[u] >= disc[parent]:
                    cut.add(parent)
    return [c for c in card_tiles(st) if c not in cut]


def sinkhole_targets_slow(st):
    """ERU-121 by definition (one search per tile); the reference for tests."""
    sources = eruption_cells(st)
    out = []
    for c in card_tiles(st):
        lava = dict(st.lava)
        del lava[c]
        if all_linked(lava, sources - {c}):
            out.append(c)
    return out


def aftershock_turns(st):
    """ERU-119: (cell, new rotation) pairs that keep rule 2 on every constrained edge."""
    out = []
    for c in card_tiles(st):
        tile, r0 = st.board[c]
        li, co = constraints(st, c)
        masks = B.MASK_OF_TILE[tile]
        for r in range(6):
            if r != r0 and masks[r] & co == li:
                out.append((c, r))
    return out


def quake_replacements(st, tile, first_only=False):
    """ERU-123: (cell, rotation) where `tile` may replace the board tile."""
    masks = B.MASK_OF_TILE[tile]
    sources = eruption_cells(st)
    out = []
    for c in card_tiles(st):
        li, co = constraints(st, c)
        if not li:
            continue
        for r in range(6):
            m = masks[r]
            if m & co != li:
                continue
            if c in sources:
                lava = dict(st.lava)
                lava[c] = m
                if not all_linked(lava, sources - {c}):
                    continue
            out.append((c, r))
            if first_only:
                return out
    return out


def own_entries(st, seat):
    return B.ENTRIES[st.villages[seat]]


def wall_positions(st, seat):
    """ERU-90/91: free legal wall positions for `seat`."""
    walls = st.walls
    out = []
    for s, li in sorted(open_ends(st).items()):
        for e in B.EDGES_OF_MASK[li]:
            if (s, e) not in walls:
                out.append((s, e))
    for pos in own_entries(st, seat):
        if pos not in walls:
            out.append(pos)
    return out


def wall_position_error(st, seat, cell, edge):
    """The rule a wall on (cell, edge) would break, or None."""
    if not isinstance(edge, int) or not 0 <= edge <= 5 or cell not in B.PLAYABLE_SET:
        return ("ERU-24", "a wall position is a playable space and an edge 0..5")
    if (cell, edge) in B.SEA_EDGES:
        return ("ERU-17", "walls cannot be built on sea edges")
    if (cell, edge) in st.walls:
        return ("ERU-91", f"position {cell}:{B.EDGE_NAMES[edge]} already holds a wall")
    village = B.ENTRY_VILLAGE.get((cell, edge))
    if village is not None:
        if village != st.villages[seat]:
            return ("ERU-90", "walls may not go on another village's entry positions")
        return None
    if cell in st.board:
        return ("ERU-90", "walls may not go between two tiles or a tile and the volcano")
    li, _ = constraints(st, cell)
    if not li >> edge & 1:
        return ("ERU-90", "a wall needs an open lava end or an entry position of your own village")
    return None


@lru_cache(maxsize=None)
def _flow_masks(villages, count_unoccupied):
    """Space -> mask of its edges on entry positions of the villages that earn cards."""
    counted = set(range(6)) if count_unoccupied else set(villages)
    out = {}
    for s, per in B.ENTRY_MASK_BY_VILLAGE.items():
        m = 0
        for v, vm in per.items():
            if v in counted:
                m |= vm
        if m:
            out[s] = m
    return out


def flow_mask(st, s):
    return _flow_masks(st.villages, st.options["cards_for_unoccupied_villages"]).get(s, 0)


def flows_into(st, village):
    """ERU-22: entry positions of `village` that carry a flow."""
    out = []
    for s, e in B.ENTRIES[village]:
        m = st.lava.get(s)
        if m is not None and m >> e & 1:
            out.append((s, e))
    return out


def tiebreak_value(st, seat):
    """ERU-155."""
    v = st.villages[seat]
    value = sum(B.TIEBREAK[m] * k for m, k in zip(B.MATERIALS, st.stockpiles[seat]))
    for pos in B.ENTRIES[v]:
        mat = st.walls.get(pos)
        if mat is not None:
            value += B.TIEBREAK[mat]
    return value - len(flows_into(st, v))


# ---------------------------------------------------------------- effects

def cell_dict(c):
    return {"x": c[0], "y": c[1]}


def dice_check(st, pos, material, purpose, events):
    """ERU-95/96: roll white then orange; True when the wall holds."""
    white = st.rng.randint(1, 6)
    orange = st.rng.randint(1, 6)
    total = white + B.DICE_BONUS[material]
    held = total >= orange if st.options["dice_tie_goes_to"] == "wall" else total > orange
    events.append(Event("dice_rolled", {
        "x": pos[0][0], "y": pos[0][1], "edge": pos[1], "material": material,
        "white": white, "orange": orange, "held": held, "purpose": purpose}))
    return held


def remove_wall(st, pos, cause, events):
    """ERU-94: a wall leaving the board is removed from the game."""
    mat = st.walls.pop(pos)
    st.removed_walls[B.MATERIAL_INDEX[mat]] += 1
    events.append(Event("wall_removed", {"x": pos[0][0], "y": pos[0][1], "edge": pos[1],
                                         "material": mat, "cause": cause}))


def gain_wall(st, seat, material, cause, events):
    """ERU-97: take a wall from the supply into the stockpile (nothing if the supply is out)."""
    i = B.MATERIAL_INDEX[material]
    if not st.options["unlimited_walls"]:
        if st.supply[i] == 0:
            return
        st.supply[i] -= 1
    st.stockpiles[seat][i] += 1
    events.append(Event("wall_gained", {"seat": seat, "material": material, "cause": cause}))


def draw_cards(st, seat, count, cause, events):
    """ERU-111: draw, reshuffling the discard pile when the draw pile is empty."""
    got = []
    for _ in range(count):
        if not st.draw_pile:
            if not st.discard:
                break
            st.draw_pile, st.discard = st.discard, []
            st.rng.shuffle(st.draw_pile)
            events.append(Event("discard_reshuffled", {"count": len(st.draw_pile)}))
        got.append(st.draw_pile.pop())
    if got:
        st.hands[seat] += got
        st.hands[seat].sort()
        for card in got:
            events.append(Event("card_drawn", {"seat": seat, "card": card}, to=seat))
        events.append(Event("cards_drawn", {"seat": seat, "count": len(got), "cause": cause}))


def add_heat(st, seat, amount, cause, events):
    """ERU-7: change a temperature, clamped to 0..290; True when it rose."""
    old = st.temps[seat]
    new = min(B.MAX_TEMP, max(0, old + amount))
    st.temps[seat] = new
    if new != old:
        events.append(Event("temperature_changed", {"seat": seat, "temperature": new,
                                                    "delta": new - old, "cause": cause}))
    return new > old


def award_eruptions(st, seats, events):
    """ERU-60: each unclaimed eruption tile k goes to the first of `seats` at threshold k."""
    th = thresholds(st)
    for seat in seats:
        for k in range(3):
            if st.eruption_status[k] == "unclaimed" and st.temps[seat] >= th[k]:
                st.eruption_status[k] = "held"
                st.eruption_holder[k] = seat
                events.append(Event("eruption_awarded", {"seat": seat, "number": k + 1}))


def take_card(st, seat, card, use, events):
    st.hands[seat].remove(card)
    st.discard.append(card)
    events.append(Event("card_used", {"seat": seat, "card": card, "use": use}))


def remove_tile(st, c, cause, events):
    tile, _ = st.board.pop(c)
    del st.lava[c]
    if tile >= B.ERUPTION_IDS[0]:
        st.eruption_status[tile - B.ERUPTION_IDS[0]] = "removed"
    st.removed_tiles.append(tile)
    events.append(Event("tile_removed", {"x": c[0], "y": c[1], "tile": tile,
                                         "tile_type": B.TILE_TYPE_OF[tile], "cause": cause}))


# ---------------------------------------------------------------- turn machine

def begin_turn(st, events):
    st.turn += 1
    st.eruptions_placed = st.walls_built = 0
    events.append(Event("turn_started", {"seat": st.active, "turn": st.turn}))
    damage_step(st, events)
    next_eruption(st, events)


def damage_step(st, events):
    """ERU-50..52: assess the active player's own village."""
    seat = st.active
    total = 0
    for s, e in B.ENTRIES[st.villages[seat]]:
        m = st.lava.get(s)
        if m is None or not m >> e & 1:
            continue
        mat = st.walls.get((s, e))
        if mat is None:
            total += B.DAMAGE["unwalled_flow"]
        elif not dice_check(st, (s, e), mat, "damage", events):
            remove_wall(st, (s, e), "dice", events)
            total += B.DAMAGE["walled_flow_wall_fails"]
    rose = add_heat(st, seat, total, "damage", events) if total else False
    if st.options["eruption_award_timing"] == "immediate":
        if rose:
            award_eruptions(st, [seat], events)
    else:  # ERU-61 own_damage_step
        award_eruptions(st, [seat], events)


def pending_eruption(st):
    """The lowest-numbered eruption tile the active player holds, or -1."""
    for k in range(3):
        if st.eruption_status[k] == "held" and st.eruption_holder[k] == st.active:
            return k
    return -1


def next_eruption(st, events):
    """ERU-42(a), ERU-62, ERU-65: place held eruption tiles, then the regular placement."""
    while st.options["eruption_tiles_per_turn"] == "all" or st.eruptions_placed == 0:
        k = pending_eruption(st)
        if k < 0:
            break
        if eruption_spaces(st):
            st.phase = "eruption"
            return
        st.eruption_status[k] = "removed"  # ERU-65
        events.append(Event("eruption_tile_lost", {"seat": st.active, "number": k + 1}))
    # ERU-42(b)
    if st.stack and start_placement(st, "regular", events):
        return
    after_placement(st, "regular", events)


def draw_until(st, placeable, events):
    """ERU-71: draw until `placeable(tile)`; tiles that fail are set aside and shuffled
    back once one fits. Returns (tile, []), or (None, set_aside) when the stack ran out."""
    set_aside = []
    while st.stack:
        tile = st.stack.pop()
        ok = placeable(tile)
        events.append(Event("tile_drawn", {"tile": tile, "tile_type": B.TILE_TYPE_OF[tile],
                                           "set_aside": not ok}))
        if ok:
            if set_aside:
                st.stack += set_aside
                st.rng.shuffle(st.stack)
                events.append(Event("stack_shuffled", {"count": len(st.stack)}))
            return tile, []
        set_aside.append(tile)
    return None, set_aside


def start_placement(st, origin, events):
    """ERU-70/71: draw until a placeable tile appears. False when the stack ran out."""
    tile, set_aside = draw_until(st, lambda t: is_placeable(st, t), events)
    if tile is not None:
        st.drawn = tile
        st.origin = origin
        st.phase = "placement"
        return True
    if set_aside:
        st.removed_tiles += set_aside
        events.append(Event("tiles_removed", {"tiles": set_aside, "cause": "unplaceable"}))
    return False


def after_placement(st, origin, events):
    st.drawn = -1
    st.origin = ""
    if origin == "regular" and st.stack and zone(st, st.active) == 3:
        st.phase = "extra_placement"  # ERU-42(c)
    elif origin in ("regular", "extra"):
        enter_cards(st, events)
    else:
        st.phase = "cards"


def enter_cards(st, events):
    """ERU-43: zone 2 or 3 draws one card first."""
    st.phase = "cards"
    if zone(st, st.active) >= 2:
        draw_cards(st, st.active, 1, "zone", events)


def end_turn(st, events):
    """ERU-45, ERU-150..152."""
    seat = st.active
    if st.end_trigger:
        st.turns_left -= 1
    elif st.temps[seat] >= B.MAX_TEMP:  # ERU-151 burnout
        st.end_trigger = "burnout"
        st.trigger_seat = seat
        st.turns_left = st.n - 1
        st.burnout_removed, st.stack = st.stack, []
        events.append(Event("end_triggered", {"seat": seat, "trigger": "burnout",
                                              "turns_left": st.turns_left,
                                              "tiles_removed": len(st.burnout_removed)}))
    elif not st.stack:  # ERU-152 exhaustion
        st.end_trigger = "exhaustion"
        st.trigger_seat = seat
        st.turns_left = st.n
        events.append(Event("end_triggered", {"seat": seat, "trigger": "exhaustion",
                                              "turns_left": st.turns_left, "tiles_removed": 0}))
    if st.end_trigger and st.turns_left == 0:
        st.phase = "over"
        o = outcome_keys(st)
        events.append(Event("game_over", {"temperatures": list(st.temps),
                                          "tiebreaks": [tiebreak_value(st, s) for s in range(st.n)],
                                          "winners": list(o[1])}))
        return
    st.active = (seat + 1) % st.n
    begin_turn(st, events)


def outcome_keys(st):
    """ERU-154..156: lowest temperature, then highest tie-break value."""
    from engines.core import rank_by
    keys = [(-st.temps[s], tiebreak_value(st, s)) for s in range(st.n)]
    return rank_by(keys)


# ---------------------------------------------------------------- placements

def place_lava_tile(st, seat, s, r, events):
    """ERU-74..76: resolve walls on the connections, then place or fail the attempt."""
    tile = st.drawn
    m = B.MASK_OF_TILE[tile][r]
    li, _ = constraints(st, s)
    links = m & li
    walled = [e for e in B.EDGES_OF_MASK[links] if (s, e) in st.walls]
    if walled and len(walled) == B.POPCOUNT[links]:
        held = [dice_check(st, (s, e), st.walls[(s, e)], "placement", events) for e in walled]
        if all(held):  # ERU-75 failed attempt
            st.excluded.add(s)
            events.append(Event("placement_failed", {"tile": tile, "x": s[0], "y": s[1],
                                                     "rotation": r}))
            if tile_placements(st, tile, st.excluded):
                return
            st.removed_tiles.append(tile)
            events.append(Event("tiles_removed", {"tiles": [tile], "cause": "no_space"}))
            st.drawn = -1
            if not start_placement(st, st.origin, events):
                after_placement(st, st.origin, events)
            return
        for e in walled:
            remove_wall(st, (s, e), "dice", events)
    else:
        for e in walled:  # ERU-74: the lava has another path
            remove_wall(st, (s, e), "swept", events)
    st.board[s] = (tile, r)
    st.lava[s] = m
    events.append(Event("tile_placed", {"seat": seat, "tile": tile, "tile_type": B.TILE_TYPE_OF[tile],
                                        "x": s[0], "y": s[1], "rotation": r}))
    # ERU-76
    if s in B.AWARD:
        gain_wall(st, seat, B.AWARD[s], "award_space", events)
    cards = B.POPCOUNT[m & flow_mask(st, s)]
    if cards:
        draw_cards(st, seat, cards, "flow", events)
    st.excluded.clear()
    after_placement(st, st.origin, events)


def place_eruption(st, seat, k, s, events):
    """ERU-64."""
    li, _ = constraints(st, s)
    for e in B.EDGES_OF_MASK[li]:
        if (s, e) in st.walls:
            remove_wall(st, (s, e), "eruption", events)
    st.board[s] = (B.ERUPTION_IDS[k], 0)
    st.lava[s] = 63
    st.eruption_status[k] = "board"
    st.eruptions_placed += 1
    events.append(Event("eruption_placed", {"seat": seat, "number": k + 1, "x": s[0], "y": s[1]}))
    if s in B.AWARD:
        gain_wall(st, seat, B.AWARD[s], "award_space", events)
    cards = B.POPCOUNT[63 & flow_mask(st, s)] if st.options["eruption_tile_draws_cards"] else 0  # ERU-64(3)
    if cards:
        draw_cards(st, seat, cards, "flow", events)
    order = [(seat + i) % st.n for i in range(1, st.n)]
    rose = [o for o in order if add_heat(st, o, B.ERUPTION_HEAT, "eruption", events)]
    if st.options["eruption_award_timing"] == "immediate":
        award_eruptions(st, rose, events)
    next_eruption(st, events)


def start_quake(st, events):
    """ERU-123 step 1: draw under ERU-71 with 'placeable' = replaces some board tile."""
    tile, set_aside = draw_until(st, lambda t: bool(quake_replacements(st, t, first_only=True)), events)
    if tile is not None:
        st.quake_tile = tile
        st.phase = "quake"
        return
    st.stack = set_aside
    st.rng.shuffle(st.stack)
    events.append(Event("stack_shuffled", {"count": len(st.stack)}))
    events.append(Event("quake_no_effect", {"seat": st.active}))


def new_flow_cards(st, seat, s, old_mask, new_mask, events):
    """ERU-124: by default the flows added (seed 002: 「因為只有新增一條」), or each new lava edge."""
    flows = flow_mask(st, s)
    if st.options["new_flows_per_edge"]:
        cards = B.POPCOUNT[new_mask & ~old_mask & flows]
    else:
        cards = max(0, B.POPCOUNT[new_mask & flows] - B.POPCOUNT[old_mask & flows])
    if cards:
        draw_cards(st, seat, cards, "new_flow", events)


# ---------------------------------------------------------------- validation

def _cell(c):
    return isinstance(c, tuple) and len(c) == 2 and all(isinstance(v, int) for v in c)


def _need_phase(st, phase, rule, what):
    if st.phase != phase:
        raise IllegalMove(rule, f"{what} is not possible now (current step: {st.phase})")


def _need_card(st, seat, card, count=1):
    if st.hands[seat].count(card) < count:
        raise IllegalMove("ERU-113", f"card {card!r} is not in your hand")


def check_move(st, seat, move):
    """Raise IllegalMove (most specific rule) unless `move` is legal; never mutates."""
    if st.phase == "over":
        raise IllegalMove("ERU-150", "the game is over")
    if seat != st.active:
        raise IllegalMove("ERU-40", "only the active player acts; it is not your turn")
    t = type(move)
    if t is PlaceEruption:
        _need_phase(st, "eruption", "ERU-62", "placing an eruption tile")
        k = pending_eruption(st)
        if move.number != k + 1:
            raise IllegalMove("ERU-62", f"place eruption tile {k + 1} next")
        if not _cell(move.cell) or move.cell not in B.PLAYABLE_SET or move.cell in st.board:
            raise IllegalMove("ERU-63", "an eruption tile goes on an empty playable space")
        li, co = constraints(st, move.cell)
        if li != co:
            raise IllegalMove("ERU-63", "every neighbouring tile or volcano cell must show lava")
    elif t is PlaceTile:
        _need_phase(st, "placement", "ERU-73", "placing a lava tile")
        if move.tile != st.drawn:
            raise IllegalMove("ERU-73", f"you must place the drawn tile {st.drawn}")
        _check_tile_fit(st, move.cell, move.rotation, st.drawn)
        if move.cell in st.excluded:
            raise IllegalMove("ERU-75", f"space {move.cell} is excluded after a failed attempt")
    elif t is DrawExtraTile or t is EndPlacement:
        _need_phase(st, "extra_placement", "ERU-42", "the zone-3 extra placement")
    elif t is QuakeReplace:
        _need_phase(st, "quake", "ERU-123", "a quake replacement")
        if move.tile != st.quake_tile:
            raise IllegalMove("ERU-123", f"the quake tile is {st.quake_tile}")
        if not _cell(move.cell) or move.cell not in st.board:
            raise IllegalMove("ERU-123", "a quake replaces a tile on the board")
        _need_card_tile(st, move.cell, "Quake")
        if not isinstance(move.rotation, int) or not 0 <= move.rotation <= 5:
            raise IllegalMove("ERU-12", "orientation must be 0..5")
        if (move.cell, move.rotation) not in quake_replacements(st, move.tile):
            raise IllegalMove("ERU-123", "the tile must match every neighbour, link to lava, "
                                         "and keep every tile linked to a source")
    elif t is BuildWall:
        _need_phase(st, "walls", "ERU-44", "building walls")
        allowance = 2 if zone(st, seat) else 1
        if st.walls_built >= allowance:
            raise IllegalMove("ERU-92", f"your wall allowance this turn is {allowance}")
        _check_wall(st, seat, move.material, move.cell, move.edge, "ERU-92")
    elif t is EndTurn:
        _need_phase(st, "walls", "ERU-44", "ending the turn")
    else:
        _check_cards_move(st, seat, move)


def _check_tile_fit(st, cell, rotation, tile):
    if not _cell(cell) or cell not in B.PLAYABLE_SET:
        raise IllegalMove("ERU-72", "lava tiles go only on playable spaces")
    if cell in st.board:
        raise IllegalMove("ERU-72", f"space {cell} is not empty")
    if not isinstance(rotation, int) or not 0 <= rotation <= 5:
        raise IllegalMove("ERU-12", "orientation must be 0..5")
    li, co = constraints(st, cell)
    m = B.MASK_OF_TILE[tile][rotation]
    if m & co != li:
        bad = [B.EDGE_NAMES[e] for e in range(6) if co >> e & 1 and (m ^ li) >> e & 1]
        raise IllegalMove("ERU-72", f"edges {', '.join(bad)} do not match their neighbours")
    if not m & li:
        raise IllegalMove("ERU-72", "the tile must form a lava link to a tile or volcano exit")


def _check_wall(st, seat, material, cell, edge, rule):
    if material not in B.MATERIAL_INDEX:
        raise IllegalMove("ERU-4", f"unknown wall material {material!r}")
    if st.stockpiles[seat][B.MATERIAL_INDEX[material]] == 0:
        raise IllegalMove(rule, f"no {material} wall in your stockpile")
    if not _cell(cell):
        raise IllegalMove("ERU-24", "bad wall position")
    err = wall_position_error(st, seat, cell, edge)
    if err:
        raise IllegalMove(*err)


def _check_cards_move(st, seat, move):
    t = type(move)
    _need_phase(st, "cards", "ERU-112", "using cards")
    hand = st.hands[seat]
    if t is EndCards:
        if len(hand) > B.HAND_LIMIT:
            raise IllegalMove("ERU-114", f"the hand holds {len(hand)} cards; at most 3 may remain")
    elif t is DiscardSurplus:
        _need_card(st, seat, move.card)
        if len(hand) <= B.HAND_LIMIT:
            raise IllegalMove("ERU-114", "surplus discards are only for a hand over the limit")
    elif t is DiscardForWall:
        _need_card(st, seat, move.card)
        i = B.MATERIAL_INDEX[B.CARD_MATERIAL[move.card]]
        if not st.options["unlimited_walls"] and st.supply[i] == 0:
            raise IllegalMove("ERU-97", f"the {B.MATERIALS[i]} supply is empty")
    elif t is DiscardForTile:
        cards = move.cards
        if not isinstance(cards, tuple) or len(cards) != 2:
            raise IllegalMove("ERU-113", "discard exactly two cards for a tile")
        for c in set(cards):
            _need_card(st, seat, c, cards.count(c))
        if not st.stack:
            raise IllegalMove("ERU-113", "the lava stack is empty")
    elif t is PlayLavaFlow:
        _need_card(st, seat, "lava_flow")
        if not st.stack:
            raise IllegalMove("ERU-115", "Lava Flow needs a non-empty stack")
    elif t is PlayReinforce:
        _need_card(st, seat, "reinforce")
        _check_wall(st, seat, move.material, move.cell, move.edge, "ERU-117")
    elif t is PlayRelocate:
        _need_card(st, seat, "relocate")
        _check_relocate(st, seat, move.steps)
    elif t is PlayAftershock:
        _need_card(st, seat, "aftershock")
        if not _cell(move.cell) or move.cell not in st.board:
            raise IllegalMove("ERU-119", "Aftershock turns a tile on the board")
        _need_card_tile(st, move.cell, "Aftershock")
        tile, r0 = st.board[move.cell]
        if not isinstance(move.rotation, int) or not 0 <= move.rotation <= 5 or move.rotation == r0:
            raise IllegalMove("ERU-119", "turn the tile by 60 to 300 degrees (a new orientation 0..5)")
        li, co = constraints(st, move.cell)
        if B.MASK_OF_TILE[tile][move.rotation] & co != li:
            raise IllegalMove("ERU-119", "the turned tile must still match every constrained edge")
    elif t is PlayRain:
        _need_card(st, seat, "rain")
    elif t is PlaySinkhole:
        _need_card(st, seat, "sinkhole")
        if not _cell(move.cell) or move.cell not in st.board:
            raise IllegalMove("ERU-121", "Sinkhole removes a tile on the board")
        _need_card_tile(st, move.cell, "Sinkhole")
        lava = dict(st.lava)
        del lava[move.cell]
        if not all_linked(lava, eruption_cells(st) - {move.cell}):
            raise IllegalMove("ERU-121", "removing this tile would cut a tile off from every source")
    elif t is PlayVolcanicBomb:
        _need_card(st, seat, "volcanic_bomb")
        if not _cell(move.cell) or (move.cell, move.edge) not in st.walls:
            raise IllegalMove("ERU-122", "there is no wall on that position")
    elif t is PlayQuake:
        _need_card(st, seat, "quake")
        if not st.stack or not card_tiles(st):
            raise IllegalMove("ERU-115", "Quake needs a non-empty stack and a lava tile on the board")
    else:
        raise IllegalMove("ERU-40", f"unknown move {move!r}")


def _need_card_tile(st, cell, card):
    if cell not in card_tiles(st):
        raise IllegalMove("ERU-66", f"{card} acts on lava tiles, not on an eruption tile")


def _check_relocate(st, seat, steps):
    """ERU-118: each step moves a wall between entry positions of your own village."""
    entries = set(own_entries(st, seat))
    if not isinstance(steps, tuple) or not steps:
        raise IllegalMove("ERU-118", "Relocate needs at least one wall move")
    walls = {p: st.walls[p] for p in entries if p in st.walls}
    if not walls:
        raise IllegalMove("ERU-115", "there is no wall in your village")
    for step in steps:
        if not isinstance(step, tuple) or len(step) != 4:
            raise IllegalMove("ERU-118", "a relocate step is (from_cell, from_edge, to_cell, to_edge)")
        src, dst = (step[0], step[1]), (step[2], step[3])
        if src not in entries or dst not in entries:
            raise IllegalMove("ERU-118", "walls move only between your own village's entry positions")
        if src not in walls:
            raise IllegalMove("ERU-118", f"no wall on {src}")
        if dst in walls:
            raise IllegalMove("ERU-91", f"{dst} already holds a wall")
        walls[dst] = walls.pop(src)


def relocations(st, seat):
    """ERU-118: one step list per arrangement of the village's walls reachable by Relocate (the same
    walls on other entry positions), so that every distinct outcome is listed once."""
    entries = tuple(sorted(own_entries(st, seat)))
    start = tuple(st.walls.get(p) for p in entries)
    if None not in start or all(m is None for m in start):
        return []  # every step needs a wall to move and an empty position to move it to
    return _relocation_plans(entries, start)


@lru_cache(maxsize=4096)
def _relocation_plans(entries, start):
    """`relocations` for one village's walls: cached, since up to 5040 permutations are
    sorted out each time a seat holding Relocate lists its moves."""
    return [_relocation_steps(entries, start, goal) for goal in sorted(set(permutations(start)) - {start},
                                                                        key=lambda t: [m or "" for m in t])]


def _relocation_steps(entries, start, goal):
    """Steps from occupied to empty positions that turn `start` into `goal` (same walls, other places):
    fill an empty position the goal wants filled with a misplaced wall of that material; when none is
    left, move a misplaced wall aside to a free position to break the cycle."""
    cur, steps = list(start), []

    def step(a, b):
        steps.append((*entries[a], *entries[b]))
        cur[b], cur[a] = cur[a], None

    while cur != list(goal):
        hole = next((i for i, m in enumerate(cur) if m is None and goal[i] is not None), None)
        if hole is not None:
            src = next(j for j, m in enumerate(cur) if m == goal[hole] and goal[j] != m)
            step(src, hole)
        else:
            src = next(j for j, m in enumerate(cur) if m is not None and m != goal[j] and goal[j] is not None)
            step(src, cur.index(None))
    return tuple(steps)


# ---------------------------------------------------------------- legal moves

def legal_moves(st, seat):
    if st.phase == "over" or seat != st.active:
        return []
    ph = st.phase
    if ph == "placement":
        return [PlaceTile(st.drawn, s, r) for s, r in tile_placements(st, st.drawn, st.excluded)]
    if ph == "eruption":
        k = pending_eruption(st) + 1
        return [PlaceEruption(k, s) for s in eruption_spaces(st)]
    if ph == "extra_placement":
        return [DrawExtraTile(), EndPlacement()]
    if ph == "quake":
        return [QuakeReplace(st.quake_tile, c, r) for c, r in quake_replacements(st, st.quake_tile)]
    if ph == "walls":
        out = [EndTurn()]
        if st.walls_built < (2 if zone(st, seat) else 1):
            out += _wall_moves(st, seat, BuildWall)
        return out
    return _cards_moves(st, seat)


def _wall_moves(st, seat, kind):
    mats = [m for i, m in enumerate(B.MATERIALS) if st.stockpiles[seat][i]]
    if not mats:
        return []
    return [kind(m, s, e) for s, e in wall_positions(st, seat) for m in mats]


def _cards_moves(st, seat):
    hand = st.hands[seat]
    kinds = sorted(set(hand))
    out = []
    if len(hand) > B.HAND_LIMIT:
        out += [DiscardSurplus(k) for k in kinds]
    else:
        out.append(EndCards())
    for k in kinds:
        i = B.MATERIAL_INDEX[B.CARD_MATERIAL[k]]
        if st.options["unlimited_walls"] or st.supply[i]:
            out.append(DiscardForWall(k))
    if st.stack:
        for a in range(len(kinds)):
            for b in range(a, len(kinds)):
                if a != b or hand.count(kinds[a]) >= 2:
                    out.append(DiscardForTile((kinds[a], kinds[b])))
    for k in kinds:
        if k == "lava_flow":
            if st.stack:
                out.append(PlayLavaFlow())
        elif k == "reinforce":
            out += _wall_moves(st, seat, PlayReinforce)
        elif k == "relocate":
            out += [PlayRelocate(steps) for steps in relocations(st, seat)]
        elif k == "aftershock":
            out += [PlayAftershock(c, r) for c, r in aftershock_turns(st)]
        elif k == "rain":
            out.append(PlayRain())
        elif k == "sinkhole":
            out += [PlaySinkhole(c) for c in sinkhole_targets(st)]
        elif k == "volcanic_bomb":
            out += [PlayVolcanicBomb(s, e) for s, e in sorted(st.walls)]
        elif k == "quake":
            if st.stack and card_tiles(st):
                out.append(PlayQuake())
    return out


# ---------------------------------------------------------------- apply

def apply(st, seat, move):
    check_move(st, seat, move)
    events = []
    t = type(move)
    if t is PlaceEruption:
        place_eruption(st, seat, move.number - 1, move.cell, events)
    elif t is PlaceTile:
        place_lava_tile(st, seat, move.cell, move.rotation, events)
    elif t is DrawExtraTile:
        if not start_placement(st, "extra", events):
            after_placement(st, "extra", events)
    elif t is EndPlacement:
        after_placement(st, "extra", events)
    elif t is QuakeReplace:
        c = move.cell
        old = st.lava[c]
        for pos in walls_of_tile(st, c):
            remove_wall(st, pos, "quake", events)
        remove_tile(st, c, "quake", events)
        m = B.MASK_OF_TILE[move.tile][move.rotation]
        st.board[c] = (move.tile, move.rotation)
        st.lava[c] = m
        st.quake_tile = -1
        st.phase = "cards"
        events.append(Event("tile_placed", {"seat": seat, "tile": move.tile,
                                            "tile_type": B.TILE_TYPE_OF[move.tile],
                                            "x": c[0], "y": c[1], "rotation": move.rotation}))
        new_flow_cards(st, seat, c, old, m, events)
    elif t is BuildWall:
        _build(st, seat, move, "walls_step", events)
        st.walls_built += 1
    elif t is EndTurn:
        end_turn(st, events)
    elif t is EndCards:
        st.phase = "walls"
        events.append(Event("walls_step", {"seat": seat,
                                           "allowance": 2 if zone(st, seat) else 1}))
    elif t is DiscardSurplus:
        take_card(st, seat, move.card, "surplus", events)
    elif t is DiscardForWall:
        take_card(st, seat, move.card, "wall", events)
        gain_wall(st, seat, B.CARD_MATERIAL[move.card], "discard", events)
    elif t is DiscardForTile:
        for c in move.cards:
            take_card(st, seat, c, "tile", events)
        if not start_placement(st, "card", events):
            after_placement(st, "card", events)
    else:
        _play_card(st, seat, move, events)
    return events


def _build(st, seat, move, cause, events):
    i = B.MATERIAL_INDEX[move.material]
    st.stockpiles[seat][i] -= 1
    st.walls[(move.cell, move.edge)] = move.material
    events.append(Event("wall_built", {"seat": seat, "x": move.cell[0], "y": move.cell[1],
                                       "edge": move.edge, "material": move.material, "cause": cause}))


def _play_card(st, seat, move, events):
    t = type(move)
    if t is PlayLavaFlow:  # ERU-116
        take_card(st, seat, "lava_flow", "play", events)
        if not start_placement(st, "card", events):
            after_placement(st, "card", events)
    elif t is PlayReinforce:  # ERU-117
        take_card(st, seat, "reinforce", "play", events)
        _build(st, seat, move, "reinforce", events)
    elif t is PlayRelocate:  # ERU-118
        take_card(st, seat, "relocate", "play", events)
        for (c1, e1, c2, e2) in move.steps:
            st.walls[(c2, e2)] = st.walls.pop((c1, e1))
            events.append(Event("wall_moved", {"x": c1[0], "y": c1[1], "edge": e1,
                                               "to_x": c2[0], "to_y": c2[1], "to_edge": e2}))
    elif t is PlayAftershock:  # ERU-119
        take_card(st, seat, "aftershock", "play", events)
        c = move.cell
        tile, _ = st.board[c]
        old = st.lava[c]
        for pos in walls_of_tile(st, c):
            remove_wall(st, pos, "aftershock", events)
        m = B.MASK_OF_TILE[tile][move.rotation]
        st.board[c] = (tile, move.rotation)
        st.lava[c] = m
        events.append(Event("tile_turned", {"x": c[0], "y": c[1], "rotation": move.rotation}))
        new_flow_cards(st, seat, c, old, m, events)
    elif t is PlayRain:  # ERU-120
        take_card(st, seat, "rain", "play", events)
        add_heat(st, seat, -B.DAMAGE["rain_cooling"], "rain", events)
    elif t is PlaySinkhole:  # ERU-121
        take_card(st, seat, "sinkhole", "play", events)
        for pos in walls_of_tile(st, move.cell):
            remove_wall(st, pos, "sinkhole", events)
        remove_tile(st, move.cell, "sinkhole", events)
    elif t is PlayVolcanicBomb:  # ERU-122
        take_card(st, seat, "volcanic_bomb", "play", events)
        remove_wall(st, (move.cell, move.edge), "volcanic_bomb", events)
    elif t is PlayQuake:  # ERU-123
        take_card(st, seat, "quake", "play", events)
        start_quake(st, events)
