"""What a seat may know (POM-90) and states rebuilt from it for information-set search."""
from __future__ import annotations

import random

from . import board as B
from .board import sq
from .setup import DEFAULT_OPTIONS, FIRST_AD79_DRAW, PILE_DRAWS, bottom_block_start
from .state import OVER, PompeiiState, layout


def view(state: PompeiiState, seat: int | None) -> dict:
    """POM-90: public state plus `seat`'s own hand. Keys equal PompeiiView field names."""
    p = state.seats
    lay = layout(state)
    people = []
    for c in B.CITY:
        row = state.people[c * p:(c + 1) * p]
        if any(row):
            people.append({"square": sq(c), "counts": list(row)})
    v = {
        "players": p,
        "viewer": -1 if seat is None else seat,
        "options": dict(state.options),
        "phase": state.phase,
        "step": state.step,
        "turn": -1 if state.phase == OVER else state.turn,
        "first_ad79": state.first_ad79,
        "hand": sorted(state.hands[seat]) if seat is not None else [],
        "hand_sizes": [len(h) for h in state.hands],
        "deck_size": len(state.deck),
        "discard_pile": list(state.discard),
        "people": people,
        "lava": [{"square": sq(c), "symbol": s} for c, s in state.lava_order],
        "discarded_tiles": list(state.tiles_discarded),
        "bag": {k: n for k, n in zip(B.TILE_KINDS, state.bag)},
        "supply": list(state.supply),
        "saved": list(state.saved),
        "volcano": list(state.volcano),
        "box": list(state.box),
        "pending_tile": state.pending_tile,
        "relatives_left": state.relatives_left,
        "relatives_building": lay.buildings[state.relatives_building].id if state.relatives_building >= 0 else "",
        "relatives_used": [lay.buildings[b].id for b in state.relatives_used],
        "eruption_seat": state.eruption_seat,
        "opening_tiles": state.opening_drawn,
        "lone_squares": [sq(c) for c in state.lone],
        "moves_made": state.moves_made,
        "first_mover_alone": state.first_lone,
    }
    if state.first_end >= 0:
        v["first_move_end"] = sq(state.first_end)
    return v


def _cell(d) -> int:
    return int(d.get("row", 0)) * B.COLS + int(d.get("col", 0))


def determinize(v: dict, seat: int, rng: random.Random) -> PompeiiState:
    """A full state equal to the view `v` of `seat`; hidden cards (POM-12/13) and the RNG resampled."""
    p = int(v["players"])
    options = dict(DEFAULT_OPTIONS)
    options.update({k: val for k, val in (v.get("options") or {}).items() if k in DEFAULT_OPTIONS})
    state = PompeiiState(p, options, random.Random(rng.getrandbits(64)))
    lay = layout(state)
    state.phase = v["phase"]
    state.step = v.get("step", "")
    state.turn = int(v["turn"]) if int(v["turn"]) >= 0 else 0
    state.first_ad79 = bool(v.get("first_ad79", False))
    state.discard = [int(c) for c in v.get("discard_pile", [])]
    for entry in v.get("people", []):
        c = _cell(entry["square"])
        for s, n in enumerate(entry["counts"]):
            if n:
                state.people[c * p + s] = int(n)
    for entry in v.get("lava", []):
        c = _cell(entry["square"])
        state.lava[c] = entry["symbol"]
        state.lava_order.append((c, entry["symbol"]))
    state.tiles_discarded = list(v.get("discarded_tiles", []))
    bag = v.get("bag", {})
    state.bag = [int(bag.get(k, 0)) for k in B.TILE_KINDS]
    for name in ("supply", "saved", "volcano", "box"):
        setattr(state, name, [int(x) for x in v[name]])
    state.pending_tile = v.get("pending_tile", "")
    state.relatives_left = int(v.get("relatives_left", 0))
    rb = v.get("relatives_building", "")
    state.relatives_building = lay.by_id[rb] if rb else -1
    state.relatives_used = [lay.by_id[b] for b in v.get("relatives_used", [])]
    state.eruption_seat = int(v.get("eruption_seat", -1))
    state.opening_drawn = int(v.get("opening_tiles", 0))
    state.lone = tuple(_cell(s) for s in v.get("lone_squares", []))
    state.moves_made = int(v.get("moves_made", 0))
    fe = v.get("first_move_end")
    state.first_end = _cell(fe) if fe else -1
    state.first_lone = bool(v.get("first_mover_alone", False))
    _deal_hidden(state, v, seat, rng)
    return state


def _unseen_cards(own: list[int], discard: list[int]) -> tuple[list[int], int, int]:
    """The Pompeii cards, Omens and AD79s that `own` hand and the discard pile leave unaccounted for."""
    seen: dict[int, int] = {}
    for card in own + discard:
        seen[card] = seen.get(card, 0) + 1
    pool = [number for number, k in sorted(B.CARD_COUNTS.items()) for _ in range(k - seen.get(number, 0))]
    return pool, B.OMEN_COUNT - seen.get(B.OMEN, 0), B.AD79_COUNT - seen.get(B.AD79, 0)


def _special_cards(seats: int, positions: list[int], omens: int, ad79s: int, rng: random.Random) -> dict[int, int]:
    """POM-12 (setup.py's deck structure): the draw positions of the unseen Omens and AD79s."""
    card_at: dict[int, int] = {}
    mixed = []  # positions holding pile-A cards (Pompeii or Omen)
    for i in positions:
        if i <= PILE_DRAWS:
            continue  # a Pompeii card from the piles
        if i == FIRST_AD79_DRAW and ad79s == 2:
            card_at[i] = B.AD79
            continue
        mixed.append(i)
    if ad79s and len(card_at) < ad79s:
        start = bottom_block_start(seats)
        bottom = [i for i in mixed if i >= start] or mixed
        i = rng.choice(bottom)
        card_at[i] = B.AD79
        mixed.remove(i)
    rng.shuffle(mixed)
    for i in mixed[:omens]:
        card_at[i] = B.OMEN
    return card_at


def _deal_hidden(state: PompeiiState, v: dict, seat: int, rng: random.Random):
    """Resample other hands, unused piles and the deck, respecting the POM-12 structure."""
    p = state.seats
    own = [int(c) for c in v.get("hand", [])] if seat is not None and 0 <= seat < p else []
    sizes = [int(n) for n in v["hand_sizes"]]
    pool, omens, ad79s = _unseen_cards(own, state.discard)
    rng.shuffle(pool)
    positions = list(range(B.DECK_SIZE - int(v["deck_size"]) + 1, B.DECK_SIZE + 1))  # draw numbers left
    card_at = _special_cards(p, positions, omens, ad79s, rng)
    state.deck = [card_at[i] if i in card_at else pool.pop() for i in positions][::-1]
    for s in range(p):
        state.hands[s] = sorted(own) if s == seat else sorted(pool.pop() for _ in range(sizes[s]))
    n_unused = B.unused_piles(p) * B.PILE_SIZE
    state.unused = [pool.pop() for _ in range(min(n_unused, len(pool)))]
    if pool:
        raise ValueError("POM-90: the view is inconsistent with the card counts")
