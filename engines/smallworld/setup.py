"""Options and the initial state (SW-20 - SW-26, NEC-2 - NEC-7)."""
from __future__ import annotations

import random

from engines.core import InvalidOptions

from . import data as D
from .flow import start_turn
from .forces import powers
from .resolution import refill_row
from .spec import SPEC
from .state import blank

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE

DEFAULTS = SPEC.defaults()  # ED-n: the edition decisions and the Necromancer switch (spec.py)

CHOICES = SPEC.choices(str)

SUPPORTED_ONLY = {o.name: o.allowed[0] for o in SPEC.options if o.type is bool and len(o.allowed) == 1}

SEATS = {bool(r.options.get("necromancer")): (r.min_seats, r.max_seats) for r in SPEC.seat_ranges}  # SW-20, NEC-2


def normalize_options(seats, options):
    opts = dict(DEFAULTS)
    for k, v in (options or {}).items():
        if k not in DEFAULTS:
            raise InvalidOptions("ED-0", f"unknown option {k!r}")
        d = DEFAULTS[k]
        if isinstance(d, bool):
            if not isinstance(v, bool):
                raise InvalidOptions("ED-0", f"option {k} must be a boolean")
        elif isinstance(d, int):
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidOptions("ED-0", f"option {k} must be an integer")
        else:
            if isinstance(v, int) and not isinstance(v, bool) and k in ("first_player", "necromancer_seat"):
                v = str(v)
            if not isinstance(v, str):
                raise InvalidOptions("ED-0", f"option {k} must be a string")
        opts[k] = v
    for k, allowed in CHOICES.items():
        if opts[k] not in allowed:
            raise InvalidOptions("ED-0", f"option {k} must be one of {', '.join(allowed)}")
    for k, v in SUPPORTED_ONLY.items():
        if opts[k] != v:
            raise InvalidOptions("ED-36", f"option {k}={opts[k]} is not supported by this engine")
    if not 1 <= opts["combo_row_size"] <= 6:
        raise InvalidOptions("ED-2", "combo_row_size must be 1..6")
    if not 0 <= opts["necro_ghosts_removed"] <= 2:
        raise InvalidOptions("NEC-6", "necro_ghosts_removed must be 0, 1 or 2")
    nec = opts["necromancer"]
    lo, hi = SEATS[bool(nec)]
    if not isinstance(seats, int) or not lo <= seats <= hi:
        raise InvalidOptions("NEC-2" if nec else "SW-20",
                             f"{'Necromancer Island' if nec else 'Small World'} takes {lo}-{hi} seats, not {seats}")
    for k in ("first_player", "necromancer_seat"):
        v = opts[k]
        if v not in ("random", "before_first"):
            if not v.isdigit() or int(v) >= seats:
                raise InvalidOptions("ED-28" if k == "necromancer_seat" else "ED-5",
                                     f"option {k} must name a seat 0..{seats - 1}")
    if opts["first_player"] == "before_first":
        raise InvalidOptions("ED-5", "first_player must be 'random' or a seat number")
    if opts["necromancer_seat"] == "random":
        raise InvalidOptions("ED-28", "necromancer_seat must be 'before_first' or a seat number")
    return opts


def new_state(seats, options, seed):
    o = normalize_options(seats, options)
    nec = o["necromancer"]
    players = seats - 1 if nec else seats
    mkey = (f"{players}p", o["map5p_border_13_19"], o["map5p_region28_terrain"])
    b = D.board(*mkey)
    st = blank(seats, o, mkey, b.n)
    st.rng = random.Random(seed)
    rng = st.rng
    st.rounds = b.rounds  # SW-20
    # SW-26 / NEC-3 seating
    if nec and o["necromancer_seat"] != "before_first":
        necro = int(o["necromancer_seat"])
        first = (necro + 1) % seats
        if o["first_player"] != "random" and int(o["first_player"]) != first:
            raise InvalidOptions("NEC-3", "the first player must sit directly left of the Necromancer")
    else:
        first = rng.randrange(seats) if o["first_player"] == "random" else int(o["first_player"])
        necro = (first - 1) % seats if nec else -1
    st.first_player = first
    st.necro = necro
    st.order = [(first + i) % seats for i in range(seats)]
    if nec:
        st.coins[necro] = D.START_COINS  # NEC-7
    # SW-22 decks; NEC-4 draw before the row is dealt
    races = list(range(D.N_RACES))
    rng.shuffle(races)
    powers = list(range(D.N_POWERS))
    rng.shuffle(powers)
    if nec:
        drawn, rejected = [], []
        while len(drawn) < D.NECRO_POWERS_DRAWN:
            p = powers.pop(0)
            (drawn if D.NECRO_DRAWABLE[p] else rejected).append(p)
        if o["necro_rejected_return"]:
            powers += rejected
            rng.shuffle(powers)
        else:
            st.rejected = rejected
        st.necro_reserve = drawn
        st.ghost_reserve = D.GHOST_TOTAL - 1 - o["necro_ghosts_removed"]  # NEC-5, NEC-6
        st.island = 1
    st.race_deck = races
    st.power_deck = powers
    for k in range(D.N_RACES):
        st.supply[k] = D.BOX[k]
    st.supply[LOST] = D.BOX[LOST]
    for r in range(b.n):  # SW-23 Lost Tribes
        if b.lost_tribe[r]:
            st.occ[r] = LOST
            st.cnt[r] = 1
            st.supply[LOST] -= 1
    refill_row(st, [])
    if nec:
        st.cur = necro
        st.phase = "necro_setup"
    else:
        start_turn(st, [])
    return st
