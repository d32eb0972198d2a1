"""Rules of The Downfall of Pompeii (docs/rules/pompeii.md), as small pure functions.

Decisions (POM-91): the engine waits for an explicit action at every decision point
in every phase, even a forced one (a single legal tile square, a single target).
Only the non-decisions of POM-91 run by themselves: draws, Omens without any
eligible target, discarding a tile that has no legal square (POM-63), ending the
turn of a seat with nobody on the board (POM-76), relatives that cannot be placed
(POM-35), deaths and the end of the game.
"""
from __future__ import annotations

import random
from collections import deque

from engines.core import PUBLIC, Event, IllegalMove, InvalidOptions, Outcome, rank_by

from . import board as B
from .moves import DeclareEruption, MovePerson, OmenTarget, Pass, PlaceLava, PlaceRelative, PlayCard, StopRelatives
from .state import (ESCAPE, FIRST_MOVE, OMEN, OPENING, OVER, PLACE_LAVA, PLAY_CARD, RELATIVES, SECOND_MOVE,
                    SETTLE, PompeiiState)
from .spec import SPEC

DEFAULT_OPTIONS = SPEC.defaults()  # POM-10 / section 10: every flag (spec.py)
_CHOICES = SPEC.choices(str)
OPENING_TILES = 6  # POM-61


def sq(cell: int) -> dict:
    """A cell as the wire's square message."""
    return {"row": cell // B.COLS, "col": cell % B.COLS}


def validate_options(seats, options) -> dict:
    """POM-10: refuse bad seat counts, unknown flags and bad values."""
    if not isinstance(seats, int) or isinstance(seats, bool) or not 2 <= seats <= 4:
        raise InvalidOptions("POM-10", f"The Downfall of Pompeii needs 2 to 4 players, not {seats!r}.")
    opts = dict(DEFAULT_OPTIONS)
    for name, value in dict(options or {}).items():
        if name not in DEFAULT_OPTIONS:
            raise InvalidOptions("POM-10", f"Unknown flag {name!r}.")
        if name in _CHOICES:
            if value not in _CHOICES[name]:
                raise InvalidOptions("POM-10", f"Flag {name} must be one of {_CHOICES[name]}, not {value!r}.")
        elif not isinstance(value, bool):
            raise InvalidOptions("POM-10", f"Flag {name} must be true or false, not {value!r}.")
        opts[name] = value
    if opts["dual_vent_tiles"] and opts["edition"] != "2013":
        raise InvalidOptions("POM-10", "dual_vent_tiles needs edition \"2013\" (POM-66).")
    return opts


def layout(state: PompeiiState) -> B.Layout:
    return B.LAYOUTS[state.options["building_10_split"]]


# ---------------------------------------------------------------- setup (POM-11..15)

def build_deck(players: int, rng: random.Random) -> tuple[list[int], list[list[int]]]:
    """POM-12: the 42-card deck (top card last) and the 5 remaining piles."""
    pompeii = [n for n, k in sorted(B.CARD_COUNTS.items()) for _ in range(k)]
    rng.shuffle(pompeii)
    size = B.PILE_SIZE
    piles = [pompeii[i * size:(i + 1) * size] for i in range(B.PILES)]
    pile_a = pompeii[B.PILES * size:] + [B.OMEN] * B.OMEN_COUNT
    rng.shuffle(pile_a)
    n_bottom = B.bottom_block_size(players) - 1
    bottom = pile_a[:n_bottom] + [B.AD79]
    rng.shuffle(bottom)
    middle = pile_a[n_bottom:]
    top_down = piles[0] + piles[1] + [B.AD79] + middle + bottom
    return top_down[::-1], piles[2:]


def new_state(seats: int, options, seed: int) -> PompeiiState:
    opts = validate_options(seats, options)
    state = PompeiiState(seats, opts, random.Random(seed))
    deck, piles = build_deck(seats, state.rng)
    state.rng.shuffle(piles)  # POM-13: each seat gets a pile at random
    state.deck = deck
    state.hands = [list(piles[s]) for s in range(seats)]
    state.unused = [c for p in piles[seats:] for c in p]
    state.supply = [B.PIECES[opts["edition"]][seats]] * seats  # POM-11
    bag = list(B.TILE_COUNTS) + [0] * len(B.DUAL_KINDS)  # POM-14
    if opts["dual_vent_tiles"]:
        bag[len(B.SYMBOLS):] = [B.DUAL_COUNT_EACH] * len(B.DUAL_KINDS)
    state.bag = bag
    return state


# ---------------------------------------------------------------- phase 1 queries

def free_slots(state: PompeiiState, cell: int) -> int:
    return layout(state).slots_at[cell] - state.on_cell(cell)


def building_people(state: PompeiiState, b: int) -> int:
    return sum(state.on_cell(c) for c in layout(state).buildings[b].squares)


def is_wild(state: PompeiiState, number: int) -> bool:
    """POM-36: every slot of every building bearing the number is occupied."""
    lay = layout(state)
    for b in lay.by_number[number]:
        for c in lay.buildings[b].squares:
            if state.on_cell(c) < lay.slots_at[c]:
                return False
    return True


def free_cells(state: PompeiiState, buildings) -> list[int]:
    lay = layout(state)
    return [c for b in buildings for c in lay.buildings[b].squares if state.on_cell(c) < lay.slots_at[c]]


def all_free_cells(state: PompeiiState) -> list[int]:
    return free_cells(state, range(len(layout(state).buildings)))


def wild_cells(state: PompeiiState) -> list[int]:
    """POM-37: free slots a wild card may fill; POM-33: not a neutral building (seeds 000, 001)."""
    lay = layout(state)
    neutral = state.options["wild_card_neutral_buildings"]
    return free_cells(state, [b for b, bd in enumerate(lay.buildings) if bd.number or neutral])


def can_declare(state: PompeiiState, seat: int) -> bool:
    """POM-51: phase 1 and the whole hand is wild."""
    hand = state.hands[seat]
    return state.phase == SETTLE and bool(hand) and all(is_wild(state, n) for n in set(hand))


def relative_cells(state: PompeiiState) -> list[int]:
    """POM-33/34: free slots of eligible buildings for the next relative."""
    lay = layout(state)
    targets = lay.relative_targets(state.relatives_building)
    if state.options["relatives_one_per_building"]:
        targets = [b for b in targets if b not in state.relatives_used]
    return free_cells(state, targets)


def omen_targets(state: PompeiiState, seat: int) -> list[tuple[int, int]]:
    """POM-31: (cell, owner) of people an Omen may take."""
    anyone = state.options["omen_targets"] == "any"
    p = state.players
    return [(c, t) for c in B.CITY for t in range(p)
            if state.people[c * p + t] and (anyone or t != seat)]


def card_moves(state: PompeiiState, seat: int) -> list[PlayCard]:
    out = []
    supply = state.supply[seat]
    lay = layout(state)
    for n in sorted(set(state.hands[seat])):
        if is_wild(state, n):
            if state.options["wild_card_moves_existing"]:  # POM-37 flag: move own person or decline
                out.append(PlayCard(n))
                free = wild_cells(state)
                for o in B.CITY:
                    if state.count(o, seat):
                        out.extend(PlayCard(n, B.square(t), B.square(o)) for t in free
                                   if lay.building_at[t] != lay.building_at[o])
                continue
            cells = wild_cells(state) if supply else []  # POM-37
            optional = not state.options["wild_placement_compulsory"]
        else:
            cells = free_cells(state, lay.by_number[n]) if supply else []  # POM-22
            optional = False
        out.extend(PlayCard(n, B.square(c)) for c in cells)
        if optional or not cells:
            out.append(PlayCard(n))
    return out


# ---------------------------------------------------------------- lava and movement queries

def passable(state: PompeiiState, cell: int) -> bool:
    """POM-72: uncovered city square; uncovered vents too unless vents_block_movement."""
    return (B.IS_CITY[cell] and not state.lava[cell]
            and not (B.IS_VENT[cell] and state.options["vents_block_movement"]))


def lava_cells(state: PompeiiState, symbol: str) -> list[int]:
    """POM-62: legal squares for a tile counting as `symbol`."""
    lava = state.lava
    vent = B.VENT[symbol]
    foreign = state.options["lava_on_foreign_vent"]
    sources = [c for c in B.CITY if lava[c] == symbol]
    if not sources:
        if not lava[vent]:
            return [vent]
        sources = [vent]  # vent covered by another symbol (only with lava_on_foreign_vent)
    elif lava[vent] and lava[vent] != symbol:
        sources.append(vent)
    out = set()
    for s in sources:
        for n in B.NEIGHBOURS[s]:
            if not lava[n] and (foreign or not B.IS_VENT[n] or B.VENT_SYMBOL[n] == symbol):
                out.add(n)
    return sorted(out)


def tile_options(state: PompeiiState) -> list[tuple[str, int]]:
    """(symbol, cell) pairs for the pending tile; symbol "" for a one-symbol tile (POM-66)."""
    syms = B.tile_symbols(state.pending_tile)
    if len(syms) == 1:
        return [("", c) for c in lava_cells(state, syms[0])]
    return [(s, c) for s in syms for c in lava_cells(state, s)]


def blocked_cells(state: PompeiiState) -> list[bool]:
    """POM-72: cells a person cannot enter (void, covered, or uncovered vents with vents_block_movement)."""
    blocked = list(_BLOCKED_AT_START[state.options["vents_block_movement"]])
    for c, _ in state.lava_order:
        blocked[c] = True
    return blocked


_BLOCKED_AT_START = {v: tuple(not B.IS_CITY[c] or (v and B.IS_VENT[c]) for c in range(B.CELLS))
                     for v in (False, True)}


def reachable(state: PompeiiState, origin: int, steps: int, blocked=None) -> dict[int, int]:
    """POM-72: cells reachable from origin within `steps`, with their distance."""
    if blocked is None:
        blocked = blocked_cells(state)
    dist = {origin: 0}
    frontier = [origin]
    for d in range(1, steps + 1):
        nxt = []
        for c in frontier:
            for n in B.NEIGHBOURS[c]:
                if n not in dist and not blocked[n]:
                    dist[n] = d
                    nxt.append(n)
        if not nxt:
            break
        frontier = nxt
    return dist


def can_leave(state: PompeiiState, dist: dict[int, int], allowance: int) -> bool:
    """POM-73: an open gate square within allowance - 1 steps."""
    return any(dist.get(g, allowance) <= allowance - 1 for g in B.GATES if not state.lava[g])


def may_move_from(state: PompeiiState, seat: int, cell: int) -> bool:
    """POM-74/94: whether the seat has a person on cell that may make this move."""
    here = state.count(cell, seat)
    if not here:
        return False
    if state.moves_made == 0 or state.first_end != cell:
        return True
    if here > 1:  # an unmoved person shares the square
        return True
    return state.first_lone or state.on_board(seat) == 1  # POM-74 (a) / (b)


def person_moves(state: PompeiiState, seat: int) -> list:
    out = []
    p = state.players
    people = state.people
    blocked = blocked_cells(state)
    sqs = B.SQUARES
    for o in B.CITY:
        if not people[o * p + seat] or not may_move_from(state, seat, o):
            continue
        allowance = sum(people[o * p:(o + 1) * p])  # POM-71
        dist = reachable(state, o, allowance, blocked)
        origin = sqs[o]
        out.extend(MovePerson(origin, sqs[t]) for t in sorted(dist) if t != o)
        if can_leave(state, dist, allowance):
            out.append(MovePerson(origin, None))
    if not out or state.options["pass_anytime"]:  # POM-75: a pass only when no move is possible
        out.append(Pass())
    return out


# ---------------------------------------------------------------- legality

def seats_to_act(state: PompeiiState) -> list[int]:
    if state.phase == OVER:
        return []
    if state.phase == SETTLE:  # POM-92: any seat that may declare
        return [s for s in range(state.players) if s == state.turn or can_declare(state, s)]
    return [state.turn]


def legal_moves(state: PompeiiState, seat: int) -> list:
    if state.phase == OVER or not 0 <= seat < state.players:
        return []
    if state.phase == SETTLE:
        out = []
        if seat == state.turn:
            if state.step == PLAY_CARD:
                out = card_moves(state, seat)
            elif state.step == RELATIVES:
                out = [PlaceRelative(B.square(c)) for c in relative_cells(state)] + [StopRelatives()]
            elif state.step == OMEN:
                out = [OmenTarget(B.square(c), t) for c, t in omen_targets(state, seat)]
        if can_declare(state, seat):
            out.append(DeclareEruption())
        return out
    if seat != state.turn:
        return []
    if state.step == PLACE_LAVA:
        return [PlaceLava(B.square(c), s) for s, c in tile_options(state)]
    return person_moves(state, seat)


def _cell(square, rule: str) -> int:
    try:
        r, c = square
        r, c = int(r), int(c)
    except (TypeError, ValueError):
        raise IllegalMove(rule, f"{square!r} is not a square.") from None
    if not (0 <= r < B.ROWS and 0 <= c < B.COLS) or not B.IS_CITY[r * B.COLS + c]:
        raise IllegalMove("POM-3", f"[{r}, {c}] is not a city square.")
    return r * B.COLS + c


def _require_turn(state: PompeiiState, seat: int, step: tuple, rule: str, what: str):
    if state.phase == OVER:
        raise IllegalMove("POM-80", "The game is over.")
    if seat != state.turn:
        raise IllegalMove("POM-92", f"Seat {seat} is not due to act; only seat {state.turn} may {what}.")
    if state.step not in step:
        raise IllegalMove(rule, f"Seat {seat} cannot {what} now (the pending decision is {state.step}).")


# ---------------------------------------------------------------- apply

def apply(state: PompeiiState, seat: int, move) -> list[Event]:
    if not isinstance(seat, int) or not 0 <= seat < state.players:
        raise IllegalMove("POM-1", f"There is no seat {seat!r}.")
    handler = _HANDLERS.get(type(move))
    if handler is None:
        raise IllegalMove("POM-91", f"{move!r} is not a Pompeii action.")
    events: list[Event] = []
    handler(state, seat, move, events)
    return events


def _play_card(state, seat, move: PlayCard, events):
    if state.phase != SETTLE:
        raise IllegalMove("POM-20", "Cards are played only in phase 1.")
    _require_turn(state, seat, (PLAY_CARD,), "POM-20", "play a card")
    n = move.number
    if n not in state.hands[seat]:
        raise IllegalMove("POM-21", f"Seat {seat} holds no card {n!r}.")
    wild = is_wild(state, n)
    lay = layout(state)
    target = None if move.square is None else _cell(move.square, "POM-22")
    origin = None if move.origin is None else _cell(move.origin, "POM-37")
    relatives = 0
    if wild and state.options["wild_card_moves_existing"]:  # POM-37 flag: move one's own person or decline
        if (origin is None) != (target is None):
            raise IllegalMove("POM-37", "A wild card moves a person from one square to another, or declines.")
        if origin is not None:
            if not state.count(origin, seat):
                raise IllegalMove("POM-37", f"Seat {seat} has nobody on {list(move.origin)}.")
            if target in all_free_cells(state) and target not in wild_cells(state):
                raise IllegalMove("POM-33", "Neutral buildings are filled only by relatives, never by a card.")
            if target not in wild_cells(state) or lay.building_at[target] == lay.building_at[origin]:
                raise IllegalMove("POM-37", "The person must go to a free slot in another building.")
    else:
        if origin is not None:
            raise IllegalMove("POM-22" if not wild else "POM-37", "Only a wild card with wild_card_moves_existing moves a person.")
        cells = (wild_cells(state) if wild else free_cells(state, lay.by_number[n])) if state.supply[seat] else []
        if not cells and target is not None:
            raise IllegalMove("POM-37" if wild else "POM-22", "No placement is possible; the card is played with no square.")
        declined = target is None and wild and not state.options["wild_placement_compulsory"]
        if cells and target not in cells and not declined:
            if wild and target in all_free_cells(state):
                raise IllegalMove("POM-33", "Neutral buildings are filled only by relatives, never by a card.")
            rule = "POM-37" if wild else "POM-22"
            where = "a free slot of a numbered building" if wild else f"a free slot of a building numbered {n}"
            raise IllegalMove(rule, f"The person must go on {where}.")
        if target is not None and not wild and state.first_ad79:
            relatives = building_people(state, lay.building_at[target])  # POM-32: before the placement
    # mutate
    state.hands[seat].remove(n)
    state.discard.append(n)
    data = {"seat": seat, "number": n, "wild": wild}
    if origin is not None:
        state.people[origin * state.players + seat] -= 1
        data["origin"] = sq(origin)
    if target is not None:
        state.people[target * state.players + seat] += 1
        if origin is None:
            state.supply[seat] -= 1
        data["square"] = sq(target)
    events.append(Event("card_played", data))
    if relatives:
        b = lay.building_at[target]
        state.relatives_left = relatives
        state.relatives_building = b
        state.relatives_used = []
        events.append(Event("relatives_earned", {"seat": seat, "count": relatives, "building": lay.buildings[b].id}))
    _continue_relatives(state, seat, events)


def _continue_relatives(state, seat, events):
    """POM-35: wait for the next relative, or end the step by itself and draw."""
    if state.relatives_left > 0 and state.supply[seat] > 0 and relative_cells(state):
        state.step = RELATIVES
        return
    _clear_relatives(state)
    _draw(state, seat, events)


def _clear_relatives(state):
    state.relatives_left = 0
    state.relatives_building = -1
    state.relatives_used = []


def _place_relative(state, seat, move: PlaceRelative, events):
    if state.phase != SETTLE:
        raise IllegalMove("POM-35", "Relatives are placed only in phase 1.")
    _require_turn(state, seat, (RELATIVES,), "POM-35", "place a relative")
    cell = _cell(move.square, "POM-33")
    if cell not in relative_cells(state):
        lay = layout(state)
        b = lay.building_at[cell]
        if b == state.relatives_building:
            raise IllegalMove("POM-33", "A relative may never go into the building just entered.")
        if b >= 0 and b in state.relatives_used and free_slots(state, cell) > 0:
            raise IllegalMove("POM-34", "Each building takes at most one relative per turn.")
        raise IllegalMove("POM-33", f"{list(move.square)} is not a free slot of the same colour or a neutral building.")
    state.people[cell * state.players + seat] += 1
    state.supply[seat] -= 1
    state.relatives_left -= 1
    state.relatives_used.append(layout(state).building_at[cell])
    events.append(Event("relative_placed", {"seat": seat, "square": sq(cell)}))
    _continue_relatives(state, seat, events)


def _stop_relatives(state, seat, move, events):
    if state.phase != SETTLE:
        raise IllegalMove("POM-35", "Relatives are placed only in phase 1.")
    _require_turn(state, seat, (RELATIVES,), "POM-35", "stop placing relatives")
    events.append(Event("relatives_stopped", {"seat": seat, "unplaced": state.relatives_left}))
    _clear_relatives(state)
    _draw(state, seat, events)


def _draw(state, seat, events):
    """POM-23/24/25/31/50: draw until a Pompeii card, an Omen decision or the second AD79."""
    while True:
        if not state.deck:
            raise RuntimeError("POM-23: the deck ran out before the second AD79")
        card = state.deck.pop()
        if card <= 11:
            state.hands[seat].append(card)
            events.append(Event("card_drawn", {"seat": seat}))
            events.append(Event("card_received", {"seat": seat, "number": card}, to=seat))
            state.turn = (seat + 1) % state.players  # POM-20: the seat to the left plays
            state.step = PLAY_CARD
            return
        state.discard.append(card)
        if card == B.AD79:
            first = not state.first_ad79
            events.append(Event("ad79_drawn", {"seat": seat, "first": first}))
            if first:
                state.first_ad79 = True  # POM-24: draw a replacement at once
                continue
            _eruption(state, seat, False, events)  # POM-50
            return
        # an Omen
        effective = state.first_ad79 and bool(omen_targets(state, seat))  # POM-25 / POM-31
        events.append(Event("omen_drawn", {"seat": seat, "effective": effective}))
        if effective:
            state.step = OMEN
            return


def _omen_target(state, seat, move: OmenTarget, events):
    if state.phase != SETTLE:
        raise IllegalMove("POM-31", "Omens act only in phase 1.")
    _require_turn(state, seat, (OMEN,), "POM-31", "choose an Omen victim")
    cell = _cell(move.square, "POM-31")
    victim = move.seat
    if (cell, victim) not in omen_targets(state, seat):
        raise IllegalMove("POM-31", f"The Omen cannot take a person of seat {victim!r} on {list(move.square)}.")
    state.people[cell * state.players + victim] -= 1
    state.volcano[victim] += 1
    events.append(Event("omen_victim", {"seat": seat, "square": sq(cell), "victim": victim}))
    _draw(state, seat, events)


def _declare(state, seat, move, events):
    if state.phase != SETTLE:
        raise IllegalMove("POM-51", "The eruption can be declared only in phase 1.")
    if not can_declare(state, seat):
        raise IllegalMove("POM-51", f"Seat {seat} may declare only when every card in its hand is wild.")
    events.append(Event("eruption_declared", {"seat": seat, "hand": sorted(state.hands[seat])}))
    _eruption(state, seat, True, events)


def _eruption(state, seat, declared, events):
    """POM-52: end phase 1, discard hands, box supplies, then the opening tiles."""
    hands = [{"seat": s, "cards": sorted(h)} for s, h in enumerate(state.hands)]
    for h in state.hands:
        state.discard.extend(sorted(h))
    state.hands = [[] for _ in range(state.players)]
    boxed = list(state.supply)
    state.box = [b + s for b, s in zip(state.box, state.supply)]
    state.supply = [0] * state.players
    _clear_relatives(state)
    state.phase = OPENING
    state.step = ""
    state.eruption_seat = seat
    events.append(Event("eruption", {"seat": seat, "declared": declared, "hands": hands, "boxed": boxed}))
    if not state.board_total():  # POM-81
        _game_over(state, events)
        return
    state.turn = (seat + 1) % state.players  # POM-52 step 5
    _next_tile(state, events)


def _draw_tile(state) -> str:
    """POM-14/60: a uniformly random tile from those left."""
    r = state.rng.randrange(sum(state.bag))
    for i, k in enumerate(state.bag):
        if r < k:
            state.bag[i] -= 1
            return B.TILE_KINDS[i]
        r -= k
    raise AssertionError("empty bag")


def _next_tile(state, events):
    """POM-60: the seat due draws a tile; it waits for PLACE_LAVA unless it must be discarded (POM-63)."""
    seat = state.turn
    state.pending_tile = _draw_tile(state)
    events.append(Event("tile_drawn", {"seat": seat, "tile": state.pending_tile}))
    if tile_options(state):
        state.step = PLACE_LAVA
        return
    state.tiles_discarded.append(state.pending_tile)
    events.append(Event("tile_discarded", {"seat": seat, "tile": state.pending_tile}))
    _after_tile(state, events)


def _place_lava(state, seat, move: PlaceLava, events):
    if state.phase not in (OPENING, ESCAPE):
        raise IllegalMove("POM-60", "Lava tiles are placed only after the eruption.")
    _require_turn(state, seat, (PLACE_LAVA,), "POM-70", "place a lava tile")
    syms = B.tile_symbols(state.pending_tile)
    if len(syms) == 1:
        if move.symbol not in ("", syms[0]):
            raise IllegalMove("POM-62", f"The tile is a {syms[0]} tile, not {move.symbol!r}.")
        symbol = syms[0]
    else:
        if move.symbol not in syms:
            raise IllegalMove("POM-66", f"Choose one symbol of the dual-vent tile: {' or '.join(syms)}.")
        symbol = move.symbol
    cell = _cell(move.square, "POM-62")
    if cell not in lava_cells(state, symbol):
        if state.lava[cell]:
            raise IllegalMove("POM-64", f"{list(move.square)} is already covered.")
        raise IllegalMove("POM-62", f"A {symbol} tile cannot go on {list(move.square)}.")
    p = state.players
    killed = state.people[cell * p:(cell + 1) * p]
    for s in range(p):  # POM-64
        state.volcano[s] += killed[s]
        state.people[cell * p + s] = 0
    state.lava[cell] = symbol
    state.lava_order.append((cell, symbol))
    events.append(Event("lava_placed", {"seat": seat, "square": sq(cell), "symbol": symbol,
                                        "tile": state.pending_tile, "killed": killed}))
    _cut_off(state, events)
    _after_tile(state, events)


def reached_from_gates(state) -> set[int]:
    """POM-65 steps 1-2: uncovered gate squares spread through passable squares."""
    blocked = blocked_cells(state)
    seen = {g for g in B.GATES if not blocked[g]}
    queue = deque(seen)
    while queue:
        c = queue.popleft()
        for n in B.NEIGHBOURS[c]:
            if n not in seen and not blocked[n]:
                seen.add(n)
                queue.append(n)
    return seen


def _cut_off(state, events):
    """POM-65 step 3: everyone on an unmarked square goes to the volcano."""
    marked = reached_from_gates(state)
    p = state.players
    killed = [0] * p
    squares = []
    for c in B.CITY:
        if c in marked:
            continue
        row = state.people[c * p:(c + 1) * p]
        if any(row):
            squares.append(sq(c))
            for s in range(p):
                killed[s] += row[s]
                state.volcano[s] += row[s]
                state.people[c * p + s] = 0
    if squares:
        events.append(Event("cut_off", {"squares": squares, "killed": killed}))


def _after_tile(state, events):
    state.pending_tile = ""
    state.step = ""
    if not state.board_total():  # POM-81
        _game_over(state, events)
        return
    if state.phase == OPENING:
        state.opening_drawn += 1
        state.turn = (state.turn + 1) % state.players  # POM-61: the rotation simply continues
        if state.opening_drawn < OPENING_TILES:
            _next_tile(state, events)
        else:
            state.phase = ESCAPE
            _start_turn(state, state.turn, events)
        return
    if not state.on_board(state.turn):  # POM-76
        _end_turn(state, events)
        return
    state.step = FIRST_MOVE


def _start_turn(state, seat, events):
    """POM-70: record lone people (POM-94), then draw the tile."""
    p = state.players
    state.turn = seat
    state.lone = tuple(c for c in B.CITY if state.people[c * p + seat] == 1 and state.on_cell(c) == 1)
    state.moves_made = 0
    state.first_end = -1
    state.first_lone = False
    events.append(Event("turn_started", {"seat": seat, "lone_squares": [sq(c) for c in state.lone]}))
    _next_tile(state, events)


def _end_turn(state, events):
    state.step = ""
    if not sum(state.bag):  # POM-80: the last tile's turn is complete
        p = state.players
        final = [sum(state.people[s::p]) for s in range(p)]
        for s in range(p):
            state.volcano[s] += final[s]
        state.people = [0] * len(state.people)
        _game_over(state, events, final)
        return
    _start_turn(state, (state.turn + 1) % state.players, events)


def _move_person(state, seat, move: MovePerson, events):
    if state.phase != ESCAPE:
        raise IllegalMove("POM-70", "People move only in phase 2.")
    _require_turn(state, seat, (FIRST_MOVE, SECOND_MOVE), "POM-70", "move a person")
    origin = _cell(move.origin, "POM-71")
    if not state.count(origin, seat):
        raise IllegalMove("POM-71", f"Seat {seat} has nobody on {list(move.origin)}.")
    if not may_move_from(state, seat, origin):
        raise IllegalMove("POM-74", "The person who made the first move may move again only if it was alone "
                                    "at the start of the turn or is the seat's last person.")
    allowance = state.on_cell(origin)
    dist = reachable(state, origin, allowance)
    p = state.players
    if move.target is None:
        if not can_leave(state, dist, allowance):
            raise IllegalMove("POM-73", f"No open gate is within {allowance - 1} steps of {list(move.origin)}.")
        state.people[origin * p + seat] -= 1
        state.saved[seat] += 1
        end = -1
        events.append(Event("person_saved", {"seat": seat, "origin": sq(origin), "allowance": allowance}))
    else:
        target = _cell(move.target, "POM-72")
        if target == origin:
            raise IllegalMove("POM-75", "A move of zero steps is a pass.")
        if target not in dist:
            raise IllegalMove("POM-72", f"{list(move.target)} is not reachable from {list(move.origin)} "
                                        f"within {allowance} steps.")
        state.people[origin * p + seat] -= 1
        state.people[target * p + seat] += 1
        end = target
        events.append(Event("person_moved", {"seat": seat, "origin": sq(origin), "target": sq(target),
                                             "allowance": allowance}))
    if state.moves_made == 0:
        state.first_lone = origin in state.lone
        state.first_end = end
    _after_move(state, events)


def _pass(state, seat, move, events):
    if state.phase != ESCAPE:
        raise IllegalMove("POM-75", "Passing is a phase-2 move.")
    _require_turn(state, seat, (FIRST_MOVE, SECOND_MOVE), "POM-75", "pass")
    if Pass() not in person_moves(state, seat):
        raise IllegalMove("POM-75", "Both moves must be made, by two different people, while a move is possible.")
    events.append(Event("passed", {"seat": seat}))
    if state.moves_made == 0:
        state.first_end = -1
        state.first_lone = False
    _after_move(state, events)


def _after_move(state, events):
    state.moves_made += 1
    if not state.board_total():  # POM-81
        _game_over(state, events)
        return
    if state.moves_made == 1 and state.on_board(state.turn):  # POM-76: otherwise skipped
        state.step = SECOND_MOVE
        return
    _end_turn(state, events)


def _game_over(state, events, final=None):
    state.phase = OVER
    state.step = ""
    state.pending_tile = ""
    out = outcome(state)
    events.append(Event("game_over", {"saved": list(state.saved), "volcano": list(state.volcano),
                                      "winners": list(out.winners),
                                      "final_casualties": final or [0] * state.players}))


def outcome(state) -> Outcome:
    """POM-83: most saved, then fewest in the volcano; equal keys share."""
    keys = [(state.saved[s], -state.volcano[s]) for s in range(state.players)]
    ranks, winners = rank_by(keys)
    return Outcome(scores=tuple(float(x) for x in state.saved), ranks=ranks, winners=winners,
                   detail={"saved": tuple(state.saved), "volcano": tuple(state.volcano)})


_HANDLERS = {
    PlayCard: _play_card,
    PlaceRelative: _place_relative,
    StopRelatives: _stop_relatives,
    OmenTarget: _omen_target,
    DeclareEruption: _declare,
    PlaceLava: _place_lava,
    MovePerson: _move_person,
    Pass: _pass,
}
