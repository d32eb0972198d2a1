"""Small World rules: setup, legality, resolution and turn flow (RULES.md ids in comments).

Vocabulary: a *force* is the token kind that conquers now: the current player's active race,
his in-decline Ghouls during their phase (SW-133), or the Necromancer's Ghosts (NEC-9).
"""
from __future__ import annotations

import random

from engines.core import Event, IllegalMove, InvalidOptions, rank_by

from . import data as D
from .moves import (Abandon, BerserkRoll, BuyGhost, BuyPower, ChoosePower, Conquer, Convert, Decline, Deploy,
                    DragonAttack, EndConquest, EndPurchases, Expand, FinalAttempt, NameAlly, Pass, PickCombo,
                    PlaceEncampment, PlaceFortress, PlaceHeroes, SetAside, Summon)
from .spec import SPEC
from .state import SWState, blank

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE

DEFAULTS = SPEC.defaults()  # ED-n: the edition decisions and the Necromancer switch (spec.py)
CHOICES = SPEC.choices(str)
SUPPORTED_ONLY = {o.name: o.allowed[0] for o in SPEC.options if o.type is bool and len(o.allowed) == 1}

NORMAL_EOT = ("heroes", "ally", "score", "stout", "defend", "convert", "next")
SEATS = {bool(r.options.get("necromancer")): (r.min_seats, r.max_seats) for r in SPEC.seat_ranges}  # SW-20, NEC-2
NECRO_EOT = ("heroes", "ally", "score", "summon", "convert", "defend", "check", "next")


# ---------------------------------------------------------------- options and setup

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


# ---------------------------------------------------------------- small queries

def opt(st, k):
    return st.options[k]


def regions_of(st, k):
    occ = st.occ
    return [r for r in range(len(occ)) if occ[r] == k]


def on_map(st, k):
    occ, cnt = st.occ, st.cnt
    return sum(cnt[r] for r in range(len(occ)) if occ[r] == k)


def seat_of(st, k):
    if k == GHOSTS:
        return st.necro
    if 0 <= k < D.N_RACES:
        return st.owner[k]
    return -1


def active_force(st, seat):
    if seat < 0:
        return NONE
    return GHOSTS if seat == st.necro else st.active[seat]


def is_active_race(st, k):
    return 0 <= k < D.N_RACES and st.owner[k] >= 0 and not st.in_decline[k]


def powers(st, k):
    """Powers that act for force k: an active race's badge, or the Necromancer's active powers (NEC-25)."""
    if k == GHOSTS:
        return st.necro_active if opt(st, "necro_powers_active") else ()
    if is_active_race(st, k) and st.power_of[k] >= 0:
        return (st.power_of[k],)
    return ()


def race_ability(st, k, race):
    return k == race and not st.in_decline[k] and st.owner[k] >= 0


def tokens_of(st, k):
    return on_map(st, k) + st.hand[k] + st.kept[k] + st.aside[k]


def kinds_of(st, seat):
    ks = []
    if seat == st.necro:
        ks.append(GHOSTS)
    elif st.active[seat] >= 0:
        ks.append(st.active[seat])
    ks.extend(st.declines[seat])
    return ks


def price(st):
    """NEC-19: active powers + Ghosts on regions + Ghosts on the Island (+1 with necro_price_plus_one)."""
    return (len(st.necro_active) + on_map(st, GHOSTS) + st.island + (1 if opt(st, "necro_price_plus_one") else 0))


def is_wiped(st, seat):
    a = st.active[seat]
    return a >= 0 and tokens_of(st, a) == 0


# ---------------------------------------------------------------- conquest geometry and cost

def conquest_cost(st, k, t):
    """SW-64 cost with SW-65 discounts (floor 1); SW-68 water counts as empty."""
    b = st.board
    d = st.occ[t]
    tokens = st.cnt[t] if d != NONE else 0
    if (0 <= d < D.N_RACES and not opt(st, "own_decline_token_adds_cost") and st.in_decline[d]
            and st.owner[d] == seat_of(st, k)):
        tokens = 0  # ED-9
    if b.water[t]:
        cost = 2 + tokens
    else:
        cost = 2 + b.mountain[t] + st.lair[t] + st.fort[t] + st.camps[t] + tokens
    disc = 0
    ps = powers(st, k)
    if ps:
        if D.COMMANDO in ps:  # SW-153
            disc += 1
        if D.MOUNTED in ps and b.terrain[t] in ("hill", "farmland"):  # SW-162
            disc += 1
        if D.UNDERWORLD in ps and t in b.caverns:  # SW-168
            disc += 1
    if race_ability(st, k, D.GIANTS):  # SW-134
        occ = st.occ
        if any(occ[m] == k and b.mountain[m] for m in b.adj[t]):
            disc += 1
    if race_ability(st, k, D.TRITONS) and (t in b.coastal or (b.water[t] and opt(st, "tritons_water_discount"))):
        disc += 1  # SW-141
    return max(1, cost - disc)


def immune(st, k, t):
    """SW-172: Hero, Dragon or Hole protects against every other race (ED-22)."""
    if not (st.hero[t] or st.dragon[t] or st.hole[t]):
        return False
    d = st.occ[t]
    if d == k:
        return False
    if not opt(st, "immunity_vs_own_races") and seat_of(st, d) == seat_of(st, k):
        return False
    return True


def peace_forbids(st, k, t):
    """SW-154: the Diplomat's ally's active race may not touch the Diplomat's active force."""
    d = st.occ[t]
    if d == NONE or d == LOST:
        return False
    dseat = seat_of(st, d)
    if dseat < 0:
        return False
    ally = st.peace[dseat]
    return ally >= 0 and d == active_force(st, dseat) and k == active_force(st, ally)


def reach_error(st, k, t, regs):
    b = st.board
    ps = powers(st, k)
    flying = D.FLYING in ps
    if not regs:
        if k == GHOSTS:  # NEC-22
            if t in b.lake_adjacent or (flying and opt(st, "flying_ignores_entry") and not b.water[t]):
                return None
            return ("NEC-22", f"the Ghosts hold no region, so region {t} must border the Lake")
        if race_ability(st, k, D.HALFLINGS):  # SW-135
            return None
        if flying and opt(st, "flying_ignores_entry") and not b.water[t]:  # SW-156
            return None
        if D.SEAFARING in ps and opt(st, "seafaring_enters_by_sea") and t in b.seas:  # SW-164
            return None
        if D.UNDERWORLD in ps and opt(st, "underworld_cavern_entry") and t in b.caverns:  # ED-8
            return None
        if t in b.entry:
            return None
        return ("SW-61", f"a first conquest must target an edge or seaside region; {t} is neither")
    adj = b.adj[t]
    occ = st.occ
    if any(occ[m] == k for m in adj):
        return None
    if flying and not b.water[t]:  # SW-156
        return None
    if D.UNDERWORLD in ps and t in b.caverns and any(occ[c] == k for c in b.caverns):  # SW-168
        return None
    return ("SW-63", f"region {t} is not adjacent to a region of the conquering race")


def target_error(st, k, t, regs):
    """SW-60 (b)-(f), (h): everything about a target except its cost."""
    b = st.board
    if not 0 <= t < b.n:
        return ("SW-60", f"there is no region {t}")
    if st.occ[t] == k:
        return ("SW-70", f"region {t} is already held by the conquering race")
    if b.water[t]:
        if st.necro >= 0 and t == b.lake and not opt(st, "necro_lake_conquerable"):
            return ("NEC-24", "the Lake under Necromancer Island cannot be conquered")
        if D.SEAFARING not in powers(st, k):
            return ("SW-68", f"only an active Seafaring race may conquer water region {t}")
    e = reach_error(st, k, t, regs)
    if e:
        return e
    if immune(st, k, t):
        return ("SW-172", f"region {t} is immune (Hero, Dragon or Hole-in-the-Ground)")
    if peace_forbids(st, k, t):
        return ("SW-154", f"a Diplomat's peace protects region {t}")
    return None


def conversion_error(st, t, regs):
    """SW-140 conditions for a Sorcerer conversion of region t."""
    b = st.board
    S = D.SORCERERS
    if not 0 <= t < b.n:
        return ("SW-140", f"there is no region {t}")
    d = st.occ[t]
    if not is_active_race(st, d) or st.owner[d] == st.cur or st.cnt[t] != 1 or st.camps[t]:
        return ("SW-140", "a conversion needs a lone token of an opponent's active race with no Encampment")
    if st.owner[d] in st.converted:
        return ("SW-140", "only one conversion per opponent per turn")
    if b.water[t] and D.SEAFARING not in powers(st, S):
        return ("SW-140", "Sorcerers may convert on water only when Seafaring")
    occ = st.occ
    near = any(occ[m] == S for m in b.adj[t])
    if (not near and opt(st, "sorcerer_range") == "borders_and_underworld" and D.UNDERWORLD in powers(st, S)
            and t in b.caverns and any(occ[c] == S for c in b.caverns)):
        near = True
    if not near:
        return ("SW-140", f"region {t} does not border a Sorcerer region")
    if immune(st, S, t):
        return ("SW-172", f"region {t} is immune")
    if peace_forbids(st, S, t):
        return ("SW-154", f"a Diplomat's peace protects region {t}")
    if st.supply[S] < 1:
        return ("SW-140", "no Sorcerer token left in the supply")
    if opt(st, "sorcerer_needs_hand_token") and st.hand[S] < 1:
        return ("ED-20", "a conversion needs a Sorcerer token in hand")
    return None


def can_abandon(st, k):
    return st.roll < 0 and (not opt(st, "abandon_before_conquest_only") or st.t_conquests[k] == 0)


def has_final_attempt(st, k):
    return not (D.BERSERK in powers(st, k) and opt(st, "berserk_roll_first"))


def conquest_moves(st):
    k = st.force
    b = st.board
    regs = regions_of(st, k)
    hand = st.hand[k]
    moves = []
    if st.roll >= 0:  # SW-151 Berserk: choose a target with the roll known
        for t in range(b.n):
            if hand >= 1 and target_error(st, k, t, regs) is None and max(1, conquest_cost(st, k, t) - st.roll) <= hand:
                moves.append(Conquer(t))
        moves.append(EndConquest())
        return moves
    if can_abandon(st, k):
        moves.extend(Abandon(r) for r in regs)
    ps = powers(st, k)
    final = hand >= 1 and has_final_attempt(st, k)
    short = opt(st, "final_die_requires_shortfall")
    dragon = hand >= 1 and D.DRAGON_MASTER in ps and not st.dragon_used
    if hand >= 1:
        for t in range(b.n):
            if target_error(st, k, t, regs) is not None:
                continue
            c = conquest_cost(st, k, t)
            if c <= hand:
                moves.append(Conquer(t))
            if final and (1 if short else -99) <= c - hand <= 3:
                moves.append(FinalAttempt(t))
            if dragon and dragon_markers_ok(st, t):
                moves.append(DragonAttack(t))
        if D.BERSERK in ps:
            moves.append(BerserkRoll())
    if race_ability(st, k, D.SORCERERS) and regs:
        moves.extend(Convert(t) for t in range(b.n) if conversion_error(st, t, regs) is None)
    moves.append(EndConquest())
    return moves


def dragon_markers_ok(st, t):
    if opt(st, "dragon_ignores_markers"):
        return True
    return not (st.board.mountain[t] or st.lair[t] or st.fort[t] or st.camps[t])  # ED-17 alternative


# ---------------------------------------------------------------- resolution helpers

def well_push(st, k):
    if k == GHOSTS:
        st.well_ghosts += 1
    else:
        st.well.append(k)


def discard_token(st, k, to_well):
    """One token lost to conquest: the Soul Well in Necromancer Island (NEC-10), else the supply."""
    if st.necro >= 0 and to_well:
        well_push(st, k)
    else:
        st.supply[k] += 1


def clear_region(st, r, owner_seat):
    """Pieces leaving a region whose tokens left it (SW-69, SW-93)."""
    st.lair[r] = 0
    st.fort[r] = 0
    if st.camps[r]:
        if owner_seat >= 0:
            st.camp_hand[owner_seat] += st.camps[r]
        st.camps[r] = 0
    st.hero[r] = 0
    st.dragon[r] = 0
    st.hole[r] = 0


def take_defenders(st, t, ev):
    """SW-80 losses of the region being conquered; returns (kind, seat) of the defender."""
    d = st.occ[t]
    n = st.cnt[t]
    if d == NONE:
        clear_region(st, t, -1)
        return NONE, -1
    dseat = seat_of(st, d)
    if d == LOST:
        discard_token(st, LOST, True)  # SW-80(a), NEC-10
    elif d == GHOSTS:  # NEC-14
        st.well_ghosts += 1
        st.kept[GHOSTS] += n - 1
    elif race_ability(st, d, D.ELVES):  # SW-132
        st.kept[d] += n
    else:
        st.kept[d] += n - 1
        discard_token(st, d, True)
    st.occ[t] = NONE
    st.cnt[t] = 0
    clear_region(st, t, dseat)
    if 0 <= d < D.N_RACES and st.in_decline[d] and tokens_of(st, d) == 0:
        leave_play(st, d, ev)  # SW-103
    return d, dseat


def record_conquest(st, k, d, dseat, nonempty):
    st.t_conquests[k] += 1
    st.t_nonempty[k] += 1 if nonempty else 0
    if dseat >= 0 and dseat != st.cur and d == active_force(st, dseat) and dseat not in st.attacked:
        st.attacked.append(dseat)


def conquer(st, k, t, tokens, ev, how, cost, roll=-1):
    """SW-67: defenders leave, markers are handled, the attacker's tokens are placed."""
    nonempty = st.occ[t] != NONE  # SW-6
    d, dseat = take_defenders(st, t, ev)
    st.occ[t] = k
    st.cnt[t] = tokens
    st.hand[k] -= tokens
    if race_ability(st, k, D.TROLLS) and opt(st, "lair_on_conquest") and sum(st.lair) < D.MARKERS["troll_lair"]:
        st.lair[t] = 1  # SW-142
    if race_ability(st, k, D.HALFLINGS):  # SW-135
        if opt(st, "halfling_holes_reusable"):
            if sum(st.hole) < D.MARKERS["hole_in_the_ground"]:
                st.hole[t] = 1
        elif st.holes_placed < D.MARKERS["hole_in_the_ground"]:
            st.hole[t] = 1
            st.holes_placed += 1
    if how == "dragon":  # SW-155
        for r in range(len(st.dragon)):
            st.dragon[r] = 0
        st.dragon[t] = 1
        st.dragon_used = 1
    record_conquest(st, k, d, dseat, nonempty)
    ev.append(Event("conquered", {
        "seat": st.cur, "race": D.kind_key(k), "region": t, "cost": cost, "tokens": tokens,
        "defender_race": D.kind_key(d), "defender_seat": dseat, "nonempty": nonempty, "how": how, "roll": roll}))


def convert(st, t, ev):
    """SW-140 conversion by the active Sorcerers."""
    S = D.SORCERERS
    d = st.occ[t]
    dseat = st.owner[d]
    discard_token(st, d, opt(st, "sorcerer_victim_to_well"))  # ED-39
    st.occ[t] = S
    st.cnt[t] = 1
    clear_region(st, t, dseat)
    st.supply[S] -= 1
    st.converted.append(dseat)
    st.t_conquests[S] += 1
    if opt(st, "conversion_counts_as_conquest"):  # ED-21
        st.t_nonempty[S] += 1
        if dseat not in st.attacked:
            st.attacked.append(dseat)
    ev.append(Event("converted", {"seat": st.cur, "region": t, "victim_race": D.kind_key(d), "victim_seat": dseat}))


def abandon(st, k, r, ev, to_aside=False):
    """SW-93: the last token goes to hand; Holes, Lairs and Fortresses go; other pieces return."""
    n = st.cnt[r]
    st.occ[r] = NONE
    st.cnt[r] = 0
    if to_aside:
        st.aside[k] += n
    else:
        st.hand[k] += n
    clear_region(st, r, seat_of(st, k))
    ev.append(Event("abandoned", {"seat": seat_of(st, k), "race": D.kind_key(k), "region": r}))


def ready_troops(st, k, ev):
    """SW-92 (and NEC-21 for Ghosts): one token stays per region, the rest comes to hand."""
    occ, cnt = st.occ, st.cnt
    for r in range(len(occ)):
        if occ[r] == k and cnt[r] > 1:
            st.hand[k] += cnt[r] - 1
            cnt[r] = 1
    st.hand[k] += st.kept[k] + st.aside[k]
    st.kept[k] = 0
    st.aside[k] = 0
    if k == GHOSTS:
        st.hand[k] += st.island
        st.island = 0
    ev.append(Event("troops_readied", {"seat": seat_of(st, k), "race": D.kind_key(k), "hand": st.hand[k]}))


def refill_row(st, ev):
    """SW-44 / SW-46: fill the combo row from the decks; rebuild the power deck from the discards."""
    size = opt(st, "combo_row_size")
    while len(st.row) < size and st.race_deck:
        if not st.power_deck:
            if not st.discard:
                break
            st.power_deck = st.discard[:]
            st.rng.shuffle(st.power_deck)
            st.discard = []
            ev.append(Event("power_deck_rebuilt", {"size": len(st.power_deck)}))
        st.row.append([st.race_deck.pop(0), st.power_deck.pop(0), 0])
        ev.append(Event("combo_revealed", {"position": len(st.row) - 1, "race": D.kind_key(st.row[-1][0]),
                                           "power": D.power_key(st.row[-1][1])}))


def leave_play(st, k, ev):
    """SW-45: the banner goes under the race deck; a kept badge is discarded."""
    seat = st.owner[k]
    for r in regions_of(st, k):
        st.supply[k] += st.cnt[r]
        st.occ[r] = NONE
        st.cnt[r] = 0
        clear_region(st, r, -1)
    st.supply[k] += st.hand[k] + st.kept[k] + st.aside[k]
    st.hand[k] = st.kept[k] = st.aside[k] = 0
    if seat >= 0:
        if k in st.declines[seat]:
            st.declines[seat].remove(k)
        if st.active[seat] == k:
            st.active[seat] = NONE
    if st.power_of[k] >= 0:
        st.discard.append(st.power_of[k])
        st.power_of[k] = -1
    st.owner[k] = -1
    st.in_decline[k] = 0
    st.race_deck.append(k)
    ev.append(Event("race_left_play", {"race": D.kind_key(k), "seat": seat}))
    refill_row(st, ev)


def go_into_decline(st, seat, ev, stout=False):
    """SW-100 (a)-(e)."""
    x = st.active[seat]
    px = st.power_of[x]
    if px != D.SPIRIT:  # SW-104, SW-165
        for y in list(st.declines[seat]):
            if st.power_of[y] != D.SPIRIT:
                leave_play(st, y, ev)  # (a) tokens, Lairs and Fortresses to the supply
    out = 0
    for r in regions_of(st, x):  # (b), (c)
        if x != D.GHOULS and st.cnt[r] > 1:
            out += st.cnt[r] - 1
            st.cnt[r] = 1
        st.camps[r] = 0  # (e)
        st.hero[r] = 0
        st.dragon[r] = 0
        st.hole[r] = 0
    out += st.hand[x] + st.kept[x]
    st.hand[x] = st.kept[x] = 0
    st.supply[x] += st.aside[x]  # NEC-11: Amazon set-aside tokens to the supply
    st.aside[x] = 0
    if x == D.ELVES and st.necro >= 0 and opt(st, "elves_decline_to_well"):  # NEC-12
        if opt(st, "elves_decline_all_to_well"):  # ED-46: none stays on the map
            for r in regions_of(st, x):
                out += st.cnt[r]
                st.occ[r] = NONE
                st.cnt[r] = 0
                clear_region(st, r, -1)
        st.well.extend([x] * out)
    else:
        st.supply[x] += out
    if D.BIVOUACKING == px:
        st.camp_hand[seat] = 0
    if px >= 0 and px not in (D.SPIRIT, D.SEAFARING):  # (d), SW-46
        st.discard.append(px)
        st.power_of[x] = -1
    st.in_decline[x] = 1
    st.active[seat] = NONE
    st.declines[seat].append(x)
    ev.append(Event("declined", {"seat": seat, "race": D.kind_key(x), "stout": stout}))
    if on_map(st, x) == 0:
        leave_play(st, x, ev)  # SW-54


def pick_combo(st, seat, k, ev):
    """SW-40 - SW-44."""
    race, power, coins_on = st.row[k]
    st.coins[seat] -= k
    for i in range(k):
        st.row[i][2] += 1
    st.coins[seat] += coins_on
    del st.row[k]
    refill_row(st, ev)
    want = D.BANNER[race] + D.EXTRA[race] + D.BADGE[power]
    take = min(want, st.supply[race])  # SW-43
    st.supply[race] -= take
    st.hand[race] += take
    st.owner[race] = seat
    st.active[seat] = race
    st.in_decline[race] = 0
    st.power_of[race] = power
    if power == D.WEALTHY:
        st.wealthy_due[seat] = 1
    if power == D.BIVOUACKING:  # SW-152: the 5 Encampments come with the badge
        st.camp_hand[seat] = D.MARKERS["encampment"]
    if race == D.HALFLINGS:
        st.holes_placed = 0
    ev.append(Event("combo_picked", {"seat": seat, "position": k, "race": D.kind_key(race),
                                     "power": D.power_key(power), "paid": k, "collected": coins_on,
                                     "tokens": take}))


# ---------------------------------------------------------------- Necromancer helpers

def well_conversion(st, ev):
    """NEC-16: while 4+ tokens, remove 4 (Ghosts first), then one Ghost from the reserve to the Island."""
    lifo = opt(st, "well_removal_order") == "lifo"
    while st.well_ghosts + len(st.well) >= 4:
        g = min(4, st.well_ghosts)
        st.well_ghosts -= g
        st.ghost_reserve += g
        out = []
        for _ in range(4 - g):
            k = st.well.pop() if lifo else st.well.pop(0)
            out.append(D.kind_key(k))
            if k >= 0:
                st.supply[k] += 1
        moved = 0
        if st.ghost_reserve > 0:
            st.ghost_reserve -= 1
            st.island += 1
            moved = 1
        ev.append(Event("well_converted", {"ghosts": g, "tokens": out, "island": moved}))
    win_check(st, ev, immediate_only=True)


def necro_complete(st):
    """NEC-28: every Ghost on a region or on the Island."""
    return st.ghost_reserve == 0 and st.well_ghosts == 0 and st.hand[GHOSTS] == 0 and st.kept[GHOSTS] == 0


def win_check(st, ev, immediate_only):
    if st.necro < 0 or st.over:
        return
    if immediate_only and opt(st, "necro_win_check") != "immediate":
        return
    if necro_complete(st):
        st.necro_won = 1
        ev.append(Event("necromancer_victory", {"seat": st.necro}))
        end_game(st, ev)


# ---------------------------------------------------------------- scoring and end

def score_turn(st, seat, ev):
    """SW-110 / SW-111 (NEC-26 for the Necromancer)."""
    b = st.board
    gained = 0
    if seat == st.necro:
        regs = regions_of(st, GHOSTS)
        gained += len(regs)
        gained += power_bonus(st, GHOSTS, regs)
        if D.WEALTHY in powers(st, GHOSTS) and not st.necro_wealthy_paid:  # ED-45
            gained += 7
            st.necro_wealthy_paid = 1
    else:
        for k in kinds_of(st, seat):
            regs = regions_of(st, k)
            gained += len(regs)
            if k == D.DWARVES:  # SW-131, also in decline
                gained += sum(1 for r in regs if "mine" in b.symbols[r])
        a = st.active[seat]
        if a >= 0:
            regs = regions_of(st, a)
            if a == D.HUMANS:
                gained += sum(1 for r in regs if b.terrain[r] == "farmland")
            elif a == D.WIZARDS:
                gained += sum(1 for r in regs if "magic_source" in b.symbols[r])
            elif a == D.ORCS:
                gained += st.t_nonempty[a]
            gained += power_bonus(st, a, regs)
        if st.wealthy_due[seat]:  # SW-169
            gained += 7
            st.wealthy_due[seat] = 0
    st.coins[seat] += gained
    to = None if opt(st, "public_coins") else seat
    ev.append(Event("scored", {"seat": seat, "coins": gained, "total": st.coins[seat]}, to))


def power_bonus(st, k, regs):
    b = st.board
    g = 0
    for p in powers(st, k):
        if p == D.ALCHEMIST:
            g += 2
        elif p == D.FOREST:
            g += sum(1 for r in regs if b.terrain[r] == "forest")
        elif p == D.HILL:
            g += sum(1 for r in regs if b.terrain[r] == "hill")
        elif p == D.SWAMP:
            g += sum(1 for r in regs if b.terrain[r] == "swamp")
        elif p == D.MERCHANT:
            g += len(regs)
        elif p == D.PILLAGING:
            g += st.t_nonempty[k]
        elif p == D.FORTIFIED:
            g += sum(st.fort[r] for r in regs)
    return g


def tiebreak_tokens(st, seat):
    """SW-114: race tokens on the map (NEC-29: Ghosts on regions; Island per ED-43)."""
    if seat == st.necro:
        return on_map(st, GHOSTS) + (st.island if opt(st, "necro_tiebreak_island") else 0)
    return sum(on_map(st, k) for k in kinds_of(st, seat))


def outcome_keys(st):
    return [(1 if (st.necro_won and s == st.necro) else 0, st.coins[s], tiebreak_tokens(st, s))
            for s in range(st.nseats)]


def end_game(st, ev):
    st.over = 1
    st.phase = "over"
    ranks, winners = rank_by(outcome_keys(st))
    ev.append(Event("game_over", {"coins": list(st.coins), "ranks": list(ranks), "winners": list(winners),
                                  "necromancer_victory": bool(st.necro_won)}))


# ---------------------------------------------------------------- turn flow

def reset_turn(st):
    for i in range(D.N_KINDS):
        st.t_conquests[i] = 0
        st.t_nonempty[i] = 0
    st.attacked = []
    st.converted = []
    st.def_queue = []
    st.dragon_used = 0
    st.fort_done = 0
    st.aside_due = -1
    st.roll = -1
    st.decline_turn = 0
    st.after_ghouls = ""
    st.eot = 0
    st.necro_bought = 0
    st.force = NONE
    st.heroes_placed_turn = 0


def start_turn(st, ev):
    seat = st.order[st.turn_idx]
    st.cur = seat
    reset_turn(st)
    st.peace[seat] = -1  # SW-154: the peace lasts until the Diplomat's next turn
    ev.append(Event("turn_started", {"seat": seat, "round": st.round}))
    if seat == st.necro:
        st.phase = "purchase"
        if not purchase_moves(st):
            end_purchases(st, ev)
    elif st.active[seat] >= 0:
        st.phase = "start"
    else:
        if opt(st, "decline_ghouls_full_phase"):
            ghouls_then(st, "pick", ev)  # SW-133 / ED-14
        else:
            st.phase = "pick"


def ghoul_phase_due(st, seat):
    g = D.GHOULS
    return st.owner[g] == seat and st.in_decline[g] and tokens_of(st, g) > 0


def ghouls_then(st, then, ev):
    if ghoul_phase_due(st, st.cur):
        st.after_ghouls = then
        ready_troops(st, D.GHOULS, ev)
        enter_conquest(st, D.GHOULS, ev)
    else:
        after_ghouls(st, then, ev)


def after_ghouls(st, then, ev):
    st.after_ghouls = ""
    if then == "pick":
        st.phase = "pick"
    elif then == "active":
        a = st.active[st.cur]
        ready_troops(st, a, ev)
        enter_conquest(st, a, ev)
    elif then == "decline":
        go_into_decline(st, st.cur, ev)
        continue_eot(st, ev, start="score")


def enter_conquest(st, k, ev):
    st.phase = "conquest"
    st.force = k
    st.roll = -1
    maybe_end_conquest(st, ev)


def maybe_end_conquest(st, ev):
    """Skip a decision that has only one answer: no token in hand, nothing to abandon or convert."""
    k = st.force
    if st.hand[k] > 0 and st.roll < 0:
        return
    if st.roll >= 0:
        if len(conquest_moves(st)) > 1:
            return
        ev.append(Event("conquest_ended", {"seat": st.cur, "race": D.kind_key(k), "reason": "no_affordable_target"}))
        begin_redeploy(st, ev)
        return
    if len(conquest_moves(st)) > 1:
        return
    begin_redeploy(st, ev)


def begin_redeploy(st, ev):
    """SW-95: Skeletons first, then free redistribution, pieces, Amazons."""
    k = st.force
    st.phase = "redeploy"
    st.roll = -1
    if race_ability(st, k, D.SKELETONS):  # SW-139
        n = min(st.t_nonempty[k] // 2, st.supply[k])
        if n:
            st.supply[k] -= n
            st.hand[k] += n
            ev.append(Event("skeletons_raised", {"seat": st.cur, "tokens": n}))
    occ, cnt = st.occ, st.cnt
    for r in range(len(occ)):
        if occ[r] == k and cnt[r] > 1:
            st.hand[k] += cnt[r] - 1
            cnt[r] = 1
    ps = powers(st, k)
    if D.BIVOUACKING in ps:  # SW-152: place or move the Encampments
        for r in range(len(occ)):
            if occ[r] == k and st.camps[r]:
                st.camp_hand[st.cur] += st.camps[r]
                st.camps[r] = 0
    st.fort_done = 0 if D.FORTIFIED in ps else 1
    st.aside_due = -1
    advance_redeploy(st, ev)


def redeploy_step(st):
    k = st.force
    regs = regions_of(st, k)
    if st.hand[k] > 0 and regs:
        return "tokens", regs
    if st.camp_hand[st.cur] > 0 and D.BIVOUACKING in powers(st, k) and regs:
        return "camps", regs
    if not st.fort_done:
        return "fortress", regs
    if st.aside_due != 0 and race_ability(st, k, D.AMAZONS):
        return "amazons", regs
    return "", regs


def fortress_regions(st, regs):
    if sum(st.fort) >= D.MARKERS["fortress"]:
        return []
    return [r for r in regs if not st.fort[r]]


def aside_regions(st, regs):
    many = [r for r in regs if st.cnt[r] >= 2]
    if many:
        return many
    return regs if opt(st, "amazons_removal_may_abandon") else []


def deploy(st, k, r, n, ev, seat, from_kept=False):
    if from_kept:
        st.kept[k] -= n
    else:
        st.hand[k] -= n
    if r < 0:
        st.island += n
    else:
        st.cnt[r] += n
    ev.append(Event("deployed", {"seat": seat, "race": D.kind_key(k), "region": r, "count": n}))


def advance_redeploy(st, ev):
    k = st.force
    while True:
        step, regs = redeploy_step(st)
        if step == "tokens":
            if len(regs) == 1 and not (k == GHOSTS and opt(st, "necro_island_redeploy")):
                deploy(st, k, regs[0], st.hand[k], ev, st.cur)
                continue
            return
        if step == "camps":
            if len(regs) == 1:
                n = st.camp_hand[st.cur]
                st.camps[regs[0]] += n
                st.camp_hand[st.cur] = 0
                ev.append(Event("encampment_placed", {"seat": st.cur, "region": regs[0], "count": n}))
                continue
            return
        if step == "fortress":
            if not fortress_regions(st, regs):
                st.fort_done = 1
                continue
            return
        if step == "amazons":
            if st.aside_due < 0:
                total = sum(st.cnt[r] for r in regs)
                if not opt(st, "amazons_removal_may_abandon"):
                    total -= len(regs)
                st.aside_due = min(4, total)  # SW-130
                continue
            cands = aside_regions(st, regs)
            if not cands:
                st.aside_due = 0
                continue
            if len(cands) == 1:
                set_aside(st, cands[0], ev)
                continue
            return
        finish_redeploy(st, ev)
        return


def set_aside(st, r, ev):
    k = st.force
    if st.cnt[r] == 1:
        abandon(st, k, r, ev, to_aside=True)  # ED-19
    else:
        st.cnt[r] -= 1
        st.aside[k] += 1
    st.aside_due -= 1
    ev.append(Event("set_aside", {"seat": st.cur, "region": r}))


def finish_redeploy(st, ev):
    k = st.force
    if race_ability(st, k, D.TROLLS) and not opt(st, "lair_on_conquest"):  # ED-26 alternative
        for r in regions_of(st, k):
            if not st.lair[r] and sum(st.lair) < D.MARKERS["troll_lair"]:
                st.lair[r] = 1
    if k == GHOSTS and st.hand[k] > 0:  # NEC-23: no region, back to the Island
        deploy(st, k, -1, st.hand[k], ev, st.cur)
    ev.append(Event("redeployed", {"seat": st.cur, "race": D.kind_key(k)}))
    if k == GHOSTS:
        win_check(st, ev, immediate_only=True)
        if st.over:
            return
    st.force = NONE
    if st.after_ghouls:
        after_ghouls(st, st.after_ghouls, ev)
    else:
        continue_eot(st, ev, start="heroes")


def eot_steps(st):
    return NECRO_EOT if st.cur == st.necro else NORMAL_EOT


def ally_candidates(st):
    out = []
    for s in range(st.nseats):
        if s == st.cur or s in st.attacked:
            continue
        if s == st.necro and not opt(st, "diplomat_may_name_necromancer"):  # ED-44
            continue
        out.append(s)
    return out


def continue_eot(st, ev, start=None):
    """SW-52 end of turn, step by step; stops at each decision."""
    steps = eot_steps(st)
    if start is not None:
        st.eot = steps.index(start)
    st.phase = "end_turn"
    while not st.over:
        step = steps[st.eot]
        f = active_force(st, st.cur)
        if step == "heroes":
            if f >= 0 and D.HEROIC in powers(st, f) and not st.heroes_placed_turn:
                regs = regions_of(st, f)
                for r in regs:
                    st.hero[r] = 0
                if 1 <= len(regs) <= 2:
                    place_heroes(st, tuple(regs), ev)
                elif regs:
                    st.phase = "heroes"
                    return
        elif step == "ally":
            if f >= 0 and D.DIPLOMAT in powers(st, f) and ally_candidates(st):
                st.phase = "ally"
                return
        elif step == "score":
            score_turn(st, st.cur, ev)
            if st.cur == st.necro and not opt(st, "necro_summon_optional"):
                summon(st, ev)
        elif step == "stout":
            a = st.active[st.cur]
            if a >= 0 and not st.decline_turn and D.STOUT in powers(st, a):
                st.phase = "stout"
                return
        elif step == "summon":
            if opt(st, "necro_summon_optional") and regions_of(st, GHOSTS):
                st.phase = "summon"
                return
        elif step == "convert":
            if st.necro >= 0:
                well_conversion(st, ev)
        elif step == "defend":
            if not st.def_queue:
                st.def_queue = defender_queue(st)
            if advance_defend(st, ev):
                st.phase = "defend"
                return
        elif step == "check":
            win_check(st, ev, immediate_only=False)
        elif step == "next":
            next_turn(st, ev)
            return
        st.eot += 1


def place_heroes(st, regs, ev):
    for r in regs:
        st.hero[r] = 1
    st.heroes_placed_turn = 1
    ev.append(Event("heroes_placed", {"seat": st.cur, "regions": list(regs)}))


def summon(st, ev):
    n = len(regions_of(st, GHOSTS))  # NEC-27: one soul per Ghost region, not the Island
    if n:
        st.well.extend([D.SOUL] * n)
        ev.append(Event("souls_summoned", {"seat": st.necro, "count": n}))


def defender_queue(st):
    start = st.cur if opt(st, "defender_redeploy_order") == "from_current" else st.order[0]
    q = []
    for i in range(st.nseats):
        s = (start + i) % st.nseats if start == st.cur else st.order[i]
        if any(st.kept[k] for k in kinds_of(st, s)) or st.camp_hand[s]:
            q.append(s)
    return q


def bivouac_force(st, s):
    f = active_force(st, s)
    return f if f >= 0 and D.BIVOUACKING in powers(st, f) else NONE


def defend_pending(st, s, ev):
    """Auto-place what has one answer; True when seat s still has a choice (SW-82, NEC-15)."""
    choice = False
    for k in kinds_of(st, s):
        if not st.kept[k]:
            continue
        regs = regions_of(st, k)
        if not regs:
            if k == GHOSTS:
                deploy(st, k, -1, st.kept[k], ev, s, from_kept=True)
                win_check(st, ev, immediate_only=True)
            continue
        if len(regs) == 1 and not (k == GHOSTS and opt(st, "necro_island_redeploy")):
            deploy(st, k, regs[0], st.kept[k], ev, s, from_kept=True)
            if k == GHOSTS:
                win_check(st, ev, immediate_only=True)
            continue
        choice = True
    if st.camp_hand[s]:
        f = bivouac_force(st, s)
        regs = regions_of(st, f) if f >= 0 else []
        if len(regs) == 1:
            n = st.camp_hand[s]
            st.camps[regs[0]] += n
            st.camp_hand[s] = 0
            ev.append(Event("encampment_placed", {"seat": s, "region": regs[0], "count": n}))
        elif regs:
            choice = True
    return choice


def advance_defend(st, ev):
    while st.def_queue and not st.over:
        if defend_pending(st, st.def_queue[0], ev):
            return True
        st.def_queue.pop(0)
    return False


def next_turn(st, ev):
    st.turn_idx += 1
    if st.turn_idx == len(st.order):
        st.turn_idx = 0
        if st.round >= st.rounds:  # SW-32
            end_game(st, ev)
            return
        st.round += 1  # SW-31
        ev.append(Event("round_started", {"round": st.round}))
    start_turn(st, ev)


def end_purchases(st, ev):
    ready_troops(st, GHOSTS, ev)  # NEC-21
    enter_conquest(st, GHOSTS, ev)


def purchase_moves(st):
    if st.necro_bought and not opt(st, "necro_multi_purchase"):  # ED-30
        return []
    p = price(st)
    if st.coins[st.necro] < p:
        return []
    moves = []
    if st.ghost_reserve > 0:
        moves.append(BuyGhost())
    moves.extend(BuyPower(D.power_key(q)) for q in st.necro_reserve)
    return moves


# ---------------------------------------------------------------- legality

PHASE_RULE = {"start": "SW-50", "pick": "SW-47", "conquest": "SW-60", "redeploy": "SW-95", "heroes": "SW-159",
              "ally": "SW-154", "stout": "SW-166", "defend": "SW-82", "purchase": "NEC-19",
              "necro_setup": "NEC-4", "summon": "NEC-27", "over": "SW-32"}


def seats_to_act(st):
    if st.over:
        return []
    if st.phase == "defend":
        return [st.def_queue[0]]
    return [st.cur]


def legal_moves(st, seat):
    if st.over or seat not in seats_to_act(st):
        return []
    ph = st.phase
    if ph == "start":
        ms = [Expand(), Decline()]
        if is_wiped(st, seat) and opt(st, "wiped_race_may_pick"):
            ms.extend(pick_moves(st, seat))
        return ms
    if ph == "pick":
        return pick_moves(st, seat)
    if ph == "conquest":
        return conquest_moves(st)
    if ph == "redeploy":
        return redeploy_moves(st)
    if ph == "heroes":
        regs = regions_of(st, active_force(st, seat))
        return [PlaceHeroes((a, b)) for i, a in enumerate(regs) for b in regs[i + 1:]]
    if ph == "ally":
        return [NameAlly(s) for s in ally_candidates(st)] + [Pass()]
    if ph == "stout":
        return [Decline(), Pass()]
    if ph == "summon":
        return [Summon(), Pass()]
    if ph == "defend":
        return defend_moves(st, seat)
    if ph == "purchase":
        return purchase_moves(st) + [EndPurchases()]
    if ph == "necro_setup":
        return [ChoosePower(D.power_key(p)) for p in st.necro_reserve]
    return []


def pick_moves(st, seat):
    return [PickCombo(k) for k in range(len(st.row)) if st.coins[seat] >= k]


def deploy_moves(st, k, regs, n, island):
    ms = [Deploy(r, c) for r in regs for c in range(1, n + 1)]
    if island:
        ms.extend(Deploy(-1, c) for c in range(1, n + 1))
    return ms


def redeploy_moves(st):
    k = st.force
    step, regs = redeploy_step(st)
    if step == "tokens":
        return deploy_moves(st, k, regs, st.hand[k], k == GHOSTS and opt(st, "necro_island_redeploy"))
    if step == "camps":
        return [PlaceEncampment(r) for r in regs]
    if step == "fortress":
        return [PlaceFortress(r) for r in fortress_regions(st, regs)] + [Pass()]
    if step == "amazons":
        return [SetAside(r) for r in aside_regions(st, regs)]
    return []


def defend_moves(st, seat):
    ms = []
    for k in kinds_of(st, seat):
        if st.kept[k]:
            regs = regions_of(st, k)
            if regs:
                ms.extend(deploy_moves(st, k, regs, st.kept[k], k == GHOSTS and opt(st, "necro_island_redeploy")))
    if st.camp_hand[seat]:
        f = bivouac_force(st, seat)
        if f >= 0:
            ms.extend(PlaceEncampment(r) for r in regions_of(st, f))
    return ms


def check(st, seat, move):
    """None if legal, else (rule id, sentence). Never mutates."""
    if st.over:
        return ("SW-32", "the game is over")
    if seat not in seats_to_act(st):
        if st.phase == "defend":
            return ("SW-82", f"seat {st.def_queue[0]} is redeploying its defenders now")
        return ("SW-30", f"it is seat {st.cur}'s turn")
    if move in legal_moves(st, seat):
        return None
    return diagnose(st, seat, move)


def diagnose(st, seat, move):
    """The most specific rule an illegal move breaks."""
    ph = st.phase
    t = type(move)
    base = (PHASE_RULE.get(ph, "SW-50"), f"{t.__name__} is not a legal move in phase {ph}")
    if t is PickCombo:
        if ph == "necro_setup":
            return ("NEC-4", "the Necromancer first chooses one of his six drawn powers")
        if seat == st.necro:
            return ("NEC-8", "the Necromancer never picks combos")
        if ph not in ("pick", "start"):
            return ("SW-47", "a combo may be picked only without an active race")
        if not 0 <= move.position < len(st.row):
            return ("SW-40", f"there is no combo at position {move.position}")
        if st.coins[seat] < move.position:
            return ("SW-40", f"position {move.position} costs {move.position} coins")
        return ("SW-47", "a combo may be picked only without an active race")
    if ph == "conquest" and t in (Conquer, FinalAttempt, DragonAttack, Abandon, Convert, BerserkRoll):
        k = st.force
        regs = regions_of(st, k)
        if t is Abandon:
            if not can_abandon(st, k):
                return ("SW-93", "regions may be abandoned only before the first conquest")
            return ("SW-93", f"region {move.region} is not a region of the conquering race")
        if t is BerserkRoll:
            if D.BERSERK not in powers(st, k):
                return ("SW-151", "only a Berserk race rolls first")
            return ("SW-151", "the Berserk roll needs a token in hand and no pending roll")
        if t is Convert:
            if not race_ability(st, k, D.SORCERERS):
                return ("SW-140", "only active Sorcerers convert")
            return conversion_error(st, move.region, regs) or base
        if st.hand[k] < 1:
            return ("SW-60", "the conquering race has no token in hand")
        e = target_error(st, k, move.region, regs)
        if e:
            return e
        c = conquest_cost(st, k, move.region)
        if t is Conquer:
            if st.roll >= 0:
                return ("SW-151", f"the region costs {max(1, c - st.roll)} after the roll; hand holds {st.hand[k]}")
            return ("SW-64", f"region {move.region} costs {c}; hand holds {st.hand[k]}")
        if t is FinalAttempt:
            if not has_final_attempt(st, k):
                return ("SW-151", "a Berserk race has no separate final attempt")
            if st.roll >= 0:
                return ("SW-151", "use the pending Berserk roll first")
            return ("SW-90", f"the final attempt needs a shortfall of 1 to 3, not {c - st.hand[k]}")
        if t is DragonAttack:
            if D.DRAGON_MASTER not in powers(st, k):
                return ("SW-155", "only Dragon Master attacks with the Dragon")
            return ("SW-155", "the Dragon attacks once per turn")
    if t is Deploy:
        if ph == "redeploy":
            k = st.force
            if move.count < 1 or move.count > st.hand[k]:
                return ("SW-95", f"hand holds {st.hand[k]} tokens")
            if move.region < 0:
                return ("NEC-23", "Ghosts return to the Island only when they hold no region")
            return ("SW-95", f"region {move.region} is not a region of the redeploying race")
        if ph == "defend":
            return ("SW-82", "kept tokens go on regions still held by the same race")
    if t in (PlaceEncampment, PlaceFortress, SetAside):
        rule = {PlaceEncampment: "SW-152", PlaceFortress: "SW-158", SetAside: "SW-130"}[t]
        return (rule, f"{t.__name__}({move.region}) is not allowed now")
    if t is PlaceHeroes:
        return ("SW-159", "the Heroes go on two different regions of the race")
    if t is NameAlly:
        return ("SW-154", f"seat {move.seat} may not be named ally")
    if t in (BuyGhost, BuyPower):
        if ph == "purchase":
            if st.coins[seat] < price(st):
                return ("NEC-19", f"a purchase costs {price(st)} coins")
            if st.necro_bought and not opt(st, "necro_multi_purchase"):
                return ("ED-30", "one purchase per turn")
            return ("NEC-20", "nothing of that kind left in the reserve")
    if t is ChoosePower:
        return ("NEC-4", f"{move.power!r} is not one of the drawn powers")
    return base


# ---------------------------------------------------------------- apply

def apply(st, seat, move):
    err = check(st, seat, move)
    if err:
        raise IllegalMove(*err)
    ev = []
    t = type(move)
    ph = st.phase
    if t is Expand:
        ev.append(Event("expanded", {"seat": seat}))
        ghouls_then(st, "active", ev)
    elif t is Decline:
        if ph == "stout":  # SW-166
            go_into_decline(st, seat, ev, stout=True)
            st.eot += 1
            continue_eot(st, ev)
        else:
            st.decline_turn = 1
            if opt(st, "decline_turn_blocks_ghouls"):
                after_ghouls(st, "decline", ev)
            else:
                ghouls_then(st, "decline", ev)
    elif t is PickCombo:
        if ph == "start":  # ED-25 alternative: the wiped race leaves play first
            leave_play(st, st.active[seat], ev)
        pick_combo(st, seat, move.position, ev)
        if ph == "start" or not opt(st, "decline_ghouls_full_phase"):
            ghouls_then(st, "active", ev)
        else:
            after_ghouls(st, "active", ev)
    elif t is Abandon:
        abandon(st, st.force, move.region, ev)
        maybe_end_conquest(st, ev)
    elif t is Conquer:
        k = st.force
        c = conquest_cost(st, k, move.region)
        roll = st.roll
        n = max(1, c - roll) if roll >= 0 else c
        st.roll = -1
        conquer(st, k, move.region, n, ev, "berserk" if roll >= 0 else "normal", c, roll)
        maybe_end_conquest(st, ev)
    elif t is FinalAttempt:  # SW-90
        k = st.force
        c = conquest_cost(st, k, move.region)
        roll = st.rng.choice(D.DIE)
        ok = st.hand[k] + roll >= c
        ev.append(Event("die_rolled", {"seat": seat, "race": D.kind_key(k), "roll": roll, "purpose": "final_attempt",
                                       "region": move.region, "success": ok}))
        if ok:
            conquer(st, k, move.region, st.hand[k], ev, "final_attempt", c, roll)
        ev.append(Event("conquest_ended", {"seat": seat, "race": D.kind_key(k), "reason": "final_attempt"}))
        begin_redeploy(st, ev)
    elif t is BerserkRoll:  # SW-151
        k = st.force
        st.roll = st.rng.choice(D.DIE)
        ev.append(Event("die_rolled", {"seat": seat, "race": D.kind_key(k), "roll": st.roll, "purpose": "berserk",
                                       "region": -1, "success": True}))
        maybe_end_conquest(st, ev)
    elif t is DragonAttack:
        k = st.force
        conquer(st, k, move.region, 1, ev, "dragon", 1)
        maybe_end_conquest(st, ev)
    elif t is Convert:
        convert(st, move.region, ev)
        maybe_end_conquest(st, ev)
    elif t is EndConquest:
        ev.append(Event("conquest_ended", {"seat": seat, "race": D.kind_key(st.force), "reason": "stopped"}))
        begin_redeploy(st, ev)
    elif t is Deploy:
        if ph == "redeploy":
            deploy(st, st.force, move.region, move.count, ev, seat)
            advance_redeploy(st, ev)
        else:
            k = st.occ[move.region] if move.region >= 0 else GHOSTS
            deploy(st, k, move.region, move.count, ev, seat, from_kept=True)
            if k == GHOSTS:
                win_check(st, ev, immediate_only=True)
            resume_defend(st, ev)
    elif t is PlaceEncampment:
        st.camps[move.region] += 1
        st.camp_hand[seat] -= 1
        ev.append(Event("encampment_placed", {"seat": seat, "region": move.region, "count": 1}))
        if ph == "redeploy":
            advance_redeploy(st, ev)
        else:
            resume_defend(st, ev)
    elif t is PlaceFortress:
        st.fort[move.region] = 1
        st.fort_done = 1
        ev.append(Event("fortress_placed", {"seat": seat, "region": move.region}))
        advance_redeploy(st, ev)
    elif t is SetAside:
        set_aside(st, move.region, ev)
        advance_redeploy(st, ev)
    elif t is PlaceHeroes:
        place_heroes(st, move.regions, ev)
        st.eot += 1
        continue_eot(st, ev)
    elif t is NameAlly:
        st.peace[seat] = move.seat
        ev.append(Event("ally_named", {"seat": seat, "ally": move.seat}))
        st.eot += 1
        continue_eot(st, ev)
    elif t is Pass:
        if ph == "redeploy":
            st.fort_done = 1
            advance_redeploy(st, ev)
        else:
            st.eot += 1
            continue_eot(st, ev)
    elif t is Summon:
        summon(st, ev)
        st.eot += 1
        continue_eot(st, ev)
    elif t is ChoosePower:
        p = D.power_from_key(move.power)
        st.necro_reserve.remove(p)
        activate_necro_power(st, p)
        ev.append(Event("power_activated", {"seat": seat, "power": move.power, "price": 0}))
        st.turn_idx = 0
        start_turn(st, ev)
    elif t is BuyGhost:  # NEC-20
        p = price(st)
        st.coins[seat] -= p
        st.ghost_reserve -= 1
        st.island += 1
        st.necro_bought += 1
        ev.append(Event("ghost_bought", {"seat": seat, "price": p}))
        win_check(st, ev, immediate_only=True)
        if not st.over and not purchase_moves(st):
            end_purchases(st, ev)
    elif t is BuyPower:
        p = price(st)
        q = D.power_from_key(move.power)
        st.coins[seat] -= p
        st.necro_reserve.remove(q)
        activate_necro_power(st, q)
        st.necro_bought += 1
        ev.append(Event("power_activated", {"seat": seat, "power": move.power, "price": p}))
        if not purchase_moves(st):
            end_purchases(st, ev)
    elif t is EndPurchases:
        end_purchases(st, ev)
    return ev


def activate_necro_power(st, p):
    st.necro_active.append(p)
    if p == D.BIVOUACKING:  # SW-152 via NEC-25
        st.camp_hand[st.necro] = D.MARKERS["encampment"]


def resume_defend(st, ev):
    if st.over:
        return
    if advance_defend(st, ev):
        return
    st.eot += 1
    continue_eot(st, ev)
